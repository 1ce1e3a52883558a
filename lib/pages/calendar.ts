/**
 * The demo calendar page: `web/calendar/index.html` at the site root, its
 * scripts and styles under `calendar-assets/`. Everything it shows comes from
 * the public REST API, called from the browser; the server only tells it
 * where the REST root is.
 */
import express, { NextFunction, Request, Response, Router } from "express";
import { homePath, linkFrom, NAMESPACE, pageAssets, PageOptions, restRootFor, sendPage, Template } from "./html";

export interface CalendarPageOptions extends PageOptions {
  /**
   * URL of the API reference page to link to: absolute, or relative to the
   * site home (`/docs`); `false` for no link. Default `/docs`.
   */
  docsPath?: string | false;
}

/** Where the calendar's own files are served, below the calendar's mount path. */
export const CALENDAR_ASSETS = "/calendar-assets";

export function createCalendarPage(options: CalendarPageOptions = {}): Router {
  const template = new Template("calendar/index.html");
  const router = express.Router();
  const mountPath = options.mountPath ?? "/";

  // Only the page itself: any other path falls through to the host's routes.
  router.get("/", (req: Request, res: Response, next: NextFunction) => {
    // `/?rest_route=…` is the REST API's; a host that mounts this page before
    // `site.rootMiddleware` must not shadow it.
    if (Object.prototype.hasOwnProperty.call(req.query, "rest_route")) {
      next();
      return;
    }
    const restRoot = restRootFor(options);
    const base = req.baseUrl.replace(/\/+$/, "");
    const docs = options.docsPath === false ? "" : linkFrom(homePath(req, mountPath), options.docsPath ?? "/docs");
    sendPage(
      res,
      template.render({
        assets: `${base}${CALENDAR_ASSETS}`,
        restRoot,
        namespace: NAMESPACE,
        docsUrl: docs,
      }),
      restRoot,
    );
  });

  router.use(CALENDAR_ASSETS, pageAssets("calendar"));
  return router;
}

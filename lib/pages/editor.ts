/**
 * The editor: a browser front end for every post type and taxonomy shown in
 * the REST API (`rest` in their config), generated in the browser from the
 * discovery routes (`wp/v2/types`, `wp/v2/taxonomies`) and the route
 * descriptions the namespace indexes publish. It talks only to the public
 * REST API; the server only tells it where that is and, for a host's cookie
 * login, hands it a nonce as WordPress's admin pages do.
 */
import express, { NextFunction, Request, Response, Router } from "express";
import { homePath, linkFrom, pageAssets, PageOptions, restRootFor, sendPage, Template } from "./html";

export interface EditorPageOptions extends PageOptions {
  /**
   * A nonce for the user a host's cookie login names on this page request
   * (`site.createNonce`), or `undefined` when there is none. The editor then
   * calls the API with the browser's cookies and `X-WP-Nonce`; without one
   * it asks for a user name and an application password.
   */
  nonceFor?: (req: Request) => Promise<string | undefined>;
  /** The calendar page to link to (relative to the site home, or absolute); `false` for none. Default `/`. */
  calendarPath?: string | false;
}

/** Where the editor's own files are served, below its mount path. */
export const EDITOR_ASSETS = "/editor-assets";

export function createEditorPage(options: EditorPageOptions = {}): Router {
  const template = new Template("editor/index.html");
  const router = express.Router();
  const mountPath = options.mountPath ?? "/editor";

  router.get("/", (req: Request, res: Response, next: NextFunction) => {
    const restRoot = restRootFor(options);
    const base = req.baseUrl.replace(/\/+$/, "");
    const calendar = options.calendarPath === false ? "" : linkFrom(homePath(req, mountPath), options.calendarPath ?? "/");
    (options.nonceFor?.(req) ?? Promise.resolve(undefined)).then(
      (nonce) => {
        const html = template.render({ assets: `${base}${EDITOR_ASSETS}`, restRoot, nonce: nonce ?? "", calendarUrl: calendar });
        sendPage(res, html, restRoot, { private: nonce !== undefined });
      },
      (err: unknown) => next(err),
    );
  });

  router.use(EDITOR_ASSETS, pageAssets("editor"));
  return router;
}

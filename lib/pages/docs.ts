/**
 * The API reference page: Swagger UI rendering the namespace's own `doc`
 * route. Swagger UI is served from the copy in `web/vendor/swagger-ui/`
 * (no CDN), so the page works offline and its code is the version we ship.
 * It is a copy, not the `swagger-ui-dist` package, because that package
 * brings a telemetry install script (tools/refresh-swagger-ui.ts refreshes it).
 */
import path from "node:path";
import express, { NextFunction, Request, Response, Router } from "express";
import { homePath, linkFrom, NAMESPACE, pageAssets, PageOptions, restRootFor, sendPage, Template, WEB_DIR } from "./html";

export interface DocsPageOptions extends PageOptions {
  /**
   * URL of the calendar page to link to: absolute, or relative to the site
   * home (`/`); `false` for no link. Default `/`.
   */
  calendarPath?: string | false;
}

/** Only the files the page loads (the directory also holds their licences and version). */
const SWAGGER_FILES = new Set(["swagger-ui.css", "swagger-ui-bundle.js", "favicon-16x16.png", "favicon-32x32.png"]);

const SWAGGER_DIR = path.join(WEB_DIR, "vendor", "swagger-ui");

export function createDocsPage(options: DocsPageOptions = {}): Router {
  const template = new Template("docs/index.html");
  const router = express.Router();
  const mountPath = options.mountPath ?? "/docs";

  router.get("/", (req: Request, res: Response) => {
    const restRoot = restRootFor(options);
    const base = req.baseUrl.replace(/\/+$/, "");
    const home = homePath(req, mountPath);
    const calendar = options.calendarPath === false ? "" : linkFrom(home, options.calendarPath ?? "/");
    sendPage(
      res,
      template.render({
        assets: `${base}/assets`,
        swaggerUi: `${base}/swagger-ui`,
        restRoot,
        docUrl: `${restRoot}${NAMESPACE}/doc`,
        calendarUrl: calendar,
      }),
      restRoot,
      // Swagger UI's React components set style attributes.
      { inlineStyles: true },
    );
  });

  const swaggerStatic = express.static(SWAGGER_DIR, { index: false, fallthrough: false, maxAge: "1h" });
  router.use("/swagger-ui", (req: Request, res: Response, next: NextFunction) => {
    if (!SWAGGER_FILES.has(req.path.replace(/^\/+/, ""))) {
      next();
      return;
    }
    swaggerStatic(req, res, next);
  });
  router.use("/assets", pageAssets("docs"));
  return router;
}

/**
 * The API reference page: Swagger UI rendering the namespace's own `doc`
 * route. Swagger UI is served from the installed `swagger-ui-dist` package
 * (no CDN), so the page works offline and its code is the version we ship.
 */
import path from "node:path";
import express, { NextFunction, Request, Response, Router } from "express";
import { homePath, linkFrom, NAMESPACE, pageAssets, PageOptions, restRootFor, sendPage, Template } from "./html";

export interface DocsPageOptions extends PageOptions {
  /**
   * URL of the calendar page to link to: absolute, or relative to the site
   * home (`/`); `false` for no link. Default `/`.
   */
  calendarPath?: string | false;
}

/**
 * Only the files the page loads. The package directory also holds Swagger
 * UI's own `index.html` and `swagger-initializer.js`, which would open the
 * public Petstore demo; they are not ours to serve.
 */
const SWAGGER_FILES = new Set([
  "swagger-ui.css",
  "swagger-ui.css.map",
  "swagger-ui-bundle.js",
  "swagger-ui-bundle.js.map",
  "favicon-16x16.png",
  "favicon-32x32.png",
]);

function swaggerUiDir(): string {
  return path.dirname(require.resolve("swagger-ui-dist/package.json"));
}

export function createDocsPage(options: DocsPageOptions = {}): Router {
  const template = new Template("docs/index.html");
  const swaggerDir = swaggerUiDir();
  const router = express.Router();
  const mountPath = options.mountPath ?? "/docs";

  router.get("/", (req: Request, res: Response) => {
    const restRoot = restRootFor(req, options, mountPath);
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

  const swaggerStatic = express.static(swaggerDir, { index: false, fallthrough: false, maxAge: "1h" });
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

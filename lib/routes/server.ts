/**
 * RestServer: the route table with what serves it. The table (table.ts)
 * holds routes and settings and knows nothing of HTTP; this module adds the
 * batch route and the Express entry points (http.ts). Nothing under it
 * imports it: the batch route, the HTTP adapter and the pipeline depend on
 * the table alone.
 */
import type { RequestHandler, Router } from "express";
import { BATCH_ROUTE, batchEndpoint } from "./batch";
import { createRestRouteMiddleware, createRestRouter } from "./http";
import { RouteTable } from "./table";
import type { RestServerOptions } from "./types";

export class RestServer extends RouteTable {
  constructor(options: RestServerOptions = {}) {
    super(options);
    // Second in the table, outside every namespace, as WordPress registers it in its server's constructor.
    this.addRootRoute(BATCH_ROUTE, batchEndpoint(this));
  }

  /** An Express router to mount at the REST prefix: `app.use("/wp-json", server.router())`. */
  router(): Router {
    return createRestRouter(this);
  }

  /** Middleware for the site root answering `/?rest_route=/…` like WordPress without pretty permalinks. */
  restRouteMiddleware(): RequestHandler {
    return createRestRouteMiddleware(this);
  }
}

import { READABLE } from "../../routes";
import type { RestRequest } from "../../routes/types";
import type { CalendarHost } from "../host";
import { NAMESPACE } from "../common/args";
import { namespaceOpenApi } from "../doc/openapi";

/**
 * `GET /doc` (calendar-api.md §7): the namespace's own OpenAPI 3.0.0
 * document, built from the route table on each request, so it can never
 * disagree with the routes (and per-request defaults are current).
 */
export function registerDocRoute(host: CalendarHost): void {
  host.rest.registerRoute(NAMESPACE, "/doc", {
    methods: READABLE,
    permission: "public",
    cache: true,
    handler: (req: RestRequest) => namespaceOpenApi(host.rest, req),
    summary: "The OpenAPI 3.0.0 document of this namespace.",
    responses: { "200": { description: "The OpenAPI document.", schema: { type: "object" } } },
  });
}

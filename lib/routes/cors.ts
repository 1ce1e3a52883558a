/**
 * The CORS headers that depend on the request (WordPress
 * `rest_send_cors_headers()`): the Origin is echoed, with the methods and
 * credentials. Added when an answer is sent (send.ts `sendComposed`), never
 * kept with it: a kept answer serves every Origin.
 */
import type { Request } from "express";

export const CORS_METHODS = "OPTIONS, GET, POST, PUT, PATCH, DELETE";

/** Origins are echoed; anything that is not a plain header token is not. */
function echoableOrigin(origin: string | undefined): string | undefined {
  return origin !== undefined && /^[\x21-\x7e]+$/.test(origin) ? origin : undefined;
}

/** The headers this request's Origin adds to any answer (none without one); `Vary` is merged with the answer's. */
export function corsHeaders(req: Request): Array<[string, string]> {
  const origin = echoableOrigin(req.headers.origin);
  if (origin === undefined) return [];
  return [
    ["Access-Control-Allow-Origin", origin],
    ["Access-Control-Allow-Methods", CORS_METHODS],
    ["Access-Control-Allow-Credentials", "true"],
    ["Vary", "Origin"],
  ];
}

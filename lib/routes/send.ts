/**
 * Putting an answer (lib/cache/answer.ts) on the socket, and the short way
 * for stored answers: an anonymous GET of a URL whose answer is in the
 * answer store is sent before the request is routed or authenticated
 * (`storedBeforeRouting`, lib/cache/layers.ts).
 */
import type { Request, Response } from "express";
import { storedBeforeRouting, type StoredLook } from "../cache/layers";
import { answerHeader, noneMatchFinds, notModified, parseTagList } from "./conditional";
import { corsHeaders, type CorsPolicy } from "./cors";
import { parseBracketString, rawQueryString, type ParamMap } from "./params";
import type { Answer } from "../cache/answer";
import type { RouteTable } from "./table";

type HeaderList = Answer["headers"];

/**
 * A header list as `writeHead` takes it: `[name, value, name, value, …]`,
 * each name once, as `setHeader` one by one would leave it: a later value
 * replaces an earlier one (the layer's Cache-Control wins over a route's),
 * except Vary, whose names are merged: a route's own (`Vary: Accept`), the
 * layer's and one a host middleware set before (compression's `Accept-Encoding`).
 */
function flatten(headers: HeaderList, hostVary: number | string | string[] | undefined): string[] {
  const flat: string[] = [];
  const at = new Map<string, number>();
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    const index = at.get(lower);
    if (index === undefined) {
      at.set(lower, flat.length + 1);
      flat.push(name, lower === "vary" && hostVary !== undefined ? mergeVary(hostVary, value) : value);
    } else flat[index] = lower === "vary" ? mergeVary(flat[index], value) : value;
  }
  return flat;
}

/** A Vary value with `added`'s names appended, each name once (compared case-insensitively). */
export function mergeVary(existing: number | string | string[] | undefined, added: string): string {
  const names = new Map<string, string>();
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  for (const part of [...list, added].join(",").split(",")) {
    const name = part.trim();
    if (name !== "" && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  }
  return [...names.values()].join(", ");
}

/**
 * Writes `response` as the whole answer. One `writeHead` with the list
 * instead of a `setHeader` per header: without headers set earlier Node
 * writes the list straight into the head, skipping its header map. Headers
 * a host middleware set earlier stay unless the answer names them too
 * (Node merges them, ours win), except `Vary`, which is merged (a
 * compression middleware's `Accept-Encoding` must stay).
 *
 * The CORS headers of this request are added here, to every answer: they
 * depend on the request alone, so kept answers (response cache, answer
 * store) are kept without them, one per URL rather than one per Origin.
 */
export function sendAnswer(res: Response, response: Answer, headOnly: boolean, policy: CorsPolicy): void {
  if (res.headersSent) return;
  const cors = corsHeaders(policy, res.req);
  const flat = flatten(cors.length === 0 ? response.headers : [...response.headers, ...cors], res.hasHeader("vary") ? res.getHeader("vary") : undefined);
  if (response.noCache) res.removeHeader("Last-Modified");
  const body = response.body;
  // 204 and 304 have no body, nor a Content-Length.
  if (body === null) {
    res.writeHead(response.status, flat);
    res.end();
    return;
  }
  flat.push("Content-Length", String(body.length));
  res.writeHead(response.status, flat);
  // HEAD runs like GET but sends no body (its Content-Length is the GET's).
  if (headOnly) res.end();
  else res.end(body);
}

/** The query of a request as sent (parsed only when there is one: most stored reads have none). */
export function requestQuery(req: Request): ParamMap {
  const url = req.originalUrl || req.url;
  return url.includes("?") ? parseBracketString(rawQueryString(url)) : {};
}

/**
 * Sends the stored answer of an anonymous plain GET/HEAD when the store has
 * one that is still good (`storedBeforeRouting`, lib/cache/layers.ts),
 * before the request is routed. `If-None-Match` is answered here; `If-Match`
 * never reaches this (the usual path answers 412s).
 */
export function sendStoredAnswer(table: RouteTable, req: Request, res: Response, root: string, path: string, query: ParamMap): StoredLook {
  const look = storedBeforeRouting(table.answerStore, table.settings.isAnonymous, req, root, path, query);
  const stored = look.found;
  if (stored === undefined) return look;
  const ifNoneMatch = parseTagList(req.headers["if-none-match"]);
  const response = ifNoneMatch !== undefined && stored.status === 200 && noneMatchFinds(ifNoneMatch, answerHeader(stored, "ETag")) ? notModified(stored) : stored;
  sendAnswer(res, response, req.method === "HEAD", table.settings.cors);
  return look;
}

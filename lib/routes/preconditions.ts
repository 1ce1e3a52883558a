/**
 * Preconditions (RFC 9110 §13): `If-Match` and `If-None-Match` on reads
 * (decided on the answer a GET gets) and on writes (decided on the answer
 * a GET of the same URL would get now, with write guards closing the window
 * between the check and the write). Used by the HTTP adapter and by batch
 * sub-requests alike.
 */
import type { Request } from "express";
import type { CurrentUser } from "../users/types";
import { compose, serialize, type AnswerContext } from "./compose";
import { answerHeader, entityTag, ifMatchPasses, noneMatchFinds, notModified, parseTagList, preconditionFailed, preconditionUnverifiable } from "./conditional";
import { isRestError, type RestError } from "./errors";
import type { ParamMap } from "./params";
import { dispatch, type Authenticated, type Outcome } from "./pipeline";
import type { Answer } from "../cache/answer";
import type { RouteTable } from "./table";
import type { TagSnapshot } from "../cache/write-guard";
import type { RestUrls } from "./urls";

/**
 * The preconditions of a GET or HEAD, evaluated on the answer it would get
 * (RFC 9110 §13.2.2: only a 200 with its tag is affected): a failed
 * `If-Match` is a 412; an `If-None-Match` that lists the current tag a 304.
 */
export function readPreconditions(req: Request, response: Answer, ctx: AnswerContext): Answer {
  if (response.status !== 200 || (ctx.method !== "GET" && ctx.method !== "HEAD")) return response;
  const etag = answerHeader(response, "ETag");
  if (etag === undefined) return response;
  const ifMatch = parseTagList(req.get("if-match"));
  if (ifMatch !== undefined && !ifMatchPasses(ifMatch, etag)) {
    // The user is not known here; an answer that was private makes the refusal private too.
    return compose(req, { status: 412, data: preconditionFailed().toJSON(), headers: {}, user: null }, ctx, response.noCache);
  }
  const ifNoneMatch = parseTagList(req.get("if-none-match"));
  return ifNoneMatch !== undefined && noneMatchFinds(ifNoneMatch, etag) ? notModified(response) : response;
}

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The tag a GET answered with `outcome` carries (`compose()` puts the same
 * one on the answer it sends): `undefined` unless it is a 200.
 */
function readTag(table: RouteTable, outcome: Outcome, query: ParamMap): string | undefined {
  if (outcome.status !== 200) return undefined;
  const { status, headers, body, contentType } = serialize(table, outcome, query);
  return entityTag(status, contentType ?? "", headers, body);
}

/** A write whose preconditions are to be checked: an HTTP request or a batch sub-request. */
export interface WriteConditions {
  readonly http: Request;
  /** Effective method, upper case. */
  readonly method: string;
  readonly path: string;
  readonly query: ParamMap;
  readonly urls: RestUrls;
  readonly user: CurrentUser | null;
  /** The request's own headers when they are not the HTTP request's (batch sub-requests): the GET is read with them. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly ifMatch: string | undefined;
  readonly ifNoneMatch: string | undefined;
}

/** The verdict: a 412 to answer instead of the write, or the guard to run the write in (or neither). */
export interface WriteCheck {
  readonly failed?: RestError;
  readonly guard?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * The preconditions of a write (`If-Match`, and `If-None-Match` as RFC 9110
 * §13.1.2 has it for unsafe methods) on a route that can also be read: the
 * current tag is the one a GET of the same URL by the same user would carry
 * now, found by dispatching that GET through the pipeline (no kept answer).
 * Costs nothing without the headers.
 *
 * Between this check and the write's own transaction another writer may
 * commit (the handlers open their transactions themselves, so the two
 * cannot share one). With write guards (lib/cache/write-guard.ts) that is
 * caught: the versions of the cache tags the GET names are read after a
 * first GET, the ETag compared is that of a second GET made after the
 * read, and the write's transaction fails with 412 when one of them moved
 * since. Any write the read missed is then either in the second GET (its
 * ETag) or a version change. Where the database's server refused the tag
 * triggers the write is refused (412 `rest_precondition_unverifiable`)
 * rather than risked; a GET that names no tags (a host's route that
 * declares no dependencies) keeps the window of one GET.
 */
export async function checkWriteConditions(table: RouteTable, write: WriteConditions): Promise<WriteCheck> {
  const ifMatch = parseTagList(write.ifMatch);
  const ifNoneMatch = parseTagList(write.ifNoneMatch);
  if ((ifMatch === undefined && ifNoneMatch === undefined) || !UNSAFE_METHODS.has(write.method)) return {};
  // Matched once for every GET below.
  const readMatch = table.match(write.path, "GET");
  if (readMatch.endpoint === undefined) return {};
  // The URL as it is read: a `?_method=` override is no part of it.
  const query: ParamMap = { ...write.query };
  delete query._method;
  const read = (): Promise<Outcome> =>
    dispatch(table, { http: write.http, method: "GET", path: write.path, query, body: { json: {}, form: {} }, urls: write.urls, auth: write.user, headers: write.headers, match: readMatch });
  let current = await read();
  const guards = table.settings.writeGuards;
  let snapshot: TagSnapshot | undefined;
  let unverifiable = false;
  // A second GET that names a tag the snapshot lacks (a link changed in
  // between) takes another round; three at most, then no guard.
  for (let round = 0; guards !== undefined && snapshot === undefined && round < 3; round++) {
    const named = current.request?.dependencies;
    if (named === undefined || named.size === 0) break;
    const taken = await guards.snapshot(named);
    if (taken === null) {
      unverifiable = true;
      break;
    }
    current = await read();
    const again = current.request?.dependencies;
    if (again !== undefined && again.size > 0 && [...again].every((tag) => named.has(tag))) snapshot = taken;
  }
  const etag = readTag(table, current, query);
  const holds = (ifMatch === undefined || ifMatchPasses(ifMatch, etag)) && (ifNoneMatch === undefined || !noneMatchFinds(ifNoneMatch, etag));
  if (!holds) return { failed: preconditionFailed() };
  // The database could keep the versions but its server refused the triggers: the promise cannot be kept, so the write is refused.
  if (unverifiable) return { failed: preconditionUnverifiable() };
  if (guards === undefined || snapshot === undefined) return {};
  const taken = snapshot;
  return { guard: (work) => guards.run(taken, preconditionFailed, work) };
}

/**
 * `checkWriteConditions` for an HTTP request. Answers the authentication
 * (asked once, for both the GET and the write) and, when a precondition
 * fails, the 412 to send instead of running the write.
 */
export async function writePreconditions(
  table: RouteTable,
  req: Request,
  ctx: AnswerContext,
  path: string,
  auth: Authenticated | undefined,
): Promise<{ auth: Authenticated | undefined; failed?: Outcome; guard?: <T>(work: () => Promise<T>) => Promise<T> }> {
  const ifMatch = req.get("if-match");
  const ifNoneMatch = req.get("if-none-match");
  // Reads (the hot path) and writes without the headers are done here; the rest is checkWriteConditions's.
  if ((ifMatch === undefined && ifNoneMatch === undefined) || !UNSAFE_METHODS.has(ctx.method)) return { auth };
  // Asked once here, for the internal GET and the write (dispatch reuses it).
  const known = auth !== undefined ? auth : await table.settings.authenticate(req);
  // Bad credentials are the write's own 401.
  if (isRestError(known)) return { auth: known };
  const checked = await checkWriteConditions(table, { http: req, method: ctx.method, path, query: ctx.query, urls: ctx.urls, user: known, ifMatch, ifNoneMatch });
  if (checked.failed) return { auth: known, failed: { status: 412, data: checked.failed.toJSON(), headers: {}, user: known } };
  return { auth: known, guard: checked.guard };
}

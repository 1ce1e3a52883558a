/**
 * Conditional requests (RFC 9110 §8.8.3, §13): the entity tag of a GET/HEAD
 * answer, and the evaluation of `If-None-Match` and `If-Match` against it.
 *
 * The tag is a hash of what the answer shows: status, the headers the route
 * set (pagination totals, Link, Allow) and the exact body bytes. Anything
 * that changes the answer (the post, its linked venue and organizers, its
 * terms, what this user may see) changes the bytes and so the tag; nothing
 * that does not change them does. Being derived from content, the tag is the
 * same in every process serving the same database (no counter to share), and
 * it is computed once when the answer is composed: the response cache and
 * the answer store keep it with the answer and answer a 304 without
 * building or encoding anything.
 */
import { createHash } from "node:crypto";
import { RestError } from "./errors";
import type { Answer } from "../cache/answer";

/** 412: the resource is not (or no longer) what the client's precondition said. */
export function preconditionFailed(): RestError {
  return new RestError("rest_precondition_failed", "The resource has changed since it was retrieved, or the precondition does not hold.", 412);
}

/** A conditional write the site cannot make safe (its database keeps no versions): refused rather than risked. */
export function preconditionUnverifiable(): RestError {
  return new RestError(
    "rest_precondition_unverifiable",
    "This site cannot check If-Match or If-None-Match against concurrent writes: its database keeps no versions (the server refused calpress's triggers; see the server log). Send the write without the precondition, or ask the operator to grant the TRIGGER privilege.",
    412,
  );
}

/**
 * A strong entity tag (quoted) for an answer: 162 bits of SHA-256 over its
 * status, media type (one URL may answer JSON or another type by `Accept`),
 * route headers and body.
 */
export function entityTag(status: number, mediaType: string, routeHeaders: Readonly<Record<string, string>>, body: Buffer): string {
  const hash = createHash("sha256");
  hash.update(`${status} ${mediaType}\n`);
  for (const [name, value] of Object.entries(routeHeaders)) hash.update(`${name.toLowerCase()}: ${value}\n`);
  hash.update("\n");
  hash.update(body);
  return `"${hash.digest("base64url").slice(0, 27)}"`;
}

interface ListedTag {
  weak: boolean;
  /** The quoted opaque tag, as it is sent (`"abc"`). */
  opaque: string;
}

/** `*`, or the entity tags listed (a malformed member is skipped: it can match nothing). */
export type TagList = "*" | readonly ListedTag[];

const LISTED_TAG = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g;

/** The tags of an `If-Match` / `If-None-Match` header; `undefined` when the header is absent. */
export function parseTagList(value: string | undefined): TagList | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "*") return "*";
  const tags: ListedTag[] = [];
  for (const m of value.matchAll(LISTED_TAG)) tags.push({ weak: m[1] !== undefined, opaque: m[2] });
  return tags;
}

/**
 * `If-Match` (§13.1.1): strong comparison, so a weak tag never matches; `*`
 * matches when there is a current representation (`etag` known).
 */
export function ifMatchPasses(list: TagList, etag: string | undefined): boolean {
  if (etag === undefined) return false;
  if (list === "*") return true;
  return list.some((tag) => !tag.weak && tag.opaque === etag);
}

/**
 * Whether `If-None-Match` (§13.1.2) finds the current representation: weak
 * comparison (`W/"x"` matches `"x"`); `*` matches any current representation.
 */
export function noneMatchFinds(list: TagList, etag: string | undefined): boolean {
  if (etag === undefined) return false;
  if (list === "*") return true;
  return list.some((tag) => tag.opaque === etag);
}

/** The value of a header of an answer (names compared case-insensitively). */
export function answerHeader(response: Answer, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of response.headers) if (key.toLowerCase() === lower) return value;
  return undefined;
}

/**
 * What a 304 keeps of the 200 it stands for (§15.4.5): the validator, the
 * caching headers and the CORS headers, without which a browser would not
 * let a cross-origin script see the 304 turned back into the stored 200.
 */
const NOT_MODIFIED_KEEPS = new Set(["etag", "cache-control", "expires", "vary"]);

export function notModified(response: Answer): Answer {
  return {
    status: 304,
    headers: response.headers.filter(([name]) => {
      const lower = name.toLowerCase();
      return NOT_MODIFIED_KEEPS.has(lower) || lower.startsWith("access-control-");
    }),
    body: null,
    noCache: response.noCache,
  };
}

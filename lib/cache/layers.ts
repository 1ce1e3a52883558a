/**
 * The answer layers, in the order a request meets them (README.md here):
 * the early look in the store (`storedBeforeRouting`), then, once the route
 * is matched, `answer(layers, request, build)`: the store for endpoints
 * with `store: true`, else the memory layer for endpoints with
 * `cache: true`, else `build` (the pipeline). Every layer hands back an
 * `Answer`; the HTTP layer (lib/routes/http.ts) sends it.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Answer } from "./answer";
import { answerKey, declaredOrGlobal } from "./answer-key";
import type { AnswerStore, BuiltAnswer } from "./answer-store";
import type { ResponseCache } from "./response-cache";
import { own, type ParamMap } from "../routes/params";

export interface AnswerLayers {
  /** The stored answers (`RestServer.answerStore`); undefined: none. */
  readonly store: AnswerStore | undefined;
  /** The in-memory answers (`ResponseCache`); undefined: none. */
  readonly memory: ResponseCache | undefined;
}

/** What the layers read of an anonymous plain read and its endpoint. */
export interface AnswerRequest {
  /** The REST root of the request's URLs (answers carry absolute links). */
  readonly root: string;
  /** Normalised route path. */
  readonly path: string;
  readonly query: ParamMap;
  /** The Accept header ("" when absent): an endpoint may answer by it. */
  readonly accept: string;
  /** The matched endpoint's caching flags and declared parameters; undefined: no endpoint. */
  readonly endpoint: { readonly store: boolean; readonly cache: boolean; readonly args: readonly (readonly [string, unknown])[] } | undefined;
  /** The key under which `storedBeforeRouting` just found no stored answer (not read again). */
  readonly peeked: string | undefined;
}

/**
 * An anonymous plain read's answer: the store's when the endpoint stores
 * its answers (`store: true`), else the memory layer's when it caches them
 * (`cache: true`), else a fresh one.
 */
export async function answer(layers: AnswerLayers, request: AnswerRequest, build: () => Promise<BuiltAnswer>): Promise<Answer> {
  const { store, memory } = layers;
  const { root, path, query, endpoint } = request;
  // Stored answers skip the in-memory cache: they are spread over too many
  // URLs to be asked twice in its one second, and proving one costs no more
  // than the memory cache's own revision check. A request carrying a post
  // password gets the unlocked post: never kept on disk.
  if (store !== undefined && own(query, "password") === undefined && endpoint?.store === true) {
    // Keyed by what the answer depends on: parameters the endpoint does not declare make no row of their own.
    const key = answerKey(root, path, query, declaredOrGlobal(endpoint.args));
    if (key !== undefined) return store.answer(key, build, key === request.peeked);
  }
  const key = memory === undefined ? undefined : answerKey(root, path, query);
  if (memory === undefined || key === undefined) return (await build()).answer;
  return memory.answer(
    // An endpoint may answer by the Accept header (the events list as iCalendar): kept answers are per Accept value.
    `${key}\u0000${request.accept}`,
    () => endpoint?.cache === true,
    async () => {
      const built = await build();
      const keep = built.success && built.answer.status === 200 && !built.answer.noCache;
      const proof = keep && built.tags !== null && built.reuseWhile !== undefined ? { tags: built.tags, check: built.reuseWhile } : undefined;
      return { answer: built.answer, keep, proof };
    },
  );
}

/**
 * What `storedBeforeRouting` found: the stored answer; none under the key
 * it could compute (`key`, which the usual path need not read again); or
 * it could not answer this request.
 */
export type StoredLook = { readonly found: Answer } | { readonly found?: undefined; readonly key?: string };

/** The part of an HTTP request the early look reads. */
export interface EarlyRequest {
  readonly method?: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * The stored answer of an anonymous plain GET/HEAD when the store has one
 * that is still good, before anything else is done for the request.
 *
 * The usual path (lib/routes/http.ts) reaches the store only after parsing
 * the query, matching the route, asking the authenticator and checking that
 * the endpoint stores its answers: for a stored single event, as much work
 * as reading and proving the answer. None of it is needed to find out that
 * there is nothing to do: a row for this exact key exists only if the usual
 * path stored it, i.e. the same path and query (answer-key.ts: every
 * parameter of this request is one the answer depends on, none is
 * `password` or `_method`) reached an endpoint with `store: true`
 * anonymously. What remains to be checked here is what is not in the key:
 * the method, no body, no method override header, no credentials
 * (`anonymous`, which must be sure: an unsure request takes the usual
 * path) and `If-Match` (left to the usual path, which answers 412s).
 */
export function storedBeforeRouting<R extends EarlyRequest>(store: AnswerStore | undefined, anonymous: ((req: R) => boolean) | undefined, req: R, root: string, path: string, query: ParamMap): StoredLook {
  const none = {} as const;
  if (store === undefined || anonymous === undefined || !store.synchronous) return none;
  const method = req.method;
  if (method !== "GET" && method !== "HEAD") return none;
  const headers = req.headers;
  if (headers["x-http-method-override"] !== undefined || headers["if-match"] !== undefined || headers["transfer-encoding"] !== undefined) return none;
  const length = headers["content-length"];
  if (length !== undefined && length !== "0") return none;
  if (!anonymous(req)) return none;
  const key = answerKey(root, path, query);
  if (key === undefined) return none;
  const found = store.peek(key);
  return found === undefined ? { key } : { found };
}

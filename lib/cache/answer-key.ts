/**
 * The keys of kept answers (the answer store and the response cache): what
 * tells two requests apart whose anonymous answers may differ, and nothing
 * else. A key is the base URL (scheme and host are in every URL of a
 * record), the route path and the query in a canonical form: names sorted,
 * values as parsed (`parseBracketString`), the `rest_route` parameter left
 * out (it is the path), and the global parameters that the layer reads in
 * one way whatever their spelling in the form it reads them (`SPELLINGS`).
 *
 * The answer store keys by the parameters the answer can depend on: the
 * endpoint's declared args and the global ones the layer or any handler
 * reads without a declaration (`ANSWER_PARAMS`). Others are ignored by
 * WordPress and here, so a URL with made-up parameters gets the same answer
 * and the same row, and cannot add rows. Before routing (the early path of
 * send.ts) the declared args are not known: every parameter is kept, which
 * gives the same key exactly when the request carries no undeclared one.
 */
import { parseFields } from "../routes/fields";
import type { ParamMap } from "../routes/params";

/** Global parameters that change an answer on every route (rest-conventions §2, §9): read without being declared. */
export const ANSWER_PARAMS: ReadonlySet<string> = new Set(["_envelope", "_fields", "_pretty", "_embed", "_jsonp", "context", "i18n_language", "password"]);

/**
 * Global parameters whose spellings give one answer, in the form the layer
 * reads them: `_envelope` and `_pretty` count by presence; `_fields` as the
 * tree of names it filters by (order and repeats do not matter: the record
 * keeps its own order). `undefined`: the same answer as without it.
 */
const SPELLINGS: Readonly<Record<string, (value: unknown) => unknown>> = {
  _envelope: () => true,
  _pretty: () => true,
  _fields: (value) => parseFields(value),
};

/** A key longer than this is not kept (the answer is built every time): a kept key costs its length in memory or on disk. */
export const MAX_KEY_LENGTH = 2048;

/**
 * The base URL part of a key: the REST root the answer's URLs are built
 * from. The one place that says which base an answer was built for.
 */
export function answerBase(root: string): string {
  return root;
}

/** A parsed value in a form that does not depend on the order of object members. */
function canonicalValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value).sort()) out[name] = canonicalValue((value as Record<string, unknown>)[name]);
    return out;
  }
  return value;
}

/**
 * The key of an answer; `undefined` when it is too long to keep.
 * `keeps(name)`: whether the parameter can change the answer (absent: all
 * of them, the form the early path can compute before routing).
 */
export function answerKey(root: string, path: string, query: Readonly<ParamMap>, keeps?: (name: string) => boolean): string | undefined {
  let key = `${answerBase(root)}\u0000${path}\u0000`;
  for (const name of Object.keys(query).sort()) {
    if (name === "rest_route" || (keeps !== undefined && !keeps(name))) continue;
    const spelling = Object.prototype.hasOwnProperty.call(SPELLINGS, name) ? SPELLINGS[name] : undefined;
    const value = spelling === undefined ? query[name] : spelling(query[name]);
    if (value === undefined) continue;
    key += `${JSON.stringify(name)}=${JSON.stringify(canonicalValue(value)) ?? ""}&`;
    if (key.length > MAX_KEY_LENGTH) return undefined;
  }
  return key;
}

/** `keeps` for an endpoint whose declared args are `args`. */
export function declaredOrGlobal(args: readonly (readonly [string, unknown])[]): (name: string) => boolean {
  const names = new Set(args.map(([name]) => name));
  return (name) => names.has(name) || ANSWER_PARAMS.has(name);
}

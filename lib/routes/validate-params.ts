/**
 * The validation stages of the pipeline, in WordPress's order
 * (`WP_REST_Request::has_valid_params()` then `sanitize_params()`):
 * JSON body error → required → `validate` callbacks → type coercion, schema
 * checks and `sanitize`. Only the first failing stage reports.
 */
import { hasNul } from "../engine-errors";
import { coerceValue } from "./coerce";
import { RestError, isRestError, type ErrorEnvelope, type ErrorItem } from "./errors";
import { isAbsent } from "./json";
import type { ServerRequest } from "./request";
import { isTypedArg, type TypedArgsValidator } from "./schema-validator";
import type { ArgSpec } from "./types";

export interface ValidatedEndpoint {
  readonly args: readonly (readonly [string, ArgSpec])[];
  readonly validator: TypedArgsValidator;
}

/** Collects `rest_invalid_param` failures; reports them in declaration order. */
class InvalidParams {
  private readonly messages = new Map<string, string>();
  private readonly details = new Map<string, ErrorItem | ErrorEnvelope>();

  has(name: string): boolean {
    return this.messages.has(name);
  }

  fail(name: string, message: string, detail?: ErrorItem | ErrorEnvelope): void {
    if (this.messages.has(name)) return;
    this.messages.set(name, message);
    if (detail) this.details.set(name, detail);
  }

  failWith(name: string, error: RestError): void {
    // WordPress joins all messages of the error and keeps the full error under `details`.
    this.fail(name, error.messages.join(" "), error.toJSON());
  }

  toError(order: readonly (readonly [string, ArgSpec])[]): RestError | undefined {
    if (this.messages.size === 0) return undefined;
    const names = order.map(([name]) => name).filter((name) => this.messages.has(name));
    const params: Record<string, string> = {};
    for (const name of names) params[name] = this.messages.get(name) ?? "";
    // An empty PHP array is encoded `[]`, which is what current WordPress sends when nothing has details.
    let details: Record<string, ErrorItem | ErrorEnvelope> | [] = [];
    if (this.details.size > 0) {
      details = {};
      for (const name of names) {
        const detail = this.details.get(name);
        if (detail) details[name] = detail;
      }
    }
    return new RestError("rest_invalid_param", `Invalid parameter(s): ${names.join(", ")}`, 400, { params, details });
  }
}

/** Whether a parameter value holds U+0000 in any string, at any depth (a list, an inline venue object). */
function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return hasNul(value);
  if (depth > 32 || typeof value !== "object" || value === null) return false;
  const items: unknown[] = Array.isArray(value) ? value : [...Object.keys(value), ...Object.values(value)];
  return items.some((item) => holdsNul(item, depth + 1));
}

/**
 * calpress decision: a parameter holding U+0000 anywhere is refused with 400
 * `rest_invalid_param`, on every route and database, before validation runs.
 * WordPress's sanitizers would strip it; PostgreSQL cannot store or even
 * compare it, so letting it through meant a 500 there and a stored NUL on
 * SQLite and MariaDB. Every parameter is checked, declared or not, since
 * handlers may read undeclared ones raw.
 */
function nulParamError(req: ServerRequest): RestError | undefined {
  const names = Object.keys(req.params).filter((name) => holdsNul(name) || holdsNul(req.param(name)));
  if (names.length === 0) return undefined;
  const params: Record<string, string> = {};
  for (const name of names) params[name] = `${name} must not contain a NUL character.`;
  return new RestError("rest_invalid_param", `Invalid parameter(s): ${names.join(", ")}`, 400, { params, details: [] });
}

export async function validateRequest(req: ServerRequest, endpoint: ValidatedEndpoint): Promise<RestError | undefined> {
  if (req.jsonError) return req.jsonError;
  const nul = nulParamError(req);
  if (nul) return nul;
  const args = endpoint.args;

  // Required: a default counts as a value (WordPress checks get_param(), which includes defaults).
  const missing = args.filter(([name, spec]) => spec.required === true && isAbsent(req.param(name))).map(([name]) => name);
  if (missing.length > 0) {
    return new RestError("rest_missing_callback_param", `Missing parameter(s): ${missing.join(", ")}`, 400, { params: missing });
  }

  // Custom validate callbacks, on the raw value.
  const invalid = new InvalidParams();
  for (const [name, spec] of args) {
    const value = req.param(name);
    if (spec.validate === undefined || isAbsent(value)) continue;
    const result = await spec.validate(value, req, name);
    if (result === false) invalid.fail(name, "Invalid parameter.");
    else if (typeof result === "string") invalid.fail(name, result);
    else if (isRestError(result)) invalid.failWith(name, result);
  }
  const validationError = invalid.toError(args);
  if (validationError) return validationError;

  // Type rules (coercion, then the compiled schema) or the custom sanitizer.
  const coerced: Record<string, unknown> = {};
  for (const [name, spec] of args) {
    const value = req.param(name);
    if (isAbsent(value)) continue;
    if (isTypedArg(spec)) {
      const result = coerceValue(value, spec, name);
      if (result.ok) coerced[name] = result.value;
      else invalid.fail(name, result.error.message, result.error);
    }
  }
  for (const [name, error] of endpoint.validator.validate(coerced)) invalid.fail(name, error.message, error);
  for (const [name, spec] of args) {
    const value = req.param(name);
    if (isAbsent(value)) continue;
    if (spec.sanitize !== undefined) {
      const sanitized: unknown = await spec.sanitize(value, req, name);
      if (isRestError(sanitized)) invalid.failWith(name, sanitized);
      else req.setParam(name, sanitized);
    } else if (Object.prototype.hasOwnProperty.call(coerced, name)) {
      req.setParam(name, coerced[name]);
    }
  }
  for (const [name, spec] of args) if (!isAbsent(req.param(name)) && !invalid.has(name)) req.validatedBy.set(name, spec);
  return invalid.toError(args);
}

/**
 * The given args of `req` through their own rules (validate callback, types
 * and schema, sanitize), leniently: an argument that fails is left out of
 * `req.params` rather than failing the request. For views (prepareView).
 */
async function checkLeniently(req: ServerRequest, args: readonly (readonly [string, ArgSpec])[], validator: TypedArgsValidator): Promise<void> {
  const failed = new Set<string>();
  const coerced: Record<string, unknown> = {};
  for (const [name, spec] of args) {
    const value = req.param(name);
    const result = spec.validate === undefined ? true : await spec.validate(value, req, name);
    if (result !== true) failed.add(name);
    else if (isTypedArg(spec)) {
      const converted = coerceValue(value, spec, name);
      if (converted.ok) coerced[name] = converted.value;
      else failed.add(name);
    }
  }
  for (const name of validator.validate(coerced).keys()) failed.add(name);
  for (const [name, spec] of args) {
    if (failed.has(name)) req.dropParam(name);
    else if (spec.sanitize !== undefined) {
      const sanitized: unknown = await spec.sanitize(req.param(name), req, name);
      if (isRestError(sanitized)) req.dropParam(name);
      else req.setParam(name, sanitized);
    } else if (Object.prototype.hasOwnProperty.call(coerced, name)) req.setParam(name, coerced[name]);
  }
}

/**
 * Makes `view` (a fresh copy of `answered`, ServerRequest.view) the request
 * `endpoint`'s permission check sees behind `Allow`, when `endpoint` is not
 * the one answering: every argument it declares holds a value its own rule
 * gave, or nothing. Never a value validated by another endpoint's rule, or
 * by none (WordPress hands every check the answered request; a check of
 * another method then sees what it never sees in its own requests).
 *
 * - A value `answered` validated by the very rule `endpoint` declares (a
 *   route's common args, a namespace's global args) is taken as it is.
 * - A path parameter (the resource every endpoint of the route addresses)
 *   goes through `endpoint`'s own rule.
 * - Other declared arguments sent in the query or body are left out: their
 *   rules' callbacks are not run for a request of another method (a
 *   sanitizer may fetch a URL, a validator look something up).
 * - `endpoint`'s defaults fill what was not sent; undeclared parameters
 *   stay raw, as in every request; one holding U+0000 is left out (every
 *   endpoint refuses it).
 */
export async function prepareView(view: ServerRequest, answered: ServerRequest, endpoint: ValidatedEndpoint): Promise<void> {
  for (const name of Object.keys(view.params)) if (holdsNul(name) || holdsNul(view.param(name))) view.dropParam(name);
  await view.applyDefaults(endpoint.args);
  const own: (readonly [string, ArgSpec])[] = [];
  for (const [name, spec] of endpoint.args) {
    if (isAbsent(view.param(name))) continue;
    const source = view.sentIn(name);
    if (answered.validatedBy.get(name) === spec) view.setParam(name, answered.param(name));
    else if (source === "path") own.push([name, spec]);
    else if (source !== undefined) view.dropParam(name);
  }
  if (own.length > 0) await checkLeniently(view, own, endpoint.validator);
}

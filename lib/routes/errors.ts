/**
 * RestError, the one error type of the REST layer, and its JSON envelope.
 *
 * Mirrors WordPress's `WP_Error` as `rest_convert_error_to_response()` turns it
 * into a response: the first error is the body `{code, message, data}`, further
 * errors go to `additional_errors`, and the HTTP status is `data.status` (500
 * when the error carries none; `data` is then `null` unless extra data was given).
 * Also the table that answers the engine's own errors (EngineError) alike.
 */
import { isEngineError, type EngineError } from "../engine-errors";

/** The `data` member of an error: `status` plus whatever the raiser added (`params`, `details`, `term_id`…). */
export interface ErrorData {
  status?: number;
  [key: string]: unknown;
}

/** One error in wire form. */
export interface ErrorItem {
  code: string;
  message: string;
  data: ErrorData | null;
}

/** The body of every error response. */
export interface ErrorEnvelope extends ErrorItem {
  additional_errors?: ErrorItem[];
}

function makeData(status: number | undefined, extra: Record<string, unknown> | undefined): ErrorData | null {
  if (status === undefined) return extra === undefined ? null : { ...extra };
  return { status, ...extra };
}

export class RestError extends Error {
  readonly code: string;
  /** The status the error was raised with; `undefined` is answered as 500. */
  readonly status: number | undefined;
  readonly data: ErrorData | null;
  /** Errors after the first (`additional_errors` in the envelope). */
  readonly additional: ErrorItem[] = [];
  /**
   * Response headers to send with this error (e.g. `Retry-After` on a 429).
   * Not part of the JSON body.
   */
  readonly headers: Record<string, string> = {};

  constructor(code: string, message: string, status?: number, extraData?: Record<string, unknown>) {
    super(message);
    this.name = "RestError";
    this.code = code;
    this.status = status;
    this.data = makeData(status, extraData);
  }

  /** Adds a further error, reported in `additional_errors` (WordPress `WP_Error::add`). */
  add(code: string, message: string, status?: number, extraData?: Record<string, unknown>): this {
    this.additional.push({ code, message, data: makeData(status, extraData) });
    return this;
  }

  /** Sets a response header to send with the error. */
  header(name: string, value: string | number): this {
    this.headers[name] = String(value);
    return this;
  }

  /** The HTTP status the error is answered with. */
  get httpStatus(): number {
    return this.status ?? 500;
  }

  /** All messages, first error first (WordPress `get_error_messages()`). */
  get messages(): string[] {
    return [this.message, ...this.additional.map((e) => e.message)];
  }

  toJSON(): ErrorEnvelope {
    const body: ErrorEnvelope = { code: this.code, message: this.message, data: this.data };
    if (this.additional.length > 0) body.additional_errors = this.additional.map((e) => ({ ...e }));
    return body;
  }
}

export function isRestError(value: unknown): value is RestError {
  return value instanceof RestError;
}

/** The generic answer to an unexpected exception: no stack trace, no SQL, nothing of the cause. */
export function internalServerError(): RestError {
  // Same code and text as WordPress's fatal-error handler answers REST requests with.
  return new RestError("internal_server_error", "There has been a critical error on this website.", 500);
}

// ---------------------------------------------------------------- engine errors

/** How the REST layer answers one EngineError code (see ENGINE_ERROR_ANSWERS). */
export interface EngineErrorAnswer {
  /** 4xx: the client's input, answered as such. 500: a fault of the server, logged and answered with the generic 500. */
  readonly status: number;
  /** The REST error code: WordPress's where it has one for the case. */
  readonly code: string;
  /** WordPress's own text for the case; absent: the engine's message (it names the field, id or value at fault). */
  readonly message?: string;
  /** Members of the engine error's `data` the envelope's `data` shows (WordPress's `term_id` for `term_exists`). */
  readonly data?: readonly string[];
}

/** Answers that depend on what the error is about: the engine's `data.object`, else `otherwise`. */
export interface EngineErrorAnswers {
  readonly byObject: Readonly<Record<string, EngineErrorAnswer>>;
  readonly otherwise: EngineErrorAnswer;
}

const SERVER_FAULT: EngineErrorAnswer = { status: 500, code: "internal_server_error" };

/**
 * The one table from engine refusals (lib/engine-errors.ts) to REST answers,
 * used for every EngineError that escapes a route's callbacks (handler,
 * permission, validate, sanitize, default), over HTTP and in batches. A route
 * that maps an engine error itself (the calendar answers its original's codes)
 * throws a RestError instead, which is answered as it is: its mapping wins.
 *
 * calpress decisions: engine refusals are the client's input, so they are
 * 4xx even where WordPress lets the core error through without a status (a
 * 500: `term_exists` from some routes, `duplicate_term_slug`,
 * `existing_user_login`, `existing_user_email`). A code the engine only
 * throws for a fault of the site's own code or state (`invalid_rest`,
 * `slug_conflict`) is a 500, as is a code not in the table.
 */
export const ENGINE_ERROR_ANSWERS: Readonly<Record<string, EngineErrorAnswer | EngineErrorAnswers>> = {
  not_found: {
    byObject: { term: { status: 404, code: "rest_term_invalid", message: "Term does not exist." } },
    otherwise: { status: 404, code: "rest_post_invalid_id", message: "Invalid post ID." },
  },
  invalid_parent: {
    byObject: { term: { status: 400, code: "rest_term_invalid" } },
    otherwise: { status: 400, code: "rest_post_invalid_id" },
  },
  invalid_user: {
    // A post's author (WordPress's posts controller) or a user addressed by ID (its users controller).
    byObject: { post: { status: 400, code: "rest_invalid_author", message: "Invalid author ID." } },
    otherwise: { status: 404, code: "rest_user_invalid_id", message: "Invalid user ID." },
  },
  invalid_type: {
    byObject: { taxonomy: { status: 400, code: "rest_taxonomy_invalid" } },
    otherwise: { status: 400, code: "rest_type_invalid" },
  },
  invalid_status: { status: 400, code: "rest_status_invalid" },
  invalid_date: { status: 400, code: "rest_invalid_date" },
  invalid_term: { status: 400, code: "rest_term_invalid" },
  invalid_link: { status: 400, code: "rest_post_invalid_id" },
  invalid_field: { status: 400, code: "rest_invalid_field" },
  invalid_role: { status: 400, code: "rest_user_invalid_role" },
  term_exists: { status: 400, code: "term_exists", data: ["term_id"] },
  duplicate_term_slug: { status: 400, code: "duplicate_term_slug" },
  existing_user_login: { status: 400, code: "existing_user_login", message: "Sorry, that username already exists!" },
  existing_user_email: { status: 400, code: "existing_user_email", message: "Sorry, that email address is already used!" },
  // calpress's codes: WordPress has no error for these cases.
  invalid_input: { status: 400, code: "rest_invalid_input" },
  invalid_timezone: { status: 400, code: "rest_invalid_timezone" },
  invalid_rest: SERVER_FAULT,
  slug_conflict: SERVER_FAULT,
};

/**
 * The answer to an EngineError: a RestError for a refusal of the client's
 * input; `undefined` for a fault of the server (the caller logs it and
 * answers the generic 500).
 */
export function engineErrorAnswer(err: EngineError): RestError | undefined {
  const entry = Object.prototype.hasOwnProperty.call(ENGINE_ERROR_ANSWERS, err.code) ? ENGINE_ERROR_ANSWERS[err.code] : SERVER_FAULT;
  const object = err.data?.object;
  const answer = "byObject" in entry ? ((typeof object === "string" && Object.prototype.hasOwnProperty.call(entry.byObject, object) ? entry.byObject[object] : undefined) ?? entry.otherwise) : entry;
  if (answer.status >= 500) return undefined;
  const extra: Record<string, unknown> = {};
  for (const name of answer.data ?? []) if (err.data?.[name] !== undefined) extra[name] = err.data[name];
  return new RestError(answer.code, answer.message ?? err.message, answer.status, extra);
}

/**
 * What an exception escaping a route's callbacks is answered with: a RestError
 * as it is, a mapped EngineError, else (logged through `logger`) the generic 500.
 */
export function answerForException(err: unknown, logger: { error(message: string, error?: unknown): void }, what: string): RestError {
  if (isRestError(err)) return err;
  const mapped = isEngineError(err) ? engineErrorAnswer(err) : undefined;
  if (mapped) return mapped;
  logger.error(what, err);
  return internalServerError();
}

/**
 * RestError, the one error type of the REST layer, and its JSON envelope.
 *
 * Mirrors WordPress's `WP_Error` as `rest_convert_error_to_response()` turns it
 * into a response: the first error is the body `{code, message, data}`, further
 * errors go to `additional_errors`, and the HTTP status is `data.status` (500
 * when the error carries none; `data` is then `null` unless extra data was given).
 */

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

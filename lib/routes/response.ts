/**
 * A body the HTTP layer sends as it is, with its own content type, instead
 * of JSON (an iCalendar feed). `_fields` does not apply to it; `_envelope`
 * still answers JSON, with the text as `body`. Errors stay JSON envelopes.
 */
export interface RawBody {
  readonly contentType: string;
}

/** What a handler returns when it needs more than "200 with this data". */
export class RestResponse<T = unknown> {
  data: T;
  status: number;
  readonly headers: Record<string, string> = {};
  /** Set by `rawResponse`: `data` is then the text to send. */
  raw?: RawBody;

  constructor(data: T, status = 200, headers: Readonly<Record<string, string | number>> = {}) {
    this.data = data;
    this.status = status;
    for (const [name, value] of Object.entries(headers)) this.headers[name] = String(value);
  }

  /** Sets a response header (replacing one of the same name). */
  header(name: string, value: string | number): this {
    for (const existing of Object.keys(this.headers)) {
      if (existing.toLowerCase() === name.toLowerCase()) delete this.headers[existing];
    }
    this.headers[name] = String(value);
    return this;
  }
}

/** A response whose body is `text`, sent as `contentType` rather than encoded as JSON. */
export function rawResponse(text: string, contentType: string, status = 200, headers: Readonly<Record<string, string | number>> = {}): RestResponse<string> {
  const response = new RestResponse(text, status, headers);
  response.raw = { contentType };
  return response;
}

export function isRestResponse(value: unknown): value is RestResponse {
  return value instanceof RestResponse;
}

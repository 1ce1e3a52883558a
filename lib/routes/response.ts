/** What a handler returns when it needs more than "200 with this data". */
export class RestResponse<T = unknown> {
  data: T;
  status: number;
  readonly headers: Record<string, string> = {};

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

export function isRestResponse(value: unknown): value is RestResponse {
  return value instanceof RestResponse;
}

/**
 * What the HTTP layer sends: status, headers in order, and the body (null:
 * none, e.g. 304). One name along the whole way: a handler's result is
 * composed into an `Answer` (lib/routes/compose.ts), and the memory layer
 * (response-cache.ts) and the store (answer-store.ts) keep and give back
 * that same thing, so a reused answer is sent exactly as it was built.
 */
export interface Answer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer | null;
  /** Clears a `Last-Modified` a host middleware may have set (no-cache answers). */
  readonly noCache: boolean;
}

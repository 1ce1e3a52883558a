/**
 * Authentication helpers a site wraps around its own authenticator: reading
 * HTTP Basic credentials, and a failed-login limiter.
 */
import type { Request as ExpressRequest } from "express";
import { RestError, isRestError } from "./errors";
import type { Authenticate } from "./types";

export interface BasicCredentials {
  login: string;
  password: string;
}

/** `Authorization: Basic base64(login:password)` → credentials; `null` when absent or malformed. */
export function basicCredentials(req: ExpressRequest): BasicCredentials | null {
  const header = req.get("authorization");
  const m = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m || m[1] === undefined) return null;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The nonce a request carries for a cookie login: `_wpnonce` (query or form body) first, else `X-WP-Nonce`, as WordPress reads it. */
export function requestNonce(req: ExpressRequest): string | undefined {
  const url = req.originalUrl || req.url;
  const q = url.indexOf("?");
  // Asked for every request on the stored-answer path: the query is parsed only when it may hold one.
  const inQuery = q < 0 || !url.includes("wpnonce", q) ? null : new URLSearchParams(url.slice(q + 1)).get("_wpnonce");
  if (inQuery !== null) return inQuery;
  const inBody = bodyNonce(req);
  if (inBody !== undefined) return inBody;
  return req.get("x-wp-nonce");
}

/** `_wpnonce` of a form body: still raw (the REST layer reads bodies as buffers) or decoded by a host middleware. */
function bodyNonce(req: ExpressRequest): string | undefined {
  const body: unknown = req.body;
  if (Buffer.isBuffer(body)) {
    const type = (req.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded" || body.length === 0) return undefined;
    return new URLSearchParams(body.toString("utf8")).get("_wpnonce") ?? undefined;
  }
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const value: unknown = (body as Record<string, unknown>)._wpnonce;
    return typeof value === "string" ? value : undefined;
  }
  return undefined;
}

export interface LoginLimiterOptions {
  /** Failures allowed within the window; the next attempt is refused (default 10). */
  readonly maxFailures?: number;
  /** Sliding window in milliseconds (default 60 000). Failures older than this are forgotten. */
  readonly windowMs?: number;
  /** What identifies a client (default: the client address, `req.ip`, which honours the host's `trust proxy`). */
  readonly clientKey?: (req: ExpressRequest) => string;
  /** The login a request tries (default: that of its HTTP Basic credentials); `undefined`: it tries none and is never refused. */
  readonly loginOf?: (req: ExpressRequest) => string | undefined;
  /** Whether an authenticator's answer is a failed login (default: a RestError with status 401). */
  readonly isFailure?: (result: unknown) => boolean;
  /** How many (client, login) pairs with recent failures are remembered at most (default 10 000); the least recently failed are forgotten first. */
  readonly maxTracked?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
}

/** Longest part of a key kept: no stored login is longer than 60 characters nor an address than 45. */
const KEY_PART_LIMIT = 100;

/**
 * Counts failed logins per (client, login) in a sliding window. While a pair
 * is over the limit, its login attempts get 429 `too_many_login_attempts`
 * with `Retry-After` and are not checked at all (so guessing stops). Per
 * login, so that failures for other names never block a correct login,
 * even from the same address (behind a proxy every client may share one);
 * per client, so that someone guessing a user's password elsewhere does
 * not lock that user out. The window slides, so the real user is never
 * locked out for longer than `windowMs`; successful logins and anonymous
 * requests are not counted nor refused. Memory is bounded (`maxTracked`).
 */
export class LoginLimiter {
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxTracked: number;
  private readonly clientKey: (req: ExpressRequest) => string;
  private readonly loginOf: (req: ExpressRequest) => string | undefined;
  private readonly isFailure: (result: unknown) => boolean;
  private readonly now: () => number;
  /** Per key, the times of its most recent failures (at most `maxFailures`); in order of the latest failure. */
  private readonly failures = new Map<string, number[]>();
  private calls = 0;

  constructor(options: LoginLimiterOptions = {}) {
    this.maxFailures = Math.max(1, options.maxFailures ?? 10);
    this.windowMs = Math.max(1, options.windowMs ?? 60_000);
    this.maxTracked = Math.max(1, options.maxTracked ?? 10_000);
    this.clientKey = options.clientKey ?? ((req) => req.ip ?? req.socket.remoteAddress ?? "unknown");
    this.loginOf = options.loginOf ?? ((req) => basicCredentials(req)?.login ?? (req.get("authorization") !== undefined ? "" : undefined));
    this.isFailure = options.isFailure ?? ((result) => isRestError(result) && result.httpStatus === 401);
    this.now = options.now ?? Date.now;
  }

  /** The limiter's key of a client address and a login (logins compared as the database may: trimmed, case-insensitively). */
  static key(client: string, login: string): string {
    return `${client.slice(0, KEY_PART_LIMIT)}\u0000${login.trim().toLowerCase().slice(0, KEY_PART_LIMIT)}`;
  }

  /** Seconds until `key` (see `LoginLimiter.key`) may try again; 0 when it is not blocked. */
  retryAfter(key: string): number {
    const times = this.recent(key);
    if (times.length < this.maxFailures) return 0;
    const oldest = times[times.length - this.maxFailures] ?? this.now();
    return Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000));
  }

  recordFailure(key: string): void {
    const times = this.recent(key);
    times.push(this.now());
    if (times.length > this.maxFailures) times.splice(0, times.length - this.maxFailures);
    // Re-inserted, so the map's order is that of the latest failure: the oldest offenders are forgotten first.
    this.failures.delete(key);
    this.failures.set(key, times);
    while (this.failures.size > this.maxTracked) {
      const first = this.failures.keys().next();
      if (first.done === true) break;
      this.failures.delete(first.value);
    }
  }

  /** Forgets one key's failures, or everyone's. */
  reset(key?: string): void {
    if (key === undefined) this.failures.clear();
    else this.failures.delete(key);
  }

  /** How many keys have failures remembered (for tests and monitoring). */
  get tracked(): number {
    return this.failures.size;
  }

  /** An authenticator that refuses blocked (client, login) pairs and counts failures of `authenticate`. */
  wrap(authenticate: Authenticate): Authenticate {
    return async (req) => {
      this.sweep();
      const login = this.loginOf(req);
      if (login === undefined) return authenticate(req);
      const key = LoginLimiter.key(this.clientKey(req), login);
      const wait = this.retryAfter(key);
      if (wait > 0) {
        return new RestError("too_many_login_attempts", `Too many failed login attempts. Try again in ${wait} seconds.`, 429).header("Retry-After", wait);
      }
      const result = await authenticate(req);
      if (this.isFailure(result)) this.recordFailure(key);
      return result;
    };
  }

  private recent(key: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const times = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (times.length === 0) this.failures.delete(key);
    return times;
  }

  /** Drops expired keys now and then, so the map stays as small as the set of recent offenders. */
  private sweep(): void {
    this.calls += 1;
    if (this.calls % 256 !== 0) return;
    for (const key of [...this.failures.keys()]) this.recent(key);
  }
}

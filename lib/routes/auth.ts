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

export interface LoginLimiterOptions {
  /** Failures allowed within the window; the next attempt is refused (default 10). */
  readonly maxFailures?: number;
  /** Sliding window in milliseconds (default 60 000). Failures older than this are forgotten. */
  readonly windowMs?: number;
  /** What identifies a client (default: the client address, `req.ip`, which honours the host's `trust proxy`). */
  readonly clientKey?: (req: ExpressRequest) => string;
  /** Whether the request tries to log in (default: it has an `Authorization` header). Others are never refused. */
  readonly hasCredentials?: (req: ExpressRequest) => boolean;
  /** Whether an authenticator's answer is a failed login (default: a RestError with status 401). */
  readonly isFailure?: (result: unknown) => boolean;
  /** Clock, for tests. */
  readonly now?: () => number;
}

/**
 * Counts failed logins per client in a sliding window. While a client is
 * over the limit, its login attempts get 429 `too_many_login_attempts` with
 * `Retry-After` and are not checked at all (so guessing stops). The window
 * slides, so the real user is never locked out for longer than `windowMs`;
 * successful logins and anonymous requests are not counted nor refused.
 */
export class LoginLimiter {
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly clientKey: (req: ExpressRequest) => string;
  private readonly hasCredentials: (req: ExpressRequest) => boolean;
  private readonly isFailure: (result: unknown) => boolean;
  private readonly now: () => number;
  /** Per client, the times of its most recent failures (at most `maxFailures`). */
  private readonly failures = new Map<string, number[]>();
  private calls = 0;

  constructor(options: LoginLimiterOptions = {}) {
    this.maxFailures = Math.max(1, options.maxFailures ?? 10);
    this.windowMs = Math.max(1, options.windowMs ?? 60_000);
    this.clientKey = options.clientKey ?? ((req) => req.ip ?? req.socket.remoteAddress ?? "unknown");
    this.hasCredentials = options.hasCredentials ?? ((req) => req.get("authorization") !== undefined);
    this.isFailure = options.isFailure ?? ((result) => isRestError(result) && result.httpStatus === 401);
    this.now = options.now ?? Date.now;
  }

  /** Seconds until `key` may try again; 0 when it is not blocked. */
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
    this.failures.set(key, times);
  }

  /** Forgets one client's failures, or everyone's. */
  reset(key?: string): void {
    if (key === undefined) this.failures.clear();
    else this.failures.delete(key);
  }

  /** An authenticator that refuses blocked clients and counts failures of `authenticate`. */
  wrap(authenticate: Authenticate): Authenticate {
    return async (req) => {
      this.sweep();
      if (!this.hasCredentials(req)) return authenticate(req);
      const key = this.clientKey(req);
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

  /** Drops expired clients now and then, so the map stays as small as the set of recent offenders. */
  private sweep(): void {
    this.calls += 1;
    if (this.calls % 256 !== 0) return;
    for (const key of [...this.failures.keys()]) this.recent(key);
  }
}

/**
 * GET a URL a user gave, the way WordPress's `wp_safe_remote_get()` does:
 * the request may only reach public hosts. Every hop (the URL, then each
 * redirect, followed here and not by the HTTP client) is checked before
 * anything is sent:
 *
 * - an absolute `http:` or `https:` URL, without user name or password, on
 *   port 80, 443 or 8080 (WordPress's `http_allowed_safe_ports`);
 * - the host's addresses (an IP literal, else every address DNS gives) are
 *   all public (lib/net/addresses.ts);
 * - the connection goes to the addresses that were checked: the socket's
 *   `lookup` answers with them, so a DNS answer that changes between the
 *   check and the connect (DNS rebinding) cannot move the request.
 *
 * Hosts in `allowHosts` skip the address and port checks (an intranet image
 * server, a test server on 127.0.0.1). The whole exchange has one deadline
 * and the body is read up to a byte limit, then the connection is dropped.
 *
 * A failure is told in a few fixed words (`FAILURES`), never with the
 * error's own message: that names addresses and ports behind the host, the
 * certificate's names, and the TLS library, and callers pass the reason on to
 * whoever gave the URL.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { LookupFunction } from "node:net";
import { isRefusedAddress } from "./addresses";

/** The policy of requests made to URLs that users give (`createSite({ fetch })`). */
export interface FetchOptions {
  /**
   * Host names or IP addresses fetched even when they resolve to a
   * non-public address, on any port (matched case-insensitively against the
   * URL's host; IPv6 with or without brackets).
   */
  allowHosts?: readonly string[];
  /** The deadline of the whole exchange, redirects included (default 5000 ms). */
  timeoutMs?: number;
  /** Body bytes read at most (default 64 KiB); the rest is never downloaded. */
  maxBytes?: number;
  /** Redirects followed at most (default 5, as WordPress). */
  maxRedirects?: number;
}

export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
export const DEFAULT_FETCH_MAX_BYTES = 64 * 1024;
export const DEFAULT_FETCH_MAX_REDIRECTS = 5;
/** WordPress's `http_allowed_safe_ports`. */
export const SAFE_PORTS: readonly number[] = [80, 443, 8080];

export interface FetchedResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The first `maxBytes` bytes of the body. */
  body: Buffer;
}

export type SafeFetchResult =
  | { ok: true; response: FetchedResponse }
  /**
   * `refused`: the URL (or a redirect) is not one this policy fetches; nothing was sent to it.
   * `failed`: unreachable, too slow, too many redirects. `reason` is fixed text, safe to show to the user.
   */
  | { ok: false; kind: "refused" | "failed"; reason: string };

type Refusal = { kind: "refused" | "failed"; reason: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The deadline of the exchange passed (a socket's own connect timeout is told the same way). */
class TimedOut extends Error {
  constructor() {
    super("timed out");
  }
}

/** What a failed exchange is reported as, by the error's `code`; the first match wins. */
const FAILURES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^ETIMEDOUT$/, "timed out"],
  [/^(ENOTFOUND|ENODATA|EAI_)/, "its host does not resolve"],
  [/^ECONNREFUSED$/, "the connection was refused"],
  [/^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EADDRNOTAVAIL)$/, "the host could not be reached"],
  [/^(CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_TLS_CERT_ALTNAME_INVALID$)/, "its TLS certificate was not accepted"],
  [/^(EPROTO$|ERR_SSL_|ERR_TLS_|ERR_OSSL_)/, "the TLS handshake failed"],
  [/^HPE_/, "the answer is not valid HTTP"],
];

/** A failure as fixed words (see the module comment). */
function failureReason(err: unknown): string {
  if (err instanceof TimedOut) return "timed out";
  const code = typeof err === "object" && err !== null && "code" in err && typeof err.code === "string" ? err.code : "";
  return FAILURES.find(([pattern]) => pattern.test(code))?.[1] ?? "the connection failed";
}

/** The URL's host as an address (no brackets) or a lower-case name without a trailing dot. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
}

function isAllowedHost(host: string, options: FetchOptions): boolean {
  return (options.allowHosts ?? []).some((entry) => entry.trim().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase() === host);
}

/**
 * The checks that need no network: a parsable absolute http(s) URL without
 * credentials, on a safe port, whose host (if an IP literal) is public.
 * Returns the parsed URL or why it is refused.
 */
export function checkUrlShape(raw: string, options: FetchOptions = {}): { url: URL } | { reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: "it is not a valid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { reason: "only http and https URLs are fetched" };
  if (url.hostname === "") return { reason: "it has no host" };
  if (url.username !== "" || url.password !== "") return { reason: "it contains a user name or password" };
  const host = bareHost(url);
  if (isAllowedHost(host, options)) return { url };
  if (isIP(host) !== 0 && isRefusedAddress(host)) return { reason: "its host is not a public address" };
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (!SAFE_PORTS.includes(port)) return { reason: `port ${port} is not fetched (only ${SAFE_PORTS.join(", ")})` };
  return { url };
}

function withDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) return Promise.reject(new TimedOut());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), left);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
}

/** The addresses to connect to, all checked; or why not. IP literals need no lookup. */
async function checkedAddresses(url: URL, options: FetchOptions, deadline: number): Promise<LookupAddress[] | Refusal> {
  const host = bareHost(url);
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family }];
  let addresses: LookupAddress[];
  try {
    addresses = await withDeadline(resolveAll(host), deadline);
  } catch (err) {
    return { kind: "failed", reason: failureReason(err) };
  }
  if (addresses.length === 0) return { kind: "failed", reason: "its host does not resolve" };
  if (!isAllowedHost(host, options) && addresses.some((a) => isRefusedAddress(a.address))) {
    return { kind: "refused", reason: "its host resolves to an address that is not public" };
  }
  return addresses;
}

/** A socket `lookup` that answers with the addresses already checked, whatever DNS says now. */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
    const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
    const [first] = usable;
    if (first === undefined) {
      callback(Object.assign(new Error("no address of the requested family"), { code: "ENOTFOUND" }), "", 0);
      return;
    }
    if (options.all) callback(null, [...usable]);
    else callback(null, first.address, first.family);
  };
}

type Hop = { redirect: string } | { response: FetchedResponse };

/** One request to checked addresses; a redirect is answered, not followed. */
function request(url: URL, addresses: readonly LookupAddress[], maxBytes: number, deadline: number): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(url, {
      method: "GET",
      agent: false,
      lookup: pinnedLookup(addresses),
      headers: { accept: "image/*, */*;q=0.5", "accept-encoding": "identity" },
    });
    const left = deadline - Date.now();
    const timer = setTimeout(() => req.destroy(new TimedOut()), Math.max(left, 0));
    const done = <T>(settle: (value: T) => void, value: T): void => {
      clearTimeout(timer);
      settle(value);
    };
    req.once("error", (err) => done(reject, err));
    req.once("response", (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && typeof location === "string" && location !== "") {
        res.destroy();
        req.destroy();
        done(resolve, { redirect: location });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (): void => {
        res.destroy();
        req.destroy();
        done(resolve, { response: { url: url.href, status, headers: res.headers, body: Buffer.concat(chunks, size) } });
      };
      res.on("data", (chunk: Buffer) => {
        const room = maxBytes - size;
        if (room > 0) {
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          chunks.push(part);
          size += part.length;
        }
        if (size >= maxBytes) finish();
      });
      res.once("end", finish);
      res.once("error", (err) => done(reject, err));
    });
    req.end();
  });
}

/** GET `raw` under the policy (see the module comment). Never throws. */
export async function safeFetch(raw: string, options: FetchOptions = {}): Promise<SafeFetchResult> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS);
  const maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_FETCH_MAX_REDIRECTS;
  let next = raw;
  for (let hop = 0; hop <= maxRedirects; hop++) {
    const shape = checkUrlShape(next, options);
    if ("reason" in shape) return { ok: false, kind: "refused", reason: hop === 0 ? shape.reason : `a redirect goes where ${shape.reason}` };
    const addresses = await checkedAddresses(shape.url, options, deadline);
    if (!Array.isArray(addresses)) return { ok: false, ...addresses, reason: hop === 0 || addresses.kind === "failed" ? addresses.reason : `a redirect goes where ${addresses.reason}` };
    let answer: Hop;
    try {
      answer = await request(shape.url, addresses, maxBytes, deadline);
    } catch (err) {
      return { ok: false, kind: "failed", reason: failureReason(err) };
    }
    if ("response" in answer) return { ok: true, response: answer.response };
    try {
      next = new URL(answer.redirect, shape.url).href;
    } catch {
      return { ok: false, kind: "failed", reason: "a redirect has an invalid Location" };
    }
  }
  return { ok: false, kind: "failed", reason: `more than ${maxRedirects} redirects` };
}

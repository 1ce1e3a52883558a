/**
 * The syntax of the two things generated URLs are built from: a configured
 * site URL (`createSite({ siteUrl })`, `serve --site-url`, the `home` option)
 * and, when none is configured, the request's Host header.
 */
import { isIPv6 } from "node:net";

/**
 * `https://Example.org:443/calendar/` → `https://example.org/calendar`: an
 * absolute http(s) URL without credentials, query or fragment, in WHATWG
 * form (host lower case, default port dropped), no trailing slash. Throws an
 * Error naming what is wrong.
 */
export function parseSiteUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`the site URL must be an absolute http or https URL, not "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`the site URL must be an http or https URL, not "${value}"`);
  if (url.username !== "" || url.password !== "") throw new Error("the site URL must not carry a user name or password");
  // `?` and `#` alone leave search/hash empty but would still change every URL built on it.
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(value)) throw new Error(`the site URL must not have a query or fragment: "${value}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** A DNS-style name or IPv4 address: letters, digits, `-`, `_`, dots between labels of at most 63 characters. */
const NAME = /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/**
 * A Host header value when it is a syntactically valid `host[:port]`
 * (a name or IPv4 address, or a bracketed IPv6 address, and a port 0–65535),
 * lower case; `undefined` otherwise. Nothing else may reach a generated URL:
 * a value such as `evil>; rel="preload"` would be copied into `Link`.
 */
export function parseHostHeader(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 300) return undefined;
  const match = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (match === null) return undefined;
  const [, host, port] = match;
  const valid = host.startsWith("[") ? /^\[[0-9a-f:.]+\]$/i.test(host) && isIPv6(host.slice(1, -1)) : NAME.test(host);
  if (!valid || (port !== undefined && Number(port) > 65535)) return undefined;
  return value.toLowerCase();
}

/**
 * Shared plumbing of the pages: where the static front end lives, a tiny
 * placeholder template (the pages are plain HTML files in `web/`; the server
 * only fills in URLs), and how a page finds the site home and REST root from
 * where it is mounted.
 */
import fs from "node:fs";
import { STATUS_CODES } from "node:http";
import path from "node:path";
import express, { type ErrorRequestHandler, type Handler, type Request, type Response } from "express";
import { DEFAULT_REST_PREFIX } from "../routes";
import { normalizePrefix } from "../routes/urls";

/**
 * `web/` sits at the package root beside `lib/` and `dist/`; this file is
 * `lib/pages/html.ts` when run from source and `dist/pages/html.js` when
 * built, so the same two hops up find it in both layouts.
 */
export const WEB_DIR = path.resolve(__dirname, "../../web");

/** The namespace the pages talk to. */
export const NAMESPACE = "calendar/events/v1";

/** Options every page takes. */
export interface PageOptions {
  /**
   * The REST prefix below the site home where `site.router` is mounted
   * (default `/wp-json`, as `createSite`'s `restPrefix`).
   */
  restPrefix?: string;
  /**
   * Where this page is mounted below the site home (the calendar `/`, the
   * reference `/docs`). A page mounted elsewhere still finds the home by
   * dropping this suffix from `req.baseUrl`.
   */
  mountPath?: string;
  /**
   * The REST root the page's browser code talks to, absolute
   * (`https://api.example.com/wp-json/`) or origin-relative (`/wp-json/`).
   * Default: `<restPrefix>/` from the origin's root, wherever the page is
   * mounted. Set it when the router is mounted elsewhere.
   */
  restRoot?: string;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * A page template: `{{name}}` placeholders, every value HTML-escaped (they
 * land in attributes and text). The file is read on first use and kept:
 * reading it when the site is created would make a package that lacks
 * `web/` break `createSite` for hosts that never mount the pages.
 */
export class Template {
  /** Sites are cheap to create (tests make hundreds); each file is read once per process. */
  private static readonly cache = new Map<string, string>();
  private readonly file: string;

  constructor(file: string) {
    this.file = path.join(WEB_DIR, file);
  }

  private text(): string {
    let text = Template.cache.get(this.file);
    if (text === undefined) {
      text = fs.readFileSync(this.file, "utf8");
      Template.cache.set(this.file, text);
    }
    return text;
  }

  /** Throws when the file is missing (the router turns that into a 500). */
  render(values: Record<string, string>): string {
    return this.text().replace(/\{\{(\w+)\}\}/g, (_whole, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`template placeholder {{${name}}} has no value`);
      return escapeHtml(value);
    });
  }
}

/**
 * The site home path (origin-relative, no trailing slash, `""` for the root)
 * as seen by a page router: `req.baseUrl` without the page's own mount path,
 * the same rule `restUrls` uses to find the home from the REST router's mount.
 */
export function homePath(req: Request, mountPath: string): string {
  const base = req.baseUrl.replace(/\/+$/, "");
  const mount = mountPath.replace(/\/+$/, "");
  if (mount === "") return base;
  if (base.toLowerCase().endsWith(mount.toLowerCase())) return base.slice(0, base.length - mount.length);
  return base.replace(/\/[^/]*$/, "");
}

/** An absolute URL stays as it is; a path is taken relative to the site home. */
export function linkFrom(home: string, target: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return target;
  return `${home}/${target.replace(/^\/+/, "")}`;
}

/**
 * The REST root for the browser: the configured one (a site URL's path and
 * the prefix, see createSitePages), or `<prefix>/` from the origin's root.
 * Not from where the page is mounted: a host that mounts the router at
 * `/wp-json` and the pages at `/calendar` (the README's mount) must get
 * `/wp-json/`; a site wholly under a path says so with its site URL.
 */
export function restRootFor(options: PageOptions): string {
  if (options.restRoot !== undefined) return options.restRoot.endsWith("/") ? options.restRoot : `${options.restRoot}/`;
  return `${normalizePrefix(options.restPrefix ?? DEFAULT_REST_PREFIX)}/`;
}

/**
 * The origin of an absolute REST root, which the Content-Security-Policy
 * must allow the page to call; `undefined` for an origin-relative root
 * (covered by `'self'`).
 */
function restOrigin(restRoot: string): string | undefined {
  if (!/^https?:\/\//i.test(restRoot)) return undefined;
  try {
    return new URL(restRoot).origin;
  } catch {
    return undefined;
  }
}

/**
 * Headers of every HTML answer: no content sniffing, no full referrer to
 * other sites, and no framing by another site (clickjacking: a page of
 * theirs overlaying the editor's buttons). `X-Frame-Options` is for browsers
 * that do not know the CSP's `frame-ancestors`.
 */
const HTML_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "SAMEORIGIN",
} as const;

/**
 * Sends an HTML page with headers that keep it from being turned against its
 * visitors: scripts and styles only from this server (the front ends have no
 * inline script), API calls only to this server or the configured REST
 * origin, framed only by this server's own pages. `inlineStyles` is for
 * Swagger UI, which sets inline styles.
 */
export function sendPage(res: Response, html: string, restRoot: string, policy: { inlineStyles?: boolean; private?: boolean } = {}): void {
  const connect = ["'self'", restOrigin(restRoot)].filter((s): s is string => s !== undefined).join(" ");
  const csp = [
    "default-src 'self'",
    `connect-src ${connect}`,
    "img-src 'self' data:",
    `style-src 'self'${policy.inlineStyles ? " 'unsafe-inline'" : ""}`,
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join("; ");
  res.set({
    ...HTML_HEADERS,
    "Content-Security-Policy": csp,
    // The HTML carries per-request URLs; the assets it names are cached normally.
    // A page that carries one user's nonce must not be kept anywhere.
    "Cache-Control": policy.private === true ? "private, no-store" : "no-cache",
  });
  res.send(html);
}

/**
 * A page's own files (scripts, styles): `web/<dir>` without its HTML, which
 * is the page's template and is only ever sent filled in, by `sendPage`.
 */
export function pageAssets(dir: string, options: { fallthrough?: boolean } = {}): Handler {
  const files = express.static(path.join(WEB_DIR, dir), { index: false, fallthrough: options.fallthrough ?? true });
  return (req, res, next) => {
    if (/\.html?$/i.test(req.path)) {
      next();
      return;
    }
    files(req, res, next);
  };
}

/** A bare HTML error page with the pages' headers: status and its name, nothing from the request or the error. */
export function sendErrorPage(res: Response, status: number): void {
  const title = `${status} ${STATUS_CODES[status] ?? "Error"}`;
  res.status(status).set({
    ...HTML_HEADERS,
    "Content-Security-Policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    "Cache-Control": "no-store",
  });
  res.send(`<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`);
}

/**
 * The last handlers of an app that serves the pages (`calpress serve`): what
 * nothing else answered is a 404 page, and an error a page too (Express's own
 * would show the stack outside production), with `log` told about server errors.
 */
export function errorPages(log: (err: unknown) => void): [Handler, ErrorRequestHandler] {
  const notFound: Handler = (_req, res) => sendErrorPage(res, 404);
  const failed: ErrorRequestHandler = (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const given = typeof err === "object" && err !== null ? (err as { status?: unknown; statusCode?: unknown }) : {};
    const status = [given.status, given.statusCode].find((s): s is number => Number.isInteger(s) && Number(s) >= 400 && Number(s) <= 599) ?? 500;
    if (status >= 500) log(err);
    sendErrorPage(res, status);
  };
  return [notFound, failed];
}

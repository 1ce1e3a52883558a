/**
 * The HTML pages calpress serves beside its REST API: a demo calendar at the
 * site root, the API reference at `/docs` and the editor at `/editor`. They are optional (`createSite`
 * option `pages: false`), and a host may mount them itself, anywhere:
 *
 *   for (const [path, router] of site.pages) app.use(path, router);
 *
 * or build them with its own options (`createCalendarPage({ restRoot })`).
 */
import type { Router } from "express";
import type { EditorPageOptions } from "./editor";
import { createCalendarPage } from "./calendar";
import { createDocsPage } from "./docs";
import { createEditorPage } from "./editor";
import { DEFAULT_REST_PREFIX, normalizePrefix } from "../routes/urls";

export { createCalendarPage, CALENDAR_ASSETS, type CalendarPageOptions } from "./calendar";
export { createDocsPage, type DocsPageOptions } from "./docs";
export { createEditorPage, EDITOR_ASSETS, type EditorPageOptions } from "./editor";
export { errorPages } from "./html";
export type { PageOptions } from "./html";

/** What the CLI prints beside each page's URL. */
const titles = new WeakMap<Router, string>();

/** The human name of a page router made here (`Calendar`, `API reference`), for listings. */
export function pageTitle(router: Router): string | undefined {
  return titles.get(router);
}

export interface SitePagesOptions {
  /** The REST prefix below the site home, as `createSite`'s `restPrefix` (default `/wp-json`). */
  restPrefix?: string;
  /**
   * The site URL (`parseSiteUrl` form), as `createSite`'s `siteUrl`: the
   * pages then call `<its path><restPrefix>/` wherever they are mounted.
   * Without it they call `<restPrefix>/` from the origin's root.
   */
  siteUrl?: string;
  /** Whether the calendar plugin is registered: without it the reference and the editor are served, not the calendar. Default true. */
  calendar?: boolean;
  /** The nonce of a host's cookie login on a page request (`EditorPageOptions.nonceFor`). */
  nonceFor?: EditorPageOptions["nonceFor"];
}

/** The calendar at `/`, the reference at `/docs` (every namespace's OpenAPI document) and the editor at `/editor`, linked to each other, for `site.pages`. */
export function createSitePages(options: SitePagesOptions = {}): Array<[string, Router]> {
  // Origin-relative: the page calls the server it came from, under the site URL's path.
  const restRoot = options.siteUrl === undefined ? undefined : `${new URL(options.siteUrl).pathname.replace(/\/+$/, "")}${normalizePrefix(options.restPrefix ?? DEFAULT_REST_PREFIX)}/`;
  const withCalendar = options.calendar !== false;
  const editor = createEditorPage({ restPrefix: options.restPrefix, restRoot, mountPath: "/editor", calendarPath: withCalendar ? "/" : false, nonceFor: options.nonceFor });
  titles.set(editor, "Editor");
  // Every namespace has its OpenAPI document: the reference has something to show without the calendar too.
  const docs = createDocsPage({ restPrefix: options.restPrefix, restRoot, mountPath: "/docs", calendarPath: withCalendar ? "/" : false });
  titles.set(docs, "API reference");
  if (!withCalendar) {
    return [
      ["/docs", docs],
      ["/editor", editor],
    ];
  }
  const calendar = createCalendarPage({ restPrefix: options.restPrefix, restRoot, mountPath: "/", docsPath: "/docs" });
  titles.set(calendar, "Calendar");
  return [
    ["/", calendar],
    ["/docs", docs],
    ["/editor", editor],
  ];
}

/**
 * The HTML pages calpress serves beside its REST API: a demo calendar at the
 * site root and the API reference at `/docs`. They are optional (`createSite`
 * option `pages: false`), and a host may mount them itself, anywhere:
 *
 *   for (const [path, router] of site.pages) app.use(path, router);
 *
 * or build them with its own options (`createCalendarPage({ restRoot })`).
 */
import type { Router } from "express";
import { createCalendarPage } from "./calendar";
import { createDocsPage } from "./docs";

export { createCalendarPage, CALENDAR_ASSETS, type CalendarPageOptions } from "./calendar";
export { createDocsPage, type DocsPageOptions } from "./docs";
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
}

/** The calendar at `/` and the reference at `/docs`, linked to each other, for `site.pages`. */
export function createSitePages(options: SitePagesOptions = {}): Array<[string, Router]> {
  const calendar = createCalendarPage({ restPrefix: options.restPrefix, mountPath: "/", docsPath: "/docs" });
  const docs = createDocsPage({ restPrefix: options.restPrefix, mountPath: "/docs", calendarPath: "/" });
  titles.set(calendar, "Calendar");
  titles.set(docs, "API reference");
  return [
    ["/", calendar],
    ["/docs", docs],
  ];
}

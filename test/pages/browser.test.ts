/**
 * End to end in Debian's headless Chromium: the demo calendar and the API
 * reference against a real site (minimal fixture plus events made through
 * the API, so every expected list is known), with the browser's clock fixed
 * in May 2030 and its zone in New York (so the "your time" line differs
 * from the events' own zones).
 */
import fs from "node:fs";
import { expect } from "chai";
import type { Browser, BrowserContext, Page, Request, Route } from "playwright-core";
import { ApiEvent, ApiList, ApiTerm, artifact, CHROMIUM, launchChromium, PagesSite, startPagesSite, watchConsole } from "./support";

const NOW = new Date("2030-05-15T12:00:00Z");
const EVENTS_PATH = "/calendar/events/v1/events";

interface Named {
  id: number;
  venue?: string;
  organizer?: string;
}

describe("pages in Chromium", function () {
  this.timeout(30_000);
  let browser: Browser | undefined;
  let t: PagesSite | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let problems: string[] = [];
  const ids: Record<string, number> = {};
  const term: Record<string, number> = {};

  const site = (): PagesSite => {
    if (!t) throw new Error("site not started");
    return t;
  };

  async function makeEvent(key: string, body: Record<string, unknown>): Promise<void> {
    const res = await site().api<ApiEvent>("POST", "/events", body, true);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    ids[key] = res.body.id;
  }

  /** Every event the API lists for a month with the page's own bounds (all pages), as the oracle. */
  async function apiMonth(starts: string, endsAfter: string, extra: Record<string, string> = {}): Promise<ApiEvent[]> {
    const out: ApiEvent[] = [];
    for (let p = 1; ; p++) {
      const q = new URLSearchParams({ starts_before: starts, ends_after: endsAfter, per_page: "50", page: String(p), ...extra });
      const res = await site().api<ApiList<"events", ApiEvent>>("GET", `/events?${q}`);
      expect(res.status).to.equal(200);
      out.push(...res.body.events);
      if (p >= res.body.total_pages) return out;
    }
  }

  const titles = (events: Array<{ title: string }>): string[] => events.map((e) => e.title).sort();

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(`      (skipped: ${CHROMIUM} is absent; CI installs Debian's chromium package)`);
      this.skip();
    }
    this.timeout(60_000);
    [t, browser] = await Promise.all([startPagesSite({ now: NOW }), launchChromium()]);

    const cats = await site().api<ApiList<"categories", ApiTerm>>("GET", "/categories?hide_empty=0&per_page=50");
    for (const c of cats.body.categories) term[c.name] = c.id;
    const tags = await site().api<ApiList<"tags", ApiTerm>>("GET", "/tags?hide_empty=0&per_page=50");
    for (const c of tags.body.tags) term[`tag:${c.name}`] = c.id;
    const venues = await site().api<ApiList<"venues", Named>>("GET", "/venues?per_page=50");
    for (const v of venues.body.venues) term[`venue:${v.venue}`] = v.id;
    const organizers = await site().api<ApiList<"organizers", Named>>("GET", "/organizers?per_page=50");
    for (const o of organizers.body.organizers) term[`organizer:${o.organizer}`] = o.id;

    await makeEvent("jazz", {
      title: "Harbour Jazz Night",
      description: "Standards and new tunes.\n\nDoors at 19:00.",
      start_date: "2030-05-10 19:30:00",
      end_date: "2030-05-10 22:00:00",
      timezone: "Europe/Amsterdam",
      venue: term["venue:Town Hall"],
      organizer: [term["organizer:Jazz Club"], term["organizer:Friends of Music"]],
      categories: [term.Jazz],
      tags: [term["tag:free"]],
      cost: "€15",
    });
    await makeEvent("poetry", {
      title: "Poetry Reading",
      start_date: "2030-05-20 18:00:00",
      end_date: "2030-05-20 19:30:00",
      timezone: "UTC",
      venue: term["venue:City Park"],
      categories: [term.Arts],
    });
    await makeEvent("fair", {
      title: "Spring Fair",
      all_day: true,
      start_date: "2030-04-29",
      end_date: "2030-05-02",
      timezone: "UTC",
      categories: [term.Arts, term.Music],
    });
    await makeEvent("yoga", { title: "Lakeside Yoga", start_date: "2030-06-12 08:00:00", end_date: "2030-06-12 09:00:00", timezone: "America/New_York" });
    await makeEvent("slam", { title: "Soirée slam", start_date: "2030-05-12 20:00:00", end_date: "2030-05-12 22:00:00", timezone: "Europe/Paris", i18n_language: "fr" });
    // More than one page of events (the API answers 50 at most).
    for (let i = 1; i <= 55; i++) {
      // Days 1–25 twice, 1–5 a third time: 1 May (with the fair) has four events.
      const day = String(((i - 1) % 25) + 1).padStart(2, "0");
      await makeEvent(`run${i}`, { title: `Morning Run ${String(i).padStart(2, "0")}`, start_date: `2030-05-${day} 07:00:00`, end_date: `2030-05-${day} 08:00:00`, timezone: "UTC" });
    }
  });

  after(async function () {
    this.timeout(30_000);
    await browser?.close();
    await t?.close();
  });

  beforeEach(async function () {
    if (!browser) this.skip();
    context = await browser!.newContext({ locale: "en-GB", timezoneId: "America/New_York", viewport: { width: 1280, height: 900 } });
    // The calendar's "this month" is the browser's; Swagger UI is left on the
    // real clock (its debounced rendering waits for Date.now to move).
    if (!/API reference/.test(this.currentTest?.title ?? "")) await context.clock.setFixedTime(NOW);
    page = await context.newPage();
    // Fail with Playwright's own message (which element, which state) before mocha's timeout.
    page.setDefaultTimeout(8_000);
    problems = watchConsole(page);
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  async function openCalendar(hash = ""): Promise<void> {
    await page.goto(`${site().home}/${hash}`);
    await page.locator("#status", { hasText: / in [A-Z][a-z]+ \d{4}/ }).waitFor();
  }

  async function listTitles(): Promise<string[]> {
    if ((await page.locator("#view-list").getAttribute("aria-pressed")) !== "true") await page.click("#view-list");
    await page.locator(".event-list, .results .empty").first().waitFor();
    return (await page.locator(".list-title").allTextContents()).sort();
  }

  it("lists every event of the current month, beyond one page of 50, in the grid and the list", async () => {
    const requests: string[] = [];
    page.on("request", (r: Request) => {
      if (new URL(r.url()).pathname.endsWith(EVENTS_PATH)) requests.push(r.url());
    });
    await openCalendar();
    const expected = await apiMonth("2030-05-31", "2030-04-30");
    expect(expected.length).to.be.greaterThan(50);
    expect(titles(expected)).to.include.members(["Harbour Jazz Night", "Poetry Reading", "Spring Fair", "Morning Run 55"]);

    expect(await page.locator("#month-title").textContent()).to.equal("May 2030");
    expect(await page.locator("#status").textContent()).to.equal(`${expected.length} events in May 2030.`);
    // Both pages were fetched, 50 at a time.
    const pages = requests.map((u) => new URL(u).searchParams).map((q) => `${q.get("page")}/${q.get("per_page")}`);
    expect(pages.sort()).to.deep.equal(["1/50", "2/50"]);

    // Today (fixed clock) is marked; events sit on their days; a multi-day event on each of its days.
    expect(await page.locator('td[data-day="2030-05-15"]').getAttribute("aria-current")).to.equal("date");
    expect(await page.locator(`td[data-day="2030-05-10"] [data-event-id="${ids.jazz}"]`).textContent()).to.equal("19:30 Harbour Jazz Night");
    for (const day of ["2030-05-01", "2030-05-02"]) {
      expect(await page.locator(`td[data-day="${day}"] [data-event-id="${ids.fair}"]`).count(), day).to.equal(1);
    }
    expect(await page.locator(`td[data-day="2030-05-03"] [data-event-id="${ids.fair}"]`).count()).to.equal(0);
    // Busy days show three events and a button for the rest.
    expect(await page.locator('td[data-day="2030-05-01"] .event-chip').count()).to.equal(3);
    expect(await page.locator('td[data-day="2030-05-01"] button.more').textContent()).to.equal("1 more on Wednesday, 1 May 2030");
    await page.screenshot({ path: artifact("calendar-month.png"), fullPage: true });

    // "1 more" opens the list at that day, with focus on the day's heading.
    await page.click('td[data-day="2030-05-01"] button.more');
    expect(await page.locator("#view-list").getAttribute("aria-pressed")).to.equal("true");
    expect(await page.locator(":focus").getAttribute("id")).to.equal("day-2030-05-01");
    expect(await listTitles()).to.deep.equal(titles(expected));
    await page.screenshot({ path: artifact("calendar-list.png"), fullPage: true });
    expect(problems).to.deep.equal([]);
  });

  it("navigates to the next month and back", async () => {
    await openCalendar();
    await page.click("#next-month");
    await page.locator("#status", { hasText: "in June 2030" }).waitFor();
    expect(await page.locator("#month-title").textContent()).to.equal("June 2030");
    const june = await apiMonth("2030-06-30", "2030-05-31");
    expect(titles(june)).to.include("Lakeside Yoga");
    const chips = await page.locator(".event-chip .chip-title").allTextContents();
    expect([...new Set(chips)].sort()).to.deep.equal(titles(june));
    expect(await page.locator(`td[data-day="2030-06-12"] [data-event-id="${ids.yoga}"]`).textContent()).to.equal("08:00 Lakeside Yoga");
    expect(page.url()).to.match(/#month=2030-06$/);

    await page.click("#prev-month");
    await page.locator("#status", { hasText: "in May 2030" }).waitFor();
    expect(problems).to.deep.equal([]);
  });

  it("filters by a category", async () => {
    await openCalendar();
    await page.locator("#filter-category option", { hasText: "Arts" }).waitFor({ state: "attached" });
    await page.selectOption("#filter-category", { label: "Arts" });
    await page.locator("#status", { hasText: "filtered by Arts" }).waitFor();
    const expected = await apiMonth("2030-05-31", "2030-04-30", { categories: String(term.Arts) });
    expect(titles(expected)).to.deep.equal(["Poetry Reading", "Spring Fair"]);
    expect(await listTitles()).to.deep.equal(titles(expected));
    expect(page.url()).to.contain(`categories=${term.Arts}`);
    // Subcategories are indented under their parent.
    expect(await page.locator("#filter-category option").allTextContents()).to.include.members(["Music", "— Jazz"]);
    expect(problems).to.deep.equal([]);
  });

  it("finds an event by search", async () => {
    await openCalendar();
    await page.fill("#search", "harbour");
    await page.press("#search", "Enter");
    await page.locator("#status", { hasText: "matching “harbour”" }).waitFor();
    expect(await page.locator("#status").textContent()).to.equal("1 event in May 2030 matching “harbour”.");
    expect(await listTitles()).to.deep.equal(["Harbour Jazz Night"]);
    expect(problems).to.deep.equal([]);
  });

  it("opens a detail panel by keyboard, with the API's dates in the event's zone and the viewer's, and gives focus back", async () => {
    await openCalendar();
    const record = (await site().api<ApiEvent & { venue: { geo_lat: number; geo_lng: number } }>("GET", `/events/${ids.jazz}`)).body;
    expect(record).to.include({ start_date: "2030-05-10 19:30:00", utc_start_date: "2030-05-10 17:30:00", timezone: "Europe/Amsterdam" });

    // Keyboard: from the view switch, Tab reaches the first event of the grid.
    await page.focus("#view-list");
    await page.keyboard.press("Tab");
    expect(await page.locator(":focus").getAttribute("data-event-id")).to.match(/^\d+$/);

    const chip = page.locator(`td[data-day="2030-05-10"] [data-event-id="${ids.jazz}"]`);
    await chip.focus();
    await page.keyboard.press("Enter");
    const detail = page.locator("#detail");
    await detail.waitFor({ state: "visible" });
    expect(await page.locator(":focus").getAttribute("id")).to.equal("detail-title");
    expect(await page.locator("#detail-title").textContent()).to.equal("Harbour Jazz Night");

    // The event's own wall clock and offset, exactly as the API states them.
    const start = detail.locator("time.event-start");
    expect(await start.getAttribute("datetime")).to.equal(`${record.start_date.replace(" ", "T")}+02:00`);
    expect(await start.textContent()).to.equal("Fri, 10 May 2030, 19:30");
    expect(await detail.locator("time.event-end").getAttribute("datetime")).to.equal(`${record.end_date.replace(" ", "T")}+02:00`);
    expect(await detail.locator("time.event-end").textContent()).to.equal("22:00");
    expect(await detail.locator(".fact", { hasText: "When" }).textContent()).to.contain(`${record.timezone_abbr} (Europe/Amsterdam)`);
    // The same instants in the viewer's zone (New York, UTC-4 in May).
    const viewerStart = detail.locator("time.viewer-start");
    expect(await viewerStart.getAttribute("datetime")).to.equal(`${record.utc_start_date.replace(" ", "T")}Z`);
    expect(await viewerStart.textContent()).to.equal("Fri, 10 May 2030, 13:30");
    expect(await detail.locator("time.viewer-end").textContent()).to.equal("16:00");
    expect(await detail.locator(".fact", { hasText: "Your time" }).textContent()).to.contain("America/New_York");

    // Venue with a map link (the fixture's Town Hall has coordinates), organizers, cost.
    expect(await detail.locator(".venue-name").textContent()).to.equal("Town Hall");
    const map = await detail.locator("a.map-link").getAttribute("href");
    expect(map).to.equal(`https://www.openstreetmap.org/?mlat=${record.venue.geo_lat.toFixed(5)}&mlon=${record.venue.geo_lng.toFixed(5)}#map=17/${record.venue.geo_lat.toFixed(5)}/${record.venue.geo_lng.toFixed(5)}`);
    expect(await detail.locator(".organizer-name").allTextContents()).to.deep.equal(["Jazz Club", "Friends of Music"]);
    expect(await detail.locator(".cost").textContent()).to.equal(record.cost);
    expect(await detail.locator(".description p").allTextContents()).to.deep.equal(["Standards and new tunes.", "Doors at 19:00."]);
    expect(page.url()).to.contain(`event=${ids.jazz}`);
    await page.screenshot({ path: artifact("calendar-detail.png"), fullPage: true });

    await page.keyboard.press("Escape");
    await detail.waitFor({ state: "hidden" });
    expect(await page.locator(":focus").getAttribute("data-event-id")).to.equal(String(ids.jazz));

    // A venue without coordinates gets no map link.
    await page.locator(`[data-event-id="${ids.poetry}"]`).first().click();
    await page.locator("#detail-title", { hasText: "Poetry Reading" }).waitFor();
    expect(await detail.locator(".venue-name").textContent()).to.equal("City Park");
    expect(await detail.locator("a.map-link").count()).to.equal(0);
    await page.click("#detail-close");
    expect(await page.locator(":focus").getAttribute("data-event-id")).to.equal(String(ids.poetry));
    expect(problems).to.deep.equal([]);
  });

  it("opens an event from a bookmarked URL", async () => {
    await openCalendar(`#month=2030-06&event=${ids.yoga}`);
    await page.locator("#detail-title", { hasText: "Lakeside Yoga" }).waitFor();
    expect(await page.locator("#detail time.event-start").getAttribute("datetime")).to.equal("2030-06-12T08:00:00-04:00");
    expect(problems).to.deep.equal([]);
  });

  it("marks a repeating event in the grid and says its rule in the detail", async () => {
    // August 2030: a month no other test looks at.
    if (ids.choir === undefined) {
      await makeEvent("choir", { title: "Choir Practice", start_date: "2030-08-06 19:00:00", end_date: "2030-08-06 21:00:00", timezone: "Europe/Rome", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"] });
    }
    await openCalendar(`#month=2030-08&event=${ids.choir}`);
    await page.locator("#detail-title", { hasText: "Choir Practice" }).waitFor();
    expect(await page.locator("#detail .event-repeats").textContent()).to.equal("Every week, 4 times");
    // The grid lists the series' first occurrence (an id of its own, issue 22).
    const chip = page.locator(`td[data-day="2030-08-06"] [data-event-id]`, { hasText: "Choir Practice" });
    expect(await chip.locator(".repeats").getAttribute("aria-hidden")).to.equal("true");
    expect(await chip.textContent()).to.contain("(repeats: Every week, 4 times)");
    expect(problems).to.deep.equal([]);
  });

  it("switches the content language with i18n_language", async () => {
    await openCalendar();
    const seen: string[] = [];
    page.on("request", (r: Request) => {
      const url = new URL(r.url());
      if (url.pathname.endsWith(EVENTS_PATH)) seen.push(url.searchParams.get("i18n_language") ?? "");
    });
    await page.selectOption("#language", "fr");
    await page.locator("#filter-category option", { hasText: "Musique" }).waitFor({ state: "attached" });
    await page.locator("#status", { hasText: "in May 2030" }).waitFor();
    expect(seen).to.deep.equal(["fr"]);
    const expected = await apiMonth("2030-05-31", "2030-04-30", { i18n_language: "fr" });
    expect(titles(expected)).to.deep.equal(["Soirée slam"]);
    expect(await listTitles()).to.deep.equal(["Soirée slam"]);
    expect(await page.locator("#results").getAttribute("lang")).to.equal("fr");
    expect(problems).to.deep.equal([]);
  });

  it("shows a clear alert when the API answers an error or cannot be reached, and recovers on retry", async () => {
    const isEvents = (url: URL): boolean => url.pathname.endsWith(EVENTS_PATH);
    const fail = (route: Route): Promise<void> =>
      route.fulfill({
        status: 500,
        contentType: "application/json; charset=UTF-8",
        body: JSON.stringify({ code: "internal_server_error", message: "The database is on fire.", data: { status: 500 } }),
      });
    await page.route(isEvents, fail);
    await page.goto(`${site().home}/`);
    const alert = page.getByRole("alert");
    await alert.locator(".error-message").waitFor();
    expect(await alert.locator(".error-message").textContent()).to.equal("The calendar API answered with an error: The database is on fire. Try again");
    expect(await page.locator("#results .empty").textContent()).to.equal("The events of May 2030 could not be loaded.");
    expect(await page.locator("#results").getAttribute("aria-busy")).to.equal("false");
    expect(await page.locator("#status").textContent()).to.equal("");
    await page.screenshot({ path: artifact("calendar-error.png"), fullPage: true });

    await page.unroute(isEvents, fail);
    await page.route(isEvents, (route: Route) => route.abort("connectionrefused"));
    await page.click("button.retry");
    await alert.locator(".error-message", { hasText: "could not be reached" }).waitFor();

    await page.unroute(isEvents);
    await page.click("button.retry");
    await page.locator("#status", { hasText: "events in May 2030" }).waitFor();
    expect(await page.locator("#error").textContent()).to.equal("");
    // The only console errors are the browser's own notes on the failed requests.
    expect(problems.filter((p) => !p.includes("Failed to load resource"))).to.deep.equal([]);
  });

  it("works under another REST prefix", async () => {
    const other = await startPagesSite({ restPrefix: "/api/v2", now: NOW });
    try {
      const calls: string[] = [];
      page.on("request", (r: Request) => {
        if (r.url().startsWith(other.home) && r.resourceType() === "fetch") calls.push(new URL(r.url()).pathname);
      });
      await page.goto(`${other.home}/`);
      await page.locator("#status", { hasText: "events in May 2030" }).waitFor();
      expect(await listTitles()).to.include("Next Week Rehearsal");
      expect(calls.length).to.be.greaterThan(0);
      for (const call of calls) expect(call).to.match(/^\/api\/v2\//);

      await page.goto(`${other.home}/docs`);
      await page.locator(".opblock").first().waitFor();
      expect(await page.locator(".servers select").inputValue()).to.equal(`${other.home}/api/v2/calendar/events/v1/`);
      expect(problems).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  /** Opens the calendar at `url` on `other` and checks that it shows events, calling the API only below `apiPath`. */
  async function calendarUnder(other: PagesSite, url: string, apiPath: string): Promise<void> {
    const calls: string[] = [];
    page.on("request", (r: Request) => {
      if (r.url().startsWith(other.home) && r.resourceType() === "fetch") calls.push(new URL(r.url()).pathname);
    });
    await page.goto(url);
    await page.locator("#status", { hasText: "events in May 2030" }).waitFor();
    expect(await listTitles()).to.include("Next Week Rehearsal");
    expect(calls.length).to.be.greaterThan(0);
    for (const call of calls) expect(call.startsWith(apiPath), call).to.equal(true);
    expect(await page.locator("#error").textContent()).to.equal("");
    expect(problems).to.deep.equal([]);
  }

  it("works as the README mounts it without a site URL: the router at /wp-json, the pages under /calendar", async () => {
    const other = await startPagesSite({ now: NOW, pagesAt: "/calendar", routerAt: "/wp-json" });
    try {
      await calendarUnder(other, `${other.home}/calendar`, "/wp-json/");
      await page.goto(`${other.home}/calendar/docs`);
      await page.locator(".opblock").first().waitFor();
      expect(await page.locator(".servers select").inputValue()).to.equal(`${other.home}/wp-json/calendar/events/v1/`);
    } finally {
      await other.close();
    }
  });

  it("works at a path of its own when the site URL says where the API is", async () => {
    const other = await startPagesSite({ now: NOW, siteUrl: "https://calendar.example.org", pagesAt: "/calendar" });
    try {
      await calendarUnder(other, `${other.home}/calendar/`, "/wp-json/");
    } finally {
      await other.close();
    }
  });

  it("serves the API reference: every route of the doc, schemas, and a working “Try it out”", async () => {
    const doc = (await site().api<{ paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>("GET", "/doc")).body;
    await page.goto(`${site().home}/docs`);
    await page.locator(".opblock").first().waitFor();
    const shown = new Set<string>();
    for (const path of await page.locator(".opblock-summary-path").all()) shown.add((await path.getAttribute("data-path")) ?? "");
    expect([...shown].sort()).to.deep.equal(Object.keys(doc.paths).sort());
    expect(shown.has("/events/{id}")).to.equal(true);
    const models = await page.locator(".models").textContent();
    for (const name of Object.keys(doc.components.schemas)) expect(models, name).to.contain(name);
    expect(await page.locator(".servers select").inputValue()).to.equal(`${site().ns}/`);
    await page.screenshot({ path: artifact("docs.png") });

    // Try it out: GET /events/{id} against this very server.
    const op = page.locator("#operations-events-get_events__id_");
    await op.locator("button.opblock-summary-control").click();
    await op.locator("button.try-out__btn").click();
    await op.locator('tr[data-param-name="id"] input').fill(String(ids.jazz));
    await op.locator("button.execute").click();
    const response = op.locator(".live-responses-table tbody tr.response");
    await response.waitFor();
    expect((await response.locator(".response-col_status").textContent())?.trim()).to.equal("200");
    expect(await response.locator(".response-col_description").textContent()).to.contain("Harbour Jazz Night");
    await page.screenshot({ path: artifact("docs-try-it.png") });
    expect(problems).to.deep.equal([]);
  });
});

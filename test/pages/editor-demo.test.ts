/**
 * What `npm start` offers: the demo site's administrator manages the demo
 * with the editor (issue 23's "done when"), in Debian's Chromium. Also makes
 * the README's screenshot (test-artifacts/editor-demo.png).
 */
import fs from "node:fs";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { artifact, CHROMIUM, launchChromium, PagesSite, startPagesSite, watchConsole } from "./support";

/** The demo fixture's administrator (fixtures/demo.json), as the README tells a newcomer. */
const ADMIN = `Basic ${Buffer.from("admin:demo-admin-pass").toString("base64")}`;

/** The one browser global the functions run in the page use (the tests compile without the DOM library). */
declare const location: { hash: string };

interface EventRecord {
  id: number;
  title: string;
  series_id: number | null;
}

describe("the demo's administrator in the editor", function () {
  this.timeout(120_000);
  let browser: Browser | undefined;
  let t: PagesSite | undefined;
  let page: Page;
  let problems: string[] = [];

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(`      (skipped: ${CHROMIUM} is absent; CI installs Debian's chromium package)`);
      this.skip();
    }
    [t, browser] = await Promise.all([startPagesSite({ fixture: "demo" }), launchChromium()]);
    const context = await browser.newContext({ locale: "en-GB", viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    problems = watchConsole(page);
  });

  after(async function () {
    this.timeout(30_000);
    await browser?.close();
    await t?.close();
  });

  const site = (): PagesSite => {
    if (!t) throw new Error("site not started");
    return t;
  };

  it("logs in with the demo's administrator password and lists the demo's events", async () => {
    await page.goto(`${site().home}/editor`);
    await page.getByLabel("User name").fill("admin");
    await page.getByLabel("Application password").fill("demo-admin-pass");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.locator("table.records tbody tr").first().waitFor();
    // Every type and taxonomy of the calendar is in the navigation.
    const nav = await page.locator("nav a").allTextContents();
    for (const name of ["Events", "Venues", "Organizers", "Categories", "Tags"]) expect(nav.join(" | ")).to.contain(name);
    expect(await page.locator("table.records tbody tr").count()).to.be.greaterThan(5);
    await page.screenshot({ path: artifact("editor-demo.png") });
  });

  it("lists upcoming events first, and past ones through the When filter", async () => {
    const titles = async (): Promise<string[]> => (await page.locator("table.records tbody .row-title").allTextContents()).map((s) => s.trim());
    // The API's answer to the page's own last list request, as the administrator.
    const requested: URL[] = [];
    page.on("request", (r) => {
      if (r.method() === "GET" && /\/calendar\/events\/v1\/events\?/.test(r.url())) requested.push(new URL(r.url()));
    });
    const api = async (): Promise<string[]> => {
      const url = requested[requested.length - 1]!;
      const res = await site().rest<{ events: EventRecord[] }>("GET", `calendar/events/v1/events${url.search}`, { headers: { authorization: ADMIN } });
      expect(res.status).to.equal(200);
      // Titles come as WordPress renders them (`&#8217;`); the page shows the characters.
      return res.body.events.map((e) => e.title.replace(/&#(\d+);/g, (_m, n: string) => String.fromCodePoint(Number(n))).replace(/&amp;/g, "&"));
    };
    await page.reload();
    await page.locator("table.records tbody tr").first().waitFor();
    expect(requested[requested.length - 1]!.searchParams.get("start_date")).to.equal("now");
    expect(await titles()).to.deep.equal(await api());
    await page.getByLabel("When").selectOption("past-year");
    await page.getByRole("button", { name: "Apply" }).first().click();
    await page.locator('main[data-route="#/types/event?when=past-year"]').waitFor();
    expect(requested[requested.length - 1]!.searchParams.get("start_date")).to.equal("-1 year");
    const past = await titles();
    expect(past.length).to.be.greaterThan(0);
    expect(past).to.deep.equal(await api());
  });

  it("edits an event of the demo: the API shows the change", async () => {
    // A single event (not one occurrence of a series), as the API lists it.
    const listed = await site().rest<{ events: EventRecord[] }>("GET", "calendar/events/v1/events?per_page=50");
    const event = listed.body.events.find((e) => e.series_id === null);
    expect(event, "a single event in the demo").to.not.equal(undefined);
    await page.evaluate((hash) => (location.hash = hash), `#/types/event/${event!.id}`);
    await page.locator(`main[data-route="#/types/event/${event!.id}"]`).waitFor();
    const title = page.getByLabel("Title", { exact: true });
    expect(await title.inputValue()).to.equal(event!.title);
    await title.fill(`${event!.title} (edited)`);
    await page.getByRole("button", { name: "Update" }).click();
    for (let i = 0; i < 100; i++) {
      const now = await site().rest<EventRecord>("GET", `calendar/events/v1/events/${event!.id}`);
      if (now.body.title === `${event!.title} (edited)`) break;
      if (i === 99) expect(now.body.title).to.equal(`${event!.title} (edited)`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it("shows the demo's categories as a tree with their counts", async () => {
    await page.locator("nav a", { hasText: "Event Categories" }).click();
    await page.locator('main[data-route^="#/taxonomies/"]').waitFor();
    const api = await site().rest<{ categories: Array<{ name: string; count: number }> }>("GET", "calendar/events/v1/categories?per_page=50&hide_empty=0");
    const text = (await page.locator("main").textContent()) ?? "";
    for (const c of api.body.categories.slice(0, 5)) expect(text).to.contain(c.name);
    const real = problems.filter((p) => !/status of 4\d\d/.test(p));
    expect(real).to.deep.equal([]);
  });
});

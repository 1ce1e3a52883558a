/**
 * The API reference page (`/docs`) in Debian's headless Chromium: it lists
 * every namespace the REST index links an OpenAPI document for, opens on the
 * calendar's, and shows a host namespace's operations (examples/book-plugin.ts,
 * `library/v1`) with a working "Try it out"; under a path and another REST
 * prefix, and on a site without the calendar.
 */
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { expect } from "chai";
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { createSite } from "../../lib/site";
import { registerBookPlugin } from "../../examples/book-plugin";
import { artifact, CHROMIUM, launchChromium, startPagesSite, watchConsole, type PagesSite } from "./support";

const NAMESPACES = ["calendar/events/v1", "wp/v2", "library/v1"];

describe("pages in Chromium: the API reference lists every namespace", function () {
  this.timeout(30_000);
  let browser: Browser | undefined;
  let t: PagesSite | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let problems: string[] = [];

  const site = (): PagesSite => {
    if (!t) throw new Error("site not started");
    return t;
  };

  /** The paths of the operations Swagger UI shows. */
  async function shownPaths(): Promise<string[]> {
    const shown = new Set<string>();
    for (const path of await page.locator(".opblock-summary-path").all()) shown.add((await path.getAttribute("data-path")) ?? "");
    return [...shown].sort();
  }

  async function namespaceOptions(): Promise<string[]> {
    // Each option's value is its text, the namespace.
    return page.locator("#namespace-select option").allTextContents();
  }

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(`      (skipped: ${CHROMIUM} is absent; CI installs Debian's chromium package)`);
      this.skip();
    }
    this.timeout(60_000);
    [t, browser] = await Promise.all([startPagesSite({ books: true }), launchChromium()]);
    const created = await site().rest<{ id: number }>("POST", "library/v1/books", { as: "admin", body: { title: "The Left Hand of Darkness", status: "publish" } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  beforeEach(async () => {
    context = await browser!.newContext();
    page = await context.newPage();
    problems = watchConsole(page);
  });

  afterEach(async () => {
    await context?.close();
  });

  it("opens on the calendar's document, lists every namespace, and shows the host namespace's operations when chosen", async () => {
    const library = (await site().rest<{ paths: Record<string, unknown> }>("GET", "library/v1/doc")).body;
    await page.goto(`${site().home}/docs`);
    await page.locator(".opblock").first().waitFor();
    expect(await namespaceOptions()).to.deep.equal(NAMESPACES);
    expect(await page.locator("#namespace-select").inputValue()).to.equal("calendar/events/v1");
    expect(await page.locator(".servers select").inputValue()).to.equal(`${site().ns}/`);

    await page.locator("#namespace-select").selectOption("library/v1");
    await page.locator('.opblock-summary-path[data-path="/books/{id}"]').first().waitFor();
    expect(await shownPaths()).to.deep.equal(Object.keys(library.paths).sort());
    expect(await page.locator(".servers select").inputValue()).to.equal(`${site().restRoot}library/v1/`);
    expect(await page.locator("#namespace-name").textContent()).to.equal("library/v1");
    expect(await page.locator("#doc-link").getAttribute("href")).to.equal("/wp-json/library/v1/doc");
    expect(new URL(page.url()).searchParams.get("namespace")).to.equal("library/v1");
    expect(await page.title()).to.equal("API reference · library/v1");
    const groups = await page.locator(".opblock-tag").allTextContents();
    expect(groups.map((g) => g.trim())).to.deep.equal(["books", "genres"]);
    await page.screenshot({ path: artifact("docs-library.png") });

    // Try it out: the list of books, from this very server.
    const op = page.locator("#operations-books-get_books");
    await op.locator("button.opblock-summary-control").click();
    await op.locator("button.try-out__btn").click();
    await op.locator("button.execute").click();
    const response = op.locator(".live-responses-table tbody tr.response");
    await response.waitFor();
    expect((await response.locator(".response-col_status").textContent())?.trim()).to.equal("200");
    expect(await response.locator(".response-col_description").textContent()).to.contain("The Left Hand of Darkness");
    expect(problems).to.deep.equal([]);
  });

  it("opens the namespace its URL names, under a path and another REST prefix, calling only that REST root", async () => {
    const other = await startPagesSite({ books: true, restPrefix: "/api/v2", pagesAt: "/site", routerAt: "/api/v2" });
    try {
      const calls: string[] = [];
      page.on("request", (r: Request) => {
        if (r.resourceType() === "fetch") calls.push(r.url());
      });
      await page.goto(`${other.home}/site/docs?namespace=library/v1`);
      await page.locator('.opblock-summary-path[data-path="/genres/{id}"]').first().waitFor();
      expect(await page.locator("#namespace-select").inputValue()).to.equal("library/v1");
      expect(await namespaceOptions()).to.deep.equal(NAMESPACES);
      expect(await page.locator(".servers select").inputValue()).to.equal(`${other.home}/api/v2/library/v1/`);
      expect(calls.length).to.be.greaterThan(0);
      for (const url of calls) expect(url.startsWith(`${other.home}/api/v2/`), url).to.equal(true);

      // Only a listed namespace can be named: anything else opens the default document, and no other URL is fetched.
      calls.length = 0;
      await page.goto(`${other.home}/site/docs?namespace=${encodeURIComponent("https://example.org/evil.json")}`);
      await page.locator('.opblock-summary-path[data-path="/events/{id}"]').first().waitFor();
      expect(await page.locator("#namespace-select").inputValue()).to.equal("calendar/events/v1");
      for (const url of calls) expect(url.startsWith(`${other.home}/api/v2/`), url).to.equal(true);
      expect(problems).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it("is served without the calendar too, opening on the first namespace", async () => {
    const bare = await createSite({ db: ":memory:", calendar: false, loginLimit: false });
    registerBookPlugin(bare);
    await bare.migrate();
    const app = express();
    app.use("/wp-json", bare.router);
    for (const [mount, router] of bare.pages) app.use(mount, router);
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      expect(bare.pages.map(([mount]) => mount)).to.deep.equal(["/docs", "/editor"]);
      const home = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await page.goto(`${home}/docs`);
      await page.locator('.opblock-summary-path[data-path="/types/{type}"]').first().waitFor();
      expect(await namespaceOptions()).to.deep.equal(["wp/v2", "library/v1"]);
      expect(await page.locator("#namespace-select").inputValue()).to.equal("wp/v2");
      expect(await page.locator("#calendar-link-item").isHidden()).to.equal(true);
      expect(await page.locator("#docs-error").textContent()).to.equal("");
      expect(problems).to.deep.equal([]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await bare.close();
    }
  });
});

/**
 * The editor on a type whose routes are generated (lib/controllers): the
 * job board of examples/job-board.ts (a `job` type with typed fields in
 * `wp/v2`, a hierarchical `department` and a flat `skill` taxonomy), with
 * no editor code and no route code. In Debian's headless Chromium: the
 * list (its taxonomy filter by rest_base), a new job with its typed fields
 * and both term pickers, then its edit form; every expected state read back
 * from the API.
 */
import fs from "node:fs";
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CHROMIUM, launchChromium, PagesSite, startPagesSite, watchConsole } from "./support";

interface Job {
  id: number;
  title: { raw: string; rendered: string };
  status: string;
  author: number;
  meta: { salary: number; remote: boolean; hours: number; location: string; apply_url: string; closes: string | null };
  departments: number[];
  skills: number[];
}
interface Term {
  id: number;
  name: string;
}

describe("editor in Chromium: a generated host type (the job board)", function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let t: PagesSite | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let problems: string[] = [];
  const term: Record<string, number> = {};
  const jobs: Record<string, number> = {};

  const site = (): PagesSite => {
    if (!t) throw new Error("site not started");
    return t;
  };
  async function rest<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await site().rest<T>(method, route, { body, as: "admin" });
    expect(res.status, `${method} ${route}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    return res.body;
  }
  const job = (id: number): Promise<Job> => rest<Job>("GET", `wp/v2/jobs/${id}?context=edit`);

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(`      (skipped: ${CHROMIUM} is absent; CI installs Debian's chromium package)`);
      this.skip();
    }
    [t, browser] = await Promise.all([startPagesSite({ jobs: true }), launchChromium()]);
    term.Engineering = (await rest<Term>("POST", "wp/v2/departments", { name: "Engineering" })).id;
    term.Backend = (await rest<Term>("POST", "wp/v2/departments", { name: "Backend", parent: term.Engineering })).id;
    term.Sales = (await rest<Term>("POST", "wp/v2/departments", { name: "Sales" })).id;
    term.TypeScript = (await rest<Term>("POST", "wp/v2/skills", { name: "TypeScript" })).id;
    term.SQL = (await rest<Term>("POST", "wp/v2/skills", { name: "SQL" })).id;
    jobs.Backend = (await rest<Job>("POST", "wp/v2/jobs", { title: "Backend Engineer", status: "publish", departments: [term.Backend], skills: [term.TypeScript], meta: { salary: 90000 } })).id;
    jobs.Sales = (await rest<Job>("POST", "wp/v2/jobs", { title: "Sales Lead", status: "publish", departments: [term.Sales] })).id;
  });

  after(async function () {
    this.timeout(30_000);
    await browser?.close();
    await t?.close();
  });

  beforeEach(async function () {
    if (!browser) this.skip();
    context = await browser!.newContext({ locale: "en-GB", viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(8_000);
    problems = watchConsole(page);
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  const realProblems = () => problems.filter((p) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(p));
  const rowTitles = async (): Promise<string[]> => page.locator("table.records tbody .row-title").allTextContents();
  /** The rows once the list shows `expected` (a filter re-renders the table after the URL changes): what it shows after 8 s otherwise. */
  const rowsBecome = async (expected: string[]): Promise<string[]> => {
    const until = Date.now() + 8_000;
    let rows = await rowTitles();
    while (JSON.stringify(rows) !== JSON.stringify(expected) && Date.now() < until) {
      await page.waitForTimeout(50);
      rows = await rowTitles();
    }
    return rows;
  };

  async function login(hash: string): Promise<void> {
    await page.goto(`${site().home}/editor${hash}`);
    await page.getByLabel("User name").fill("admin");
    await page.getByLabel("Application password").fill("admin-pass");
    await page.getByRole("button", { name: "Log in" }).click();
  }

  it("lists jobs from their generated route, with their departments, and filters by department", async () => {
    await login("#/types/job");
    await page.locator("table.records").waitFor();
    expect(await page.locator("#nav a").allTextContents()).to.include.members(["Jobs", "Departments", "Skills"]);
    // WordPress's default order: newest first.
    expect(await rowTitles()).to.deep.equal(["Sales Lead", "Backend Engineer"]);
    expect(await page.locator(`tr[data-id="${jobs.Backend}"] td[data-label=Departments]`).textContent()).to.equal("Backend");
    expect(await page.locator(`tr[data-id="${jobs.Backend}"] td[data-label=Skills]`).textContent()).to.equal("TypeScript");
    await page.getByRole("combobox", { name: "Department", exact: true }).fill("Sal");
    await page.getByRole("option", { name: "Sales" }).click();
    await page.waitForURL(new RegExp(`departments=${term.Sales}`));
    await page.locator("table.records").waitFor();
    expect(await rowsBecome(["Sales Lead"])).to.deep.equal(["Sales Lead"]);
    expect(realProblems()).to.deep.equal([]);
  });

  it("creates a job with its typed fields and both term pickers, then edits it", async () => {
    await login("#/types/job/new");
    await page.locator("h1", { hasText: "Add job" }).waitFor();
    expect(await page.locator(".publish-box .buttons button").allTextContents()).to.deep.equal(["Save draft", "Publish"]);
    await page.getByLabel("Title").fill("Data Engineer");
    await page.getByRole("textbox", { name: "Content" }).fill("Pipelines and queries.");
    // The typed fields, one group: a number, a checkbox, text, a URL, a date.
    await page.getByLabel("Salary").fill("75000");
    await page.getByLabel("Remote").check();
    await page.getByLabel("Location").fill("Milan");
    await page.getByLabel("Apply url").fill("https://example.com/apply/data");
    await page.getByLabel("Closes").fill("2030-03-31T18:00");
    // A hierarchical taxonomy: a tree of checkboxes; a flat one: tokens found by search.
    await page.getByLabel("Backend").check();
    await page.getByRole("combobox", { name: "Add skills" }).fill("SQ");
    await page.getByRole("option", { name: "SQL" }).click();
    await page.getByRole("button", { name: "Publish" }).click();
    await page.locator(".notice.success", { hasText: "Job created." }).waitFor();
    const id = Number(/#\/types\/job\/(\d+)$/.exec(page.url())?.[1]);
    let stored = await job(id);
    expect(stored.title.raw).to.equal("Data Engineer");
    expect(stored.status).to.equal("publish");
    expect(stored.meta).to.deep.equal({ salary: 75000, remote: true, hours: 0, location: "Milan", apply_url: "https://example.com/apply/data", closes: "2030-03-31 18:00:00" });
    expect(stored.departments).to.deep.equal([term.Backend]);
    expect(stored.skills).to.deep.equal([term.SQL]);

    // The edit form shows what was stored, and a change sends only what changed.
    expect(await page.getByLabel("Salary").inputValue()).to.equal("75000");
    expect(await page.getByLabel("Remote").isChecked()).to.equal(true);
    expect(await page.getByLabel("Backend").isChecked()).to.equal(true);
    expect(await page.locator(".term-tokens .token").allTextContents()).to.deep.equal(["SQL×"]);
    await page.getByLabel("Salary").fill("80000");
    await page.getByRole("combobox", { name: "Add skills" }).fill("Type");
    await page.getByRole("option", { name: "TypeScript" }).click();
    await page.getByRole("button", { name: "Update" }).click();
    await page.locator(".notice.success", { hasText: "Saved." }).waitFor();
    stored = await job(id);
    expect(stored.meta.salary).to.equal(80000);
    expect(stored.meta.location).to.equal("Milan");
    expect([...stored.skills].sort()).to.deep.equal([term.SQL, term.TypeScript].sort());
    expect(realProblems()).to.deep.equal([]);
  });

  it("manages departments as a tree through their generated term routes", async () => {
    await login("#/taxonomies/department");
    await page.locator("table.records.terms").waitFor();
    const names = await page.locator("table.records.terms tbody .row-title").allTextContents();
    expect(names).to.deep.equal(["Engineering", "Backend", "Sales"]);
    // Backend sits under Engineering.
    expect(await page.locator(`tr[data-id="${term.Backend}"] .col-title`).getAttribute("class")).to.contain("depth-1");
    const add = page.locator("section[aria-labelledby=add-term]");
    await add.getByLabel("Name").fill("Frontend");
    await add.getByRole("combobox", { name: "Choose parent" }).fill("Eng");
    await add.getByRole("option", { name: "Engineering" }).click();
    await add.getByRole("button", { name: "Add department" }).click();
    await page.locator(".notice.success", { hasText: "Department “Frontend” added." }).waitFor();
    const list = await rest<Array<Term & { parent: number }>>("GET", "wp/v2/departments?search=Front");
    expect(list.map((d) => [d.name, d.parent])).to.deep.equal([["Frontend", term.Engineering]]);
    expect(realProblems()).to.deep.equal([]);
  });
});

/**
 * The calendar's widget groups in the editor (web/editor/calendar/*): the
 * pure modules in node (recurrence lines ⇄ form model, wall clocks and time
 * zones), then the editor end to end in Debian's headless Chromium against a
 * real site (minimal fixture, UTC), with the browser in New York so that the
 * "your time zone" line differs from the events' own zones.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ApiList, artifact, CHROMIUM, launchChromium, PagesSite, startPagesSite, watchConsole } from "./support";

// ---- the pure modules, loaded as the browser loads them (ES modules, no build) ----

interface RecurrenceModel {
  freq: string;
  interval: number;
  byday: string[];
  monthly: string;
  monthday: number;
  nth: number;
  nthDay: string;
  end: string;
  until: string;
  untilRaw: string | null;
  count: number;
  wkst: string | null;
  exdates: Array<{ day: string; raw?: { prefix: string; value: string } }>;
  rdates: Array<{ day: string; raw?: { prefix: string; value: string } }>;
  advanced: string[];
}

interface RruleModule {
  parseRecurrence(lines: string[], startDate?: string): RecurrenceModel;
  buildRecurrence(model: RecurrenceModel): string[];
  emptyModel(startDate?: string): RecurrenceModel;
  describeRule(model: RecurrenceModel, startDate?: string): string;
  sameLines(a: string[], b: string[]): boolean;
  nthOfMonth(date: string): number;
}

interface TimeModule {
  parseWall(text: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } | null;
  joinWall(date: string, time: string, fallback?: string): string | null;
  splitWall(text: string): { date: string; time: string };
  wallToInstant(text: string, zone: string): number | null;
  instantToWall(ms: number, zone: string): string | null;
  zoneOffsetMinutes(zone: string, ms: number): number | null;
  isKnownZone(zone: string): boolean;
  zoneNames(...extra: string[]): string[];
}

const WIDGETS = path.resolve(__dirname, "../../web/editor/calendar");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const rrule = require(path.join(WIDGETS, "rrule.js")) as RruleModule;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const time = require(path.join(WIDGETS, "time.js")) as TimeModule;

describe("editor calendar widgets: recurrence lines and the form model", () => {
  it("reads a weekly rule with UNTIL, a zoned EXDATE and an RDATE, and writes them back unchanged", () => {
    const lines = ["RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270630T000000Z", "EXDATE;TZID=Europe/Rome:20270420T190000", "RDATE;VALUE=DATE:20270702"];
    const model = rrule.parseRecurrence(lines, "2027-03-16 19:00:00");
    expect(model.freq).to.equal("WEEKLY");
    expect(model.byday).to.deep.equal(["TU"]);
    expect(model.end).to.equal("until");
    expect(model.until).to.equal("2027-06-30");
    expect(model.exdates.map((d) => d.day)).to.deep.equal(["2027-04-20"]);
    expect(model.rdates).to.deep.equal([{ day: "2027-07-02" }]);
    expect(model.advanced).to.deep.equal([]);
    expect(rrule.sameLines(rrule.buildRecurrence(model), lines)).to.equal(true);
  });

  it("builds the lines of each kind of rule the form offers", () => {
    const m = rrule.emptyModel("2027-03-09");
    expect(rrule.buildRecurrence(m)).to.deep.equal([]);
    m.freq = "DAILY";
    m.interval = 2;
    m.end = "count";
    m.count = 5;
    expect(rrule.buildRecurrence(m)).to.deep.equal(["RRULE:FREQ=DAILY;INTERVAL=2;COUNT=5"]);
    m.freq = "WEEKLY";
    m.interval = 1;
    m.byday = ["TH", "MO"];
    m.end = "until";
    m.until = "2027-06-30";
    expect(rrule.buildRecurrence(m)).to.deep.equal(["RRULE:FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20270630"]);
    m.freq = "MONTHLY";
    m.monthly = "weekday";
    m.end = "never";
    // 9 March 2027 is the 2nd Tuesday of its month.
    expect(m.nth).to.equal(2);
    expect(m.nthDay).to.equal("TU");
    expect(rrule.buildRecurrence(m)).to.deep.equal(["RRULE:FREQ=MONTHLY;BYDAY=2TU"]);
    m.monthly = "monthday";
    expect(rrule.buildRecurrence(m)).to.deep.equal(["RRULE:FREQ=MONTHLY;BYMONTHDAY=9"]);
    m.freq = "YEARLY";
    m.exdates = [{ day: "2028-03-09" }, { day: "2029-03-09" }];
    m.rdates = [{ day: "2027-12-24" }];
    expect(rrule.buildRecurrence(m)).to.deep.equal(["RRULE:FREQ=YEARLY", "RDATE;VALUE=DATE:20271224", "EXDATE;VALUE=DATE:20280309,20290309"]);
    expect(rrule.describeRule({ ...m, freq: "WEEKLY", byday: ["TU", "TH"], interval: 2, end: "count", count: 4 })).to.equal("Every 2 weeks on Tuesday and Thursday, 4 times.");
    expect(rrule.nthOfMonth("2027-03-30")).to.equal(-1);
  });

  it("keeps every line it cannot show as a raw line, never dropping one", () => {
    const lines = [
      "RRULE:FREQ=MONTHLY;BYDAY=MO,WE;BYSETPOS=-1",
      "RRULE:FREQ=WEEKLY;BYDAY=FR",
      "RDATE;VALUE=PERIOD:20270101T100000Z/PT1H",
      "EXDATE:20270420T190000",
      "X-CUSTOM:1",
    ];
    const model = rrule.parseRecurrence(lines, "2027-03-16 19:00:00");
    // The first rule has parts the form lacks: the second one is the form's.
    expect(model.freq).to.equal("WEEKLY");
    expect(model.byday).to.deep.equal(["FR"]);
    expect(model.advanced).to.deep.equal(["RRULE:FREQ=MONTHLY;BYDAY=MO,WE;BYSETPOS=-1", "RDATE;VALUE=PERIOD:20270101T100000Z/PT1H", "X-CUSTOM:1"]);
    // A floating date-time EXDATE (what cancelling one occurrence writes) is shown as a date and written back as it was.
    expect(model.exdates).to.deep.equal([{ day: "2027-04-20", raw: { prefix: "EXDATE", value: "20270420T190000" } }]);
    expect(rrule.sameLines(rrule.buildRecurrence(model), lines)).to.equal(true);
    // An edit of the rule keeps the rest.
    model.byday = ["FR", "SA"];
    const rebuilt = rrule.buildRecurrence(model);
    expect(rebuilt).to.include("RRULE:FREQ=WEEKLY;BYDAY=FR,SA");
    for (const line of lines.filter((l) => l !== "RRULE:FREQ=WEEKLY;BYDAY=FR")) expect(rebuilt).to.include(line);
  });

  it("keeps an UNTIL with a time while its day is unchanged, and writes a date once the day changes", () => {
    const model = rrule.parseRecurrence(["RRULE:FREQ=DAILY;UNTIL=20270630T215959Z"], "2027-06-01 10:00:00");
    expect(rrule.buildRecurrence(model)).to.deep.equal(["RRULE:FREQ=DAILY;UNTIL=20270630T215959Z"]);
    model.until = "2027-07-15";
    expect(rrule.buildRecurrence(model)).to.deep.equal(["RRULE:FREQ=DAILY;UNTIL=20270715"]);
  });
});

describe("editor calendar widgets: wall clocks and time zones", () => {
  it("reads wall clocks in a zone as the API does (DST gap forward, overlap earlier)", () => {
    expect(new Date(time.wallToInstant("2030-06-10 19:00:00", "Asia/Tokyo")!).toISOString()).to.equal("2030-06-10T10:00:00.000Z");
    expect(new Date(time.wallToInstant("2027-03-28 02:30:00", "Europe/Rome")!).toISOString()).to.equal("2027-03-28T01:30:00.000Z");
    expect(new Date(time.wallToInstant("2027-10-31 02:30:00", "Europe/Rome")!).toISOString()).to.equal("2027-10-31T00:30:00.000Z");
    expect(new Date(time.wallToInstant("2030-01-01 00:00:00", "UTC+5:30")!).toISOString()).to.equal("2029-12-31T18:30:00.000Z");
    expect(time.instantToWall(Date.UTC(2030, 5, 10, 10), "America/New_York")).to.equal("2030-06-10 06:00:00");
    expect(time.wallToInstant("2030-02-30 10:00:00", "UTC")).to.equal(null);
    expect(time.wallToInstant("2030-02-03 10:00:00", "Mars/Olympus")).to.equal(null);
  });

  it("joins and splits the date and time inputs' values", () => {
    expect(time.joinWall("2030-06-10", "19:05")).to.equal("2030-06-10 19:05:00");
    expect(time.joinWall("2030-06-10", "", "23:59:59")).to.equal("2030-06-10 23:59:59");
    expect(time.joinWall("", "10:00")).to.equal(null);
    expect(time.splitWall("2030-06-10 19:05:00")).to.deep.equal({ date: "2030-06-10", time: "19:05" });
  });

  it("offers every zone Intl knows, UTC and the record's own label", () => {
    const names = time.zoneNames("UTC+2");
    expect(names).to.include.members(["Asia/Tokyo", "Europe/Rome", "UTC", "UTC+2"]);
    expect(time.isKnownZone("Asia/Tokyo")).to.equal(true);
    expect(time.isKnownZone("UTC-3:30")).to.equal(true);
    expect(time.isKnownZone("+05:00")).to.equal(false);
    expect(time.isKnownZone("Nowhere/Special")).to.equal(false);
  });
});

// ---- the editor in Chromium ----

interface ApiVenue {
  id: number;
  venue: string;
  city?: string;
  country?: string;
}

interface ApiEventRecord {
  id: number;
  title: string;
  status: string;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  timezone: string;
  all_day: boolean;
  cost: string;
  website: string;
  show_map: boolean;
  venue: ApiVenue | [];
  organizer: Array<{ id: number; organizer: string }>;
  recurrence: string[];
  series_id: number | null;
  original_start_date: string | null;
}

interface ApiError {
  code: string;
  message: string;
  data: { status: number; params?: Record<string, string> };
}

const OCCURRENCE_ID_BASE = 10_000_000;

describe("editor calendar widgets in Chromium", function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let t: PagesSite | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let problems: string[] = [];

  const site = (): PagesSite => {
    if (!t) throw new Error("site not started");
    return t;
  };

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(`      (skipped: ${CHROMIUM} is absent; CI installs Debian's chromium package)`);
      this.skip();
    }
    this.timeout(60_000);
    // The site's zone is UTC; the browser is in New York.
    [t, browser] = await Promise.all([startPagesSite(), launchChromium()]);
  });

  after(async function () {
    this.timeout(30_000);
    await browser?.close();
    await t?.close();
  });

  async function openPage(viewport = { width: 1280, height: 900 }): Promise<void> {
    context = await browser!.newContext({ locale: "en-GB", timezoneId: "America/New_York", viewport });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    problems = watchConsole(page);
  }

  beforeEach(async function () {
    if (!browser) this.skip();
    await openPage();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** Opens the editor at `hash` and logs in at its login screen as the fixture's editor; the editor then draws `hash`. */
  async function login(hash: string): Promise<void> {
    await page.goto(`${site().home}/editor${hash}`);
    await page.fill("input[name=username]", "editor");
    await page.fill("input[name=password]", "editor-pass");
    await page.click("form.login button[type=submit]");
    await page.locator("#nav a").first().waitFor();
    await page.locator("main h1").first().waitFor();
  }

  /** The editor's form for a new event, with its widget groups drawn. */
  async function newEventForm(): Promise<void> {
    await login("#/types/event/new");
    await page.locator('fieldset[data-group="calendar-when"]').waitFor();
  }

  const group = (id: string) => page.locator(`fieldset[data-group="calendar-${id}"]`);

  async function setWhen(start: string, end: string, zone: string): Promise<void> {
    const when = group("when");
    // Dates first (moving the start moves the end along), then the end, then the zone.
    await when.getByLabel("Date").first().fill(start.slice(0, 10));
    await when.getByLabel("Time").first().fill(start.slice(11, 16));
    await when.getByLabel("Date").nth(1).fill(end.slice(0, 10));
    await when.getByLabel("Time").nth(1).fill(end.slice(11, 16));
    await when.getByLabel("Time zone", { exact: true }).fill(zone);
  }

  /** Clicks the form's primary save button and waits for the saved record's edit screen (a new form); answers its id. */
  async function save(): Promise<number> {
    await page.locator("form.edit-form").evaluate((form) => {
      (form as unknown as { dataset: Record<string, string> }).dataset.beforeSave = "1";
    });
    await page.locator(".publish-box button.primary[data-action]").click();
    await page.locator("form.edit-form:not([data-before-save])").waitFor();
    await page.waitForURL(/#\/types\/event\/\d+$/);
    await page.locator('fieldset[data-group="calendar-when"]').waitFor();
    return Number(/(\d+)$/.exec(page.url())![1]);
  }

  /** What has focus: its id, tag, aria-invalid, aria-describedby, role, name. */
  async function activeElement(): Promise<{ id: string; tag: string; invalid: string | null; describedBy: string | null; role: string | null; name: string }> {
    return page.evaluate(() => {
      const el = (globalThis as unknown as { document: { activeElement: { id: string; tagName: string; name?: string; getAttribute(n: string): string | null } } }).document.activeElement;
      return { id: el.id, tag: el.tagName, invalid: el.getAttribute("aria-invalid"), describedBy: el.getAttribute("aria-describedby"), role: el.getAttribute("role"), name: el.name ?? "" };
    });
  }

  async function readEvent(id: number): Promise<ApiEventRecord> {
    const res = await site().api<ApiEventRecord>("GET", `/events/${id}`, undefined, true);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }

  it("creates an event in Tokyo with a new venue, shows the start in the viewer's zone, and saves what was entered", async () => {
    await newEventForm();
    await page.getByLabel("Title").first().fill("Tokyo Jazz Evening");
    await setWhen("2027-06-10 19:00", "2027-06-10 21:30", "Asia/Tokyo");

    // 19:00 in Tokyo is 06:00 in New York (EDT): the viewer sees both.
    const viewer = group("when").locator("output.cal-viewer-time");
    await page.locator('output.cal-viewer-time[data-utc-start="2027-06-10T10:00:00.000Z"]').waitFor();
    expect(await viewer.textContent()).to.match(/Thu, 10 Jun 2027, 06:00 GMT-4 – Thu, 10 Jun 2027, 08:30 GMT-4/);
    expect(await group("when").locator(".cal-viewer-label").textContent()).to.equal("In your time zone (America/New_York):");
    expect(await group("when").locator(".cal-zone-offset").textContent()).to.equal("UTC+09:00 on the start date.");

    // A new venue, created with the event.
    const venue = group("linked").locator('[data-picker="venue"]');
    await venue.getByRole("button", { name: "New venue…" }).click();
    expect(await venue.getByRole("button", { name: "New venue…" }).getAttribute("aria-expanded")).to.equal("true");
    // Focus went to the new venue's name.
    expect((await activeElement()).name).to.equal("venue-venue");
    await venue.getByLabel("Name").fill("Sakura Hall");
    await venue.getByLabel("City").fill("Tokyo");
    await venue.getByLabel("Country").fill("Japan");
    await venue.getByRole("button", { name: "Add venue" }).click();
    expect(await venue.locator(".cal-chip").textContent()).to.match(/^Sakura Hall \(new\)/);

    // An existing organizer, with the keyboard: type, ↓, Enter.
    const organizers = group("linked").locator('[data-picker="organizer"]');
    const search = organizers.getByRole("combobox");
    await search.fill("jazz");
    await organizers.locator(".cal-picker-status", { hasText: "1 organizer found." }).waitFor();
    expect(await organizers.getByRole("option").allTextContents()).to.deep.equal(["Jazz Clubinfo@jazzclub.common.com, +31 20 555 0123"]);
    await search.press("ArrowDown");
    expect(await search.getAttribute("aria-activedescendant")).to.match(/-opt-0$/);
    await search.press("Enter");
    expect(await organizers.locator(".cal-chip .cal-chip-name").allTextContents()).to.deep.equal(["Jazz Club"]);
    expect(await search.getAttribute("aria-expanded")).to.equal("false");

    await group("details").getByLabel("Cost").fill("¥3000");
    await group("details").getByLabel("Website").fill("https://sakura.example.jp/jazz");
    await page.screenshot({ path: artifact("editor-calendar-event-form.png"), fullPage: true });

    const id = await save();
    const saved = await readEvent(id);
    expect(saved.title).to.equal("Tokyo Jazz Evening");
    expect(saved.start_date).to.equal("2027-06-10 19:00:00");
    expect(saved.end_date).to.equal("2027-06-10 21:30:00");
    expect(saved.timezone).to.equal("Asia/Tokyo");
    expect(saved.utc_start_date).to.equal("2027-06-10 10:00:00");
    expect(saved.all_day).to.equal(false);
    expect(saved.website).to.equal("https://sakura.example.jp/jazz");
    expect(saved.cost).to.contain("3000");
    expect(saved.show_map).to.equal(true);
    expect(Array.isArray(saved.venue)).to.equal(false);
    const savedVenue = saved.venue as ApiVenue;
    expect(savedVenue.venue).to.equal("Sakura Hall");
    expect(savedVenue.city).to.equal("Tokyo");
    expect(savedVenue.country).to.equal("Japan");
    expect(saved.organizer.map((o) => o.organizer)).to.deep.equal(["Jazz Club"]);
    const venues = await site().api<ApiList<"venues", ApiVenue>>("GET", "/venues?search=Sakura", undefined, true);
    expect(venues.body.venues.map((v) => v.id)).to.deep.equal([savedVenue.id]);

    // The form re-reads the event: the venue is now an existing one, the zone and times as entered.
    await group("linked").locator('[data-picker="venue"] .cal-chip', { hasText: "Sakura Hall" }).waitFor();
    expect(await group("linked").locator('[data-picker="venue"] .cal-chip').textContent()).to.not.contain("(new)");
    expect(await group("when").getByLabel("Time zone", { exact: true }).inputValue()).to.equal("Asia/Tokyo");
    expect(await group("when").getByLabel("Time").first().inputValue()).to.equal("19:00");

    // The organizer chip is removed from the keyboard; focus moves to the search box.
    const remove = group("linked").getByRole("button", { name: "Remove organizer Jazz Club" });
    await remove.focus();
    await page.keyboard.press("Enter");
    expect(await group("linked").locator('[data-picker="organizer"] .cal-chip').count()).to.equal(0);
    expect((await activeElement()).role).to.equal("combobox");
    await save();
    expect((await readEvent(id)).organizer).to.deep.equal([]);
    expect(problems).to.deep.equal([]);
  });

  it("makes a weekly series with a skipped date, previews it, and saves its recurrence lines", async () => {
    await newEventForm();
    await page.getByLabel("Title").first().fill("Choir rehearsal");
    // 16 March 2027 is a Tuesday.
    await setWhen("2027-03-16 19:00", "2027-03-16 21:00", "Europe/Rome");
    const repeats = group("recurrence");
    await repeats.getByLabel("Repeats", { exact: true }).selectOption("WEEKLY");
    // The start's weekday is chosen; Thursday is added; six times.
    expect(await repeats.getByLabel("Tuesday").isChecked()).to.equal(true);
    await repeats.getByLabel("Thursday").check();
    await repeats.getByLabel("After").check();
    await repeats.getByLabel("Number of times").fill("6");

    const preview = repeats.locator("[data-preview]");
    const items = preview.locator(".cal-preview-item");
    await page.locator('[data-preview][data-state="ready"] .cal-preview-item').first().waitFor();
    await items.nth(5).waitFor();
    expect(await items.evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { start: string } }).dataset.start))).to.deep.equal([
      "2027-03-16 19:00:00",
      "2027-03-18 19:00:00",
      "2027-03-23 19:00:00",
      "2027-03-25 19:00:00",
      "2027-03-30 19:00:00",
      "2027-04-01 19:00:00",
    ]);
    expect(await preview.locator(".cal-preview-status").textContent()).to.contain("The first 6 of 6 in all.");

    // Skip the 18th from the preview: an exception, and the preview follows.
    await preview.getByRole("button", { name: "Skip Thu, 18 Mar 2027" }).click();
    expect(await repeats.locator('[data-list="exdates"] .cal-chip').getAttribute("data-day")).to.equal("2027-03-18");
    await preview.locator('.cal-preview-item[data-start="2027-03-18 19:00:00"]').waitFor({ state: "detached" });
    expect(await items.count()).to.equal(5);
    expect(await items.first().getAttribute("data-start")).to.equal("2027-03-16 19:00:00");
    expect(await items.nth(1).getAttribute("data-start")).to.equal("2027-03-23 19:00:00");
    expect(await repeats.locator("code.cal-lines").textContent()).to.equal("RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6\nEXDATE;VALUE=DATE:20270318");
    expect(await repeats.locator(".cal-rule-summary").textContent()).to.equal("Every week on Tuesday and Thursday, 6 times.");
    await repeats.screenshot({ path: artifact("editor-calendar-recurrence.png") });

    const id = await save();
    const saved = await readEvent(id);
    expect(saved.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6", "EXDATE;VALUE=DATE:20270318"]);
    expect(saved.timezone).to.equal("Europe/Rome");
    expect(saved.start_date).to.equal("2027-03-16 19:00:00");
    const occurrences = await site().api<ApiList<"events", ApiEventRecord>>("GET", `/events?include=${id}&per_page=50`, undefined, true);
    expect(occurrences.body.events.map((e) => e.start_date)).to.deep.equal(["2027-03-16 19:00:00", "2027-03-23 19:00:00", "2027-03-25 19:00:00", "2027-03-30 19:00:00", "2027-04-01 19:00:00"]);

    // The series re-read: the form shows the same rule and sends nothing while it is unchanged.
    expect(await group("recurrence").getByLabel("Repeats", { exact: true }).inputValue()).to.equal("WEEKLY");
    expect(await group("recurrence").locator("code.cal-lines").textContent()).to.equal("RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6\nEXDATE;VALUE=DATE:20270318");
    expect(problems).to.deep.equal([]);
  });

  it("keeps the lines of a series it cannot show as they are, also when the form's own lines change", async () => {
    const rule = "RRULE:FREQ=MONTHLY;BYDAY=MO,WE;BYSETPOS=-1;COUNT=3";
    // The last Monday or Wednesday of each month from 31 March 2027, three times, but not 28 April (a floating date-time).
    const lines = [rule, "EXDATE:20270428T190000"];
    const created = await site().api<ApiEventRecord>(
      "POST",
      "/events",
      { title: "Last-weekday meetup", status: "publish", start_date: "2027-03-31 19:00:00", end_date: "2027-03-31 21:00:00", timezone: "Europe/Rome", recurrence: lines },
      true,
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id;

    await login(`#/types/event/${id}`);
    const repeats = group("recurrence");
    await repeats.locator("select").first().waitFor();
    expect(await repeats.getByLabel("Repeats", { exact: true }).inputValue()).to.equal("");
    expect(await repeats.locator("select option").first().textContent()).to.equal("Custom rule (in the other lines)");
    expect(await repeats.locator("details.cal-advanced").getAttribute("open")).to.not.equal(null);
    expect(await repeats.getByLabel(/Lines this form has no controls for/).inputValue()).to.equal(rule);
    expect(await repeats.locator('[data-list="exdates"] .cal-chip-name').allTextContents()).to.deep.equal(["2027-04-28 19:00"]);
    expect(await repeats.locator("code.cal-lines").textContent()).to.equal(lines.join("\n"));
    await page.locator('[data-preview][data-state="ready"]').waitFor();
    expect(await repeats.locator(".cal-preview-item").evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { start: string } }).dataset.start))).to.deep.equal([
      "2027-03-31 19:00:00",
      "2027-05-31 19:00:00",
    ]);

    // Another field changes: the lines are not sent, so they stay exactly as stored.
    await page.getByLabel("Title").first().fill("Last-weekday meetup (new room)");
    await save();
    expect((await readEvent(id)).recurrence).to.deep.equal(lines);

    // An extra date: the form's own lines change, the others are sent back as they were.
    await group("recurrence").getByLabel("Extra dates", { exact: true }).fill("2027-06-15");
    await group("recurrence").locator('[data-list="rdates"]').getByRole("button", { name: "Add" }).click();
    expect(await group("recurrence").locator("code.cal-lines").textContent()).to.equal(["RDATE;VALUE=DATE:20270615", "EXDATE:20270428T190000", rule].join("\n"));
    await save();
    const saved = await readEvent(id);
    expect([...saved.recurrence].sort()).to.deep.equal(["EXDATE:20270428T190000", "RDATE;VALUE=DATE:20270615", rule].sort());
    expect(problems).to.deep.equal([]);
  });

  it("edits one occurrence of a series from the list (it is detached), then goes to the whole series", async () => {
    const created = await site().api<ApiEventRecord>(
      "POST",
      "/events",
      { title: "Weekly Yoga Class", status: "publish", start_date: "2027-04-06 18:00:00", end_date: "2027-04-06 19:00:00", timezone: "Europe/Rome", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"] },
      true,
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const seriesId = created.body.id;

    await login("#/types/event?search=Yoga");
    const rows = page.locator("table tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).to.equal(4);
    expect(await rows.nth(1).textContent()).to.contain(`Occurrence of #${seriesId}`);
    await rows.nth(1).getByRole("link", { name: "Weekly Yoga Class" }).click();
    await page.waitForURL(/#\/types\/event\/\d+$/);
    const occurrenceId = Number(/(\d+)$/.exec(page.url())![1]);
    expect(occurrenceId).to.be.at.least(OCCURRENCE_ID_BASE);

    const notice = page.locator('.cal-notice[data-calendar-notice="occurrence"]');
    await notice.waitFor();
    expect(await notice.locator("strong").textContent()).to.equal("You are editing one occurrence (Tue, 13 Apr 2027, 18:00) of a series.");
    // It is the form's first thing, and it links to the whole series.
    expect(await page.locator("form.edit-form > .cal-notice").count()).to.equal(1);
    expect(await notice.getByRole("link", { name: "Edit the whole series" }).getAttribute("href")).to.equal(`#/types/event/${seriesId}`);
    // No rules of its own: the recurrence group only points at the series.
    expect(await group("recurrence").locator("select").count()).to.equal(0);
    expect(await group("recurrence").textContent()).to.contain("This is one occurrence of a series");
    await page.screenshot({ path: artifact("editor-calendar-occurrence.png"), fullPage: true });

    // Edit this occurrence: a later start, another title.
    await page.getByLabel("Title").first().fill("Weekly Yoga Class (guest teacher)");
    await group("when").getByLabel("Time").first().fill("19:00");
    await group("when").getByLabel("Time").first().dispatchEvent("change");
    expect(await group("when").getByLabel("Time").nth(1).inputValue()).to.equal("20:00");
    const detachedId = await save();
    expect(detachedId).to.be.below(OCCURRENCE_ID_BASE);
    expect(detachedId).to.not.equal(seriesId);
    const detached = await readEvent(detachedId);
    expect(detached.series_id).to.equal(seriesId);
    expect(detached.original_start_date).to.equal("2027-04-13 18:00:00");
    expect(detached.title).to.equal("Weekly Yoga Class (guest teacher)");
    expect(detached.start_date).to.equal("2027-04-13 19:00:00");
    expect(detached.end_date).to.equal("2027-04-13 20:00:00");
    expect(detached.timezone).to.equal("Europe/Rome");
    // The series is as it was: the same rule, three occurrences left as occurrences.
    const series = await readEvent(seriesId);
    expect(series.title).to.equal("Weekly Yoga Class");
    expect(series.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=4"]);
    const left = await site().api<ApiList<"events", ApiEventRecord>>("GET", `/events?include=${seriesId}&per_page=50`, undefined, true);
    expect(left.body.events.map((e) => e.start_date)).to.deep.equal(["2027-04-06 18:00:00", "2027-04-20 18:00:00", "2027-04-27 18:00:00"]);

    // The detached event's form says what it is; its link leads to the whole series, with its rules.
    const detachedNotice = page.locator('.cal-notice[data-calendar-notice="detached"]');
    await detachedNotice.waitFor();
    await detachedNotice.getByRole("link", { name: "Edit the whole series" }).click();
    await page.waitForURL(new RegExp(`#/types/event/${seriesId}$`));
    await page.locator('fieldset[data-group="calendar-recurrence"] select').first().waitFor();
    expect(await page.getByLabel("Title").first().inputValue()).to.equal("Weekly Yoga Class");
    expect(await group("recurrence").getByLabel("Repeats", { exact: true }).inputValue()).to.equal("WEEKLY");
    expect(await group("recurrence").getByLabel("Number of times").inputValue()).to.equal("4");
    expect(await page.locator(".cal-notice").count()).to.equal(0);
    expect(problems).to.deep.equal([]);
  });

  it("shows the API's message for a bad rule at the recurrence field, with focus there", async () => {
    const rule = "RRULE:FREQ=HOURLY";
    const direct = await site().api<ApiError>("POST", "/events", { title: "x", start_date: "2027-05-01 10:00:00", end_date: "2027-05-01 11:00:00", recurrence: [rule] }, true);
    expect(direct.status).to.equal(400);
    const message = direct.body.data.params!.recurrence;
    expect(message).to.be.a("string").and.not.equal("");

    await newEventForm();
    await page.getByLabel("Title").first().fill("Too often");
    await setWhen("2027-05-01 10:00", "2027-05-01 11:00", "UTC");
    const repeats = group("recurrence");
    await repeats.locator("summary", { hasText: "Other recurrence lines" }).click();
    const raw = repeats.getByLabel(/Lines this form has no controls for/);
    await raw.fill(rule);
    // The preview asks the API, which refuses the rule with the same words.
    await page.locator('[data-preview][data-state="error"]').waitFor();
    expect(await repeats.locator(".cal-preview-status").textContent()).to.equal(`No preview: ${message}`);

    await page.locator(".publish-box button.primary[data-action]").click();
    const error = repeats.locator(".cal-error:not([hidden])");
    await error.waitFor();
    expect(await error.textContent()).to.equal(message);
    // The box of the line at fault is marked and has focus; the message describes it.
    const focused = await activeElement();
    expect(focused.tag).to.equal("TEXTAREA");
    expect(focused.invalid).to.equal("true");
    expect(focused.describedBy).to.contain(await error.getAttribute("id"));
    // The Repeats select is described by the message too.
    expect(await repeats.getByLabel("Repeats", { exact: true }).getAttribute("aria-describedby")).to.contain(await error.getAttribute("id"));
    expect(page.url()).to.match(/#\/types\/event\/new$/);
    // The browser reports the two refused requests (preview and save); nothing else went wrong.
    expect(problems.filter((p) => !/status of 400/.test(p))).to.deep.equal([]);
  });

  it("hints at an end before the start, then shows the API's own message there, with focus on the end", async () => {
    await newEventForm();
    await page.getByLabel("Title").first().fill("Backwards");
    await setWhen("2027-05-01 10:00", "2027-05-01 09:00", "UTC");
    const when = group("when");
    const endError = when.locator("fieldset.cal-datetime").nth(1).locator(".cal-error");
    await when.locator("fieldset.cal-datetime").nth(1).locator(".cal-error:not([hidden])").waitFor();
    expect(await endError.textContent()).to.equal("The end is before the start.");

    await page.locator(".publish-box button.primary[data-action]").click();
    await when.locator(".cal-error", { hasText: "The end date must not be before the start date." }).waitFor();
    const focused = await activeElement();
    expect(focused.id).to.equal(await when.getByLabel("Date").nth(1).getAttribute("id"));
    expect(focused.invalid).to.equal("true");
    expect(focused.describedBy).to.contain(await endError.getAttribute("id"));
    // The error summary of the generic form links to the same field.
    expect(await page.locator(".error-summary a").first().textContent()).to.contain("The end date must not be before the start date.");
    expect(problems.filter((p) => !/status of 400/.test(p))).to.deep.equal([]);
  });

  it("fits a phone: one column, nothing wider than the screen", async () => {
    await context?.close();
    await openPage({ width: 390, height: 844 });
    await newEventForm();
    await group("recurrence").getByLabel("Repeats", { exact: true }).selectOption("MONTHLY");
    await group("linked").locator('[data-picker="venue"]').getByRole("button", { name: "New venue…" }).click();
    const widths = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return { scroll: doc.documentElement.scrollWidth, client: doc.documentElement.clientWidth };
    });
    expect(widths.scroll).to.be.at.most(widths.client);
    // Start and end stack on a phone.
    const boxes = await group("when").locator("fieldset.cal-datetime").evaluateAll((els) => els.map((e) => (e as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top));
    expect(boxes[1]).to.be.greaterThan(boxes[0]);
    await page.screenshot({ path: artifact("editor-calendar-phone.png"), fullPage: true });
    expect(problems).to.deep.equal([]);
  });
});

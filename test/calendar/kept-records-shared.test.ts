/**
 * Kept records shared by processes (lib/cache/index.ts `openRecords`): by
 * default every process of a site keeps its records in one file outside the
 * heap (beside a SQLite database; for PostgreSQL a file of the machine). A
 * `calpress serve` child and a site in this process run on one database,
 * with no caching option given: a record one of them built is reused by the
 * other, and a write through either shows at once in the other's lists
 * and reads by id (a venue renamed, a term recounted, a series changed; an
 * occurrence made from the series the other kept), byte for byte as a site
 * that keeps no records answers.
 */
import fs from "node:fs";
import { expect } from "chai";
import type { RecordCache, RecordStats } from "../../lib/cache/records";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { startServer, type Server } from "../reliability/cli-process";
import { countingLoads, dayAt, makeEvent } from "./events-support";

const SITE_URL = "https://calendar.example";
const ADMIN = "keeper:keeper-pass-1234";

forEachDatabase("calendar: kept records shared by processes", (db) => {
  let database: TestDatabase | undefined;
  let here: TestSite | undefined;
  let plain: TestSite | undefined;
  let child: Server | undefined;
  let past: { id: number } | undefined;

  before(async function () {
    this.timeout(90_000);
    database = await db.create();
    here = await startTestSite({ fixture: "minimal", timezone: "UTC", target: database.target, siteUrl: SITE_URL, responseCache: false });
    plain = await startTestSite({ timezone: "UTC", target: database.target, siteUrl: SITE_URL, responseCache: false, records: false, publishedIndex: false });
    const venue = (await here.get("/venues")).body.venues.find((v: { venue: string }) => v.venue === "Town Hall").id;
    await makeEvent(here, { title: "Shared Gala", status: "publish", venue, categories: ["music"], start_date: dayAt(3, "19:00:00"), end_date: dayAt(3, "21:00:00") });
    // A past event: the warm-up keeps it too, after the upcoming ones.
    past = await makeEvent(here, { title: "Shared Archive", status: "publish", venue, start_date: dayAt(-20, "19:00:00"), end_date: dayAt(-20, "21:00:00") });
    child = await startServer(["--db", database.target, "--site-url", SITE_URL, "--timezone", "UTC", "--user", `${ADMIN}:administrator`], 60_000);
  });
  after(async function () {
    this.timeout(60_000);
    child?.child.kill("SIGTERM");
    await child?.exit;
    await here?.close();
    await plain?.close();
    await database?.drop();
  });

  const on = (): { here: TestSite; plain: TestSite; child: Server } => {
    if (!here || !plain || !child) throw new Error("not started");
    return { here, plain, child };
  };
  const records = (): (RecordCache & { stats(): RecordStats }) | undefined => on().here.site.rest.records as (RecordCache & { stats(): RecordStats }) | undefined;
  const childUrl = (query: string): string => `${on().child.root}calendar/events/v1/events${query}`;
  const text = async (url: string): Promise<string> => {
    const res = await fetch(url);
    expect(res.status, url).to.equal(200);
    return res.text();
  };

  const QUERIES = ["?per_page=50", "?categories=music&per_page=50", `?start_date=${dayAt(0, "00:00:00").slice(0, 10)}&end_date=${dayAt(120, "00:00:00").slice(0, 10)}&per_page=50`];

  /** Every query, and a read by id of each event listed, answers the same in both processes as on the site that keeps nothing. */
  const sameInBoth = async (what: string): Promise<void> => {
    for (const q of QUERIES) {
      const expected = await text(`${on().plain.ns}/events${q}`);
      expect(await text(childUrl(q)), `the other process, ${what}: ${q}`).to.equal(expected);
      expect(await text(`${on().here.ns}/events${q}`), `this process, ${what}: ${q}`).to.equal(expected);
    }
    const listed = JSON.parse(await text(`${on().plain.ns}/events?per_page=50`)) as { events: Array<{ id: number }> };
    // Status and text: the fixture's event with a password is listed, and refused when read by id.
    const single = async (url: string): Promise<string> => {
      const res = await fetch(url);
      return `${res.status} ${await res.text()}`;
    };
    for (const { id } of listed.events) {
      const expected = await single(`${on().plain.ns}/events/${id}`);
      // Twice each: the second read is answered from what the first (or the other process) kept.
      for (let i = 0; i < 2; i++) {
        expect(await single(childUrl(`/${id}`)), `the other process, ${what}: event ${id}`).to.equal(expected);
        expect(await single(`${on().here.ns}/events/${id}`), `this process, ${what}: event ${id}`).to.equal(expected);
      }
    }
  };

  it("keeps records in one file outside the heap by default, and reuses those another process built (serve's warm-up)", async function () {
    // `serve` keeps the records of every event after start, upcoming ones first, in the background (lib/cli/warm.ts).
    const kept = /calpress kept the records of (\d+) upcoming events and (\d+) others/;
    for (let i = 0; i < 100 && !kept.test(on().child.stdout()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(Number(kept.exec(on().child.stdout())?.[1]), on().child.stdout()).to.be.greaterThan(0);
    expect(Number(kept.exec(on().child.stdout())?.[2]), on().child.stdout()).to.be.greaterThan(0);
    const before = records()?.stats();
    if (before === undefined) throw new Error("no kept records");
    await sameInBoth("first reads");
    // The past event read by id in this process: from the record and part the child's warm-up kept.
    expect(await text(`${on().here.ns}/events/${past?.id ?? 0}`)).to.equal(await text(`${on().plain.ns}/events/${past?.id ?? 0}`));
    const after = records()?.stats();
    if (after === undefined) throw new Error("no kept records");
    // This process kept none of its own: every record it showed came from the file the child wrote.
    expect(after.kept - before.kept, "records this process had to build").to.equal(0);
    expect(after.proved + after.hits - before.proved - before.hits, "records reused").to.be.greaterThan(0);
    if (db.name === "sqlite") expect(fs.existsSync(`${database?.target ?? ""}.records`), "the file beside the database").to.equal(true);
  });

  it("answers a read by id from the record and part another process kept: no post loaded", async () => {
    const t = on();
    const made = await makeEvent(t.here, { title: "Kept Elsewhere", status: "publish", categories: ["music"], start_date: dayAt(4, "19:00:00"), end_date: dayAt(4, "21:00:00") });
    const expected = await text(`${t.plain.ns}/events/${made.id}`);
    // The first read builds and keeps the record and its part; the second keeps the category's part (its count moved).
    for (let i = 0; i < 2; i++) expect(await text(childUrl(`/${made.id}`))).to.equal(expected);
    const before = records()?.stats();
    if (before === undefined) throw new Error("no kept records");
    const statements: string[] = [];
    const onQuery = (q: { sql: string }): void => void statements.push(q.sql);
    t.here.site.engine.knex.on("query", onQuery);
    let answer: string;
    try {
      answer = await text(`${t.here.ns}/events/${made.id}`);
    } finally {
      t.here.site.engine.knex.removeListener("query", onQuery);
    }
    expect(answer).to.equal(expected);
    const posts = t.here.site.engine.tables.posts;
    expect(statements.filter((sql) => sql.includes(posts)), statements.join("\n")).to.deep.equal([]);
    expect(JSON.parse(answer)).to.have.property("json_ld");
    expect(records()?.stats().kept, "records this process had to build").to.equal(before.kept);
  });

  it("shows a venue renamed in one process at once in the other's lists, both ways", async () => {
    const t = on();
    await sameInBoth("before");
    const venue = (await t.here.get("/venues")).body.venues.find((v: { venue: string }) => v.venue === "Town Hall");
    const renamed = await t.here.post(`/venues/${venue.id}`, { as: "editor", json: { venue: "Renamed Hall" } });
    expect(renamed.status).to.equal(200);
    await sameInBoth("venue renamed here");
    expect(await text(childUrl("?per_page=50"))).to.include("Renamed Hall");
    const back = await fetch(`${t.child.root}calendar/events/v1/venues/${venue.id}`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(ADMIN).toString("base64")}`, "content-type": "application/json" },
      body: JSON.stringify({ venue: "Hall Named Again" }),
    });
    expect(back.status).to.equal(200);
    await sameInBoth("venue renamed there");
    expect(await text(`${t.here.ns}/events?per_page=50`)).to.include("Hall Named Again");
  });

  it("shows a term recounted (an event published in it elsewhere) and a series changed", async () => {
    const t = on();
    await sameInBoth("before");
    await makeEvent(t.here, { title: "Recount", status: "publish", categories: ["music"], start_date: dayAt(5, "10:00:00"), end_date: dayAt(5, "11:00:00") });
    await sameInBoth("term recounted");
    const series = await makeEvent(t.here, {
      title: "Shared Series",
      status: "publish",
      categories: ["music"],
      start_date: dayAt(7, "18:00:00"),
      end_date: dayAt(7, "19:00:00"),
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=6"],
    });
    // The site's first series: another process lists the type by its occurrences once its options
    // cache has seen the type named repeating (`optionsRecheckMs`, 1 s; README, *Recurring events*).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await sameInBoth("series created");
    expect(await text(childUrl("?per_page=50"))).to.include("Shared Series");
    const changed = await t.here.post(`/events/${series.id}`, { as: "editor", json: { title: "Series Renamed", description: "Now on Fridays" } });
    expect(changed.status).to.equal(200);
    await sameInBoth("series changed");
    const list = JSON.parse(await text(childUrl("?per_page=50"))) as { events: Array<{ title: string }> };
    expect(list.events.filter((e) => e.title === "Series Renamed").length, "the series' occurrences, renamed").to.be.greaterThan(1);
    expect(list.events.some((e) => e.title === "Shared Series")).to.equal(false);
  });

  it("makes occurrences in one process from the series the other kept, and from the changed series after a write in the other", async () => {
    const t = on();
    const series = await makeEvent(t.here, { title: "Far Series", status: "publish", start_date: dayAt(200, "18:00:00"), end_date: dayAt(200, "19:00:00"), recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"] });
    // As above: the other process may list a site's first series by its occurrences only after a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const page = (n: number): string => `?start_date=${dayAt(199, "00:00:00").slice(0, 10)}&end_date=${dayAt(230, "00:00:00").slice(0, 10)}&per_page=1&page=${n}`;
    const expected = (n: number): Promise<string> => text(`${t.plain.ns}/events${page(n)}`);
    // The events this process loads to build records.
    await countingLoads(t.here, async (loaded) => {
      for (const title of ["Far Series", "Far Series Renamed"]) {
        if (title !== "Far Series") {
          const renamed = await fetch(`${t.child.root}calendar/events/v1/events/${series.id}`, {
            method: "POST",
            headers: { authorization: `Basic ${Buffer.from(ADMIN).toString("base64")}`, "content-type": "application/json" },
            body: JSON.stringify({ title }),
          });
          expect(renamed.status).to.equal(200);
        }
        // The other process builds the first occurrence and keeps it with its series in the shared file.
        const first = await text(childUrl(page(1)));
        expect(first, title).to.equal(await expected(1));
        expect(first).to.include(`"title":"${title}"`);
        for (const n of [2, 3, 4]) {
          loaded();
          const made = await text(`${t.here.ns}/events${page(n)}`);
          const count = loaded();
          expect(made, `${title}: page ${n}`).to.equal(await expected(n));
          expect(made).to.include(`"title":"${title}"`);
          expect(count, `${title}: posts loaded for page ${n}`).to.equal(0);
        }
      }
    });
  });

  it("builds what it keeps from options as new as the token it keeps it under (another process's option write is seen at once)", async function () {
    const r = records();
    if (r === undefined) this.skip();
    const t = on();
    expect(await t.here.site.engine.options.get("blogname")).to.not.equal("Renamed Site");
    // Written by another engine: this one's options cache would notice it only after its recheck interval.
    await t.plain.site.engine.options.set("blogname", "Renamed Site");
    await r.token();
    expect(await t.here.site.engine.options.get("blogname")).to.equal("Renamed Site");
  });
});

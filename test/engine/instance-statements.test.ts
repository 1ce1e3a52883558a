/**
 * A list of instances (a type that repeats, PostQuery.occurrences) is one
 * statement joining a union of every instance where the database reads such
 * a union by key, and on MariaDB (Dialect.readsJoinedUnionsByKey false) the
 * union of two whole statements, posts and occurrences, each with the
 * conditions, ordered and cut to the page. Both forms must list the same
 * ids in the same order with the same total, whatever the order keys
 * (text, NULL-ranked, relevance, include), filters and page: compared here
 * on the databases that can run both (PostgreSQL and MariaDB; SQLite takes
 * no parenthesised union members), and SQLite's one form against the same
 * expected lists.
 */
import { expect } from "chai";
import type { Dialect } from "../../lib/db/dialects";
import type { Engine } from "../../lib/engine";
import { CATEGORY, EVENT, VENUE_LINK } from "../../lib/calendar/post-types";
import type { PostQuery } from "../../lib/posts/types";
import { forEachDatabase } from "../support/databases";
import { makeEvent, useSite } from "../calendar/events-support";

/** Runs `read` with the engine's dialect reading instance lists one way or the other. */
async function withUnionsByKey<T>(engine: Engine, byKey: boolean, read: () => Promise<T>): Promise<T> {
  const own = engine.dialect;
  const mutable = engine as unknown as { dialect: Dialect };
  mutable.dialect = { ...own, readsJoinedUnionsByKey: byKey };
  try {
    return await read();
  } finally {
    mutable.dialect = own;
  }
}

forEachDatabase("engine: lists of instances, one statement or two", (db) => {
  const site = useSite(db);
  let category = 0;
  let venue = 0;
  const made: Record<string, number> = {};

  before(async function () {
    this.timeout(60_000);
    const t = site();
    const cat = await t.post("/categories", { as: "editor", json: { name: "Workshops" } });
    expect(cat.status, JSON.stringify(cat.body)).to.equal(201);
    category = cat.body.id;
    const v = await t.post("/venues", { as: "editor", json: { venue: "Hall", status: "publish" } });
    expect(v.status, JSON.stringify(v.body)).to.equal(201);
    venue = v.body.id;
    const ev = async (key: string, body: Record<string, unknown>): Promise<void> => {
      made[key] = (await makeEvent(t, { status: "publish", ...body })).id;
    };
    await ev("weekly", { title: "pottery Class", start_date: "2027-03-01 18:00:00", end_date: "2027-03-01 20:00:00", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=5"], categories: [category], venue, cost: "10" });
    await ev("daily", { title: "Morning yoga", start_date: "2027-03-02 07:00:00", end_date: "2027-03-02 08:00:00", recurrence: ["RRULE:FREQ=DAILY;COUNT=6"], venue });
    await ev("cancelled", {
      title: "Cancelled talks",
      start_date: "2027-03-03 12:00:00",
      end_date: "2027-03-03 13:00:00",
      recurrence: ["RRULE:FREQ=DAILY;COUNT=2", "EXDATE:20270303T120000Z,20270304T120000Z"],
    });
    await ev("fair", { title: "Spring fair", start_date: "2027-03-02 07:00:00", end_date: "2027-03-02 17:00:00", categories: [category] });
    await ev("concert", { title: "Pottery and music", start_date: "2027-03-05 20:00:00", end_date: "2027-03-05 22:00:00", venue, cost: "25" });
    await ev("lecture", { title: "a lecture", start_date: "2027-03-08 18:00:00", end_date: "2027-03-08 19:00:00", excerpt: "pottery history" });
    await ev("hidden", { title: "Hidden pottery", start_date: "2027-03-06 10:00:00", end_date: "2027-03-06 11:00:00", hide_from_listings: true });
    await ev("draft", { title: "Draft market", start_date: "2027-03-07 10:00:00", end_date: "2027-03-07 11:00:00", status: "draft" });
  });

  /** Every query below, on the calendar's event list as the API builds it (statuses past the published index). */
  const queries = (): Array<[string, PostQuery]> => {
    const base: PostQuery = {
      type: EVENT,
      status: ["publish", "draft"],
      occurrences: true,
      // The fixture's own events are elsewhere in time.
      where: [
        { field: "hide_from_listings", op: "!=", value: true },
        { field: "start_local", op: ">=", value: "2027-03-01 00:00:00" },
        { field: "start_local", op: "<", value: "2027-04-01 00:00:00" },
      ],
      orderBy: [{ field: "start_local", dir: "asc" }],
      perPage: 4,
    };
    const out: Array<[string, PostQuery]> = [];
    for (const page of [1, 2, 3, 4, 5, 6]) out.push([`start order, page ${page}`, { ...base, page }]);
    out.push(["start desc, offset 3", { ...base, orderBy: [{ field: "start_local", dir: "desc" }], offset: 3 }]);
    out.push(["window", { ...base, where: [...(base.where ?? []), { field: "start_local", op: ">=", value: "2027-03-03 00:00:00" }, { field: "end_local", op: "<=", value: "2027-03-06 23:59:59" }], perPage: 50 }]);
    out.push(["title then start", { ...base, orderBy: [{ field: "title", dir: "asc" }, { field: "start_local", dir: "desc" }], perPage: 50 }]);
    out.push(["title desc, page 2", { ...base, orderBy: [{ field: "title", dir: "desc" }], page: 2 }]);
    out.push(["cost (NULL ranked)", { ...base, orderBy: [{ field: "cost", dir: "desc" }], perPage: 50 }]);
    out.push(["category", { ...base, tax: [{ taxonomy: CATEGORY, terms: [category] }], perPage: 50 }]);
    out.push(["venue", { ...base, links: [{ relation: VENUE_LINK, to: [venue] }], perPage: 3, page: 2 }]);
    out.push(["search by relevance", { ...base, search: "pottery", orderBy: [{ field: "relevance", dir: "desc" }, { field: "start_local", dir: "asc" }], perPage: 50 }]);
    out.push(["include order", { ...base, ids: [made.concert, made.weekly, made.fair], orderBy: [{ field: "include", dir: "asc" }], perPage: 50 }]);
    out.push(["all on one page", { ...base, perPage: -1 }]);
    return out;
  };

  it("lists the same ids in the same order, with the same totals, either way", async function () {
    this.timeout(60_000);
    const { engine } = site().site;
    const listed: string[] = [];
    for (const [name, query] of queries()) {
      const byKey = await withUnionsByKey(engine, true, () => engine.posts.findIds(query));
      const count = await withUnionsByKey(engine, true, () => engine.posts.count(query));
      expect(count, `${name}: count`).to.equal(query.perPage === -1 ? byKey.ids.length : byKey.total);
      if (db.name !== "sqlite") {
        const apart = await withUnionsByKey(engine, false, () => engine.posts.findIds(query));
        expect(apart, name).to.deep.equal(byKey);
        expect(await withUnionsByKey(engine, false, () => engine.posts.count(query)), `${name}: count apart`).to.equal(count);
      }
      listed.push(`${name}: ${byKey.ids.length}/${byKey.total}`);
    }
    // The lists are not trivially empty: 5 + 6 occurrences, 4 singles listed (a draft among them), none of the cancelled series or the hidden event.
    const all = await engine.posts.findIds(queries().find(([n]) => n === "all on one page")![1]);
    expect(all.ids.length, listed.join("\n")).to.equal(15);
    const search = await engine.posts.findIds(queries().find(([n]) => n === "search by relevance")![1]);
    expect(search.ids.length).to.equal(7);
  });

  it("reads pages deep into a list, past the rows either member alone would give", async function () {
    const { engine } = site().site;
    const query: PostQuery = { type: EVENT, status: ["publish", "draft"], occurrences: true, where: [{ field: "start_local", op: ">=", value: "2027-03-01 00:00:00" }], orderBy: [{ field: "start_local", dir: "asc" }], perPage: 1 };
    const whole = await engine.posts.findIds({ ...query, perPage: -1 });
    const paged: number[] = [];
    for (let page = 1; page <= whole.ids.length + 1; page++) paged.push(...(await engine.posts.findIds({ ...query, page })).ids);
    expect(paged).to.deep.equal(whole.ids);
  });
});

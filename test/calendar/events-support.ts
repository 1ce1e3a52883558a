/**
 * Shared helpers of the event route tests (test/calendar/events*.test.ts):
 * one site per `describe` on a fresh database, and small date helpers.
 */
import { expect } from "chai";
import { DateTime } from "luxon";
import type { TestDatabase, TestTarget } from "../support/databases";
import { startTestSite, type StartOptions, type TestSite } from "../support/site";

export const SQL = "yyyy-MM-dd HH:mm:ss";
export const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Starts one site for the enclosing `describe` (in `before`) on a new database, closed and dropped in `after`. */
export function useSite(db: TestTarget, opts: StartOptions = {}): () => TestSite {
  let site: TestSite | undefined;
  let database: TestDatabase | undefined;
  before(async function () {
    this.timeout(60_000);
    database = await db.create();
    site = await startTestSite({ fixture: "minimal", timezone: "UTC", ...opts, target: database.target });
  });
  after(async function () {
    this.timeout(60_000);
    await site?.close();
    await database?.drop();
  });
  return () => {
    if (!site) throw new Error("site not started");
    return site;
  };
}

/** A wall clock `days` from now in `zone` at `time` (`HH:mm:ss`), as the API returns it. */
export function dayAt(days: number, time: string, zone = "UTC"): string {
  return `${DateTime.now().setZone(zone).plus({ days }).toFormat("yyyy-MM-dd")} ${time}`;
}

/** Creates an event through the API (as the editor unless said otherwise) and returns its record. */
export async function makeEvent(t: TestSite, body: Record<string, unknown>, as = "editor"): Promise<any> {
  const res = await t.post("/events", { as, json: { start_date: dayAt(1, "10:00:00"), end_date: dayAt(1, "11:00:00"), ...body } });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** The `rest_invalid_param` body of one failing argument. */
export function expectInvalidParam(res: { status: number; body: any }, name: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body.code).to.equal("rest_invalid_param");
  expect(res.body.data.params).to.have.property(name);
}

export function ids(list: Array<{ id: number }>): number[] {
  return list.map((e) => e.id);
}

/** The ID of a fixture post by its title. */
export async function postId(t: TestSite, title: string): Promise<number> {
  const row: { id: number } | undefined = await t.site.engine.knex(t.site.engine.tables.posts).where({ title }).orderBy("id").first("id");
  if (!row) throw new Error(`no post titled ${title}`);
  return Number(row.id);
}

/**
 * Counts the posts a site loads by id (`engine.posts.getMany`, through which
 * routes load what they build records from) while `work` runs; `loaded()`
 * gives the count since the last call, and the site's own method is put back
 * after.
 */
export async function countingLoads<T>(t: TestSite, work: (loaded: () => number) => Promise<T>): Promise<T> {
  const posts = t.site.engine.posts;
  const getMany = posts.getMany;
  let count = 0;
  posts.getMany = (ids, ...rest) => {
    count += ids.length;
    return getMany.call(posts, ids, ...rest);
  };
  try {
    return await work(() => {
      const n = count;
      count = 0;
      return n;
    });
  } finally {
    posts.getMany = getMany;
  }
}

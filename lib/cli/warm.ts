import http from "node:http";
import type { CliIO } from "./io";

/**
 * Requests every path of `source` once from calpress's own listening address, a few at a
 * time, so that the answer store holds their answers before readers come
 * (stored answers are keyed by the REST root, host included: these are
 * the answers for clients of that address). Runs beside normal traffic;
 * reports progress on stderr and the total on stdout.
 */
export async function warmStoredAnswers(
  root: string,
  source: { total(): Promise<number>; pages(): AsyncIterable<string[]> },
  io: CliIO,
  concurrency = 4,
): Promise<void> {
  const started = Date.now();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const total = await source.total();
  let done = 0;
  let failed = 0;
  let reported = started;
  const get = (url: string): Promise<number> =>
    new Promise((resolve) => {
      const req = http.get(url, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      });
      req.on("error", () => resolve(0));
    });
  const worker = async (paths: readonly string[], start: { next: number }): Promise<void> => {
    while (start.next < paths.length) {
      const path = paths[start.next++];
      if ((await get(`${root}${path}`)) !== 200) failed++;
      done++;
      const now = Date.now();
      if (now - reported >= 5000) {
        reported = now;
        io.err(`warming stored answers: ${done} of ${total}`);
      }
    }
  };
  for await (const paths of source.pages()) {
    const position = { next: 0 };
    await Promise.all(Array.from({ length: concurrency }, () => worker(paths, position)));
  }
  agent.destroy();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.out(`calpress warmed ${done - failed} stored answers in ${seconds} s${failed > 0 ? ` (${failed} requests did not answer 200)` : ""}`);
}

/** Bound on the list pages the records warm-up asks for in each pass (50 events each): the data decides the rest. */
const MAX_RECORD_PAGES = 20_000;

/**
 * The records warm-up's passes: the upcoming events first (what readers ask
 * for most), then every event from the earliest (the upcoming ones again,
 * proved rather than built), so that an archive month or an old event read
 * by id is pasted too (issue 43: the record of every post).
 */
const RECORD_PASSES = [
  { name: "upcoming", query: "" },
  { name: "all", query: "&start_date=1970-01-01" },
] as const;

/**
 * Builds the kept records (lib/cache/records.ts) of every event once after
 * start: the event list, 50 a page, one page at a time through calpress's
 * own listening address, so that the first month, venue or event a reader
 * asks for is pasted from the record file rather than built (a list keeps
 * what a read by id adds too). One request at a time leaves the other cores
 * to readers; the records are kept in the file every process shares, so
 * this runs once per start, not per worker. Reports progress on stderr and
 * the totals on stdout.
 */
export async function warmKeptRecords(root: string, io: CliIO): Promise<void> {
  const started = Date.now();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // The body is not read: the list's headers say how many events and pages there are.
  const get = (url: string): Promise<{ status: number; pages: number; total: number }> =>
    new Promise((resolve) => {
      const req = http.get(url, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, pages: Number(res.headers["x-wp-totalpages"] ?? 0), total: Number(res.headers["x-wp-total"] ?? 0) }));
        res.on("error", () => resolve({ status: 0, pages: 0, total: 0 }));
      });
      req.on("error", () => resolve({ status: 0, pages: 0, total: 0 }));
    });
  const kept: Record<(typeof RECORD_PASSES)[number]["name"], number> = { upcoming: 0, all: 0 };
  let reported = started;
  try {
    for (const pass of RECORD_PASSES) {
      let pages = 1;
      let total = 0;
      let done = 0;
      for (let page = 1; page <= Math.min(pages, MAX_RECORD_PAGES); page++) {
        const r = await get(`${root}calendar/events/v1/events?per_page=50&page=${page}${pass.query}`);
        if (r.status !== 200) break;
        if (page === 1) {
          pages = r.pages;
          total = r.total;
        }
        done = page;
        const now = Date.now();
        if (now - reported >= 5000) {
          reported = now;
          io.err(`keeping event records (${pass.name}): page ${page} of ${pages}`);
        }
      }
      kept[pass.name] = Math.min(total, done * 50);
    }
  } finally {
    agent.destroy();
  }
  const others = Math.max(0, kept.all - kept.upcoming);
  io.out(`calpress kept the records of ${kept.upcoming} upcoming events and ${others} others in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { generateFixture } from "../lib/fixtures/generate";
import { buildSearchTerms, pickSearchWord } from "./catalog";
import { CeilingSpec, querySignature, startCeiling } from "./ceiling";
import { createDatabase } from "./db";
import { drive } from "./drive";
import { startFront } from "./front";
import { log } from "./log";
import { Rng } from "./rng";
import { cleanupAll, installExitHandlers, onCleanup } from "./proc";
import { BenchReport, evaluateTargets, renderMarkdown, WorkloadResult, writeReport } from "./report";
import { buildWorkloads, monthAhead, nextMonth, requestStream, variedPageCount, Workload, WORKLOAD_NAMES } from "./workloads";
import type { Catalog } from "./catalog";

/**
 * Checks of the harness's own pieces without calpress: the ceiling server
 * and the load driver against it, the round-robin front, the report and
 * chart from a synthetic result set, the small pure helpers, and (when a
 * server answers) creating and dropping PostgreSQL/MySQL databases.
 *
 *   npx tsx bench/selftest.ts [--keep <dir>]   (a few seconds of load in all)
 */

const catalog: Catalog = {
  events: Array.from({ length: 50 }, (_, i) => ({ id: 100 + i, slug: `event-${i}`, title: `Spring Jazz Night ${i}` })),
  categoryId: 7,
  categoryEvents: 20,
  searchWord: "jazz",
  searchHits: 50,
  venueId: 3,
  language: "en",
  categoryIds: [7, 8, 9],
  venueIds: [3, 4],
  searchTerms: { hits: ["jazz", "spring jazz"], misses: ["zovakeri"] },
};

/** Titles of the benchmark's own fixture (2,000 events, seed 42, as --quick loads): the smallest vocabulary search_varied meets. */
function fixtureTitles(events: number): string[] {
  return (generateFixture({ events, seed: 42 }).events ?? []).filter((e) => e.status === "publish").map((e) => e.title);
}

async function checkHelpers(): Promise<void> {
  assert.deepEqual(nextMonth(new Date("2024-12-15T12:00:00Z")), { start: "2025-01-01", end: "2025-01-31" });
  assert.deepEqual(nextMonth(new Date("2024-01-31T23:00:00Z")), { start: "2024-02-01", end: "2024-02-29" });
  assert.deepEqual(monthAhead(new Date("2024-12-15T12:00:00Z"), 24), { start: "2026-12-01", end: "2026-12-31" });
  assert.deepEqual(monthAhead(new Date("2024-05-10T00:00:00Z"), 9), { start: "2025-02-01", end: "2025-02-28" });
  assert.equal(variedPageCount(undefined), 200);
  assert.equal(variedPageCount(5000), 200);
  assert.equal(variedPageCount(88), 87);
  assert.equal(variedPageCount(1), 1);
  assert.equal(querySignature("start_date=x&categories=7&end_date=y&per_page=50"), "categories&end_date&per_page&start_date");
  assert.equal(querySignature(""), "");
  const titles = [...Array.from({ length: 95 }, (_, i) => `Open Piano Club ${i}`), ...Array.from({ length: 5 }, () => "Late-Night Techno Tour")];
  assert.equal(pickSearchWord(titles).word, "late");
  const workloads = buildWorkloads({ catalog, restRoot: "/wp-json/", now: new Date("2024-05-10T00:00:00Z") });
  assert.deepEqual(workloads.map((w) => w.name), [...WORKLOAD_NAMES]);
  // Same seed, same stream: the ceiling sees what calpress saw.
  const mixed = workloads.find((w) => w.name === "mixed");
  assert.ok(mixed);
  const a = requestStream(mixed, 5);
  const b = requestStream(mixed, 5);
  const first = Array.from({ length: 2000 }, () => a());
  assert.deepEqual(first.map((r) => r.path), Array.from({ length: 2000 }, () => b().path));
  const writes = first.filter((r) => r.method === "POST").length;
  assert.ok(writes > 140 && writes < 260, `about 10% writes, got ${writes}/2000`);
  const month = workloads.find((w) => w.name === "month_category");
  assert.equal(
    month?.mix[0].kind.next(new Rng(1)).path,
    "/wp-json/calendar/events/v1/events?start_date=2024-06-01&end_date=2024-06-30&categories=7&per_page=50",
  );
  log("helpers: ok");
}

/**
 * Issue 21's streams, on a catalog the size of the 100k fixture's (158
 * categories, 2,000 venues, 100,000 events) and the search terms of the
 * --quick fixture (the smallest vocabulary): how many distinct URLs 5,000
 * requests of each varied workload hold. pages_varied is the issue's
 * shape, pages 1..200: it cannot hold more than 200.
 */
function checkVaried(): void {
  const titles = fixtureTitles(2000);
  const terms = buildSearchTerms(titles);
  assert.deepEqual(buildSearchTerms(titles), terms, "the same titles give the same terms");
  const total = terms.hits.length + terms.misses.length;
  assert.ok(total >= 500, `≥ 500 search terms, got ${total}`);
  assert.ok(terms.hits.some((t) => t.includes(" ")) && terms.hits.some((t) => !t.includes(" ")), "words and two-word phrases");
  const share = terms.misses.length / total;
  assert.ok(share > 0.08 && share < 0.12, `about 10% misses, got ${share}`);
  const text = titles.join("\n").toLowerCase();
  for (const m of terms.misses) assert.ok(!text.includes(m), `miss "${m}" occurs in a title`);
  for (const h of terms.hits) assert.ok(h.split(" ").every((w) => text.includes(w)), `hit "${h}" is not in the titles`);

  const big: Catalog = {
    ...catalog,
    events: Array.from({ length: 100_000 }, (_, i) => ({ id: 1000 + i, slug: `event-${i}`, title: `Event ${i}` })),
    categoryIds: Array.from({ length: 158 }, (_, i) => 10 + i),
    venueIds: Array.from({ length: 2000 }, (_, i) => 5000 + i),
    searchTerms: terms,
  };
  const now = new Date("2024-05-10T00:00:00Z");
  const workloads = buildWorkloads({ catalog: big, restRoot: "/wp-json/", now, listPages: 4400 });
  const stream = (name: string, n: number): string[] => {
    const w = workloads.find((x) => x.name === name) as Workload;
    const next = requestStream(w, 1234);
    return Array.from({ length: n }, () => next().path);
  };
  const minDistinct: Record<string, number> = { month_category_varied: 2000, pages_varied: 200, venue_varied: 1500, search_varied: 500, by_id_built: 4000 };
  const counts: string[] = [];
  for (const [name, min] of Object.entries(minDistinct)) {
    const paths = stream(name, 5000);
    const distinct = new Set(paths).size;
    counts.push(`${name} ${distinct}`);
    assert.ok(distinct >= min, `${name}: ${distinct} distinct paths in 5,000 requests, expected ≥ ${min}`);
  }
  const ns = "/wp-json/calendar/events/v1";
  const months = new Set(stream("month_category_varied", 5000).map((p) => /start_date=([\d-]+)/.exec(p)?.[1]));
  assert.equal(months.size, 24);
  assert.ok(months.has("2024-06-01") && months.has("2026-05-01") && !months.has("2024-05-01"), [...months].join(" "));
  assert.ok(stream("month_category_varied", 10).every((p) => /^\/wp-json\/calendar\/events\/v1\/events\?start_date=\d{4}-\d\d-01&end_date=\d{4}-\d\d-\d\d&categories=\d+&per_page=50$/.test(p)));
  const pages = stream("pages_varied", 5000).map((p) => Number(/page=(\d+)$/.exec(p)?.[1]));
  assert.ok(Math.min(...pages) === 1 && Math.max(...pages) === 200);
  assert.ok(stream("venue_varied", 10).every((p) => /^\/wp-json\/calendar\/events\/v1\/events\?venue=\d+&per_page=20$/.test(p)));
  const searches = stream("search_varied", 5000).map((p) => decodeURIComponent(p.slice(p.indexOf("search=") + 7)));
  const missed = searches.filter((q) => terms.misses.includes(q)).length / searches.length;
  assert.ok(missed > 0.06 && missed < 0.14, `about 10% of searches miss, got ${missed}`);
  assert.ok(searches.some((q) => q.includes(" ")));
  assert.ok(stream("by_id_built", 10).every((p) => new RegExp(`^${ns}/events/\\d+$`).test(p)));
  const byIdBuilt = workloads.find((w) => w.name === "by_id_built");
  assert.equal(byIdBuilt?.answerStore, false, "by_id_built runs without stored answers");
  // A short list keeps pages_varied within it (a page past the end is a 404).
  const short = buildWorkloads({ catalog: big, restRoot: "/wp-json/", now, listPages: 30 }).find((w) => w.name === "pages_varied") as Workload;
  const shortNext = requestStream(short, 1);
  assert.ok(Array.from({ length: 2000 }, () => Number(/page=(\d+)$/.exec(shortNext().path)?.[1])).every((p) => p >= 1 && p <= 29));

  // mixed_1pct: mixed's reads, 1% writes (half creates, half updates).
  const w1 = workloads.find((w) => w.name === "mixed_1pct") as Workload;
  const next1 = requestStream(w1, 99);
  const reqs = Array.from({ length: 40_000 }, () => next1());
  const creates = reqs.filter((r) => r.method === "POST" && r.path === `${ns}/events`).length;
  const updates = reqs.filter((r) => r.method === "POST" && r.path !== `${ns}/events`).length;
  assert.ok(creates > 120 && creates < 280 && updates > 120 && updates < 280, `≈ 0.5% creates and 0.5% updates of 40,000, got ${creates} and ${updates}`);
  const mixed = workloads.find((w) => w.name === "mixed") as Workload;
  assert.deepEqual(
    w1.mix.filter((m) => m.kind.method === "GET").map((m) => m.kind.name),
    mixed.mix.filter((m) => m.kind.method === "GET").map((m) => m.kind.name),
    "the same reads as mixed",
  );
  log(`varied streams: ok (distinct paths in 5,000 requests: ${counts.join(", ")}; ${terms.hits.length} search terms + ${terms.misses.length} misses; mixed_1pct ${creates} creates, ${updates} updates in 40,000)`);
}

async function checkCeiling(): Promise<void> {
  const ns = "/wp-json/calendar/events/v1";
  const body = (s: string): string => Buffer.from(s).toString("base64");
  const spec: CeilingSpec = {
    etag: false,
    responses: [
      { method: "GET", route: `${ns}/events`, query: "search=jazz", status: 200, headers: { "content-type": "application/json; charset=utf-8" }, bodyBase64: body('{"events":["search"]}') },
      { method: "GET", route: `${ns}/events`, query: "", status: 200, headers: { "content-type": "application/json; charset=utf-8", "x-cal-total": "3" }, bodyBase64: body('{"events":["default"]}') },
      // Varied kinds on the same route, told apart by their parameter names (as capture.ts writes them).
      ...(
        [
          ["search_varied", ["search"]],
          ["pages_varied", ["page"]],
          ["venue_varied", ["venue", "per_page"]],
          ["month_category_varied", ["start_date", "end_date", "categories", "per_page"]],
        ] as const
      ).map(([name, keys]) => ({
        method: "GET" as const,
        route: `${ns}/events`,
        query: null,
        queryKeys: querySignature(keys.map((k) => `${k}=`).join("&")),
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8" },
        bodyBase64: body(`{"events":["${name}"]}`),
      })),
      { method: "GET", route: `${ns}/events/:id`, query: null, status: 200, headers: { "content-type": "application/json" }, bodyBase64: body('{"id":1}') },
      { method: "POST", route: `${ns}/events`, query: "", status: 201, headers: { "content-type": "application/json" }, bodyBase64: body('{"id":2}') },
    ],
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-selftest-"));
  onCleanup("selftest dir", () => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, "spec.json"), JSON.stringify(spec));
  const ceiling = await startCeiling(path.join(dir, "spec.json"));
  const get = async (p: string, init?: RequestInit): Promise<[number, string, Headers]> => {
    const res = await fetch(`${ceiling.origin}${p}`, init);
    return [res.status, await res.text(), res.headers];
  };
  const [s1, b1, h1] = await get(`${ns}/events`);
  assert.equal(s1, 200);
  assert.equal(b1, '{"events":["default"]}');
  assert.equal(h1.get("x-cal-total"), "3");
  assert.equal(h1.get("etag"), null);
  assert.equal((await get(`${ns}/events?search=jazz`))[1], '{"events":["search"]}');
  // No exact query: the kind with these parameter names, whatever the values and their order.
  assert.equal((await get(`${ns}/events?search=late%20night`))[1], '{"events":["search_varied"]}');
  assert.equal((await get(`${ns}/events?page=17`))[1], '{"events":["pages_varied"]}');
  assert.equal((await get(`${ns}/events?venue=9&per_page=20`))[1], '{"events":["venue_varied"]}');
  assert.equal((await get(`${ns}/events?per_page=20&venue=12`))[1], '{"events":["venue_varied"]}');
  assert.equal((await get(`${ns}/events?start_date=2025-03-01&end_date=2025-03-31&categories=8&per_page=50`))[1], '{"events":["month_category_varied"]}');
  // Other names: no kind of the route answers them (the query-null catch-all is for routes whose path varies).
  assert.equal((await get(`${ns}/events?page=2&per_page=5`))[0], 404);
  assert.equal((await get(`${ns}/events/123`))[1], '{"id":1}');
  const [s4, b4] = await get(`${ns}/events`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"title":"x"}' });
  assert.equal(s4, 201);
  assert.equal(b4, '{"id":2}');
  assert.equal((await get("/nope"))[0], 404);

  // The driver against it: a fixed-URL workload and one with random paths and writes.
  const workloads = buildWorkloads({ catalog, restRoot: "/wp-json/" });
  const byId = workloads.find((w) => w.name === "by_id");
  assert.ok(byId);
  const stats = await drive({ origin: ceiling.origin, workload: byId, seed: 1, connections: 4, duration: 1, warmup: 0.5 });
  assert.ok(stats.ok > 100 && stats.non2xx === 0 && stats.errors === 0, JSON.stringify(stats));
  assert.ok(stats.p50 > 0 && stats.p99 >= stats.p50);
  log(`ceiling by_id: ${stats.rps.toFixed(0)} rps, p50 ${stats.p50.toFixed(3)} ms`);
  // Varied streams through the driver: every request finds its kind's bytes.
  for (const name of ["search_varied", "month_category_varied", "pages_varied", "venue_varied"]) {
    const w = workloads.find((x) => x.name === name) as Workload;
    const v = await drive({ origin: ceiling.origin, workload: w, seed: 3, connections: 4, duration: 0.5, warmup: 0 });
    assert.ok(v.ok > 50 && v.non2xx === 0 && v.errors === 0, `${name}: ${JSON.stringify(v.statusCodes)} ${v.errorSamples.join("; ")}`);
  }
  // mixed touches routes this spec lacks (404s): they must be counted, not hidden.
  const mixed = workloads.find((w) => w.name === "mixed");
  assert.ok(mixed);
  const m = await drive({ origin: ceiling.origin, workload: mixed, seed: 1, connections: 4, duration: 1, warmup: 0 });
  assert.ok(m.non2xx > 0 && m.statusCodes["404"] > 0 && m.statusCodes["201"] > 0, JSON.stringify(m.statusCodes));
  assert.ok(m.errorSamples.some((e) => /^404 (GET|POST) \/wp-json\/calendar\/events\/v1\/\S+: \{"code":"ceiling_no_route"/.test(e)), m.errorSamples.join("\n"));
  await ceiling.child.stop();
  log(`ceiling: ok (mixed status codes ${JSON.stringify(m.statusCodes)})`);
}

async function checkFront(): Promise<void> {
  const backends = await Promise.all(
    ["A", "B"].map(
      (name) =>
        new Promise<http.Server>((resolve) => {
          const s = http.createServer((_req, res) => res.end(name));
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  onCleanup("selftest backends", () => {
    for (const s of backends) s.closeAllConnections();
    for (const s of backends) s.close();
  });
  const front = await startFront(backends.map((s) => `127.0.0.1:${(s.address() as AddressInfo).port}`));
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) {
    // A new connection each time ("connection: close"): the front balances connections.
    const res = await fetch(`${front.origin}/x`, { headers: { connection: "close" } });
    seen.push(await res.text());
  }
  assert.deepEqual(seen, ["A", "B", "A", "B"]);
  await front.child.stop();
  log("front: ok (round robin A B A B)");
}

/** Tags nest and close properly, and no text holds a raw "<" or "&": enough of XML to catch hand-written SVG mistakes. */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const between = xml.slice(last, m.index);
    assert.ok(!/[<]|&(?!(amp|lt|gt|quot|#\d+);)/.test(between), `bad text before offset ${m.index}: ${between.slice(0, 60)}`);
    last = m.index + m[0].length;
    if (m[1] === "/") assert.equal(stack.pop(), m[2], `</${m[2]}> at offset ${m.index} closes nothing open`);
    else if (m[4] !== "/") stack.push(m[2]);
  }
  assert.equal(xml.slice(last).trim(), "");
  assert.deepEqual(stack, [], "unclosed elements");
}

function synthetic(): BenchReport {
  const results: WorkloadResult[] = [];
  const base: Record<string, number> = {
    default: 4.1,
    month_category: 6.3,
    by_id: 0.9,
    by_slug: 1.1,
    search: 31,
    venues_upcoming: 3.2,
    categories: 1.4,
    mixed: 5.5,
    revalidation: 0.3,
    month_category_varied: 4,
    pages_varied: 0.3,
    venue_varied: 0.3,
    search_varied: 9,
    by_id_built: 0.2,
    mixed_1pct: 0.3,
  };
  for (const events of [10_000, 100_000]) {
    for (const w of WORKLOAD_NAMES) {
      const p50 = base[w] * (events === 100_000 ? (w === "month_category" ? 1.8 : 1.2) : 1);
      const flagged = w === "venues_upcoming" && events === 100_000;
      results.push({
        workload: w,
        events,
        db: "sqlite",
        rps: 16 / (p50 / 1000) / 16,
        p50_ms: p50,
        p99_ms: p50 * 3,
        ceiling_rps: 9000,
        ratio: Number((1000 / p50 / 9000).toFixed(3)),
        ceiling_p50_ms: 0.8,
        ceiling_p99_ms: 2.1,
        requests: 10000,
        non2xx: flagged ? 42 : 0,
        errors: 0,
        timeouts: 0,
        status_codes: flagged ? { "200": 9958, "500": 42 } : { "200": 10000 },
        ceiling_non2xx: 0,
        ceiling_errors: 0,
        flagged,
        flags: flagged ? ["calpress non-2xx: 42×500"] : [],
      });
    }
  }
  return {
    generated_at: new Date().toISOString(),
    machine: { cpus: 2, node: process.version, cpu_model: "synthetic", platform: "test", load_avg_at_start: [0.1, 0.2, 0.3] },
    settings: { command: "selftest", duration_s: 10, warmup_s: 2, connections: 16, quick: false, seed: 42, runner: "synthetic" },
    warnings: [],
    results,
    sizes: [
      { events: 10_000, db: "sqlite", load_s: 4.2, rss_mb_max: 95 },
      { events: 100_000, db: "sqlite", load_s: 48.9, rss_mb_max: 212 },
    ],
    scale_out: {
      db: "postgres",
      via: "synthetic front",
      results: [{ workload: "by_id", events: 10_000, rps_1: 3000, p50_1_ms: 4, rps_2: 4200, p50_2_ms: 3.1, speedup: 1.4, flagged: false, flags: [] }],
    },
  };
}

function checkReport(keep: string | undefined): void {
  const report = synthetic();
  const rows = evaluateTargets(report);
  const status = (t: string): string | undefined => rows.find((r) => r.target === t)?.status;
  assert.equal(status("by_id: p50 ≤ 2 ms"), "pass");
  assert.equal(status("search: p50 ≤ 25 ms"), "fail");
  assert.equal(status("month_category: p50 growth 10k → 100k ≤ 1.5×"), "fail");
  assert.equal(status("default: p50 growth 10k → 100k ≤ 1.5×"), "pass");
  assert.equal(status("venues_upcoming: p50 growth 10k → 100k ≤ 1.5×"), "fail", "a flagged workload fails its targets");
  assert.equal(status("RSS ≤ 200 MB"), "fail");
  assert.equal(status("load of 100k events ≤ 60 s"), "pass");
  // Issue 21 (rps = 1000 / p50 and ratio = rps / 9000 here; p50 × 1.2 at 100k; p99 = 3 × p50).
  assert.equal(status("month_category_varied: ratio ≥ 0.3"), "fail");
  assert.equal(status("month_category_varied: p50 ≤ 10 ms"), "pass");
  assert.equal(status("pages_varied: ratio ≥ 0.3"), "pass");
  assert.equal(status("search_varied: p50 ≤ 10 ms"), "fail");
  assert.equal(status("by_id_built: ratio ≥ 0.4"), "pass");
  assert.equal(status("mixed: ≥ 1,000 req/s"), "fail");
  assert.equal(status("mixed: p99 ≤ 50 ms"), "pass");
  assert.equal(status("mixed_1pct: ratio ≥ 0.3"), "pass");
  assert.equal(status("search: p50 growth 10k → 100k ≤ 1.5×"), "pass", "growth is asked of every workload now, search too");
  assert.equal(status("by_id_built: p50 growth 10k → 100k ≤ 1.5×"), "pass");
  assert.ok(rows.every((r) => r.db === "sqlite"));
  // A PostgreSQL report: issue 21's targets on PostgreSQL (mixed's floor 600 req/s), the earlier ones stay SQLite's and unmeasured.
  const pg: BenchReport = { ...report, results: report.results.map((r) => ({ ...r, db: "postgres" })), sizes: report.sizes.map((z) => ({ ...z, db: "postgres" })) };
  const pgRows = evaluateTargets(pg);
  const pgRow = (t: string): { db: string; status: string } | undefined => pgRows.find((r) => r.target === t);
  assert.deepEqual(pgRow("by_id: p50 ≤ 2 ms"), { ...pgRow("by_id: p50 ≤ 2 ms"), db: "sqlite", status: "not measured" });
  assert.deepEqual(pgRow("mixed: ≥ 600 req/s"), { ...pgRow("mixed: ≥ 600 req/s"), db: "postgres", status: "fail" });
  assert.equal(pgRow("mixed: ≥ 1,000 req/s"), undefined);
  assert.deepEqual(pgRow("by_id_built: ratio ≥ 0.4"), { ...pgRow("by_id_built: ratio ≥ 0.4"), db: "postgres", status: "pass" });
  assert.deepEqual(pgRow("RSS ≤ 200 MB"), { ...pgRow("RSS ≤ 200 MB"), db: "postgres", status: "fail" });
  assert.deepEqual(pgRow("venue_varied: p50 growth 10k → 100k ≤ 1.5×"), { ...pgRow("venue_varied: p50 growth 10k → 100k ≤ 1.5×"), db: "postgres", status: "pass" });
  assert.match(renderMarkdown(pg, "postgres.svg"), /\| mixed: ≥ 600 req\/s \| postgres \| 152 req\/s \| ❌ fail \|/);
  // Without a 100k SQLite run nothing can pass or fail.
  const quick = { ...report, results: report.results.filter((r) => r.events === 10_000), sizes: report.sizes.slice(0, 1) };
  assert.ok(evaluateTargets(quick).every((r) => r.status === "not measured"));

  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "calpress-report-"));
  if (!keep) onCleanup("selftest report", () => fs.rmSync(dir, { recursive: true, force: true }));
  const files = writeReport(dir, report);
  const md = fs.readFileSync(files.md, "utf8");
  assert.match(md, /!\[p50 latency per workload and size\]\(latest\.svg\)/);
  assert.match(md, /❌ fail/);
  assert.match(md, /⚠️/);
  // p99 (calpress and ceiling) for every workload in the size tables.
  assert.match(md, /\| workload \| rps \| p50 \(ms\) \| p99 \(ms\) \| ceiling rps \| ceiling p50 \(ms\) \| ceiling p99 \(ms\) \|/);
  for (const w of WORKLOAD_NAMES) assert.match(md, new RegExp(`\\| ${w} \\| [\\d,]+ \\| [\\d.]+ \\| [\\d.]+ \\| `), `${w} has its row with p99`);
  const json = JSON.parse(fs.readFileSync(files.json, "utf8")) as BenchReport;
  assert.equal(json.results.length, 2 * WORKLOAD_NAMES.length);
  assert.match(md, /## Scale-out: 1 vs 2 calpress processes \(postgres, 10,000 events\)/);
  const svg = fs.readFileSync(files.svg, "utf8");
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(svg, /log scale/);
  assertWellFormed(svg);
  log(`report: ok (${dir})`);
}

async function checkDatabases(): Promise<void> {
  for (const kind of ["postgres", "mysql"] as const) {
    try {
      const db = await createDatabase(kind, 1);
      assert.match(db.target, kind === "postgres" ? /^postgres:\/\/.*\/calpress_bench_1_/ : /^mysql:\/\/.*\/calpress_bench_1_/);
      await db.drop();
      log(`${kind}: create/drop ok (${db.target})`);
    } catch (err) {
      log(`${kind}: skipped (${(err as Error).message.split("\n")[0]})`);
    }
  }
}

async function main(): Promise<void> {
  installExitHandlers();
  const keepAt = process.argv.indexOf("--keep");
  const keep = keepAt >= 0 ? path.resolve(process.argv[keepAt + 1] ?? "bench-selftest") : undefined;
  try {
    await checkHelpers();
    checkVaried();
    checkReport(keep);
    await checkCeiling();
    await checkFront();
    await checkDatabases();
    log("selftest passed");
  } finally {
    await cleanupAll();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    log(`selftest FAILED: ${err.stack ?? err.message}`);
    void cleanupAll().finally(() => process.exit(1));
  },
);

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pickSearchWord } from "./catalog";
import { CeilingSpec, startCeiling } from "./ceiling";
import { createDatabase } from "./db";
import { drive } from "./drive";
import { startFront } from "./front";
import { log } from "./log";
import { Rng } from "./rng";
import { cleanupAll, installExitHandlers, onCleanup } from "./proc";
import { BenchReport, evaluateTargets, WorkloadResult, writeReport } from "./report";
import { buildWorkloads, nextMonth, requestStream, WORKLOAD_NAMES } from "./workloads";
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
};

async function checkHelpers(): Promise<void> {
  assert.deepEqual(nextMonth(new Date("2024-12-15T12:00:00Z")), { start: "2025-01-01", end: "2025-01-31" });
  assert.deepEqual(nextMonth(new Date("2024-01-31T23:00:00Z")), { start: "2024-02-01", end: "2024-02-29" });
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

async function checkCeiling(): Promise<void> {
  const ns = "/wp-json/calendar/events/v1";
  const body = (s: string): string => Buffer.from(s).toString("base64");
  const spec: CeilingSpec = {
    etag: false,
    responses: [
      { method: "GET", route: `${ns}/events`, query: "search=jazz", status: 200, headers: { "content-type": "application/json; charset=utf-8" }, bodyBase64: body('{"events":["search"]}') },
      { method: "GET", route: `${ns}/events`, query: "", status: 200, headers: { "content-type": "application/json; charset=utf-8", "x-cal-total": "3" }, bodyBase64: body('{"events":["default"]}') },
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
  const base: Record<string, number> = { default: 4.1, month_category: 6.3, by_id: 0.9, by_slug: 1.1, search: 31, venues_upcoming: 3.2, categories: 1.4, mixed: 5.5, revalidation: 0.3 };
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

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BenchOptions, parseBenchArgs, USAGE, UsageError } from "./args";
import { capture, CaptureResult } from "./capture";
import { readCatalog } from "./catalog";
import { Etags, renewEtags } from "./revalidate";
import { startCeiling } from "./ceiling";
import { cliRunner, loadFixture, Runner, Server, startServer, stopServer, type StoreOptions } from "./calpress";
import { createDatabase } from "./db";
import { drive, DriveStats } from "./drive";
import { fmt, log } from "./log";
import { calpressCpuMeter, generatorCpuMeter, Meter, RunFigures, settle } from "./meters";
import { openPgProbe, PgProbe } from "./pgstat";
import { cleanupAll, installExitHandlers, onCleanup } from "./proc";
import { BenchReport, PgFigures, round, ScaleOutRow, WorkloadResult, writeReport } from "./report";
import { buildKinds, buildWorkloads, KindName, SCALE_OUT_WORKLOADS, variedPageCount, Workload, WORKLOAD_NAMES } from "./workloads";

/**
 * The calpress benchmark: for each fixture size, load a fresh database,
 * start calpress and a ceiling server, drive every workload against both,
 * and write bench/results/latest.{json,md,svg}. See bench/README.md.
 */

function seedOf(workload: Workload, base: number): number {
  return base * 1000 + WORKLOAD_NAMES.indexOf(workload.name);
}

/** Everything that makes a result untrustworthy, in words. */
function flagsFor(workload: Workload, calpress: DriveStats, ceiling: DriveStats | undefined, captured: CaptureResult): string[] {
  const flags: string[] = [];
  for (const { kind } of workload.mix) for (const f of captured.flags[kind.name] ?? []) flags.push(`${kind.name}: ${f}`);
  if (calpress.ok === 0) flags.push("calpress sent no 2xx response");
  if (calpress.non2xx > 0) {
    const codes = Object.entries(calpress.statusCodes)
      .filter(([c]) => (workload.okStatus !== undefined ? Number(c) !== workload.okStatus : !c.startsWith("2")))
      .map(([c, n]) => `${n}×${c}`)
      .join(", ");
    flags.push(`calpress non-2xx: ${codes}`);
    for (const sample of calpress.errorSamples.slice(0, 2)) flags.push(`e.g. ${sample}`);
  }
  if (calpress.errors > 0) flags.push(`calpress connection errors: ${calpress.errors} (${calpress.timeouts} timeouts)`);
  if (ceiling && (ceiling.non2xx > 0 || ceiling.errors > 0)) flags.push(`ceiling: ${ceiling.non2xx} non-2xx, ${ceiling.errors} errors`);
  return flags;
}

/** The plain event list's total_pages as calpress reports it (pages_varied stays within them). */
async function listPageCount(server: Server): Promise<number | undefined> {
  const res = await fetch(`${server.origin}${server.restRoot}calendar/events/v1/events`);
  const body = (await res.json()) as { total_pages?: unknown };
  return res.ok && typeof body.total_pages === "number" ? body.total_pages : undefined;
}

/** The PostgreSQL figures a run measured, rounded for the report (absent ones stay absent). */
function pgFigures(f: RunFigures): PgFigures {
  const out: PgFigures = {};
  if (f.db_ms_per_req !== undefined) out.db_ms_per_req = round(f.db_ms_per_req, 4);
  if (f.stmts_per_req !== undefined) out.stmts_per_req = round(f.stmts_per_req, 2);
  if (f.pg_cpu_ms_per_req !== undefined) out.pg_cpu_ms_per_req = round(f.pg_cpu_ms_per_req, 4);
  return out;
}

/** The log's short form of the PostgreSQL figures. */
function pgLine(f: RunFigures): string {
  if (f.db_ms_per_req === undefined && f.pg_cpu_ms_per_req === undefined) return "";
  const db = f.db_ms_per_req !== undefined ? `db ${fmt(f.db_ms_per_req, 3)} ms/req ${fmt(f.stmts_per_req ?? Number.NaN, 1)} stmts/req, ` : "";
  return ` | pg: ${db}cpu ${fmt(f.pg_cpu_ms_per_req ?? Number.NaN, 3)} ms/req`;
}

function assertAlive(server: Server): void {
  if (server.child.proc.exitCode !== null || server.child.proc.signalCode !== null) {
    throw new Error(`${server.child.label} is no longer running; last stderr:\n${server.child.recentStderr().slice(-10).join("\n")}`);
  }
}

async function runSize(opts: BenchOptions, runner: Runner, events: number, report: BenchReport): Promise<void> {
  log(`=== ${events.toLocaleString("en")} events on ${opts.db} ===`);
  const db = await createDatabase(opts.db, events);
  log(`loading the generated fixture (seed ${opts.seed}) into ${db.target}`);
  const loadS = await loadFixture(runner, db.target, events, opts.seed);
  log(`loaded in ${fmt(loadS, 1)} s`);

  const catalog = await readCatalog(db.target);
  log(
    `catalog: ${catalog.events.length} readable published events; category ${catalog.categoryId} (${catalog.categoryEvents} events); ` +
      `search "${catalog.searchWord}" (${catalog.searchHits} titles); ${catalog.categoryIds.length} categories and ${catalog.venueIds.length} venues with events; ` +
      `${catalog.searchTerms.hits.length} search terms + ${catalog.searchTerms.misses.length} misses`,
  );

  // PostgreSQL's own time per request: set up once per size, read around every measured calpress run.
  let pg: PgProbe | undefined;
  if (opts.db === "postgres") {
    const probe = await openPgProbe(db.target);
    const unregister = onCleanup("pg_stat_statements connection", () => probe.close());
    // Closed before the database is dropped (its session would hold the drop up), and then not again at cleanup.
    pg = {
      ...probe,
      close: async () => {
        unregister();
        await probe.close();
      },
    };
    report.postgres ??= probe.status;
    log(`PostgreSQL's own cost: ${probe.status.note}`);
  }
  const pgMeters = (label: string): Meter[] => (pg ? [pg.meter(label)] : []);

  let store: StoreOptions | undefined;
  if (opts.answerStore) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-answers-"));
    onCleanup(`answer store ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true }));
    store = { file: path.join(dir, "answers.sqlite"), warm: true };
    log(`serving with a stored-answer file, warmed first (${store.file})`);
  }
  const server = await startServer(runner, db.target, `calpress ${events}`, store);
  const etags: Etags = {};
  await renewEtags(server.origin, server.restRoot, catalog, etags);
  const listPages = await listPageCount(server);
  log(`the plain event list has ${listPages ?? "?"} pages: pages_varied asks pages 1..${variedPageCount(listPages)}`);
  const context = { catalog, restRoot: server.restRoot, etags, listPages };
  const kinds = buildKinds(context);
  const workloads = buildWorkloads(context).filter((w) => !opts.workloads || opts.workloads.includes(w.name));
  const needed = new Set<KindName>(workloads.flatMap((w) => w.mix.map((m) => m.kind.name)));

  // Captured while the stored answers are warmed, not after: the capture
  // creates an event in the busiest category, which changes that category's
  // count and so every answer showing it (~3% of the single events). Done
  // after the warm-up, it left those answers to be rebuilt during the
  // single-event workloads, as costs of a write that is not part of them
  // (the mixed workload measures writes). Now only the answers stored in
  // the warm-up's first second or so that show the category are voided: a
  // few dozen.
  log("capturing one real response per request kind for the ceiling");
  const captured = await capture(server.origin, Object.values(kinds).filter((k) => needed.has(k.name)), opts.seed);
  log(`captured: ${Object.entries(captured.bytes).map(([k, b]) => `${k} ${b} B`).join(", ")}`);
  const warmS = await server.warmed;
  const specDir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-ceiling-"));
  onCleanup(`ceiling spec ${specDir}`, () => fs.rmSync(specDir, { recursive: true, force: true }));
  const specFile = path.join(specDir, "spec.json");
  fs.writeFileSync(specFile, JSON.stringify(captured.spec));
  const ceiling = await startCeiling(specFile);

  let builtRssMax = Number.NaN;
  for (const workload of workloads) {
    assertAlive(server);
    // A workload of built answers gets a process of its own without the stored-answer file, on the same
    // database, for its run only (the main one idles meanwhile); without a store the main one builds anyway.
    const built = workload.answerStore === false && store !== undefined ? await startServer(runner, db.target, `calpress ${events} without stored answers`) : undefined;
    if (built) {
      // Its start-up work (the series' horizon: ~24 s at 100k events) is not the workload's: its CPU, and on
      // PostgreSQL its statements, would be counted as the workload's own.
      const waited = await settle(built.child.pid);
      log(`${built.child.label} quiet after ${fmt(waited, 0)} s`);
    }
    const target = built ?? server;
    const seed = seedOf(workload, opts.seed);
    const common = { workload, seed, connections: opts.connections, duration: opts.duration, warmup: opts.warmup };
    const stderrBefore = target.child.stderrCount();
    if (workload.okStatus === 304) await renewEtags(server.origin, server.restRoot, catalog, etags);
    let c: DriveStats;
    try {
      c = await drive({ ...common, origin: target.origin, meters: pgMeters(workload.name) });
    } finally {
      if (built) {
        const rss = await stopServer(built);
        builtRssMax = Number.isNaN(builtRssMax) ? rss : Math.max(builtRssMax, rss);
        log(`${built.child.label} stopped, max RSS ${fmt(rss, 0)} MB`);
      }
    }
    const newStderr = Math.min(target.child.stderrCount() - stderrBefore, 40);
    const k = await drive({ ...common, origin: ceiling.origin });
    const flags = flagsFor(workload, c, k, captured);
    const result: WorkloadResult = {
      workload: workload.name,
      events,
      db: opts.db,
      rps: round(c.rps, 1),
      p50_ms: round(c.p50, 3),
      p99_ms: round(c.p99, 3),
      ceiling_rps: round(k.rps, 1),
      ratio: k.rps > 0 ? round(c.rps / k.rps, 3) : Number.NaN,
      ceiling_p50_ms: round(k.p50, 3),
      ceiling_p99_ms: round(k.p99, 3),
      requests: c.responses,
      non2xx: c.non2xx,
      errors: c.errors,
      timeouts: c.timeouts,
      status_codes: c.statusCodes,
      ceiling_non2xx: k.non2xx,
      ceiling_errors: k.errors,
      ...pgFigures(c.figures),
      flagged: flags.length > 0,
      flags,
    };
    report.results.push(result);
    log(
      `${workload.name.padEnd(21)} calpress ${fmt(c.rps, 0).padStart(6)} rps p50 ${fmt(c.p50)} ms p99 ${fmt(c.p99)} ms | ` +
        `ceiling ${fmt(k.rps, 0).padStart(6)} rps p50 ${fmt(k.p50)} ms | ratio ${fmt(result.ratio, 3)}${pgLine(c.figures)}` +
        (flags.length > 0 ? ` | FLAGGED: ${flags.join("; ")}` : ""),
    );
    if (flags.length > 0 && newStderr > 0) {
      // calpress's own account of the failures (a 500's body says little).
      log(`calpress stderr during ${workload.name} (last ${Math.min(newStderr, 15)} of ${newStderr} lines):`);
      for (const line of target.child.recentStderr().slice(-Math.min(newStderr, 15))) process.stderr.write(`  [calpress] ${line}\n`);
    }
  }

  await ceiling.child.stop();
  const mainRssMax = await stopServer(server);
  // The process without stored answers is calpress too: the larger of the two maxima is the size's.
  const rssMax = Number.isNaN(builtRssMax) ? mainRssMax : Math.max(mainRssMax, builtRssMax);
  log(`calpress max RSS ${fmt(rssMax, 0)} MB${Number.isNaN(builtRssMax) ? "" : ` (with stored answers ${fmt(mainRssMax, 0)} MB, without ${fmt(builtRssMax, 0)} MB)`}`);
  report.sizes.push({
    events,
    db: opts.db,
    load_s: round(loadS, 2),
    ...(warmS !== undefined ? { warm_s: round(warmS, 1) } : {}),
    rss_mb_max: round(rssMax, 1),
    response_bytes: captured.bytes,
  });

  if (opts.workers !== undefined) {
    // The scale-out servers reuse the store the main process warmed (same database, same code:
    // it is kept), and every request carries the Host it was warmed under: stored answers,
    // their keys and ETags name the host they were asked on, and each new server listens on
    // a port of its own (without that Host every single-event answer would be a build).
    const publicHost = new URL(server.origin).host;
    const scaleWorkloads = workloads.filter((w) => SCALE_OUT_WORKLOADS.includes(w.name));
    const rows = await scaleOut(opts, opts.workers, runner, db.target, events, scaleWorkloads, captured, store === undefined ? undefined : { file: store.file, warm: false }, publicHost, pgMeters);
    report.scale_out ??= {
      db: opts.db,
      base_workers: opts.workers[0],
      via: "directly on its one port (node:cluster hands each new connection to the next worker)",
      generator: "bench/lean-load.ts, a minimal HTTP/1.1 client: autocannon took about half of a cheap answer's CPU per request",
      connections: scaleOutConnections(opts),
      results: [],
    };
    report.scale_out.results.push(...rows);
  }
  await pg?.close();
  await db.drop();
}

/**
 * The scale-out mode measures capacity: every worker must always have requests waiting. With one request in flight
 * per connection, a connection's next request waits for the generator to be scheduled on the shared cores, so a
 * handful per worker leave workers idle (bench/README.md: pages_varied on 2 workers went from 1.42x to 1.68x of one
 * worker between 4 and 16 connections per worker). Every count gets the connections of the largest, so one worker
 * is never measured with fewer than several.
 */
const SCALE_OUT_CONNECTIONS_PER_WORKER = 16;
/** Seconds of warm-up per worker, at least, before each scale-out measurement. */
const SCALE_OUT_MIN_WARMUP_S = 4;

function scaleOutConnections(opts: BenchOptions): number {
  return Math.max(opts.connections, SCALE_OUT_CONNECTIONS_PER_WORKER) * Math.max(1, ...(opts.workers ?? []));
}

/**
 * `--workers`: the scale-out workloads against one `calpress serve
 * --workers N` per count, one count after the other (never two servers at
 * once on the 2 cores). With stored answers the list workloads are served
 * with them and by_id_built by a second server without, as in the main run.
 */
async function scaleOut(
  opts: BenchOptions,
  counts: readonly number[],
  runner: Runner,
  target: string,
  events: number,
  workloads: Workload[],
  captured: CaptureResult,
  store: StoreOptions | undefined,
  publicHost: string,
  pgMeters: (label: string) => Meter[],
): Promise<ScaleOutRow[]> {
  log(`=== scale-out: calpress serve --workers ${counts.join(", ")} on one ${opts.db} database (${events.toLocaleString("en")} events) ===`);
  const groups =
    store === undefined
      ? [{ store: undefined, workloads }]
      : [
          { store, workloads: workloads.filter((w) => w.answerStore !== false) },
          { store: undefined, workloads: workloads.filter((w) => w.answerStore === false) },
        ];
  const connections = scaleOutConnections(opts);
  const rows: ScaleOutRow[] = [];
  for (const n of counts) {
    for (const group of groups) {
      if (group.workloads.length === 0) continue;
      const server = await startServer(runner, target, `calpress ${events} --workers ${n}${group.store ? "" : " without stored answers"}`, group.store, n);
      const done: { w: Workload; s: DriveStats }[] = [];
      let rssMax = Number.NaN;
      try {
        // Each worker's start-up work (the series' horizon: ~24 s at 100k) is not the first workload's.
        const waited = await settle(server.child.pid);
        log(`${server.child.label} quiet after ${fmt(waited, 0)} s`);
        for (const w of group.workloads) {
          assertAlive(server);
          // The generator's meter innermost: the others' /proc reads and PostgreSQL round trip are not its CPU.
          const meters = [...pgMeters(`${w.name} --workers ${n}`), calpressCpuMeter(server.child.pid), generatorCpuMeter()];
          // Each worker keeps its own caches and compiles its own code: a warm-up N times as long gives each of
          // N workers about the warm-up requests one worker gets (the connections are split between them). At
          // least 4 s per worker: at 100k events a worker's first pass over pages_varied's 200 pages alone takes
          // about 2 s, which the main run's 2 s warm-up would leave to the measured run.
          const warmup = Math.max(opts.warmup, SCALE_OUT_MIN_WARMUP_S) * n;
          const s = await drive({ workload: w, seed: seedOf(w, opts.seed), connections, duration: opts.duration, warmup, origin: server.origin, host: publicHost, meters, generator: "lean" });
          done.push({ w, s });
          log(
            `scale-out ${String(n).padStart(2)}w ${w.name.padEnd(21)} ${fmt(s.rps, 0).padStart(6)} rps p50 ${fmt(s.p50)} ms p99 ${fmt(s.p99)} ms | ` +
              `CPU: generator ${fmt(s.figures.generator_cpu_pct ?? Number.NaN, 0)}%, calpress ${fmt(s.figures.calpress_cpu_pct ?? Number.NaN, 0)}%${pgLine(s.figures)}`,
          );
        }
      } finally {
        rssMax = await stopServer(server);
      }
      for (const { w, s } of done) {
        const flags = flagsFor(w, s, undefined, captured);
        rows.push({
          workload: w.name,
          events,
          db: opts.db,
          workers: n,
          answer_store: group.store !== undefined,
          rps: round(s.rps, 1),
          p50_ms: round(s.p50, 3),
          p99_ms: round(s.p99, 3),
          requests: s.responses,
          generator_cpu_pct: round(s.figures.generator_cpu_pct ?? Number.NaN, 1),
          calpress_cpu_pct: round(s.figures.calpress_cpu_pct ?? Number.NaN, 1),
          ratio: Number.NaN,
          rss_mb_max: round(rssMax, 1),
          ...pgFigures(s.figures),
          flagged: flags.length > 0,
          flags,
        });
      }
    }
  }
  // Each count against the fewest workers, per workload; the table reads best workload by workload.
  for (const r of rows) {
    const base = rows.find((b) => b.workload === r.workload && b.workers === counts[0]);
    r.ratio = base && base.rps > 0 ? round(r.rps / base.rps, 3) : Number.NaN;
  }
  const order = (w: string): number => (SCALE_OUT_WORKLOADS as readonly string[]).indexOf(w);
  return rows.sort((a, b) => order(a.workload) - order(b.workload) || a.workers - b.workers);
}

async function main(argv: string[]): Promise<number> {
  let opts: BenchOptions;
  try {
    const parsed = parseBenchArgs(argv, WORKLOAD_NAMES, SCALE_OUT_WORKLOADS);
    if (parsed === "help") {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    opts = parsed;
  } catch (err) {
    // parseArgs throws TypeErrors with a code for unknown or malformed options.
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`bench: ${(err as Error).message}\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  installExitHandlers();
  const runner = cliRunner();
  const cpus = os.cpus();
  const report: BenchReport = {
    generated_at: new Date().toISOString(),
    machine: {
      cpus: cpus.length,
      node: process.version,
      cpu_model: cpus[0]?.model.trim() ?? "unknown",
      platform: `${os.platform()} ${os.release()}`,
      load_avg_at_start: os.loadavg().map((l) => round(l, 2)),
    },
    settings: {
      command: ["tsx bench/run.ts", ...argv].join(" "),
      duration_s: opts.duration,
      warmup_s: opts.warmup,
      answer_store: opts.answerStore,
      ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
      connections: opts.connections,
      quick: opts.quick,
      seed: opts.seed,
      runner: runner.describe,
    },
    warnings: [],
    results: [],
    sizes: [],
  };
  const scaleWorkloads = SCALE_OUT_WORKLOADS.filter((w) => !opts.workloads || opts.workloads.includes(w)).length;
  // The scale-out's warm-ups last warmup × N (scaleOut).
  const scaleSeconds = (opts.workers ?? []).reduce((sum, n) => sum + scaleWorkloads * (opts.warmup * n + opts.duration), 0);
  const perSize = (opts.workloads?.length ?? WORKLOAD_NAMES.length) * 2 * (opts.warmup + opts.duration) + scaleSeconds;
  log(
    `sizes ${opts.events.join(", ")} on ${opts.db}; ${opts.connections} connections; ${opts.warmup} s warm-up + ${opts.duration} s per workload and server ` +
      `(~${Math.round(perSize)} s of load per size); calpress from ${report.settings.runner}`,
  );
  if (runner.staleWarning) report.warnings.push(runner.staleWarning);
  if (report.machine.load_avg_at_start[0] > cpus.length * 0.5) {
    report.warnings.push(`load average ${report.machine.load_avg_at_start[0]} at start on ${cpus.length} CPUs: other work on this machine lowers the figures`);
  }
  for (const w of report.warnings) log(`WARNING: ${w}`);
  try {
    for (const events of opts.events) {
      await runSize(opts, runner, events, report);
      // After every size: a later failure still leaves the finished sizes on disk.
      writeReport(opts.outDir, report);
    }
  } catch (err) {
    log(`FAILED: ${(err as Error).message}`);
    if (report.results.length > 0) {
      const files = writeReport(opts.outDir, report);
      log(`partial results written to ${files.md}`);
    }
    await cleanupAll();
    return 1;
  }
  await cleanupAll();
  const files = writeReport(opts.outDir, report);
  const flagged = report.results.filter((r) => r.flagged).length;
  log(`done: ${files.json}, ${files.md}, ${files.svg}${flagged > 0 ? ` — ${flagged} result(s) FLAGGED, see the report` : ""}`);
  return flagged > 0 ? 3 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (err: Error) => {
    log(`crashed: ${err.stack ?? err.message}`);
    await cleanupAll();
    process.exit(1);
  },
);

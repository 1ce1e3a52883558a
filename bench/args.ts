import path from "node:path";
import { parseArgs } from "node:util";

export type BenchDb = "sqlite" | "postgres" | "mysql";

export interface BenchOptions {
  /** Fixture sizes, in the order they run. */
  events: number[];
  db: BenchDb;
  /** Measured seconds per workload and target. */
  duration: number;
  /** Seconds of unmeasured load before each measurement. */
  warmup: number;
  connections: number;
  quick: boolean;
  /**
   * Scale-out: also run the scale-out workloads against one `calpress serve
   * --workers N` per count here (ascending, no repeats); undefined: off.
   */
  workers: number[] | undefined;
  /** Fixture generator seed (fixed at 42 so runs compare). */
  seed: number;
  /** Only these workloads (a development aid; the default is all of them). */
  workloads: string[] | undefined;
  /** Where latest.json/.md/.svg go. */
  outDir: string;
  /** Run calpress with a warmed answer store (`serve --answer-store … --warm`; SQLite and PostgreSQL). */
  answerStore: boolean;
}

export class UsageError extends Error {}

export const USAGE = `Usage: tsx bench/run.ts [options]

  --events 10000,100000   fixture sizes to run (default 10000,100000; "10k" works too)
  --db sqlite|postgres|mysql
                          database (default sqlite). postgres and mysql create a fresh
                          database next to CALPRESS_BENCH_PG_URL (default
                          postgres://postgres@127.0.0.1:5432/) or CALPRESS_BENCH_MYSQL_URL
                          (default mysql://root@127.0.0.1:3306/) and drop it afterwards.
                          On postgres every calpress run also reports the database's own
                          time and statements per request (pg_stat_statements, when the
                          server loads it: bench/pg-stat-statements.sh) and its CPU per request
  --duration <s>          measured seconds per workload (default 10)
  --warmup <s>            unmeasured seconds before each measurement (default 2; 1 with --quick)
  --connections <n>       concurrent keep-alive connections (default 4; see bench/README.md)
  --workers 1,2           scale-out: after each size's workloads, run the varied reads
                          (month_category_varied, pages_varied, venue_varied, search_varied,
                          by_id_built) against one "calpress serve --workers N" per count
                          (any list of 1..64; default off); reports req/s, p50/p99, the load
                          generator's and calpress's CPU, and the ratio to the fewest workers;
                          driven by bench/lean-load.ts over 16 connections per worker of the
                          largest count (or --connections per worker, if more), for every count
  --quick                 one size of 2000 events, 3 s per workload (a smoke run, under 3 minutes)
  --answer-store on|off   serve with a stored-answer file, warmed before measuring (default on;
                          SQLite and PostgreSQL): see "Stored answers" in the README
  --workloads a,b         run only these workloads (development aid; limits --workers too)
  --out <dir>             results folder (default bench/results)
  --help                  this text`;

function positiveNumber(name: string, raw: string | undefined, fallback: number, integer: boolean): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be a positive ${integer ? "integer" : "number"}, not "${raw}"`);
  }
  return n;
}

/** "10000", "10k", "1.5k", "1m" → an event count. */
function eventCount(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(raw.trim());
  if (!m) throw new UsageError(`--events takes a comma-separated list of counts, not "${raw}"`);
  const scale = m[2].toLowerCase() === "k" ? 1_000 : m[2].toLowerCase() === "m" ? 1_000_000 : 1;
  const n = Math.round(Number(m[1]) * scale);
  if (n < 1 || n > 10_000_000) throw new UsageError(`--events: ${raw} is out of range (1..10m)`);
  return n;
}

/** "1,2" → [1, 2]: sorted and without repeats, since the report compares each count with the fewest. */
function workerCounts(raw: string): number[] {
  const counts = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (counts.length === 0) throw new UsageError("--workers needs at least one count, e.g. 1,2");
  for (const c of counts) {
    // serve --workers takes 1..64.
    if (!/^\d+$/.test(c) || Number(c) < 1 || Number(c) > 64) throw new UsageError(`--workers takes a comma-separated list of counts from 1 to 64, not "${raw}"`);
  }
  return [...new Set(counts.map(Number))].sort((a, b) => a - b);
}

export function parseBenchArgs(argv: string[], workloadNames: readonly string[], scaleOutNames: readonly string[] = []): BenchOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      events: { type: "string" },
      db: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      quick: { type: "boolean" },
      workers: { type: "string" },
      // Replaced by --workers: kept only to say so.
      processes: { type: "string" },
      workloads: { type: "string" },
      out: { type: "string" },
      "answer-store": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";

  const db = values.db ?? "sqlite";
  if (db !== "sqlite" && db !== "postgres" && db !== "mysql") {
    throw new UsageError(`--db must be sqlite, postgres or mysql, not "${db}"`);
  }
  if (values.processes !== undefined) throw new UsageError("--processes was replaced by --workers 1,2 (one calpress serve --workers N per count, on any database)");
  const workers = values.workers === undefined ? undefined : workerCounts(values.workers);

  const answerStore = values["answer-store"] ?? "on";
  if (answerStore !== "on" && answerStore !== "off") throw new UsageError(`--answer-store must be on or off, not "${answerStore}"`);

  const quick = values.quick === true;
  const events = values.events !== undefined ? values.events.split(",").filter((s) => s.trim() !== "").map(eventCount) : quick ? [2000] : [10_000, 100_000];
  if (events.length === 0) throw new UsageError("--events needs at least one size");

  let workloads: string[] | undefined;
  if (values.workloads !== undefined) {
    workloads = values.workloads.split(",").map((s) => s.trim()).filter((s) => s !== "");
    const unknown = workloads.filter((w) => !workloadNames.includes(w));
    if (unknown.length > 0) throw new UsageError(`unknown workload(s) ${unknown.join(", ")} (known: ${workloadNames.join(", ")})`);
    if (workers !== undefined && scaleOutNames.length > 0 && !workloads.some((w) => scaleOutNames.includes(w))) {
      throw new UsageError(`--workers runs only ${scaleOutNames.join(", ")}: --workloads names none of them`);
    }
  }

  return {
    events,
    db,
    duration: positiveNumber("duration", values.duration, quick ? 3 : 10, false),
    // The quick run keeps under three minutes on 2 cores only with a shorter warm-up.
    warmup: values.warmup === "0" ? 0 : positiveNumber("warmup", values.warmup, quick ? 1 : 2, false),
    connections: positiveNumber("connections", values.connections, 4, true),
    quick,
    workers,
    seed: 42,
    workloads,
    outDir: path.resolve(values.out ?? path.join(__dirname, "results")),
    answerStore: answerStore === "on" && db !== "mysql",
  };
}

import knexFactory, { Knex } from "knex";
import { configFromTarget } from "../lib/db/target";
import { log } from "./log";
import { Meter, RunFigures, ticksToMs } from "./meters";
import { ProcFs, readStat, realProcFs, treeCpuTicks } from "./procfs";

/**
 * PostgreSQL's own cost per request, for runs on `--db postgres`:
 *
 * - with pg_stat_statements (the server must preload it:
 *   bench/pg-stat-statements.sh), the bench database's statements are
 *   reset right before a measured run and summed right after it — their
 *   execution time (plus planning time when `track_planning` is on) and
 *   their count, divided by the requests the run completed;
 * - without it as well, the CPU time of every process of the server (the
 *   postmaster's tree, found from the harness's own backend), before and
 *   after the run.
 *
 * Both count everything that ran meanwhile: calpress's background work (a
 * publishing timer, a series' horizon) and, for the CPU, other databases'
 * sessions on the same server — run on a quiet server.
 */

/** A row of the pg_stat_statements view (bigint counts arrive from node-postgres as strings). */
export interface StatementRow {
  query: string;
  calls: number | string;
  total_exec_time: number | string;
  /** Zero unless pg_stat_statements.track_planning is on. */
  total_plan_time?: number | string | null;
}

export interface StatementFigures {
  calls: number;
  exec_ms: number;
  plan_ms: number;
  /** (exec + plan) / requests. */
  db_ms_per_req: number;
  stmts_per_req: number;
  /** The statements that took most of the time, largest first. */
  top: { query: string; ms: number; calls: number }[];
}

/** The harness's own reading and resetting of the view (in the same database), which is not calpress's work. */
export function isOwnStatement(query: string): boolean {
  return /pg_stat_statements/i.test(query);
}

const toNumber = (v: number | string | null | undefined): number => {
  const n = typeof v === "string" ? Number(v) : (v ?? 0);
  return Number.isFinite(n) ? n : 0;
};

/** Sums the rows into per-request figures (NaN when the run completed no request). */
export function statementFigures(rows: readonly StatementRow[], requests: number, topN = 3): StatementFigures {
  let calls = 0;
  let exec = 0;
  let plan = 0;
  const each: { query: string; ms: number; calls: number }[] = [];
  for (const row of rows) {
    if (isOwnStatement(row.query)) continue;
    const c = toNumber(row.calls);
    const e = toNumber(row.total_exec_time);
    const p = toNumber(row.total_plan_time);
    calls += c;
    exec += e;
    plan += p;
    each.push({ query: row.query.replace(/\s+/g, " ").trim(), ms: e + p, calls: c });
  }
  const per = (n: number): number => (requests > 0 ? n / requests : Number.NaN);
  return {
    calls,
    exec_ms: exec,
    plan_ms: plan,
    db_ms_per_req: per(exec + plan),
    stmts_per_req: per(calls),
    top: each.sort((a, b) => b.ms - a.ms).slice(0, topN),
  };
}

/** Whether `shared_preload_libraries` (a comma-separated list, names possibly quoted) loads pg_stat_statements. */
export function preloads(sharedPreloadLibraries: string): boolean {
  return sharedPreloadLibraries
    .split(",")
    .map((s) => s.trim().replace(/^"|"$/g, ""))
    .includes("pg_stat_statements");
}

/** What the report says once about how PostgreSQL's time was measured. */
export interface PgStatus {
  /** pg_stat_statements is loaded: db_ms_per_req and stmts_per_req are measured. */
  statements: boolean;
  /** Planning time is included in db_ms_per_req (pg_stat_statements.track_planning). */
  track_planning: boolean;
  /** The server's processes are on this machine: pg_cpu_ms_per_req is measured. */
  cpu: boolean;
  note: string;
}

export interface PgProbe {
  status: PgStatus;
  /** A meter for one measured run; `label` names it in the log's line of top statements. */
  meter(label: string): Meter;
  close(): Promise<void>;
}

async function rows<T>(knex: Knex, sql: string): Promise<T[]> {
  return ((await knex.raw(sql)) as { rows: T[] }).rows;
}

/**
 * The postmaster's pid, from this connection's backend (whose parent it
 * is), when that backend is a process of this machine.
 */
async function postmasterPid(knex: Knex, proc: ProcFs): Promise<number | undefined> {
  const [{ pid }] = await rows<{ pid: number }>(knex, "SELECT pg_backend_pid() AS pid");
  const backend = readStat(proc, pid);
  if (backend === undefined || backend.comm !== "postgres") return undefined;
  const parent = readStat(proc, backend.ppid);
  return parent !== undefined && parent.comm === "postgres" ? parent.pid : undefined;
}

/** Opens a connection to the bench database and finds out what can be measured there. */
export async function openPgProbe(target: string, proc: ProcFs = realProcFs): Promise<PgProbe> {
  const knex = knexFactory({ ...configFromTarget(target), pool: { min: 1, max: 1 } });
  const notes: string[] = [];
  let statements = false;
  let trackPlanning = false;
  const [{ shared_preload_libraries: libs }] = await rows<{ shared_preload_libraries: string }>(knex, "SHOW shared_preload_libraries");
  if (preloads(libs)) {
    try {
      await knex.raw("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      // SHOW names its column after the whole setting ("pg_stat_statements.track_planning"): current_setting gives it a plain name.
      const [{ track_planning: tp }] = await rows<{ track_planning: string }>(knex, "SELECT current_setting('pg_stat_statements.track_planning') AS track_planning");
      statements = true;
      trackPlanning = tp === "on";
      notes.push(
        `db ms/req and stmts/req from pg_stat_statements (${trackPlanning ? "execution + planning time" : "execution time only: pg_stat_statements.track_planning is off"})`,
      );
    } catch (err) {
      notes.push(`pg_stat_statements is preloaded but could not be used (${(err as Error).message.split("\n")[0]}): db ms/req and stmts/req are not measured`);
    }
  } else {
    notes.push(
      `pg_stat_statements is not loaded on this server (shared_preload_libraries = '${libs}'): db ms/req and stmts/req are not measured, only pg cpu ms/req (bench/pg-stat-statements.sh enables it)`,
    );
  }
  const postmaster = await postmasterPid(knex, proc);
  if (postmaster === undefined) notes.push("the server's processes are not on this machine: pg cpu ms/req is not measured");
  else notes.push(`pg cpu ms/req: every process under the postmaster (pid ${postmaster}), exited backends included`);
  const status: PgStatus = { statements, track_planning: trackPlanning, cpu: postmaster !== undefined, note: notes.join("; ") };

  const meter = (label: string): Meter => {
    let cpuBefore: number | undefined;
    return {
      begin: async () => {
        if (statements) await knex.raw("SELECT pg_stat_statements_reset()");
        // After the reset: its own work is not in the window.
        if (postmaster !== undefined) cpuBefore = treeCpuTicks(proc, postmaster);
      },
      end: async ({ requests }) => {
        // Before reading the view: that read is not in the window either.
        const cpuAfter = postmaster !== undefined ? treeCpuTicks(proc, postmaster) : undefined;
        const out: RunFigures = {};
        if (cpuBefore !== undefined && cpuAfter !== undefined) out.pg_cpu_ms_per_req = requests > 0 ? ticksToMs(cpuAfter - cpuBefore) / requests : Number.NaN;
        if (statements) {
          const found = await rows<StatementRow>(
            knex,
            "SELECT s.query, s.calls, s.total_exec_time, s.total_plan_time FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()",
          );
          const f = statementFigures(found, requests);
          out.db_ms_per_req = f.db_ms_per_req;
          out.stmts_per_req = f.stmts_per_req;
          log(
            `  pg ${label}: ${f.db_ms_per_req.toFixed(3)} ms and ${f.stmts_per_req.toFixed(2)} statements per request; most time: ` +
              f.top.map((t) => `${(requests > 0 ? t.ms / requests : Number.NaN).toFixed(3)} ms/req ×${t.calls} "${t.query.slice(0, 70)}"`).join(" | "),
          );
          // The view keeps pg_stat_statements.max statements; past that it evicts some, and their time is lost.
          const [info] = await rows<{ dealloc: string | number }>(knex, "SELECT dealloc FROM pg_stat_statements_info");
          if (info !== undefined && toNumber(info.dealloc) > 0) log(`  WARNING: pg_stat_statements evicted statements ${info.dealloc} times during ${label}: db ms/req is too low`);
        }
        return out;
      },
    };
  };
  return { status, meter, close: () => knex.destroy() };
}

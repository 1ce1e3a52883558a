import { clockTicks, ownCpuTicks, ProcFs, realProcFs, treeCpuTicks } from "./procfs";

/**
 * Readings taken around the measured run of a workload (not its warm-up):
 * `begin` right before it, `end` right after, each giving some of the
 * figures below. bench/drive.ts calls them; run.ts declares which ones a
 * run gets.
 */
export interface RunFigures {
  /** The load generator's CPU over the run (this process: autocannon or lean-load runs in it), % of one core. */
  generator_cpu_pct?: number;
  /** calpress's CPU over the run, every process of the serve tree (primary and workers), % of one core. */
  calpress_cpu_pct?: number;
  /** PostgreSQL's time per completed request: pg_stat_statements' execution (and planning, when tracked) time of the bench database's statements. */
  db_ms_per_req?: number;
  /** Statements PostgreSQL ran per completed request (pg_stat_statements' calls). */
  stmts_per_req?: number;
  /** PostgreSQL's CPU per completed request: every process of the server (postmaster, backends, background processes). */
  pg_cpu_ms_per_req?: number;
}

export interface RunInfo {
  /** Responses the measured run completed (any status): what per-request figures divide by. */
  requests: number;
}

export interface Meter {
  begin(): Promise<void> | void;
  end(run: RunInfo): Promise<RunFigures> | RunFigures;
}

/** CPU ticks as milliseconds. */
export function ticksToMs(ticks: number, perSecond = clockTicks()): number {
  return (ticks * 1000) / perSecond;
}

/** CPU time over wall time, as % of one core (200% = both cores of this machine). */
export function cpuPercent(cpuMs: number, wallMs: number): number {
  return wallMs > 0 ? (cpuMs / wallMs) * 100 : Number.NaN;
}

/** Δ of a CPU reading (ticks) and of wall time over the run; NaN when a reading failed (the process went away). */
function cpuMeter(read: () => number | undefined, figure: (cpuMs: number, wallMs: number, run: RunInfo) => RunFigures): Meter {
  let before: number | undefined;
  let started = 0n;
  return {
    begin: () => {
      before = read();
      started = process.hrtime.bigint();
    },
    end: (run) => {
      const after = read();
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const cpuMs = before === undefined || after === undefined ? Number.NaN : ticksToMs(after - before);
      return figure(cpuMs, wallMs, run);
    },
  };
}

/** The load generator: this process's own CPU (autocannon or lean-load runs in it; its children, the servers, are not counted). */
export function generatorCpuMeter(proc: ProcFs = realProcFs): Meter {
  return cpuMeter(
    () => ownCpuTicks(proc, process.pid),
    (cpuMs, wallMs) => ({ generator_cpu_pct: cpuPercent(cpuMs, wallMs) }),
  );
}

/** calpress: the serve process and every process below it. */
export function calpressCpuMeter(rootPid: number, proc: ProcFs = realProcFs): Meter {
  return cpuMeter(
    () => treeCpuTicks(proc, rootPid),
    (cpuMs, wallMs) => ({ calpress_cpu_pct: cpuPercent(cpuMs, wallMs) }),
  );
}

/** Runs meters' begins in order and their ends in reverse, so that the first begun (the slowest, a database round trip) brackets the others. */
export async function beginAll(meters: readonly Meter[]): Promise<void> {
  for (const m of meters) await m.begin();
}

export async function endAll(meters: readonly Meter[], run: RunInfo): Promise<RunFigures> {
  let figures: RunFigures = {};
  for (const m of [...meters].reverse()) figures = { ...figures, ...(await m.end(run)) };
  return figures;
}

/**
 * Waits until a process tree is quiet (under `maxPct` of a core over a
 * second), at most `timeoutMs`; returns the seconds waited. A freshly
 * started calpress does start-up work in the background (every worker
 * extends the recurring series' horizon, ~24 s at 100k events), which
 * would otherwise be measured as part of the first workload.
 */
export async function settle(rootPid: number, timeoutMs = 180_000, maxPct = 10, proc: ProcFs = realProcFs): Promise<number> {
  const started = Date.now();
  let last = treeCpuTicks(proc, rootPid);
  let lastAt = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = treeCpuTicks(proc, rootPid);
    const nowAt = Date.now();
    if (now === undefined || last === undefined) return (nowAt - started) / 1000;
    if (cpuPercent(ticksToMs(now - last), nowAt - lastAt) < maxPct || nowAt - started > timeoutMs) return (nowAt - started) / 1000;
    last = now;
    lastAt = nowAt;
  }
}

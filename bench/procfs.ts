import { execFileSync } from "node:child_process";
import fs from "node:fs";

/**
 * CPU time and resident memory of process trees, read from Linux's /proc.
 *
 * A tree, because `calpress serve --workers N` is a primary and N worker
 * processes, and PostgreSQL a postmaster and a backend per connection: what
 * one of them costs is the sum over the tree. The reading goes through a
 * small `ProcFs` interface so that bench/selftest.ts can hand it fake
 * files; `realProcFs` reads the real ones.
 */
export interface ProcFs {
  /** A file's text, or undefined when it cannot be read (the process has gone, not Linux). */
  read(file: string): string | undefined;
  /** A directory's entries, or [] when it cannot be read. */
  list(dir: string): string[];
}

export const realProcFs: ProcFs = {
  read: (file) => {
    try {
      return fs.readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  },
  list: (dir) => {
    try {
      return fs.readdirSync(dir);
    } catch {
      return [];
    }
  },
};

/** The fields of /proc/<pid>/stat the harness uses; times in clock ticks. */
export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  utime: number;
  stime: number;
  /** CPU of the children this process has waited for (exited workers or backends stay counted here). */
  cutime: number;
  cstime: number;
}

/**
 * Parses /proc/<pid>/stat. The command name sits in parentheses and may
 * itself hold spaces and parentheses, so the numbered fields are counted
 * from the last ")" (proc(5): state is field 3, ppid 4, utime 14, stime 15,
 * cutime 16, cstime 17).
 */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // rest[0] is field 3 (state).
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const field = (n: number): number => Number(rest[n - 3]);
  const stat: ProcStat = { pid, comm: text.slice(open + 1, close), ppid: field(4), utime: field(14), stime: field(15), cutime: field(16), cstime: field(17) };
  const numbers = [stat.pid, stat.ppid, stat.utime, stat.stime, stat.cutime, stat.cstime];
  return numbers.every((n) => Number.isInteger(n) && n >= 0) ? stat : undefined;
}

export function readStat(proc: ProcFs, pid: number): ProcStat | undefined {
  const text = proc.read(`/proc/${pid}/stat`);
  return text === undefined ? undefined : parseStat(text);
}

/**
 * A process's children: /proc/<pid>/task/<tid>/children of each of its
 * threads (a child belongs to the thread that forked it). Without those
 * files (a kernel without CONFIG_PROC_CHILDREN) the whole process table is
 * scanned for the parent id instead.
 */
function childrenOf(proc: ProcFs, pid: number): number[] {
  const tasks = proc.list(`/proc/${pid}/task`);
  const out: number[] = [];
  let found = false;
  for (const tid of tasks) {
    const text = proc.read(`/proc/${pid}/task/${tid}/children`);
    if (text === undefined) continue;
    found = true;
    for (const word of text.trim().split(/\s+/)) if (/^\d+$/.test(word)) out.push(Number(word));
  }
  if (found || tasks.length === 0) return out;
  return proc
    .list("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((child) => readStat(proc, child)?.ppid === pid);
}

/** `root` and every process below it (children, their children, …), root first; [] when root has gone. */
export function processTree(proc: ProcFs, root: number): number[] {
  if (readStat(proc, root) === undefined) return [];
  const out: number[] = [];
  const seen = new Set<number>();
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(pid);
    queue.push(...childrenOf(proc, pid));
  }
  return out;
}

/**
 * CPU time of a whole tree so far, in clock ticks: each live process's own
 * user and system time plus what its exited children had (cutime/cstime).
 * A worker or backend that exits between two readings so moves from its own
 * line to its parent's, and the difference of the two readings still holds
 * it. Undefined when the root has gone.
 */
export function treeCpuTicks(proc: ProcFs, root: number): number | undefined {
  const pids = processTree(proc, root);
  if (pids.length === 0) return undefined;
  let ticks = 0;
  for (const pid of pids) {
    const s = readStat(proc, pid);
    if (s) ticks += s.utime + s.stime + s.cutime + s.cstime;
  }
  return ticks;
}

/** One process's own CPU time in clock ticks (not its children's: the harness's children are the servers it measures). */
export function ownCpuTicks(proc: ProcFs, pid: number): number | undefined {
  const s = readStat(proc, pid);
  return s === undefined ? undefined : s.utime + s.stime;
}

/**
 * The summed VmRSS of a tree, in KiB (undefined when the root has gone).
 * Pages shared between the processes (the node binary's code, for one) are
 * counted once per process, as each process's RSS counts them.
 */
export function treeRssKb(proc: ProcFs, root: number): number | undefined {
  const pids = processTree(proc, root);
  if (pids.length === 0) return undefined;
  let kb = 0;
  for (const pid of pids) {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(proc.read(`/proc/${pid}/status`) ?? "");
    if (m) kb += Number(m[1]);
  }
  return kb;
}

let ticksPerSecond: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`; 100 on Linux when getconf is missing). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      const n = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
      ticksPerSecond = Number.isInteger(n) && n > 0 ? n : 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

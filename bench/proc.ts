import { ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { log } from "./log";
import { realProcFs, treeRssKb } from "./procfs";

/**
 * Child processes and other things to undo, and the guarantee that they are
 * undone: on normal completion, on an error, on Ctrl-C/SIGTERM, and (for
 * processes, synchronously) on any exit at all.
 */

export const REPO_ROOT = path.resolve(__dirname, "..");

type Undo = () => Promise<void> | void;

const undos: { label: string; undo: Undo }[] = [];
const children = new Set<ChildProcess>();
let cleaning: Promise<void> | undefined;

/** Registers something to undo at cleanup (run in reverse order); returns a function that unregisters it. */
export function onCleanup(label: string, undo: Undo): () => void {
  const entry = { label, undo };
  undos.push(entry);
  return () => {
    const i = undos.indexOf(entry);
    if (i >= 0) undos.splice(i, 1);
  };
}

/** Runs every registered undo once, newest first; errors are reported, not thrown, so the rest still run. */
export function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    while (undos.length > 0) {
      const { label, undo } = undos.pop() as { label: string; undo: Undo };
      try {
        await undo();
      } catch (err) {
        log(`cleanup of ${label} failed: ${(err as Error).message}`);
      }
    }
    for (const child of children) killHard(child);
  })();
  return cleaning;
}

function killHard(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

let handlersInstalled = false;

/** Ctrl-C and SIGTERM clean up and exit; a plain exit still kills children (the only thing doable synchronously). */
export function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const onSignal = (signal: NodeJS.Signals): void => {
    log(`${signal}: stopping children and removing temporary databases`);
    void cleanupAll().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.on("exit", () => {
    for (const child of children) killHard(child);
  });
}

export interface Child {
  proc: ChildProcess;
  pid: number;
  label: string;
  /** The last stderr lines, shown when the child fails. */
  recentStderr(): string[];
  /** How many stderr lines the child has written so far (to find the ones written during a workload). */
  stderrCount(): number;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** stop() was called: an exit is expected. */
  stopping(): boolean;
}

export interface SpawnOptions {
  label: string;
  args: string[];
  /** Print the child's stderr lines live (with the label), or only keep the recent ones for errors. */
  echoStderr?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Keep stdin open as a pipe: our own helper processes exit when it closes, i.e. when this process dies however it dies. */
  stdinLifeline?: boolean;
}

/** Spawns `node <args>` (this Node binary) in the repository root and tracks it for cleanup. */
export function spawnNode(opts: SpawnOptions): Child {
  const proc = spawn(process.execPath, opts.args, {
    cwd: REPO_ROOT,
    env: opts.env ?? process.env,
    stdio: [opts.stdinLifeline ? "pipe" : "ignore", "pipe", "pipe"],
  });
  if (proc.pid === undefined) throw new Error(`could not start ${opts.label}`);
  children.add(proc);
  const recent: string[] = [];
  let lines = 0;
  let stopRequested = false;
  readline.createInterface({ input: proc.stderr as NodeJS.ReadableStream }).on("line", (line) => {
    lines++;
    recent.push(line);
    if (recent.length > 40) recent.shift();
    if (opts.echoStderr) process.stderr.write(`  [${opts.label}] ${line}\n`);
  });
  const exited = new Promise<number | string>((resolve) => {
    proc.once("exit", (code, signal) => {
      children.delete(proc);
      resolve(code ?? signal ?? "unknown");
    });
  });
  const child: Child = {
    proc,
    pid: proc.pid,
    label: opts.label,
    recentStderr: () => [...recent],
    stderrCount: () => lines,
    exited,
    stopping: () => stopRequested,
    stop: async (graceMs = 5000) => {
      stopRequested = true;
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => killHard(proc), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  onCleanup(opts.label, () => child.stop());
  return child;
}

/**
 * Waits for the first stdout line matching `pattern` (the ready line) and
 * returns its match. Fails if the child exits first or the time runs out,
 * with the child's last stderr lines in the message.
 */
export function waitForLine(child: Child, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: child.proc.stdout as NodeJS.ReadableStream });
    const seen: string[] = [];
    const fail = (why: string): void => {
      clearTimeout(timer);
      rl.close();
      const tail = child.recentStderr().slice(-15).map((l) => `    ${l}`).join("\n");
      const out = seen.slice(-5).map((l) => `    ${l}`).join("\n");
      reject(new Error(`${child.label} ${why}${out ? `\n  stdout:\n${out}` : ""}${tail ? `\n  stderr:\n${tail}` : ""}`));
    };
    const timer = setTimeout(() => fail(`printed no ready line within ${timeoutMs / 1000}s`), timeoutMs);
    rl.on("line", (line) => {
      const m = pattern.exec(line);
      if (m) {
        clearTimeout(timer);
        // Keep draining stdout so that a chatty child never blocks on a full pipe.
        rl.removeAllListeners("line");
        resolve(m);
        return;
      }
      seen.push(line);
    });
    void child.exited.then((code) => fail(`exited (${code}) before it was ready`));
  });
}

/** Runs a child to completion; rejects on a non-zero exit. Returns its stdout. */
export async function runToEnd(child: Child): Promise<string> {
  let out = "";
  child.proc.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  const code = await child.exited;
  if (code !== 0) {
    const tail = child.recentStderr().slice(-15).map((l) => `    ${l}`).join("\n");
    throw new Error(`${child.label} failed (${code})${tail ? `\n  stderr:\n${tail}` : ""}`);
  }
  return out;
}

/**
 * Samples the resident set size of a process and every process below it
 * (a `serve --workers` primary and its workers), summed from each one's
 * /proc/<pid>/status, every `intervalMs`, and keeps the maximum of the sum.
 * A single process is just itself. Linux only; elsewhere it reports NaN.
 */
export class RssSampler {
  private max = 0;
  private timer: NodeJS.Timeout;
  private samples = 0;

  constructor(private readonly pid: number, intervalMs = 250) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    // Sampling must never keep the harness alive on its own.
    this.timer.unref();
  }

  private sample(): void {
    const kb = treeRssKb(realProcFs, this.pid);
    // Undefined: the process has gone (or this is not Linux).
    if (kb !== undefined) {
      this.samples++;
      this.max = Math.max(this.max, kb / 1024);
    }
  }

  /** Stops sampling; the maximum RSS in MiB (NaN when nothing could be read). */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.samples > 0 ? this.max : Number.NaN;
  }

  current(): number {
    return this.samples > 0 ? this.max : Number.NaN;
  }
}

/** The node arguments that run a TypeScript file of this repository (tsx's loader, in-process: one pid to watch). */
export function tsNodeArgs(file: string): string[] {
  return ["--import", "tsx", path.resolve(REPO_ROOT, file)];
}

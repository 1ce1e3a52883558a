/**
 * `calpress serve --workers N`: one primary process and N workers (node:cluster)
 * sharing one port, so that a site uses every core.
 *
 * The primary prepares the database once (migrations, fixture, `--user`),
 * forks the workers, prints the ready line when every worker listens,
 * replaces a worker that dies or stops answering (a liveness check over the
 * IPC channel: a worker whose event loop is stuck cannot answer), and passes
 * SIGTERM/SIGINT on so that each worker drains as a single server does. Workers share the database and the
 * answer store; whatever a worker keeps in memory is checked against the
 * database's cache tags before use (the invariant that already holds across
 * machines), so one worker's write is never answered stale by another.
 */
import cluster, { type Worker } from "node:cluster";
import os from "node:os";
import type { CliIO } from "./io";
import { UsageError } from "./args";

/** Set in a worker's environment: the process serves and leaves preparing and announcing to the primary. */
const WORKER_ENV = "CALPRESS_SERVE_WORKER";

/** What a worker tells the primary once it listens. */
interface ReadyMessage {
  type: "calpress:listening";
  port: number;
}

/** The primary's liveness check, and a worker's answer: echoed from the worker's event loop. */
interface PingMessage {
  type: "calpress:ping" | "calpress:pong";
  n: number;
}

function isPing(message: unknown, type: PingMessage["type"]): message is PingMessage {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === type && typeof (message as { n?: unknown }).n === "number";
}

/** A worker answers the primary's liveness checks: call first thing, so a worker answers while it starts too. */
export function answerLivenessChecks(): void {
  process.on("message", (message: unknown) => {
    if (isPing(message, "calpress:ping")) process.send?.({ type: "calpress:pong", n: message.n } satisfies PingMessage);
  });
}

function isReadyMessage(message: unknown): message is ReadyMessage {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "calpress:listening" && typeof (message as { port?: unknown }).port === "number";
}

/** Whether this process is one of `serve --workers`' workers. */
export function isServeWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_ENV] === "1";
}

/** A worker tells the primary it listens (on the port every worker shares). */
export function announceListening(port: number): void {
  const message: ReadyMessage = { type: "calpress:listening", port };
  process.send?.(message);
}

/** `--worker-timeout`: seconds, 1 to 3600. */
export function parseWorkerTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WORKER_TIMEOUT_S * 1000;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 3600) throw new UsageError(`--worker-timeout must be a number of seconds from 1 to 3600, not ${JSON.stringify(value)}`);
  return Number(value) * 1000;
}

/** `--workers`: a number from 1 to 64, or `auto` for the cores this process may use. */
export function parseWorkers(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === "auto") return os.availableParallelism();
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 64) throw new UsageError(`--workers must be a number from 1 to 64 or auto, not ${JSON.stringify(value)}`);
  return Number(value);
}

/** More deaths than this within RESTART_WINDOW_MS mean the workers cannot start: the primary gives up. */
const MAX_RESTARTS = 10;
const RESTART_WINDOW_MS = 60_000;

export interface PrimaryHooks {
  /** Runs once, when every worker first listens; `port` is theirs (the chosen one with `--port 0`). */
  ready(port: number): void;
}

/** `--worker-timeout`'s default: a worker silent this long is replaced. */
export const DEFAULT_WORKER_TIMEOUT_S = 30;
/** A worker starting (compiling, opening the database) may be silent at least this long. */
const STARTUP_ALLOWANCE_MS = 30_000;

/**
 * Runs the primary: forks `count` workers (the same command line, in the
 * worker environment) and supervises them until SIGTERM/SIGINT, then waits
 * for every worker to drain and exit. Resolves to the exit code: 0 after a
 * requested stop, 1 when workers keep dying (the cause is in their stderr).
 */
export function runPrimary(count: number, io: CliIO, hooks: PrimaryHooks, timeoutMs = DEFAULT_WORKER_TIMEOUT_S * 1000): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    let announced = false;
    let failed = false;
    const listening = new Set<number>();
    const deaths: number[] = [];
    /** When each worker last answered (or was forked), by worker id. */
    const lastHeard = new Map<number, number>();
    /** Workers killed for not answering: their exit is reported as such. */
    const unresponsive = new Set<number>();

    const fork = (): Worker => {
      const worker = cluster.fork({ [WORKER_ENV]: "1" });
      lastHeard.set(worker.id, Date.now());
      worker.on("message", (message: unknown) => {
        lastHeard.set(worker.id, Date.now());
        if (!isReadyMessage(message)) return;
        listening.add(worker.id);
        if (!announced && listening.size >= count) {
          announced = true;
          hooks.ready(message.port);
        } else if (announced) {
          io.err(`calpress: worker ${worker.process.pid ?? "?"} listens (a replacement)`);
        }
      });
      return worker;
    };

    const workers = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

    // The liveness check: a ping a few times per timeout; a worker silent past it (past the startup
    // allowance until it listens) is killed, and replaced as a dead one is.
    let pings = 0;
    const checker = setInterval(
      () => {
        const now = Date.now();
        for (const worker of workers()) {
          if (unresponsive.has(worker.id) || !worker.isConnected()) continue;
          const allowed = listening.has(worker.id) ? timeoutMs : Math.max(timeoutMs, STARTUP_ALLOWANCE_MS);
          if (now - (lastHeard.get(worker.id) ?? now) > allowed) {
            unresponsive.add(worker.id);
            io.err(`calpress: worker ${worker.process.pid ?? "?"} has not answered for ${Math.round((now - (lastHeard.get(worker.id) ?? now)) / 1000)} s; stopping it`);
            worker.process.kill("SIGKILL");
            continue;
          }
          // A worker that just died may not have been reaped: a failed send is ignored (its exit is handled).
          worker.send({ type: "calpress:ping", n: ++pings } satisfies PingMessage, () => undefined);
        }
      },
      Math.max(250, Math.floor(timeoutMs / 4)),
    );

    const finishIfDone = (): void => {
      if (workers().length === 0) {
        clearInterval(checker);
        process.removeListener("SIGINT", stop);
        process.removeListener("SIGTERM", stop);
        resolve(failed ? 1 : 0);
      }
    };

    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      // Each worker stops accepting, finishes what it has in flight and closes its database.
      for (const worker of workers()) worker.process.kill("SIGTERM");
      finishIfDone();
    };

    cluster.on("exit", (worker: Worker, code: number | null, signal: string | null) => {
      listening.delete(worker.id);
      lastHeard.delete(worker.id);
      if (stopping) {
        finishIfDone();
        return;
      }
      const now = Date.now();
      deaths.push(now);
      while (deaths.length > 0 && (deaths[0] ?? now) < now - RESTART_WINDOW_MS) deaths.shift();
      const how = unresponsive.delete(worker.id) ? "not answering" : signal === null ? `exit code ${code ?? "?"}` : `signal ${signal}`;
      if (deaths.length > MAX_RESTARTS) {
        io.err(`calpress: worker ${worker.process.pid ?? "?"} stopped (${how}); ${deaths.length} workers died within a minute, giving up`);
        failed = true;
        stop();
        return;
      }
      io.err(`calpress: worker ${worker.process.pid ?? "?"} stopped (${how}); starting another`);
      fork();
    });

    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    for (let i = 0; i < count; i++) fork();
  });
}

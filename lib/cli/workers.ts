/**
 * `calpress serve --workers N`: one primary process and N workers (node:cluster)
 * sharing one port, so that a site uses every core.
 *
 * The primary prepares the database once (migrations, fixture, `--user`),
 * forks the workers, prints the ready line when every worker listens,
 * replaces a worker that dies, and passes SIGTERM/SIGINT on so that each
 * worker drains as a single server does. Workers share the database and the
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

/**
 * Runs the primary: forks `count` workers (the same command line, in the
 * worker environment) and supervises them until SIGTERM/SIGINT, then waits
 * for every worker to drain and exit. Resolves to the exit code: 0 after a
 * requested stop, 1 when workers keep dying (the cause is in their stderr).
 */
export function runPrimary(count: number, io: CliIO, hooks: PrimaryHooks): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    let announced = false;
    let failed = false;
    const listening = new Set<number>();
    const deaths: number[] = [];

    const fork = (): Worker => {
      const worker = cluster.fork({ [WORKER_ENV]: "1" });
      worker.on("message", (message: unknown) => {
        if (!isReadyMessage(message)) return;
        listening.add(worker.id);
        if (!announced && listening.size >= count) {
          announced = true;
          hooks.ready(message.port);
        }
      });
      return worker;
    };

    const workers = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

    const finishIfDone = (): void => {
      if (workers().length === 0) {
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
      if (stopping) {
        finishIfDone();
        return;
      }
      const now = Date.now();
      deaths.push(now);
      while (deaths.length > 0 && (deaths[0] ?? now) < now - RESTART_WINDOW_MS) deaths.shift();
      const how = signal === null ? `exit code ${code ?? "?"}` : `signal ${signal}`;
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

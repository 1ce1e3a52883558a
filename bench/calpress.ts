import fs from "node:fs";
import path from "node:path";
import { log } from "./log";
import { Child, REPO_ROOT, RssSampler, runToEnd, spawnNode, tsNodeArgs, waitForLine } from "./proc";

/**
 * Running the calpress CLI in child processes: the built `dist/cli.js` when
 * there is one, else the TypeScript source through tsx's loader. tsx runs
 * in-process (`node --import tsx`), not through `npx tsx`, whose wrapper
 * processes would make the RSS of the pid we watch meaningless.
 */
export const BENCH_USER = { login: "bench", password: "bench-pass-1234", role: "administrator" } as const;

export interface Runner {
  kind: "dist" | "tsx";
  args: string[];
  /** How the report names it. */
  describe: string;
  /** Set when the figures would not be those of the current shipped code (a stale build, or no build). */
  staleWarning?: string;
}

/** Newest modification time of a .ts file under `dir` (ms). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * CALPRESS_BENCH_CLI=<path to a built cli.js> picks a build explicitly;
 * otherwise dist/cli.js when it exists, else the sources through tsx.
 */
export function cliRunner(): Runner {
  const explicit = process.env.CALPRESS_BENCH_CLI;
  const dist = explicit ? path.resolve(explicit) : path.join(REPO_ROOT, "dist", "cli.js");
  if (explicit && !fs.existsSync(dist)) throw new Error(`CALPRESS_BENCH_CLI=${explicit}: no such file`);
  if (fs.existsSync(dist)) {
    const built = fs.statSync(dist).mtimeMs;
    const stale = newestSource(path.join(REPO_ROOT, "lib")) > built;
    return {
      kind: "dist",
      args: [dist],
      describe: dist.startsWith(`${REPO_ROOT}${path.sep}`) ? path.relative(REPO_ROOT, dist) : dist,
      staleWarning: stale && !explicit ? `${dist} is older than lib/: run "npm run build" first, or the figures are those of old code` : undefined,
    };
  }
  // The loader keeps the esbuild compiler in the process: RSS is higher than a build's.
  return {
    kind: "tsx",
    args: tsNodeArgs("lib/cli.ts"),
    describe: "lib/cli.ts through tsx",
    staleWarning: 'no dist/cli.js, so calpress ran through the tsx loader, which adds tens of MB of RSS (213 vs 138 MB at 500 events in one run) and compiles at start-up: run "npm run build" first for figures of the shipped code',
  };
}

/**
 * The search index on PostgreSQL: calpress creates pg_trgm only when told
 * (`--pg-extension`), and the bench measures search with its index, in a
 * database of its own. Both the loader (so the index is filled as the rows
 * go in, as before) and the server get it; other databases have no flag.
 */
function extensionArgs(target: string): string[] {
  return /^postgres(ql)?:/i.test(target) ? ["--pg-extension", "pg_trgm"] : [];
}

/** Generates the deterministic fixture and loads it into `target` (one child process); returns seconds taken. */
export async function loadFixture(runner: Runner, target: string, events: number, seed: number): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawnNode({
    label: `fixture ${events}`,
    args: [...runner.args, "fixture", "generate", "--events", String(events), "--seed", String(seed), "--db", target, ...extensionArgs(target)],
    // The loader prints milestone lines (every tenth of a phase): useful progress for a long load.
    echoStderr: true,
  });
  await runToEnd(child);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export interface Server {
  child: Child;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** REST root path with a trailing slash, e.g. /wp-json/ */
  restRoot: string;
  rss: RssSampler;
  /** Seconds the answer store's warm-up took (when asked for), once it is done. */
  warmed: Promise<number | undefined>;
}

/**
 * The heap settings of `npm start` (package.json), so that the benchmark
 * measures the server as it is started. Without them V8 lets the heap grow
 * lazily to ~120 MB, mostly garbage, under this load (RSS 260–310 MB); the
 * live set is ~30 MB, and with them RSS stays near 120–180 MB. The young
 * generation's size trades GC time for memory: single-event reads did
 * ~910 rps with 4 MB semi-spaces, ~1,070 with 8 and ~1,095 with 16, at a
 * high-water RSS of 135, 148 and 161 MB (one 100k-event run each).
 */
export const SERVE_NODE_FLAGS = ["--max-semi-space-size=8", "--max-old-space-size=128"];

const READY = /^calpress listening on (http:\/\/[^/\s]+)(\/\S*)$/;

export interface StoreOptions {
  /** The stored-answer file (`serve --answer-store`). */
  file: string;
  /** Request every public record once and wait until that is done (`serve --warm`). */
  warm: boolean;
}

const WARMED = /^calpress warmed (\d+) stored answers in ([\d.]+) s/;
/** Without `--warm`, `serve` keeps the records of every event after start, upcoming first (lib/cli/warm.ts; older builds print the upcoming ones only). */
const KEPT = /^calpress kept the records of (\d+) upcoming events(?: and (\d+) others)? in ([\d.]+) s/;

/**
 * Starts `calpress serve` (with `workers`: `serve --workers N`, a primary
 * and N worker processes on one port, which prints its ready line once
 * every worker listens; `child` is then the primary, and the RSS sampled is
 * the sum over it and its workers).
 */
export async function startServer(runner: Runner, target: string, label: string, store?: StoreOptions, workers?: number): Promise<Server> {
  const child = spawnNode({
    label,
    // The warm-up reports its progress on stderr.
    echoStderr: store?.warm === true,
    args: [
      ...SERVE_NODE_FLAGS,
      ...runner.args,
      "serve",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--db",
      target,
      ...extensionArgs(target),
      "--user",
      `${BENCH_USER.login}:${BENCH_USER.password}:${BENCH_USER.role}`,
      ...(store ? ["--answer-store", store.file, ...(store.warm ? ["--warm"] : [])] : []),
      // The workers inherit the heap flags: node:cluster forks with the primary's execArgv.
      ...(workers !== undefined ? ["--workers", String(workers)] : []),
    ],
  });
  // Listening from the start: the warm-up's last line may come at any time after the ready line.
  const warmed: Promise<number | undefined> = store?.warm
    ? // 100k events: 180k records by ID and slug, a few minutes.
      waitForLine(child, WARMED, 1_800_000).then((line) => {
        log(`${label} warmed ${line[1]} stored answers in ${line[2]} s`);
        return Number(line[2]);
      })
    : // What `npm start` does: measured once its records are kept, as a warmed store is. A server that
      // keeps none (a MariaDB that refused the triggers, another build) never says so: measured anyway.
      waitForLine(child, KEPT, 600_000).then(
        (line) => {
          log(`${label} kept the records of ${line[1]} upcoming events and ${line[2] ?? "no"} others in ${line[3]} s`);
          return Number(line[3]);
        },
        () => {
          log(`${label} printed no records warm-up line within 600 s: measuring anyway`);
          return undefined;
        },
      );
  // A failed warm-up is reported by whoever awaits it.
  warmed.catch(() => undefined);
  // Sample from the start: start-up (schema check, caches) counts towards the maximum too.
  const rss = new RssSampler(child.pid);
  // Workers open the site each (and at 100k build their indexes side by side on 2 cores): more time per worker.
  const m = await waitForLine(child, READY, 120_000 * Math.max(1, workers ?? 1));
  log(`${label} ready at ${m[1]}${m[2]} (pid ${child.pid}${workers !== undefined ? `, ${workers} worker${workers === 1 ? "" : "s"}` : ""}, ${runner.kind})`);
  void child.exited.then((code) => {
    // An exit we did not ask for is worth a loud line: every later request fails.
    if (!child.stopping()) log(`${label} exited unexpectedly (${code}); last stderr:\n${child.recentStderr().slice(-10).join("\n")}`);
  });
  return { child, origin: m[1], restRoot: m[2].endsWith("/") ? m[2] : `${m[2]}/`, rss, warmed };
}

export async function stopServer(server: Server): Promise<number> {
  const rssMax = server.rss.stop();
  await server.child.stop();
  return rssMax;
}

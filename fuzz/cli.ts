/**
 * `npx tsx fuzz/cli.ts --requests 10000 --seed 1 [--db <target>] [--fixture minimal] [--quiet]`
 *
 * Problems are printed to stderr as they are found (with the request that
 * caused them, so a seed and an index reproduce one); stdout gets the one
 * summary line. Exit 0 when the run found nothing, 1 when it found a
 * problem, 2 on bad arguments.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import type { Site } from "../lib/site";
import { runFuzz, summaryLine } from "./run";
import type { SiteSetup } from "./site";

/**
 * `--plugin <file>[#export]`: a module whose export registers a host's own
 * post types and routes (`examples/book-plugin.ts#registerBookPlugin`), so
 * they are fuzzed with the rest. Without `#export`, the first exported function.
 */
function loadPlugin(spec: string): SiteSetup {
  const [file, name] = spec.split("#");
  // A runtime path chosen by the user: require is the way to load it (under tsx, TypeScript too).
  const mod = require(path.resolve(file ?? "")) as Record<string, unknown>;
  const fn = name ? mod[name] : Object.values(mod).find((v) => typeof v === "function");
  if (typeof fn !== "function") fail(`--plugin ${spec}: no exported function${name ? ` ${name}` : ""}`);
  return (site: Site) => (fn as (site: Site) => void | Promise<void>)(site);
}

function fail(message: string): never {
  process.stderr.write(`fuzz: ${message}\nusage: fuzz --requests <n> --seed <n> [--db <target>] [--fixture <name|path>] [--plugin <file>[#export]] [--progress <n>] [--quiet] [--stats] [--trace]\n`);
  process.exit(2);
}

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a non-negative integer, not "${value}"`);
  return Number(value);
}

async function main(): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        requests: { type: "string" },
        seed: { type: "string" },
        db: { type: "string" },
        fixture: { type: "string" },
        progress: { type: "string" },
        quiet: { type: "boolean" },
        stats: { type: "boolean" },
        trace: { type: "boolean" },
        plugin: { type: "string" },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  const requests = positiveInt(values.requests as string | undefined, "requests", 1000);
  const seed = positiveInt(values.seed as string | undefined, "seed", 1);
  const quiet = values.quiet === true;
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const report = await runFuzz({
    requests,
    seed,
    target: values.db as string | undefined,
    fixture: values.fixture as string | undefined,
    setup: typeof values.plugin === "string" ? loadPlugin(values.plugin) : undefined,
    log: quiet ? undefined : log,
    trace: values.trace === true ? log : undefined,
    progressEvery: quiet ? 0 : positiveInt(values.progress as string | undefined, "progress", 1000),
  });
  if (!quiet) {
    const statuses = Object.entries(report.statuses)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([s, n]) => `${s}×${n}`)
      .join(" ");
    log(`routes fuzzed: ${report.routes}; statuses: ${statuses}`);
    log(`2xx writes: ${Object.values(report.writes).reduce((a, b) => a + b, 0)} over ${Object.keys(report.writes).length} route/method pairs`);
    if (values.stats === true) {
      for (const [key, statuses] of Object.entries(report.byRoute).sort(([a], [b]) => a.localeCompare(b))) {
        log(`  ${key}: ${Object.entries(statuses).map(([s, n]) => `${s}×${n}`).join(" ")}`);
      }
    }
    log(`bad envelopes: ${report.badEnvelopes}, responses with secrets: ${report.leaks}; ${Math.round(report.durationMs / 1000)} s`);
  }
  process.stdout.write(`${summaryLine(report)}\n`);
  return report.problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`fuzz: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);

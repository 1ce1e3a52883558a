/**
 * How long calpress/testing takes to give a test a site, next to loading
 * the fixture into a new site the way a test did before (createSite +
 * loadFixture). Speed is measured here, never asserted in a test.
 *
 *   npx tsx bench/testing-sites.ts [--fixture demo] [--db sqlite|<postgres or mysql URL>] [--sites 8] [--parallel 4]
 *
 * Prints the median and the range of each step, in milliseconds.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { scratchDatabases } from "../lib/db/dialects/scratch";
import { loadFixture, resolveFixture } from "../lib/fixtures";
import { createSite } from "../lib/site";
import { testSites } from "../lib/testing";

const { values } = parseArgs({
  options: { fixture: { type: "string", default: "demo" }, db: { type: "string", default: "sqlite" }, sites: { type: "string", default: "8" }, parallel: { type: "string", default: "4" } },
});
const fixture = values.fixture as string;
const db = values.db as string;
const count = Math.max(1, Math.min(100, Number(values.sites)));
const parallel = Math.max(1, Math.min(32, Number(values.parallel)));

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const out = await work();
  return [out, Number(process.hrtime.bigint() - start) / 1e6];
}

function summary(name: string, ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  return `${name.padEnd(34)} median ${median.toFixed(0).padStart(6)} ms   (${(sorted[0] as number).toFixed(0)}–${(sorted[sorted.length - 1] as number).toFixed(0)}, n=${ms.length})`;
}

async function main(): Promise<void> {
  process.stdout.write(`fixture ${fixture}, db ${db.replace(/\/\/[^@/]*@/, "//…@")}, ${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(1)}\n`);

  // Before: a new database, createSite, loadFixture, as a test did for each site.
  const before: number[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-bench-testing-"));
  const base = db === "sqlite" ? dir : db;
  const scratch = scratchDatabases(base);
  try {
    for (let i = 0; i < Math.min(count, 4); i++) {
      const name = `calpress_bench_${process.pid}_${i}`;
      const [, ms] = await timed(async () => {
        const target = await scratch.create(base, name);
        const site = await createSite({ db: target, webhooks: false, pages: false });
        await loadFixture(site.engine, resolveFixture(fixture), { quiet: true });
        return site;
      }).then(async ([site, ms]) => {
        await site.close();
        return [site, ms] as const;
      });
      await scratch.drop(base, name);
      before.push(ms);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const sites = testSites({ fixture, db });
  try {
    const [, template] = await timed(() => sites.ready());
    const create: number[] = [];
    const reset: number[] = [];
    const close: number[] = [];
    for (let i = 0; i < count; i++) {
      const [t, made] = await timed(() => sites.create());
      create.push(made);
      const res = await t.fetch("/wp-json/calendar/events/v1/events");
      if (res.status !== 200) throw new Error(`events: ${res.status}`);
      await res.arrayBuffer();
      reset.push((await timed(() => t.reset()))[1]);
      close.push((await timed(() => t.close()))[1]);
    }
    const [made, together] = await timed(() => Promise.all(Array.from({ length: parallel }, () => sites.create())));
    await Promise.all(made.map((t) => t.close()));

    process.stdout.write(`${summary("before: new site + loadFixture", before)}\n`);
    process.stdout.write(`${summary("template (once: migrate + load)", [template])}\n`);
    process.stdout.write(`${summary("create()", create)}\n`);
    process.stdout.write(`${summary("reset()", reset)}\n`);
    process.stdout.write(`${summary("close()", close)}\n`);
    process.stdout.write(`${summary(`${parallel} create() at once (wall)`, [together])}\n`);
  } finally {
    await sites.close();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});

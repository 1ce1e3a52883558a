import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import { expect } from "chai";
import Sqlite from "better-sqlite3";
import { createEngine } from "../../lib/engine";
import { storedAnswerPaths } from "../../lib/calendar/stored-paths";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "lib/cli.ts");

interface Run {
  lines: string[];
  stderr: () => string;
  kill: () => void;
  exit: Promise<number | null>;
  /** When its output is all read, too. */
  closed: Promise<void>;
}

function runCli(args: string[]): Run {
  const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), CLI, ...args], { cwd: ROOT, env: { ...process.env } });
  const lines: string[] = [];
  let buffer = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    lines.push(...parts);
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    lines,
    stderr: () => stderr,
    kill: () => child.kill("SIGTERM"),
    exit: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
    closed: new Promise((resolve) => child.once("close", () => resolve())),
  };
}

async function lineMatching(run: Run, re: RegExp, timeoutMs = 60000): Promise<RegExpExecArray> {
  const start = Date.now();
  for (;;) {
    for (const line of run.lines) {
      const m = re.exec(line);
      if (m) return m;
    }
    if (Date.now() - start > timeoutMs) throw new Error(`no line like ${re}; stdout: ${run.lines.join("\n")}; stderr: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("calpress serve --answer-store --warm", function () {
  this.timeout(120000);
  let dir: string;
  let db: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-warm-"));
    db = path.join(dir, "site.sqlite");
    const gen = runCli(["fixture", "generate", "--events", "120", "--seed", "7", "--db", db]);
    expect(await gen.exit, gen.stderr()).to.equal(0);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("lists the stored paths page by page, each public record by ID and by slug once", async () => {
    const { engine, close } = await createEngine(db);
    try {
      const source = storedAnswerPaths(engine, 7);
      const paged: string[] = [];
      for await (const page of source.pages()) {
        expect(page.length).to.be.at.most(14);
        paged.push(...page);
      }
      const expected = (await engine
        .knex(engine.tables.posts)
        .whereIn("type", ["event", "venue", "organizer"])
        .where({ status: "publish", password: "" })
        .select("id", "slug")) as Array<{ id: number; slug: string }>;
      expect(paged.length).to.equal(expected.length + expected.filter((p) => p.slug !== "").length);
      expect(new Set(paged).size).to.equal(paged.length);
      expect(await source.total()).to.equal(paged.length);
      // Drafts, private and password-protected posts are never requested.
      const hidden = (await engine.knex(engine.tables.posts).where("type", "event").whereNot({ status: "publish" }).first("id")) as { id: number } | undefined;
      expect(hidden).to.not.equal(undefined);
      expect(paged).to.not.include(`calendar/events/v1/events/${hidden!.id}`);
    } finally {
      await close();
    }
  });

  it("fills the store before the first reader and answers from it", async () => {
    const store = path.join(dir, "answers.sqlite");
    const serve = runCli(["serve", "--port", "0", "--db", db, "--answer-store", store, "--warm"]);
    try {
      const root = (await lineMatching(serve, /^calpress listening on (\S+)$/))[1];
      const warmed = await lineMatching(serve, /^calpress warmed (\d+) stored answers in [\d.]+ s/);
      const reader = new Sqlite(store, { readonly: true });
      try {
        // Kept records (lib/cache/records.ts) share the table under keys of their own: the warm-up keeps each event's too.
        const count = (): number => (reader.prepare("SELECT count(*) AS n FROM stored_answers WHERE key NOT LIKE 'record %'").get() as { n: number }).n;
        expect(count()).to.equal(Number(warmed[1]));
        expect((reader.prepare("SELECT count(*) AS n FROM stored_answers WHERE key LIKE 'record %'").get() as { n: number }).n).to.be.greaterThan(0);
        expect(count()).to.be.greaterThan(100);
        // Keys are the REST root, the route path and the query joined by NULs (lib/cache/answer-key.ts).
        const rows = reader.prepare("SELECT key, answer FROM stored_answers").all() as Array<{ key: string; answer: Buffer }>;
        const row = rows.find((r) => /\/events\/\d+$/.test(r.key.split("\u0000")[1]));
        expect(row).to.not.equal(undefined);
        // Headers, a newline and the body, deflated against the file's dictionary.
        const { bytes: dictionary } = reader.prepare("SELECT bytes FROM dictionary").get() as { bytes: Buffer };
        const plain = inflateRawSync(row!.answer, { dictionary });
        const body = plain.subarray(plain.indexOf(10) + 1);
        expect(row!.answer.length).to.be.lessThan(body.length / 3);
        const [base, route] = row!.key.split("\u0000");
        expect(base).to.equal(root);
        const answer = await fetch(`${root}${route.slice(1)}`);
        expect(answer.status).to.equal(200);
        // The bytes sent are the stored ones, and nothing new was stored.
        expect(Buffer.from(await answer.arrayBuffer()).equals(body)).to.equal(true);
        expect(count()).to.equal(Number(warmed[1]));
      } finally {
        reader.close();
      }
    } finally {
      serve.kill();
      await serve.exit;
    }
  });

  it("--answer-store-max bounds the file in MiB; without --answer-store, or not a whole number, it is a usage error", async () => {
    const cases = [["--answer-store-max", "64"], ["--answer-store", path.join(dir, "bounded.sqlite"), "--answer-store-max", "0"], ["--answer-store", path.join(dir, "bounded.sqlite"), "--answer-store-max", "1G"]];
    // Refused before anything is opened: the three run side by side, each judged in turn.
    const runs = cases.map((args) => runCli(["serve", "--port", "0", "--db", db, ...args]));
    await Promise.all(runs.map((run) => run.closed));
    for (const [i, args] of cases.entries()) {
      const run = runs[i]!;
      expect(await run.exit, args.join(" ")).to.equal(2);
      expect(run.stderr()).to.match(/--answer-store/);
    }
  });

  it("--warm without --answer-store is a usage error", async () => {
    const run = runCli(["serve", "--port", "0", "--db", db, "--warm"]);
    expect(await run.exit).to.equal(2);
    expect(run.stderr()).to.match(/--answer-store/);
  });
});

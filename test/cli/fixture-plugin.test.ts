/**
 * `--plugin` on the fixture commands and serve: a host's registrations in
 * a module of its own, so that `fixture generate --posts job:…` makes
 * content for a host type (deterministic per seed) and `fixture load`
 * loads it; serve mounts the plugin's routes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { createSite } from "../../lib/site";
import { applyPlugins } from "../../lib/plugin";
import type { Fixture } from "../../lib/fixtures";
import { registerJobsPlugin } from "../support/job-plugin";
import { runCli } from "../support/cli";
import { runCli as spawnCli } from "./run-cli";

const PLUGIN = path.resolve(__dirname, "../support/job-plugin.ts");

describe("calpress fixture … --plugin", function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-plugin-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const generate = async (seed: number, file: string, extra: string[] = []): Promise<Fixture> => {
    const r = await runCli(["fixture", "generate", "--plugin", PLUGIN, "--posts", "job:60", "--posts", "page_note:12", "--seed", String(seed), "--out", file, ...extra]);
    expect(r.code, r.err.join("\n")).to.equal(0);
    expect(r.out[0]).to.equal(`wrote ${extra.includes("--events") ? "5 events, " : ""}60 job posts, 12 page_note posts to ${file}`);
    return JSON.parse(fs.readFileSync(file, "utf8")) as Fixture;
  };

  it("generate --posts: the same file for a seed, another for another seed", async () => {
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.json");
    const c = path.join(dir, "c.json");
    await generate(7, a);
    await generate(7, b);
    await generate(8, c);
    expect(fs.readFileSync(a, "utf8")).to.equal(fs.readFileSync(b, "utf8"));
    expect(fs.readFileSync(c, "utf8")).to.not.equal(fs.readFileSync(a, "utf8"));
  });

  it("generate --posts: a value of its kind for every typed field, terms of the type's taxonomies (trees where hierarchical), known authors, parents", async () => {
    const f = await generate(3, path.join(dir, "g.json"));
    // Posts only: no calendar content.
    expect(f.events).to.equal(undefined);
    expect(f.venues).to.equal(undefined);
    const jobs = (f.posts ?? []).filter((p) => p.type === "job");
    expect(jobs).to.have.length(60);
    const logins = new Set((f.users ?? []).map((u) => u.login));
    for (const job of jobs) {
      const v = job.fields ?? {};
      expect(Object.keys(v).sort()).to.deep.equal(["closes", "contact_email", "employer", "grade", "openings", "remote", "salary", "summary", "website"]);
      expect(v.contact_email).to.match(/^job\d+@example\.org$/);
      expect(v.website).to.match(/^https:\/\/example\.org\/job\/\d+$/);
      expect(typeof v.summary).to.equal("string");
      expect(Number.isInteger(v.openings)).to.equal(true);
      expect(v.salary).to.be.a("number");
      expect(v.remote).to.be.a("boolean");
      expect(v.closes).to.match(/^[+-]\d+d \d\d:\d\d$/);
      expect(String(v.grade).length).to.be.at.most(4);
      expect(String(v.employer).length).to.be.at.most(80);
      expect(logins.has(job.author ?? "")).to.equal(true);
      // A day back at least: whatever the hour, a published job loads as published, not scheduled.
      if (job.date !== undefined) expect(job.date).to.match(/^-([1-9]\d*)d \d\d:\d\d$/);
    }
    const terms = f.terms ?? [];
    const departments = terms.filter((t) => t.taxonomy === "department");
    expect(departments.length).to.be.at.least(5);
    expect(departments.some((t) => t.parent !== undefined)).to.equal(true);
    expect(terms.filter((t) => t.taxonomy === "skill").every((t) => t.parent === undefined)).to.equal(true);
    expect(jobs.filter((j) => (j.terms?.department ?? []).length > 0).length).to.equal(60);
    expect(jobs.some((j) => (j.terms?.skill ?? []).length > 0)).to.equal(true);
    expect(new Set(jobs.map((j) => j.status)).size).to.be.at.least(3);
    const notes = (f.posts ?? []).filter((p) => p.type === "page_note");
    // A type without `pending`/`future` gets none; a hierarchical type gets parents.
    expect(notes.every((n) => ["publish", "draft", "private", "trash"].includes(n.status ?? "publish"))).to.equal(true);
    expect(notes.some((n) => n.parent !== undefined)).to.equal(true);
  });

  it("fixture load --plugin loads what generate wrote; without the plugin it is refused at the JSON path", async () => {
    const file = path.join(dir, "g.json");
    const f = await generate(5, file, ["--events", "5"]);
    const db = path.join(dir, "site.sqlite");
    const refused = await runCli(["fixture", "load", file, "--db", db]);
    expect(refused.code).to.equal(1);
    expect(refused.err[0]).to.match(/^calpress: invalid fixture \S+: \$\.terms\[0\]\.taxonomy: unknown taxonomy "department"/);
    const loaded = await runCli(["fixture", "load", file, "--db", db, "--plugin", PLUGIN]);
    expect(loaded.code, loaded.err.join("\n")).to.equal(0);
    const counts = JSON.parse(loaded.out[0].replace(/^loaded \S+: /, "")) as Record<string, number>;
    expect(counts).to.include({ posts: 72, events: 5, terms: (f.terms ?? []).length });
    const site = await createSite({ db, webhooks: false });
    try {
      await applyPlugins(site, [registerJobsPlugin]);
      const jobs = await site.engine.posts.find({ type: "job", status: ["publish", "draft", "pending", "private", "trash", "future"], perPage: 100 });
      expect(jobs.total).to.equal(60);
      expect(jobs.posts.every((p) => typeof p.fields.closes === "string" && /^\d{4}-\d\d-\d\d \d\d:\d\d:00$/.test(p.fields.closes))).to.equal(true);
    } finally {
      await site.close();
    }
  });

  it("generate --db --plugin loads directly; --posts of an unknown or calendar type is a usage error", async () => {
    const db = path.join(dir, "site.sqlite");
    const r = await runCli(["fixture", "generate", "--plugin", PLUGIN, "--posts", "job:20", "--db", db]);
    expect(r.code, r.err.join("\n")).to.equal(0);
    expect(r.out[0]).to.match(/^loaded .*"posts":20/);
    const unknown = await runCli(["fixture", "generate", "--posts", "job:20", "--out", path.join(dir, "x.json")]);
    expect(unknown.code).to.equal(2);
    expect(unknown.err[0]).to.equal('calpress: --posts job:20: unknown post type "job" (registered: attachment; a plugin registers its own: --plugin <file>)');
    const calendar = await runCli(["fixture", "generate", "--posts", "event:20", "--out", path.join(dir, "x.json")]);
    expect(calendar.err[0]).to.equal('calpress: --posts event:20: "event" is the calendar\'s: use --events');
    const malformed = await runCli(["fixture", "generate", "--posts", "job", "--out", path.join(dir, "x.json")]);
    expect(malformed.err[0]).to.equal('calpress: --posts must be <post type>:<count from 1 to 10000000>, not "job"');
    expect(fs.existsSync(path.join(dir, "x.json"))).to.equal(false);
  });

  it("--plugin: a missing file, a missing export, an ambiguous module and an ES module", async () => {
    const missing = await runCli(["fixture", "load", "minimal", "--db", path.join(dir, "s.sqlite"), "--plugin", path.join(dir, "nope.js")]);
    expect(missing.code).to.equal(2);
    expect(missing.err[0]).to.equal(`calpress: --plugin: no such file: ${path.join(dir, "nope.js")}`);
    // Refused before the database is opened.
    expect(fs.existsSync(path.join(dir, "s.sqlite"))).to.equal(false);
    const noExport = await runCli(["fixture", "load", "minimal", "--db", path.join(dir, "s.sqlite"), "--plugin", `${PLUGIN}#registerBooks`]);
    expect(noExport.code).to.equal(2);
    expect(noExport.err[0]).to.equal(`calpress: --plugin ${PLUGIN}#registerBooks: no exported function "registerBooks" (exported functions: registerJobsPlugin)`);
    const two = path.join(dir, "two.js");
    fs.writeFileSync(two, "exports.a = () => {};\nexports.b = () => {};\n");
    const ambiguous = await runCli(["fixture", "load", "minimal", "--db", path.join(dir, "s.sqlite"), "--plugin", two]);
    expect(ambiguous.err[0]).to.equal(`calpress: --plugin ${two}: name the function to run, as ${two}#<export> (exported functions: a, b)`);
    // An ES module's default export, registering a type the fixture then uses.
    const esm = path.join(dir, "plugin.mjs");
    fs.writeFileSync(esm, 'export default function (site) { site.engine.registerPostType("note", { fields: { body: { type: "text" } } }); }\n');
    const fixture = path.join(dir, "notes.json");
    fs.writeFileSync(fixture, JSON.stringify({ posts: [{ type: "note", title: "Hello", fields: { body: "Hi" } }] }));
    const loaded = await runCli(["fixture", "load", fixture, "--db", path.join(dir, "s.sqlite"), "--plugin", esm]);
    expect(loaded.code, loaded.err.join("\n")).to.equal(0);
    expect(loaded.out[0]).to.match(/"posts":1/);
  });

  it("serve --plugin serves the plugin's routes over its fixture", async () => {
    const file = path.join(dir, "jobs.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        terms: [{ taxonomy: "department", key: "eng", name: "Engineering" }],
        posts: [
          { type: "job", title: "Builder", fields: { employer: "Acme", openings: 3 }, terms: { department: ["eng"] } },
          { type: "job", title: "Draft job", status: "draft" },
        ],
      }),
    );
    const run = spawnCli(["serve", "--port", "0", "--db", ":memory:", "--fixture", file, "--plugin", PLUGIN]);
    try {
      const root = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = /^calpress listening on (\S+)$/.exec(run.stdout[0] ?? "");
          if (m) {
            clearInterval(timer);
            resolve(m[1] as string);
          }
        }, 50);
        void run.exit.then((code) => {
          clearInterval(timer);
          reject(new Error(`serve exited ${code}: ${run.stderr}`));
        });
      });
      const res = await fetch(`${root}jobs/v1/jobs?department=engineering`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ total: 1, jobs: [{ id: 1, title: "Builder", employer: "Acme", openings: 3 }] });
    } finally {
      run.child.kill("SIGTERM");
    }
    expect(await run.exit).to.equal(0);
  });
});

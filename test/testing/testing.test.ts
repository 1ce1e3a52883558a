/**
 * calpress/testing (lib/testing): sites made from a fixture through a
 * template, on real ports, reset, run side by side, closed without a trace,
 * on every database the suite has.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import knexFactory from "knex";
import { defaultRecordFile } from "../../lib/cache";
import { configFromTarget } from "../../lib/db/target";
import { FixtureError } from "../../lib/fixtures";
import { testSites, type TestSite } from "../../lib/testing";
import { registerJobsPlugin } from "../support/job-plugin";

const JOBS = path.resolve(__dirname, "../support/jobs.fixture.json");
const ROOT = path.resolve(__dirname, "../..");

/** Where each database's sites live: "sqlite", or the server URLs the suite was given. */
function bases(): Array<{ name: string; db: string }> {
  const out = [{ name: "sqlite", db: "sqlite" }];
  if (process.env.CALPRESS_TEST_PG_URL) out.push({ name: "postgres", db: process.env.CALPRESS_TEST_PG_URL });
  if (process.env.CALPRESS_TEST_MYSQL_URL) out.push({ name: "mysql", db: process.env.CALPRESS_TEST_MYSQL_URL });
  return out;
}

/** Whether the database a site's target names still exists. */
async function exists(base: string, target: string): Promise<boolean> {
  if (base === "sqlite") return fs.existsSync(target);
  const name = new URL(target).pathname.slice(1);
  const k = knexFactory({ ...configFromTarget(base), pool: { min: 0, max: 1 } });
  try {
    const sql = base.startsWith("postgres") ? "select 1 as found from pg_database where datname = ?" : "select 1 as found from information_schema.schemata where schema_name = ?";
    const result = (await k.raw(sql, [name])) as { rows?: unknown[] } | [unknown[]];
    const rows = Array.isArray(result) ? result[0] : (result.rows ?? []);
    return rows.length > 0;
  } finally {
    await k.destroy();
  }
}

/** The database a site runs on, as its knex names it. */
function targetOf(t: TestSite): string {
  const conn = t.site.engine.knex.client.config.connection as { filename?: string; host?: string; port?: number; database?: string; user?: string } | string;
  if (typeof conn === "string") return conn;
  if (conn.filename !== undefined) return conn.filename;
  return `db://${conn.host}/${conn.database}`;
}

type Job = { id: number; title: string; employer: string | null; openings: number | null };

async function jobs(t: TestSite): Promise<Job[]> {
  const res = await t.fetch("/wp-json/jobs/v1/jobs");
  expect(res.status).to.equal(200);
  return ((await res.json()) as { jobs: Job[] }).jobs;
}

const FIXTURE_JOBS = ["Web developer", "Engineering lead", "Sales representative"];

for (const base of bases()) {
  describe(`calpress/testing (${base.name})`, function () {
    this.timeout(120_000);
    const sites = testSites({ fixture: JOBS, plugins: [registerJobsPlugin], db: base.db });
    before(() => sites.ready());
    after(() => sites.close());

    it("makes a site from the fixture, with the plugin's routes on a listening server", async () => {
      const t = await sites.create();
      try {
        expect(t.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(t.api).to.equal(`${t.url}/wp-json`);
        expect((await jobs(t)).map((j) => j.title)).to.deep.equal(FIXTURE_JOBS);
        expect((await jobs(t))[0]).to.include({ employer: "Acme", openings: 2 });
        const web = await t.fetch("/wp-json/jobs/v1/jobs?department=engineering");
        expect(((await web.json()) as { total: number }).total).to.equal(2);
        expect(Object.keys(t.users)).to.deep.equal(["admin", "recruiter"]);
        // The fixture's application passwords log in.
        const me = await t.fetch("/wp-json/wp/v2/users/me", { as: "recruiter" });
        expect(((await me.json()) as { name: string }).name).to.equal("recruiter");
        expect(() => t.fetch("/wp-json/", { as: "visitor" })).to.throw('no application password for "visitor" in the fixture (logins with one: admin, recruiter)');
        expect(await t.site.engine.options.get("jobs_per_board")).to.equal("25");
        expect(await t.site.engine.posts.count({ type: "page_note" })).to.equal(2);
      } finally {
        await t.close();
      }
    });

    it("keeps sites apart, also when made side by side, and reset() brings one back to the fixture behind the same URL", async () => {
      const made = await Promise.all([sites.create(), sites.create(), sites.create()]);
      try {
        expect(new Set(made.map((t) => t.url)).size).to.equal(3);
        expect(new Set(made.map(targetOf)).size).to.equal(3);
        // Each writes its own job over HTTP, at the same time.
        await Promise.all(
          made.map(async (t, i) => {
            const res = await t.fetch("/wp-json/jobs/v1/jobs", { method: "POST", as: "recruiter", json: { title: `Job of site ${i}`, employer: `Employer ${i}` } });
            expect(res.status, await res.clone().text()).to.equal(201);
          }),
        );
        for (const [i, t] of made.entries()) {
          const titles = (await jobs(t)).map((j) => j.title);
          expect(titles).to.deep.equal([...FIXTURE_JOBS, `Job of site ${i}`]);
        }
        const t = made[0];
        const url = t.url;
        const before = targetOf(t);
        const oldSite = t.site;
        await t.reset();
        expect(t.url).to.equal(url);
        expect(t.site).to.not.equal(oldSite);
        expect(targetOf(t)).to.not.equal(before);
        expect((await jobs(t)).map((j) => j.title)).to.deep.equal(FIXTURE_JOBS);
        // The others keep their writes; the old database is gone.
        expect((await jobs(made[1])).length).to.equal(4);
        if (!before.startsWith("db://")) expect(await exists(base.db, before)).to.equal(false);
        // Ids go on from the fixture's, as in the template.
        const created = await t.fetch("/wp-json/jobs/v1/jobs", { method: "POST", as: "admin", json: { title: "After reset" } });
        expect(((await created.json()) as Job).id).to.be.greaterThan(6);
      } finally {
        await Promise.all(made.map((t) => t.close()));
      }
    });

    it("close() stops the server and drops the database", async () => {
      const t = await sites.create();
      const target = targetOf(t);
      const dbName = target.startsWith("db://") ? new URL(target.replace(/^db:/, "http:")).pathname.slice(1) : undefined;
      // A server database's kept records are in a file of the suite's own (a SQLite one's beside it), gone with the database.
      const records = (): string[] =>
        fs
          .readdirSync(os.tmpdir())
          .filter((d) => d.startsWith("calpress-records-"))
          .flatMap((d) => fs.readdirSync(path.join(os.tmpdir(), d)).filter((f) => f.startsWith(`${dbName ?? path.basename(target)}.records`)));
      if (dbName !== undefined) expect(records(), "the site's record file").to.not.deep.equal([]);
      else expect(fs.existsSync(`${target}.records`), "the record file beside the database").to.equal(true);
      // The file a site on this database would keep by default (the machine's, named after the database) is not made.
      const machineFile = defaultRecordFile(t.site.engine);
      await t.close();
      expect(records(), "record files left").to.deep.equal([]);
      if (dbName !== undefined && machineFile !== null) expect(fs.existsSync(machineFile), machineFile).to.equal(false);
      if (dbName === undefined) expect(fs.existsSync(`${target}.records`)).to.equal(false);
      await t.close(); // twice is fine
      const refused = await fetch(`${t.url}/wp-json/`).then(
        () => false,
        () => true,
      );
      expect(refused).to.equal(true);
      if (dbName === undefined) expect(fs.existsSync(target)).to.equal(false);
      else {
        const u = new URL(base.db);
        u.pathname = `/${dbName}`;
        expect(await exists(base.db, u.toString())).to.equal(false);
      }
    });
  });
}

describe("calpress/testing: fixtures, options and the end", function () {
  this.timeout(60_000);

  it("takes a fixture object, createSite options, and no fixture at all", async () => {
    const sites = testSites({
      fixture: { options: { site_name: "From an object" }, users: [{ login: "ed", role: "editor", app_password: "ed-pass-123" }] },
      site: { timezone: "Europe/Rome", restPrefix: "/api" },
    });
    const empty = testSites({ site: { calendar: false } });
    try {
      const t = await sites.create();
      expect(t.api).to.equal(`${t.url}/api`);
      const index = (await (await t.fetch("/api/")).json()) as { name: string; timezone_string: string };
      expect(index).to.include({ name: "From an object", timezone_string: "Europe/Rome" });
      expect((await t.fetch("/api/wp/v2/users/me", { as: "ed" })).status).to.equal(200);
      const e = await empty.create();
      expect((await e.fetch("/wp-json/calendar/events/v1/events")).status).to.equal(404);
      expect(e.users).to.deep.equal({});
    } finally {
      await sites.close();
      await empty.close();
    }
  });

  it("a fixture that does not load fails create() with its FixtureError, and close() still cleans up", async () => {
    const sites = testSites({ fixture: { posts: [{ type: "job", title: "No plugin" }] } });
    let error: unknown;
    await sites.create().catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(FixtureError);
    expect((error as FixtureError).issues[0]).to.deep.equal({ path: "$.posts[0].type", message: 'unknown post type "job" (registered: attachment)' });
    await sites.close();
    let afterClose: unknown;
    await sites.create().catch((err: unknown) => (afterClose = err));
    expect(String(afterClose)).to.contain("testSites: closed");
  });

  it("leaves nothing open: a suite using it exits by itself, without --exit, and removes its files", async function () {
    this.timeout(180_000);
    const child = spawn(process.execPath, [require.resolve("mocha/bin/mocha.js"), "--no-config", "--require", "tsx/cjs", "--timeout", "120000", path.join(__dirname, "exit.suite.ts")], {
      cwd: ROOT,
      env: { ...process.env },
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const exited = await new Promise<number | null | "hung">((resolve) => {
      // A hang guard, not a timing assertion: a handle left open keeps it alive for good.
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve("hung");
      }, 150_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect(exited, out).to.equal(0);
    const dirs = [...out.matchAll(/^sqlite directory: (.+)$/gm)].map((m) => m[1] as string);
    expect(dirs.length, out).to.be.greaterThan(0);
    for (const dir of dirs) expect(fs.existsSync(dir), dir).to.equal(false);
  });
});

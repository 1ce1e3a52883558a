import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import knexFactory, { type Knex } from "knex";
import { configFromTarget } from "../../lib/db/target";
import { testTargets, type TestDatabase, type TestTarget } from "../support/databases";
import { lanes, started } from "../support/lanes";
import { readyLine } from "../support/process";

/**
 * The acceptance test of the package (issue 18): a scratch host app made
 * only of what the README says — `npm install` of the packed tarball, an
 * existing Express 4 or 5 app with its own session login and its own
 * `users` table on PostgreSQL and MariaDB — mounts calpress as the README
 * does (the router at `/wp-json`, the pages under `/calendar`) with default options, type-checks in strict mode against the
 * installed package alone, and serves the API and the pages there.
 *
 * Installs are `--prefer-offline` (the cache the repository's own `npm ci`
 * filled) and `--ignore-scripts`: the native module (better-sqlite3; sqlite3
 * too where a host adds it) then takes the repository's build of the same
 * version (same machine, same Node), or is rebuilt when the versions differ.
 * Which install scripts a real install would run is read from the installed
 * packages themselves.
 */

/**
 * Parts of the done criteria that other branches deliver. Each flag turns on
 * its tests and the code of the scratch app that uses the new API; flip it
 * when that branch is merged.
 */
/** The host's own table, with the name calpress's unprefixed schema once had. */
const HOST_USERS = "users";

const ROOT = path.resolve(__dirname, "../..");
const run = promisify(execFile);

/** The environment of a child npm: none of the `npm_*` variables of an `npm test` around us. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

async function npm(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run("npm", args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function install(dir: string, packages: string[]): Promise<void> {
  await npm(dir, ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", ...packages]);
  for (const name of ["sqlite3", "better-sqlite3"]) {
    const theirs = path.join(dir, "node_modules", name);
    const ours = path.join(ROOT, "node_modules", name);
    if (!fs.existsSync(theirs)) continue;
    const version = (p: string): string => (JSON.parse(fs.readFileSync(path.join(p, "package.json"), "utf8")) as { version: string }).version;
    const built = path.join(ours, "build", "Release");
    if (version(theirs) === version(ours) && fs.existsSync(built)) {
      fs.mkdirSync(path.join(theirs, "build", "Release"), { recursive: true });
      for (const f of fs.readdirSync(built).filter((f) => f.endsWith(".node"))) fs.copyFileSync(path.join(built, f), path.join(theirs, "build", "Release", f));
    } else {
      await npm(dir, ["rebuild", name]);
    }
  }
}

/**
 * The packages under `dir`/node_modules that npm would run an install script
 * of: a preinstall, install or postinstall script, or a binding.gyp (npm
 * then runs `node-gyp rebuild` itself), as `name: what runs`.
 */
function installScripts(dir: string): string[] {
  const found: string[] = [];
  const visit = (modules: string): void => {
    if (!fs.existsSync(modules)) return;
    for (const entry of fs.readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const full = path.join(modules, entry.name);
      if (entry.name.startsWith("@")) {
        visit(full);
        continue;
      }
      const manifest = path.join(full, "package.json");
      if (fs.existsSync(manifest)) {
        const { name, scripts = {} } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name: string; scripts?: Record<string, string> };
        const hooks = ["preinstall", "install", "postinstall"].filter((hook) => scripts[hook] !== undefined);
        if (hooks.length === 0 && fs.existsSync(path.join(full, "binding.gyp"))) hooks.push("node-gyp rebuild");
        if (hooks.length > 0) found.push(`${name}: ${hooks.join(", ")}`);
      }
      visit(path.join(full, "node_modules"));
    }
  };
  visit(path.join(dir, "node_modules"));
  return found.sort();
}

function scratchDir(name: string, pkg: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `calpress-${name}-`));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `scratch-${name}`, version: "1.0.0", private: true, ...pkg }, null, 2));
  return dir;
}

/** The scrypt hash the scratch app checks (`salt$hash`, hex). */
function hashPassword(password: string, salt = crypto.randomBytes(16).toString("hex")): string {
  return `${salt}$${crypto.scryptSync(password, salt, 32).toString("hex")}`;
}

/** The scratch host: an ordinary Express app with its own users, login and session cookie, then calpress as the README mounts it. */
function appSource(): string {
  const answer = "{ user: { login: email }, ambient: true }";
  const nonce = "await site.createNonce({ login: user.email })";
  return `import crypto from "node:crypto";
import express, { type Request } from "express";
import knex from "knex";
import { createSite } from "calpress";

const url = process.env.DATABASE_URL ?? "";
const db = knex(url.startsWith("postgres") ? { client: "pg", connection: url } : { client: "mysql2", connection: url });

interface HostUserRow {
  id: number;
  email: string;
  password_hash: string;
}

function checkPassword(password: string, stored: string): boolean {
  const [salt = "", hash = ""] = stored.split("$");
  const actual = crypto.scryptSync(password, salt, 32);
  const expected = Buffer.from(hash, "hex");
  return expected.length === actual.length && crypto.timingSafeEqual(actual, expected);
}

/** Session id → the e-mail of the logged-in user. */
const sessions = new Map<string, string>();
function sessionEmail(req: Request): string | undefined {
  const sid = /(?:^|;\\s*)host_sid=([^;]+)/.exec(req.headers.cookie ?? "")?.[1];
  return sid === undefined ? undefined : sessions.get(sid);
}

const site = await createSite({
  db: url,
  authenticate: (req) => {
    const email = sessionEmail(req);
    return email === undefined ? null : ${answer};
  },
});

const app = express();
app.get("/", (_req, res) => {
  res.send("the host's home page");
});
app.post("/login", express.urlencoded({ extended: false }), (req, res) => {
  const { email, password } = req.body as { email?: string; password?: string };
  void (async () => {
    const user = (await db<HostUserRow>(${JSON.stringify(HOST_USERS)}).where({ email: email ?? "" }).first()) as HostUserRow | undefined;
    if (!user || !checkPassword(password ?? "", user.password_hash)) {
      res.status(401).json({ error: "bad login" });
      return;
    }
    await site.engine.users.ensure({ login: user.email, email: user.email, role: "editor" });
    const sid = crypto.randomBytes(18).toString("base64url");
    sessions.set(sid, user.email);
    res.cookie("host_sid", sid, { httpOnly: true, sameSite: "lax", path: "/" });
    res.json({ nonce: ${nonce} });
  })().catch((err: unknown) => res.status(500).json({ error: String(err) }));
});

app.use("/wp-json", site.router);
app.use(site.rootMiddleware);
for (const [path, router] of site.pages) app.use(path === "/" ? "/calendar" : \`/calendar\${path}\`, router);

const server = app.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  console.log(\`listening on http://127.0.0.1:\${port}/calendar/\`);
});
process.once("SIGTERM", () => {
  server.close();
  void Promise.all([site.close(), db.destroy()]).then(() => process.exit(0));
});
`;
}

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    module: "node16",
    moduleResolution: "node16",
    target: "ES2022",
    types: ["node"],
    outDir: "out",
  },
  files: ["app.ts"],
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
}

interface App {
  child: ChildProcessWithoutNullStreams;
  origin: string;
  stderr: () => string;
}

async function startApp(dir: string, databaseUrl: string): Promise<App> {
  const child = spawn(process.execPath, ["out/app.js"], { cwd: dir, env: cleanEnv({ DATABASE_URL: databaseUrl, PORT: "0" }) });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const line = await readyLine(child).line;
  const m = /^listening on (http:\/\/[^/]+)\/calendar\/$/.exec(line);
  if (!m) throw new Error(`unexpected ready line: ${line}`);
  return { child, origin: m[1] ?? "", stderr: () => stderr };
}

function stopApp(app: App | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!app || app.child.exitCode !== null) return resolve();
    app.child.once("exit", () => resolve());
    app.child.kill("SIGTERM");
  });
}

/** Type-checks the scratch app in `dir` with its own TypeScript; the output says why when it fails. */
async function typecheckIn(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    const r = await run(process.execPath, [path.join(dir, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: dir, env: cleanEnv() });
    return { ok: true, output: r.stdout };
  } catch (err) {
    return { ok: false, output: String((err as { stdout?: string }).stdout ?? err) };
  }
}

/** The host's own table and rows, as they are before calpress ever runs. */
async function createHostUsers(k: Knex): Promise<void> {
  await k.schema.createTable(HOST_USERS, (t) => {
    t.increments("id");
    t.string("email", 190).notNullable().unique();
    t.string("password_hash", 200).notNullable();
  });
  await k(HOST_USERS).insert([
    { email: "ann@example.com", password_hash: hashPassword("ann-secret") },
    { email: "bob@example.com", password_hash: hashPassword("bob-secret") },
  ]);
}

async function snapshotHostUsers(k: Knex): Promise<unknown> {
  const columns = Object.keys(await k(HOST_USERS).columnInfo()).sort();
  const rows = await k(HOST_USERS).select("id", "email", "password_hash").orderBy("id");
  return { columns, rows: rows.map((r: { id: number | string; email: string; password_hash: string }) => ({ ...r, id: Number(r.id) })) };
}

async function tableNames(k: Knex, target: TestTarget["name"]): Promise<string[]> {
  if (target === "postgres") {
    const rows = (await k.raw("select tablename from pg_tables where schemaname = current_schema()")) as { rows: Array<{ tablename: string }> };
    return rows.rows.map((r) => r.tablename);
  }
  const [rows] = (await k.raw("show tables")) as [Array<Record<string, string>>];
  return rows.map((r) => Object.values(r)[0] ?? "");
}

describe("host: a scratch app built from the README with the packed tarball", function () {
  this.timeout(180_000);
  const servers = testTargets().filter((t) => t.name !== "sqlite");
  let tarball: string;
  const dirs: string[] = [];
  /**
   * The scratch apps, each installed (and type-checked) once the tarball is
   * made, two at a time (each spends much of its time waiting on the disk or
   * a child); each group's `before` awaits its own, so the later apps install
   * while the earlier ones' tests run.
   */
  const queue = lanes();
  let sqliteApp: Promise<string>;
  let pluginApp: Promise<{ dir: string; compiled: { ok: boolean; output: string }; commands: string[][] }>;
  const expressApps = new Map<number, Promise<{ dir: string; typecheck: { ok: boolean; output: string } }>>();

  before(async function () {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-pack-"));
    dirs.push(out);
    // `npm pack` runs `prepare` (the build) first, as publishing does.
    const json = await npm(ROOT, ["pack", "--json", "--pack-destination", out]);
    const [packed] = JSON.parse(json.slice(json.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    if (!packed) throw new Error("npm pack produced nothing");
    tarball = path.join(out, packed.filename);
    sqliteApp = started(
      queue(async () => {
        const dir = scratchDir("sqlite", {});
        dirs.push(dir);
        await install(dir, [tarball]);
        return dir;
      }),
    );
    pluginApp = started(queue(preparePluginApp));
    for (const major of [4, 5]) {
      expressApps.set(
        major,
        started(
          queue(async () => {
            const dir = scratchDir(`express${major}`, { type: "module" });
            dirs.push(dir);
            await install(dir, [tarball, `express@${major}`, `@types/express@${major}`, "@types/node@20", "typescript@5", "knex@3", "pg@8", "mysql2@3"]);
            fs.writeFileSync(path.join(dir, "app.ts"), appSource());
            fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
            return { dir, typecheck: await typecheckIn(dir) };
          }),
        ),
      );
    }
  });
  after(async () => {
    // No install may still be writing into a directory removed here.
    await Promise.allSettled([sqliteApp, pluginApp, ...expressApps.values()]);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The README's testing section: the plugin module, the mocha suite for it, and the two commands. */
  async function preparePluginApp(): Promise<{ dir: string; compiled: { ok: boolean; output: string }; commands: string[][] }> {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Test your app with calpress/testing"));
    const block = (info: string): string => {
      const code = new RegExp("^```" + info.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "\\n([\\s\\S]*?)^```", "m").exec(section)?.[1];
      if (code === undefined) throw new Error(`no \`\`\`${info} block in the README's testing section`);
      return code;
    };
    const commands = block("sh")
      .split("\n")
      .filter((line) => line.startsWith("npx calpress "))
      .map((line) => line.replace(/\s+#.*$/, "").split(/\s+/).slice(2));
    const dir = scratchDir("plugin-author", { type: "module" });
    dirs.push(dir);
    await install(dir, [tarball, "typescript@5", "mocha@11", "@types/mocha@10", "@types/node@20", "@types/express@5"]);
    fs.writeFileSync(path.join(dir, "jobs.ts"), block("ts file=jobs.ts"));
    fs.writeFileSync(path.join(dir, "jobs.test.ts"), block("ts mocha"));
    const tsconfig = { compilerOptions: { strict: true, skipLibCheck: false, module: "node16", moduleResolution: "node16", target: "ES2022", types: ["node", "mocha"] }, files: ["jobs.ts", "jobs.test.ts"] };
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    return { dir, compiled: await typecheckIn(dir), commands };
  }

  describe("a SQLite-only host", function () {
    let dir: string;
    before(async () => {
      dir = await sqliteApp;
    });

    it("installs neither pg, mysql2 nor sqlite3, but express (the peer)", () => {
      expect(fs.existsSync(path.join(dir, "node_modules/pg")), "pg").to.equal(false);
      expect(fs.existsSync(path.join(dir, "node_modules/mysql2")), "mysql2").to.equal(false);
      expect(fs.existsSync(path.join(dir, "node_modules/sqlite3")), "sqlite3").to.equal(false);
      expect(fs.existsSync(path.join(dir, "node_modules/express/package.json")), "express").to.equal(true);
    });

    it("has no install script but better-sqlite3's: no telemetry (@scarf/scarf), no second SQLite driver to compile", () => {
      expect(installScripts(dir)).to.deep.equal(["better-sqlite3: install"]);
      for (const name of ["@scarf/scarf", "swagger-ui-dist", "sqlite3"]) expect(fs.existsSync(path.join(dir, "node_modules", name)), name).to.equal(false);
    });

    it("ships LICENSE and README, no source maps, no fuzzer or tests", () => {
      const pkg = path.join(dir, "node_modules/calpress");
      expect(fs.existsSync(path.join(pkg, "LICENSE"))).to.equal(true);
      expect(fs.existsSync(path.join(pkg, "README.md"))).to.equal(true);
      const files: string[] = [];
      const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          const full = path.join(d, e.name);
          if (e.isDirectory()) walk(full);
          else files.push(path.relative(pkg, full));
        }
      };
      walk(pkg);
      expect(files.filter((f) => f.endsWith(".map"))).to.deep.equal([]);
      // Whatever the README links is in the package (there is no public repository to link instead).
      const readme = fs.readFileSync(path.join(pkg, "README.md"), "utf8");
      const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((l) => !/^(https?:|mailto:|#)/.test(l));
      expect(links.length).to.be.greaterThan(3);
      expect(links.filter((l) => !fs.existsSync(path.join(pkg, l.split("#")[0] as string)))).to.deep.equal([]);
      expect(files).to.include.members(["examples/book-plugin.ts", "examples/job-board.ts", "docs/generated-controllers.md"]);
      expect(files.filter((f) => /^(dist\/)?(fuzz|bench|test|lib)\//.test(f))).to.deep.equal([]);
    });

    it("require() and import both give the package, and a SQLite site runs", async () => {
      const cjs = `const { createSite } = require("calpress"); createSite({ db: ":memory:" }).then(async (s) => { console.log("cjs", typeof s.router); await s.close(); });`;
      const esm = `import { createSite } from "calpress"; const s = await createSite({ db: ":memory:" }); console.log("esm", typeof s.router); await s.close();`;
      expect((await run(process.execPath, ["-e", cjs], { cwd: dir, env: cleanEnv() })).stdout.trim()).to.equal("cjs function");
      expect((await run(process.execPath, ["--input-type=module", "-e", esm], { cwd: dir, env: cleanEnv() })).stdout.trim()).to.equal("esm function");
      const pkgJson = `console.log(require("calpress/package.json").name)`;
      expect((await run(process.execPath, ["-e", pkgJson], { cwd: dir, env: cleanEnv() })).stdout.trim()).to.equal("calpress");
    });

    it("calpress/testing: require() and import give testSites; a site from a fixture answers, and the process ends by itself", async () => {
      const use = (tag: string): string =>
        `const sites = testSites({ fixture: "minimal" }); const t = await sites.create(); ` +
        `const res = await t.fetch("/wp-json/calendar/events/v1/events", { as: "admin" }); console.log("${tag}", res.status, (await res.json()).total > 0); await sites.close();`;
      const cjs = `const { testSites } = require("calpress/testing"); (async () => { ${use("cjs")} })();`;
      const esm = `import { testSites } from "calpress/testing"; ${use("esm")}`;
      expect((await run(process.execPath, ["-e", cjs], { cwd: dir, env: cleanEnv() })).stdout.trim()).to.equal("cjs 200 true");
      expect((await run(process.execPath, ["--input-type=module", "-e", esm], { cwd: dir, env: cleanEnv() })).stdout.trim()).to.equal("esm 200 true");
    });

    it("the README's first example runs as it is written", async () => {
      const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
      const section = readme.slice(readme.indexOf("## Use it in your app"));
      const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
      if (code === undefined) throw new Error("no ```ts block under \"## Use it in your app\"");
      fs.writeFileSync(path.join(dir, "readme-app.mjs"), code);
      const port = await freePort();
      const child = spawn(process.execPath, ["readme-app.mjs"], { cwd: dir, env: cleanEnv({ PORT: String(port) }) });
      try {
        const line = await readyLine(child).line;
        const url = /listening on (http:\/\/\S+)/.exec(line)?.[1] ?? "";
        expect(url.startsWith(`http://127.0.0.1:${port}/`), line).to.equal(true);
        const res = await fetch(url);
        expect(res.status).to.equal(200);
      } finally {
        child.kill("SIGTERM");
      }
    });

    it("the calpress command serves a fixture, the pages and their assets from the installed package", async () => {
      const bin = path.join(dir, "node_modules/.bin/calpress");
      const child = spawn(bin, ["serve", "--port", "0", "--db", ":memory:", "--fixture", "minimal"], { cwd: dir, env: cleanEnv() });
      try {
        const line = await readyLine(child).line;
        const root = /^calpress listening on (http:\/\/\S+\/wp-json\/)$/.exec(line)?.[1];
        expect(root, line).to.be.a("string");
        const events = await fetch(`${root}calendar/events/v1/events`);
        expect(events.status).to.equal(200);
        const origin = new URL(root ?? "").origin;
        const page = await (await fetch(`${origin}/`)).text();
        const asset = /(?:src|href)="([^"]+\.(?:js|css))"/.exec(page)?.[1];
        expect(asset, "an asset of the calendar page").to.be.a("string");
        expect((await fetch(new URL(asset ?? "", `${origin}/`))).status).to.equal(200);
        // Swagger UI, from the package's own copy (no swagger-ui-dist installed).
        const docs = await (await fetch(`${origin}/docs`)).text();
        for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
          expect(docs).to.contain(`/docs/swagger-ui/${file}`);
          expect((await fetch(`${origin}/docs/swagger-ui/${file}`)).status, file).to.equal(200);
        }
      } finally {
        child.kill("SIGTERM");
      }
    });

    it("a PostgreSQL or MariaDB target names the missing driver in one line", async () => {
      const script = (target: string): string =>
        `require("calpress").createSite({ db: ${JSON.stringify(target)} }).then(() => console.log("opened"), (e) => console.log(e.message));`;
      const pg = await run(process.execPath, ["-e", script("postgres://u@127.0.0.1:1/none")], { cwd: dir, env: cleanEnv() });
      expect(pg.stdout.trim()).to.equal('PostgreSQL needs the "pg" package: npm install pg');
      const my = await run(process.execPath, ["-e", script("mysql://u@127.0.0.1:1/none")], { cwd: dir, env: cleanEnv() });
      expect(my.stdout.trim()).to.equal('MariaDB/MySQL needs the "mysql2" package: npm install mysql2');
    });
  });

  describe("a plugin author's app, from the README alone", function () {
    let dir: string;
    let compiled: { ok: boolean; output: string };
    let commands: string[][];

    before(async () => {
      ({ dir, compiled, commands } = await pluginApp);
    });

    it("the plugin (a type with typed fields and two taxonomies, no route code, at most 40 lines) and its suite compile in strict mode", () => {
      expect(compiled.ok, compiled.output).to.equal(true);
      const lines = fs.readFileSync(path.join(dir, "jobs.ts"), "utf8").trimEnd().split("\n");
      expect(lines.length).to.be.at.most(40);
      expect(lines.join("\n")).not.to.match(/registerRoute|handler/);
    });

    it("the README's mocha suite passes through calpress/testing, and mocha ends by itself (no --exit)", async function () {
      if (!compiled.ok) this.skip();
      const { stdout } = await run(process.execPath, [path.join(dir, "node_modules/mocha/bin/mocha.js"), "--timeout", "60000", "jobs.test.js"], { cwd: dir, env: cleanEnv(), timeout: 150_000 });
      expect(stdout).to.match(/3 passing/);
      expect(stdout).not.to.match(/failing/);
    });

    it("the README's commands generate content of the plugin's type and serve it: the generated API, its document, the index link, /docs and the editor", async function () {
      if (!compiled.ok) this.skip();
      const bin = path.join(dir, "node_modules/.bin/calpress");
      const [generate, serve] = commands;
      expect(generate?.slice(0, 2)).to.deep.equal(["fixture", "generate"]);
      expect(serve?.[0]).to.equal("serve");
      await run(bin, generate ?? [], { cwd: dir, env: cleanEnv() });
      const fixture = JSON.parse(fs.readFileSync(path.join(dir, "jobs.json"), "utf8")) as { posts: Array<{ type: string; status?: string }> };
      expect(fixture.posts.filter((p) => p.type === "job")).to.have.length(50);
      const published = fixture.posts.filter((p) => p.type === "job" && (p.status ?? "publish") === "publish").length;
      expect(published).to.be.greaterThan(5);
      const child = spawn(bin, [...(serve ?? []), "--port", "0"], { cwd: dir, env: cleanEnv() });
      try {
        const line = await readyLine(child).line;
        const root = /^calpress listening on (http:\/\/\S+\/wp-json\/)$/.exec(line)?.[1] ?? "";
        expect(root, line).to.not.equal("");
        const list = await fetch(`${root}jobs/v1/jobs?per_page=5`);
        expect(list.status).to.equal(200);
        expect(list.headers.get("x-wp-total")).to.equal(String(published));
        const jobs = (await list.json()) as Array<{ title: { rendered: string }; meta: Record<string, unknown>; departments: number[] }>;
        expect(jobs).to.have.length(5);
        expect(jobs[0]?.meta).to.have.property("employer");
        expect(((await (await fetch(`${root}jobs/v1/departments`)).json()) as unknown[]).length).to.be.greaterThan(0);
        const doc = (await (await fetch(`${root}jobs/v1/doc`)).json()) as { openapi: string; paths: Record<string, unknown> };
        expect(doc.openapi).to.match(/^3\.0\./);
        expect(doc.paths).to.include.keys("/jobs", "/jobs/{id}", "/departments", "/skills");
        const index = (await (await fetch(root)).json()) as { _links: { "service-desc": Array<{ href: string }> } };
        expect(index._links["service-desc"].map((l) => l.href)).to.include(`${root}jobs/v1/doc`);
        const origin = new URL(root).origin;
        expect((await fetch(`${origin}/docs?namespace=jobs/v1`)).status).to.equal(200);
        expect((await fetch(`${origin}/editor`)).status).to.equal(200);
      } finally {
        child.kill("SIGTERM");
      }
    });
  });

  for (const major of [4, 5]) {
    describe(`an existing Express ${major} app with its own users and session login`, function () {
      let dir: string;
      let typecheck: { ok: boolean; output: string };

      before(async () => {
        ({ dir, typecheck } = await expressApps.get(major)!);
      });

      it(`runs on Express ${major}`, () => {
        const { version } = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/express/package.json"), "utf8")) as { version: string };
        expect(Number(version.split(".")[0])).to.equal(major);
      });

      it("type-checks in strict mode (skipLibCheck: false) with nothing more installed", () => {
        expect(typecheck.ok, typecheck.output).to.equal(true);
      });

      if (servers.length === 0) {
        it.skip("on PostgreSQL and MariaDB: set CALPRESS_TEST_PG_URL / CALPRESS_TEST_MYSQL_URL to run");
      }

      for (const target of servers) {
        describe(`on ${target.name}`, function () {
          let database: TestDatabase;
          let k: Knex;
          let before_: unknown;
          let app: App | undefined;
          let ns: string;

          before(async function () {
            if (!typecheck.ok) this.skip();
            database = await target.create();
            k = knexFactory(configFromTarget(database.target));
            await createHostUsers(k);
            before_ = await snapshotHostUsers(k);
            app = await startApp(dir, database.target);
            ns = `${app.origin}/wp-json/calendar/events/v1`;
          });
          after(async () => {
            await stopApp(app);
            await k?.destroy();
            await database?.drop();
          });

          it("the host keeps its own home page", async () => {
            const res = await fetch(`${app!.origin}/`);
            expect(await res.text()).to.equal("the host's home page");
          });

          it("serves the calendar API under /wp-json", async () => {
            const res = await fetch(`${ns}/events`);
            expect(res.status).to.equal(200);
            const body = (await res.json()) as { events: unknown[]; rest_url: string };
            expect(body.events).to.be.an("array");
            expect(body.rest_url.startsWith(`${ns}/events`), body.rest_url).to.equal(true);
            const index = await fetch(`${app!.origin}/wp-json/`);
            expect(index.status).to.equal(200);
          });

          it("serves the pages under /calendar", async () => {
            const page = await fetch(`${app!.origin}/calendar/`);
            expect(page.status).to.equal(200);
            expect(page.headers.get("content-type") ?? "").to.match(/^text\/html/);
            const docs = await fetch(`${app!.origin}/calendar/docs/`);
            expect(docs.status).to.equal(200);
          });

          it("the pages under /calendar call the REST root at /wp-json/, with no site URL", async () => {
            expect(await (await fetch(`${app!.origin}/calendar/`)).text()).to.include('data-rest-root="/wp-json/"');
            expect(await (await fetch(`${app!.origin}/calendar/docs/`)).text()).to.include('data-doc-url="/wp-json/calendar/events/v1/doc"');
          });

          it("the host's login answers with its own session cookie", async () => {
            const bad = await fetch(`${app!.origin}/login`, { method: "POST", body: new URLSearchParams({ email: "ann@example.com", password: "wrong" }) });
            expect(bad.status).to.equal(401);
            const ok = await fetch(`${app!.origin}/login`, { method: "POST", body: new URLSearchParams({ email: "ann@example.com", password: "ann-secret" }) });
            expect(ok.status).to.equal(200);
            expect(ok.headers.get("set-cookie") ?? "").to.match(/^host_sid=/);
          });

          it("refuses a cross-site cookie write without a nonce, accepts it with one", async () => {
            const login = await fetch(`${app!.origin}/login`, { method: "POST", body: new URLSearchParams({ email: "bob@example.com", password: "bob-secret" }) });
            const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
            const { nonce } = (await login.json()) as { nonce: string };
            const event = JSON.stringify({ title: "Cookie write", status: "publish", start_date: "2030-05-01 19:00:00", end_date: "2030-05-01 21:00:00" });
            const headers = { cookie, "content-type": "application/json", origin: "https://elsewhere.example" };
            const refused = await fetch(`${ns}/events`, { method: "POST", headers, body: event });
            expect(refused.status).to.be.oneOf([401, 403]);
            const accepted = await fetch(`${ns}/events`, { method: "POST", headers: { ...headers, "x-wp-nonce": nonce }, body: event });
            expect(accepted.status, await accepted.clone().text()).to.equal(201);
            const list = (await (await fetch(`${ns}/events?start_date=2030-01-01&end_date=2030-12-31`)).json()) as { events: Array<{ title: string }> };
            expect(list.events.map((e) => e.title)).to.deep.equal(["Cookie write"]);
          });

          it("leaves the host's users table as it was", async () => {
            expect(await snapshotHostUsers(k)).to.deep.equal(before_);
          });

          it("every table calpress made is prefixed cp_", async () => {
            const names = (await tableNames(k, target.name)).filter((n) => n !== HOST_USERS);
            expect(names.length).to.be.greaterThan(0);
            expect(names.filter((n) => !n.startsWith("cp_"))).to.deep.equal([]);
          });

          it("prints nothing on stderr (no deprecation warning, no error)", () => {
            expect(app!.stderr()).to.equal("");
          });
        });
      }
    });
  }
});

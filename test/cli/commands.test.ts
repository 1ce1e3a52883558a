/**
 * The command line as users meet it (issue 18 item 8): the real `calpress`
 * in a child process, judged by its exit code, stdout and stderr.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { createSite, version } from "../../lib";
import { HELP } from "../../lib/cli/help";
import { forEachDatabase } from "../support/databases";
import { upFront } from "../support/lanes";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "lib/cli.ts");
const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command to its end (not for `serve` without a failure: that one keeps running). */
function calpress(args: string[], cwd = ROOT): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), CLI, ...args], { cwd, env: { ...process.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Commands that each run alone to their end, started together (two at a
 * time) by the group's `before`; each test judges its own run.
 */
function commandsUpFront(commands: ReadonlyArray<readonly string[]>): { get(args: readonly string[]): Promise<Finished> } {
  const runs = upFront(commands.map((args) => [args.join(" "), () => calpress([...args])] as const));
  before(() => runs.start());
  after(() => runs.settled());
  return { get: (args) => runs.get(args.join(" ")) };
}

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "");
}

describe("calpress command line (issue 18)", function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-commands-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe("--version", () => {
    const flags = ["--version", "-v"];
    const runs = commandsUpFront(flags.map((flag) => [flag]));
    for (const flag of flags) {
      it(`${flag} prints the package version and exits 0`, async () => {
        const r = await runs.get([flag]);
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout).to.equal(`${PACKAGE_VERSION}\n`);
        expect(r.stderr).to.equal("");
      });
    }

    it("the library exports the same version (CONTRACT §7)", () => {
      expect(version).to.equal(PACKAGE_VERSION);
    });

    it("the main help names it", () => {
      expect(HELP.main).to.include("--version");
    });
  });

  describe("migrate", () => {
    it("says it created the schema on a new file, and that it is up to date the second time", async () => {
      const db = path.join(dir, "site.sqlite");
      const first = await calpress(["migrate", "--db", db]);
      expect(first.code, first.stderr).to.equal(0);
      expect(lines(first.stdout)).to.deep.equal([`created the schema in ${db}`]);
      const second = await calpress(["migrate", "--db", db]);
      expect(second.code, second.stderr).to.equal(0);
      expect(lines(second.stdout)).to.deep.equal([`schema up to date in ${db}`]);
    });
  });

  describe("a database that cannot be reached", () => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const cases = [
      [["migrate", "--db", "postgres://calpress:s3cret@127.0.0.1:1/x"], "postgres://calpress:***@127.0.0.1:1/x"],
      [["migrate", "--db", "mysql://root@127.0.0.1:1/x"], "mysql://root@127.0.0.1:1/x"],
      [["serve", "--port", "0", "--db", "postgres://127.0.0.1:1/x"], "postgres://127.0.0.1:1/x"],
      [["fixture", "load", "minimal", "--db", "mysql://root@127.0.0.1:1/x"], "mysql://root@127.0.0.1:1/x"],
    ] as const;
    const runs = commandsUpFront(cases.map(([args]) => args));
    for (const [args, target] of cases) {
      it(`${args.join(" ")}: one line on stderr, no stack trace, no password, exit 1`, async () => {
        const r = await runs.get(args);
        expect(r.code).to.equal(1);
        expect(r.stdout).to.equal("");
        expect(lines(r.stderr), r.stderr).to.have.length(1);
        expect(r.stderr).to.equal(`calpress: cannot open the database ${target}: connect ECONNREFUSED 127.0.0.1:1\n`);
      });
    }
  });

  describe("--db in a directory that does not exist", () => {
    const commands = [["migrate"], ["serve", "--port", "0"], ["user", "add", "ada", "--role", "editor"], ["option", "get", "timezone"], ["fixture", "load", "minimal"]];
    // A directory of its own for each command, as the runs overlap; made before they start.
    const parent = path.join(os.tmpdir(), `calpress-commands-missing-${process.pid}-${Date.now()}`);
    const base = (command: string[]): string => path.join(parent, command.join("-"));
    const missing = (command: string[]): string => path.join(base(command), "no", "such");
    before(() => {
      for (const command of commands) fs.mkdirSync(base(command), { recursive: true });
    });
    after(() => fs.rmSync(parent, { recursive: true, force: true }));
    const runs = commandsUpFront(commands.map((command) => [...command, "--db", path.join(missing(command), "site.sqlite")]));
    commands.forEach((command) => {
      it(`${command.join(" ")}: exit 2 with a clear message, and no directory is made`, async () => {
        const r = await runs.get([...command, "--db", path.join(missing(command), "site.sqlite")]);
        expect(r.code).to.equal(2);
        expect(r.stdout).to.equal("");
        expect(lines(r.stderr)[0]).to.equal(`calpress: the directory of the SQLite file ${path.join(missing(command), "site.sqlite")} does not exist: create ${missing(command)} first`);
        expect(fs.existsSync(path.join(base(command), "no"))).to.equal(false);
      });
    });

    it("the same holds for a host's createSite: the directory is not made", async () => {
      let error: unknown;
      await createSite({ db: path.join(dir, "missing", "site.sqlite") }).catch((err: unknown) => (error = err));
      expect(String(error)).to.match(/does not exist/);
      expect(fs.existsSync(path.join(dir, "missing"))).to.equal(false);
    });

    it("serve's help says which directory is made (the default's) and which must exist", () => {
      expect(HELP.serve).to.match(/\.\/data is created/);
      expect(HELP.serve).to.match(/directory of any other SQLite file must exist/);
    });
  });

  describe("--force wherever a message suggests it", () => {
    // Each command that loads a fixture into a site that already has events:
    // refused with a message naming --force, then accepted with it.
    const loaders: Array<{ name: string; help: string; args: (db: string) => string[] }> = [
      { name: "fixture load", help: "fixture", args: (db) => ["fixture", "load", "minimal", "--db", db] },
      { name: "fixture generate --db", help: "fixture", args: (db) => ["fixture", "generate", "--events", "3", "--db", db] },
    ];
    // Each loader's three commands run in turn on a file of its own; the two loaders side by side.
    const parent = path.join(os.tmpdir(), `calpress-commands-force-${process.pid}-${Date.now()}`);
    const fileOf = (loader: { name: string }): string => path.join(parent, `${loader.name.replace(/\W+/g, "-")}.sqlite`);
    before(() => fs.mkdirSync(parent, { recursive: true }));
    after(() => fs.rmSync(parent, { recursive: true, force: true }));
    const chains = upFront(
      loaders.map((loader) => {
        const db = fileOf(loader);
        const chain = async (): Promise<Finished[]> => {
          const seeded = await calpress(["fixture", "generate", "--events", "2", "--db", db]);
          if (seeded.code !== 0) return [seeded];
          return [seeded, await calpress(loader.args(db)), await calpress([...loader.args(db), "--force"])];
        };
        return [loader.name, chain] as const;
      }),
    );
    before(() => chains.start());
    after(() => chains.settled());
    for (const loader of loaders) {
      it(`${loader.name}: refused on a site with events, naming --force; loads with --force`, async () => {
        const [seeded, refused, forced] = await chains.get(loader.name);
        expect(seeded?.code, seeded?.stderr).to.equal(0);
        expect(refused?.code).to.equal(1);
        expect(refused?.stderr).to.include("--force");
        expect(forced?.code, forced?.stderr).to.equal(0);
        expect(forced?.stdout).to.match(/loaded .*"events":\d+/);
        expect(HELP[loader.help]).to.match(/--force\s+load even when the site already has events/);
      });
    }

    it("serve --fixture: refused on a site with events, naming --force; serves with --force", async () => {
      const db = path.join(dir, "site.sqlite");
      expect((await calpress(["fixture", "generate", "--events", "2", "--db", db])).code).to.equal(0);
      const refused = await calpress(["serve", "--port", "0", "--db", db, "--fixture", "minimal"]);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include("--force");

      const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), CLI, "serve", "--port", "0", "--db", db, "--fixture", "minimal", "--force"], { cwd: ROOT });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const exit = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
      const root = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          const m = /^calpress listening on (\S+)\n/.exec(out);
          if (m) resolve(m[1] as string);
        });
        void exit.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      try {
        // The fixture's own event, beside the generated ones.
        const res = await fetch(`${root}calendar/events/v1/events/by-slug/jazz-concert`);
        expect(res.status).to.equal(200);
      } finally {
        child.kill("SIGTERM");
      }
      expect(await exit).to.equal(0);
      expect(HELP.serve).to.match(/--force\s+with --fixture: load it even when the site already has events/);
    });
  });

  describe("fixture generate", () => {
    it("prints the logins and application passwords it created, and they work", async () => {
      const db = path.join(dir, "site.sqlite");
      const r = await calpress(["fixture", "generate", "--events", "3", "--db", db]);
      expect(r.code, r.stderr).to.equal(0);
      const logins = [...r.stdout.matchAll(/^ {2}(\S+):(\S+)\s+(\S+)$/gm)].map((m) => ({ login: m[1] as string, password: m[2] as string, role: m[3] as string }));
      expect(logins.map((l) => l.role)).to.deep.equal(["administrator", "editor", "author", "contributor", "subscriber"]);
      const site = await createSite({ db, webhooks: false });
      try {
        for (const l of logins) expect((await site.engine.users.verifyAppPassword(l.login, l.password)).ok, l.login).to.equal(true);
      } finally {
        await site.close();
      }
    });

    it("with --out, prints the logins the file will create", async () => {
      const out = path.join(dir, "big.json");
      const r = await calpress(["fixture", "generate", "--events", "3", "--out", out]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/^ {2}admin:admin-pass\s+administrator$/m);
    });
  });
});

forEachDatabase("calpress migrate reports a new schema", (db) => {
  it("created on a new database, up to date the second time", async () => {
    const created = await db.create();
    try {
      const first = await calpress(["migrate", "--db", created.target]);
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stdout).to.match(/^created the schema in /);
      expect(first.stdout).to.not.match(/:[^:@/]*@/); // no password shown
      const second = await calpress(["migrate", "--db", created.target]);
      expect(second.code, second.stderr).to.equal(0);
      expect(second.stdout).to.match(/^schema up to date in /);
    } finally {
      await created.drop();
    }
  });
});

import { spawn } from "node:child_process";
import path from "node:path";
import { expect } from "chai";
import { upFront } from "../support/lanes";

/**
 * pg, mysql2 and sqlite3 (node-sqlite3) are optional peer dependencies: a
 * host installs the one for its database (calpress's own SQLite files run
 * on better-sqlite3, a dependency). Without it, opening that database fails
 * with one line that names the package (not knex's logged stack and
 * several-line message). Each case runs in a child process where the driver
 * cannot be resolved.
 */
const ROOT = path.resolve(__dirname, "../..");
const HOOK = path.join(__dirname, "resolve-hooks.cjs");

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], hide: string): Promise<Result> {
  const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), "--require", HOOK, ...args], {
    cwd: ROOT,
    env: { ...process.env, CALPRESS_HIDE_MODULES: hide },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/** A host script: createSite on `target` (a `<target>` string or a knex config), printing the error's name and message as JSON. */
function hostScript(target: string | object): string[] {
  const site = path.join(ROOT, "lib/site.ts");
  return [
    "-e",
    `require(${JSON.stringify(site)}).createSite({ db: ${JSON.stringify(target)} })` +
      `.then((site) => { console.log("opened"); return site.close(); }, (e) => console.log(JSON.stringify({ name: e.name, message: e.message })));`,
  ];
}

describe("host: a missing database driver", function () {
  this.timeout(60_000);

  const cases = [
    { target: "postgres://calpress@127.0.0.1:1/none", pkg: "pg", line: 'PostgreSQL needs the "pg" package: npm install pg' },
    { target: "mysql://calpress@127.0.0.1:1/none", pkg: "mysql2", line: 'MariaDB/MySQL needs the "mysql2" package: npm install mysql2' },
  ];

  const clients = ["sqlite3", "sqlite"];
  const sqliteConfig = (client: string): object => ({ client, connection: { filename: ":memory:" }, useNullAsDefault: true });
  // Every case is a child of its own that ends by itself: all started together (two at a time), each judged by its test.
  const runs = upFront<Result>([
    ...cases.flatMap((c) => [
      [`host ${c.pkg}`, () => run(hostScript(c.target), c.pkg)] as const,
      [`cli ${c.pkg}`, () => run([path.join(ROOT, "lib/cli.ts"), "migrate", "--db", c.target], c.pkg)] as const,
    ]),
    ...clients.map((client) => [`client ${client}`, () => run(hostScript(sqliteConfig(client)), "sqlite3")] as const),
    ["sqlite path", () => run(hostScript(":memory:"), "pg,mysql2,sqlite3")],
    ["sqlite config", () => run(hostScript(sqliteConfig("better-sqlite3")), "pg,mysql2,sqlite3")],
  ]);
  before(() => runs.start());
  after(() => runs.settled());

  for (const c of cases) {
    it(`createSite on ${c.target.split(":")[0]} without ${c.pkg}: one line naming the package, nothing logged`, async () => {
      const r = await runs.get(`host ${c.pkg}`);
      expect(r.stderr).to.equal("");
      expect(JSON.parse(r.stdout.trim())).to.deep.equal({ name: "MissingDriverError", message: c.line });
    });

    it(`calpress migrate --db ${c.target.split(":")[0]}… without ${c.pkg}: that line on stderr, exit 1`, async () => {
      const r = await runs.get(`cli ${c.pkg}`);
      expect(r.stderr).to.equal(`calpress: ${c.line}\n`);
      expect(r.code).to.equal(1);
    });
  }

  for (const client of clients) {
    it(`createSite with a knex config on client "${client}" without sqlite3: one line naming the package, nothing logged`, async () => {
      const r = await runs.get(`client ${client}`);
      expect(r.stderr).to.equal("");
      expect(JSON.parse(r.stdout.trim())).to.deep.equal({
        name: "MissingDriverError",
        message: 'SQLite through knex\'s "sqlite3" client needs the "sqlite3" package: npm install sqlite3',
      });
    });
  }

  it("a SQLite site (a path, or a knex config on better-sqlite3) needs none of the optional drivers", async () => {
    const r = await runs.get("sqlite path");
    expect(r.stdout.trim()).to.equal("opened");
    const file = await runs.get("sqlite config");
    expect(file.stdout.trim()).to.equal("opened");
  });
});

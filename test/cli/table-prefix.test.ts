import { expect } from "chai";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import { removeSqliteFile, runCli as run } from "../support/cli";


describe("calpress --table-prefix", () => {
  const file = path.join(os.tmpdir(), `calpress_prefix_${process.pid}.sqlite`);
  after(() => {
    removeSqliteFile(file);
  });

  async function tables(): Promise<string[]> {
    const k = knexFactory({ client: "sqlite3", connection: { filename: file }, useNullAsDefault: true });
    try {
      // SQLite's own tables (sqlite_sequence, sqlite_stat1) left out.
      return ((await k("sqlite_master").where({ type: "table" }).pluck("name")) as string[]).filter((n) => !n.startsWith("sqlite_")).sort();
    } finally {
      await k.destroy();
    }
  }

  it("names every table it creates with the prefix, cp_ by default, in every command that takes --db", async () => {
    expect((await run(["migrate", "--db", file])).code).to.equal(0);
    expect((await run(["migrate", "--db", file, "--table-prefix", "wp_"])).code).to.equal(0);
    const names = await tables();
    expect(names).to.include.members(["cp_posts", "wp_posts", "cp_users", "wp_users"]);
    expect(names.filter((n) => !n.startsWith("cp_") && !n.startsWith("wp_"))).to.deep.equal([]);

    expect((await run(["option", "set", "blogname", "Prefixed", "--db", file, "--table-prefix", "wp_"])).code).to.equal(0);
    expect((await run(["option", "get", "blogname", "--db", file, "--table-prefix", "wp_"])).out).to.deep.equal(["Prefixed"]);
    expect((await run(["option", "get", "blogname", "--db", file])).out).to.deep.equal(["calpress"]);
    expect((await run(["user", "add", "ed", "--role", "editor", "--app-password", "pw-pw-pw-pw", "--db", file, "--table-prefix", "wp_"])).code).to.equal(0);
    expect((await run(["fixture", "generate", "--events", "3", "--db", file, "--table-prefix", "wp_"])).code).to.equal(0);
  });

  it("refuses a bad prefix with exit code 2 and lists the flag in the help", async () => {
    const bad = await run(["migrate", "--db", file, "--table-prefix", "wp-"]);
    expect(bad.code).to.equal(2);
    expect(bad.err[0]).to.contain("table prefix");
    for (const command of [["serve"], ["migrate"], ["fixture"], ["user"], ["option"]]) {
      expect((await run([...command, "--help"])).out.join("\n"), command[0]).to.contain("--table-prefix");
    }
  });
});

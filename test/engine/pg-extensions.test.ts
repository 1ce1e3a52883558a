/**
 * PostgreSQL extensions (lib/db/extensions.ts): an extension's objects carry
 * its own names, not calpress's prefix, so calpress creates pg_trgm only when
 * the host lists it in `pgExtensions`, and then in calpress's own schema. A
 * role that may not create it is told once, and search works without the
 * index (it scans, with the same results).
 */
import { expect } from "chai";
import knexFactory, { type Knex } from "knex";
import { createSite, type Site, type SiteOptions } from "../../lib/site";
import { configFromTarget } from "../../lib/db/target";
import { runCli } from "../support/cli";
import { testTargets, type TestDatabase } from "../support/databases";

const server = testTargets().find((t) => t.name === "postgres");

/** Functions in `schema` without calpress's prefix, whoever made them (an extension's too). */
async function unprefixedFunctions(k: Knex, schema: string): Promise<string[]> {
  const r = (await k.raw("select p.proname as n from pg_proc p join pg_namespace s on s.oid = p.pronamespace where s.nspname = ?", [schema])) as { rows: Array<{ n: string }> };
  return r.rows.map((row) => row.n).filter((n) => !n.startsWith("cp_"));
}

/** Installed extensions and their schemas, plpgsql (always there) left out. */
async function extensions(k: Knex): Promise<Array<{ name: string; schema: string }>> {
  const r = (await k.raw(
    "select e.extname as name, n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname <> 'plpgsql' order by 1",
  )) as { rows: Array<{ name: string; schema: string }> };
  return r.rows;
}

async function trigramIndexes(k: Knex, schema: string): Promise<string[]> {
  const r = (await k.raw("select indexname from pg_indexes where schemaname = ? and indexname like '%_trgm' order by 1", [schema])) as { rows: Array<{ indexname: string }> };
  return r.rows.map((row) => row.indexname);
}

/** Opens a site, makes two events and searches them by a piece of a word; closes it. */
async function searchWorks(options: SiteOptions): Promise<string[]> {
  const site: Site = await createSite({ webhooks: false, ...options });
  try {
    await site.engine.posts.create({ type: "event", status: "publish", title: "Platypus parade" });
    await site.engine.posts.create({ type: "event", status: "publish", title: "Wombat walk" });
    return (await site.engine.posts.find({ type: "event", search: "typus par" })).posts.map((p) => p.title);
  } finally {
    await site.close();
  }
}

(server === undefined ? describe.skip : describe)("PostgreSQL extensions: created only when the host allows, in calpress's schema (postgres)", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let admin: Knex;

  beforeEach(async () => {
    database = await server!.create();
    admin = knexFactory({ ...configFromTarget(database.target), pool: { min: 0, max: 1 } });
  });
  afterEach(async () => {
    await admin.destroy();
    await database.drop();
  });

  it("a fresh site creates no extension and nothing unprefixed in public, and search works without the index", async () => {
    const logged: string[] = [];
    expect(await searchWorks({ db: database.target, logger: { error: (m) => logged.push(m) } })).to.deep.equal(["Platypus parade"]);
    expect(await extensions(admin)).to.deep.equal([]);
    expect(await unprefixedFunctions(admin, "public")).to.deep.equal([]);
    expect(await trigramIndexes(admin, "public")).to.deep.equal([]);
    // Not asked for: nothing to say.
    expect(logged).to.deep.equal([]);
  });

  it('pgExtensions: ["pg_trgm"] creates it in the site\'s own schema, and the trigram indexes with it', async () => {
    expect(await searchWorks({ db: database.target, schema: "calsite", pgExtensions: ["pg_trgm"] })).to.deep.equal(["Platypus parade"]);
    expect(await extensions(admin)).to.deep.equal([{ name: "pg_trgm", schema: "calsite" }]);
    expect(await unprefixedFunctions(admin, "public")).to.deep.equal([]);
    expect(await trigramIndexes(admin, "calsite")).to.deep.equal(["cp_posts_content_trgm", "cp_posts_excerpt_trgm", "cp_posts_title_trgm"]);
    // A second site in another schema, not asking: it uses the extension where it is.
    await searchWorks({ db: database.target, schema: "othersite", tablePrefix: "os_" });
    expect(await trigramIndexes(admin, "othersite")).to.deep.equal(["os_posts_content_trgm", "os_posts_excerpt_trgm", "os_posts_title_trgm"]);
    expect(await extensions(admin)).to.deep.equal([{ name: "pg_trgm", schema: "calsite" }]);
  });

  it("in the connection's current schema when the site has none of its own", async () => {
    await admin.raw("CREATE SCHEMA app");
    const config: Knex.Config = { ...configFromTarget(database.target), searchPath: ["app"] };
    expect(await searchWorks({ db: config, pgExtensions: ["pg_trgm"] })).to.deep.equal(["Platypus parade"]);
    expect(await extensions(admin)).to.deep.equal([{ name: "pg_trgm", schema: "app" }]);
    expect(await trigramIndexes(admin, "app")).to.have.length(3);
  });

  it("an unknown extension name is refused before the database is touched", async () => {
    const err = await createSite({ db: database.target, pgExtensions: ["postgis" as "pg_trgm"] }).then(
      async (site) => {
        await site.close();
        return null;
      },
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.equal('pgExtensions: calpress can create pg_trgm, not "postgis"');
    const tables = (await admin.raw("select count(*)::int as n from pg_tables where schemaname = 'public'")) as { rows: Array<{ n: number }> };
    expect(tables.rows[0]?.n).to.equal(0);
  });

  describe("a role that may not create extensions", () => {
    const role = `calpress_noext_${process.pid}`;
    afterEach(async () => {
      // The role owns objects in the test database only (its schema, and what is in it): dropped with them.
      await admin.raw("DROP OWNED BY ?? CASCADE", [role]);
      await admin.raw("DROP ROLE IF EXISTS ??", [role]);
    });

    it("is told once, in one line, what to ask for; the site starts and search works", async () => {
      // Its own schema to create tables in (as on a shared host), no CREATE on the database: pg_trgm (a trusted extension) needs that.
      await admin.raw("CREATE ROLE ?? LOGIN PASSWORD 'no-ext-pass-0123'", [role]);
      await admin.raw("CREATE SCHEMA ?? AUTHORIZATION ??", [role, role]);
      const url = new URL(database.target);
      url.username = role;
      url.password = "no-ext-pass-0123";
      const logged: string[] = [];
      const options = { db: url.toString(), pgExtensions: ["pg_trgm"] as const, logger: { error: (m: string) => logged.push(m) } };
      expect(await searchWorks(options)).to.deep.equal(["Platypus parade"]);
      expect(logged).to.have.length(1);
      expect(logged[0]).to.not.contain("\n");
      expect(logged[0])
        .to.contain('refused to create the extension pg_trgm (permission denied to create extension "pg_trgm"')
        .and.contain(`CREATE EXTENSION pg_trgm SCHEMA "${role}"`);
      expect(await extensions(admin)).to.deep.equal([]);
      expect(await unprefixedFunctions(admin, "public")).to.deep.equal([]);

      // Once the owner has created it, the next start makes the indexes and says nothing.
      await admin.raw("CREATE EXTENSION pg_trgm SCHEMA ??", [role]);
      logged.length = 0;
      await searchWorks(options);
      expect(logged).to.deep.equal([]);
      expect(await trigramIndexes(admin, role)).to.have.length(3);
    });
  });

  it("calpress migrate --pg-extension pg_trgm creates it; an unknown name is a usage error", async () => {
    const bad = await runCli(["migrate", "--db", database.target, "--pg-extension", "postgis"]);
    expect(bad.code).to.equal(2);
    expect(bad.err.join("\n")).to.contain('--pg-extension: calpress can create pg_trgm, not "postgis"');
    expect(await extensions(admin)).to.deep.equal([]);
    expect((await runCli(["migrate", "--db", database.target, "--pg-extension", "pg_trgm"])).code).to.equal(0);
    expect(await extensions(admin)).to.deep.equal([{ name: "pg_trgm", schema: "public" }]);
    expect(await trigramIndexes(admin, "public")).to.have.length(3);
  });
});

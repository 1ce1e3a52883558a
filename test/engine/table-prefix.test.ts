import { expect } from "chai";
import knexFactory, { type Knex } from "knex";
import { createEngine } from "../../lib/engine";
import { createSite } from "../../lib/site";
import { configFromTarget, dialectOf } from "../../lib/db/target";
import { TableNameError } from "../../lib/db/tables";
import { TableClashError } from "../../lib/db/ownership";
import { postTag, readTagVersions } from "../../lib/db/cache-tags";
import { forEachDatabase, type TestDatabase } from "../support/databases";

/**
 * Issue 18.1: calpress shares the database it is given with the host's own
 * tables. Everything it creates carries the table prefix, a table of one of
 * its names that it did not create stops the migration before anything is
 * changed, and on PostgreSQL it can live in a schema of its own.
 */

interface Catalog {
  /** Tables, views and sequences (PostgreSQL), by name. */
  relations: string[];
  indexes: string[];
  triggers: string[];
  functions: string[];
}

/** What the database holds in `schema` (PostgreSQL; default public) or in the database. */
async function catalog(knex: Knex, schema = "public"): Promise<Catalog> {
  switch (dialectOf(knex)) {
    case "postgres": {
      const rows = async (sql: string): Promise<string[]> => ((await knex.raw(sql, [schema])) as { rows: Array<{ n: string }> }).rows.map((r) => r.n).sort();
      return {
        relations: await rows("select c.relname as n from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = ? and c.relkind in ('r', 'v', 'S')"),
        indexes: await rows("select c.relname as n from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = ? and c.relkind = 'i'"),
        triggers: await rows(
          "select t.tgname as n from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace s on s.oid = c.relnamespace where s.nspname = ? and not t.tgisinternal",
        ),
        // An extension's functions (pg_trgm, installed where none is) are the extension's, not calpress's.
        functions: await rows(
          "select p.proname as n from pg_proc p join pg_namespace s on s.oid = p.pronamespace where s.nspname = ? and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')",
        ),
      };
    }
    case "mysql": {
      const rows = async (sql: string): Promise<string[]> => ((await knex.raw(sql)) as [Array<{ n: string }>])[0].map((r) => r.n).sort();
      return {
        relations: await rows("select table_name as n from information_schema.tables where table_schema = database()"),
        indexes: await rows("select distinct index_name as n from information_schema.statistics where table_schema = database() and index_name <> 'PRIMARY'"),
        triggers: await rows("select trigger_name as n from information_schema.triggers where trigger_schema = database()"),
        functions: await rows("select routine_name as n from information_schema.routines where routine_schema = database()"),
      };
    }
    default: {
      // SQLite's own objects (sqlite_sequence, sqlite_stat1, sqlite_autoindex_<table>_N) are named by SQLite: judged by their table.
      const rows: Array<{ type: string; name: string; tbl_name: string }> = await knex("sqlite_master").select("type", "name", "tbl_name");
      const own = (r: { name: string; tbl_name: string }): string => (r.name.startsWith("sqlite_autoindex_") ? r.tbl_name : r.name);
      const of = (type: string): string[] => rows.filter((r) => r.type === type && !r.tbl_name.startsWith("sqlite_")).map(own).sort();
      return { relations: of("table"), indexes: of("index"), triggers: of("trigger"), functions: [] };
    }
  }
}

function openKnex(target: string): Knex {
  return knexFactory({ ...configFromTarget(target), pool: { min: 0, max: 2 } });
}

/** A host's own `users` table, as in the issue. */
async function hostUsers(knex: Knex, table: string): Promise<void> {
  await knex.schema.createTable(table, (t) => {
    t.increments("id").primary();
    t.string("email", 100).notNullable();
    t.string("password_hash", 100).notNullable();
  });
  await knex(table).insert({ email: "host@example.com", password_hash: "x" });
}

forEachDatabase("table prefix", (db) => {
  let database: TestDatabase;
  let host: Knex;
  beforeEach(async () => {
    database = await db.create();
    host = openKnex(database.target);
  });
  afterEach(async () => {
    await host.destroy();
    await database.drop();
  });

  it("gives every table, index, trigger, function and sequence calpress creates the prefix, cp_ by default", async () => {
    const site = await createSite({ db: database.target, webhooks: false });
    let prefixedId: number;
    try {
      expect(site.engine.tables.posts).to.equal("cp_posts");
      prefixedId = (await site.engine.posts.create({ type: "event", status: "publish", title: "Prefixed" })).id;
      expect((await site.engine.posts.get(prefixedId))?.title).to.equal("Prefixed");
    } finally {
      await site.close();
    }
    const made = await catalog(host);
    expect(made.relations).to.include.members(["cp_posts", "cp_users", "cp_options", "cp_cache_tags", "cp_fields_event"]);
    for (const [kind, names] of Object.entries(made)) {
      expect((names as string[]).filter((n) => !n.startsWith("cp_")), kind).to.deep.equal([]);
    }

    const other = await createSite({ db: database.target, tablePrefix: "wp2_", webhooks: false });
    try {
      // Another site in the same database and process: its own rows, even through statements kept by shape.
      expect(await other.engine.posts.find({ type: "event" })).to.have.property("total", 0);
      expect(await other.engine.posts.get(prefixedId)).to.equal(undefined);
      const { id } = await other.engine.posts.create({ type: "event", status: "publish", title: "Second site" });
      expect((await other.engine.posts.get(id))?.title).to.equal("Second site");
    } finally {
      await other.close();
    }
    const both = await catalog(host);
    expect(both.relations).to.include("wp2_posts");
    for (const [kind, names] of Object.entries(both)) {
      expect((names as string[]).filter((n) => !n.startsWith("cp_") && !n.startsWith("wp2_")), kind).to.deep.equal([]);
    }
  });

  it("leaves a host's own users table alone: no trigger, no foreign key, no change", async () => {
    await hostUsers(host, "users");
    const before = await catalog(host);
    const site = await createSite({ db: database.target, webhooks: false });
    try {
      const user = await site.engine.users.create({ login: "editor", role: "editor", email: "editor@example.com" });
      expect(user.id).to.equal(1);
    } finally {
      await site.close();
    }
    expect(Object.keys(await host("users").columnInfo()).sort()).to.deep.equal(["email", "id", "password_hash"]);
    expect(await host("users").select("email")).to.deep.equal([{ email: "host@example.com" }]);
    await host("users").insert({ email: "second@example.com", password_hash: "y" });
    const after = await catalog(host);
    // Nothing new on the host's table: its own indexes only, and no trigger names it.
    expect(after.indexes.filter((n) => !n.startsWith("cp_"))).to.deep.equal(before.indexes);
    expect(after.triggers.filter((n) => !n.startsWith("cp_"))).to.deep.equal([]);
  });

  it("stops before changing anything when a table of its name was not made by calpress, naming it", async () => {
    await hostUsers(host, "cp_users");
    const before = await catalog(host);
    let error: unknown;
    try {
      const site = await createSite({ db: database.target, webhooks: false });
      await site.close();
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(TableClashError);
    expect((error as Error).message).to.contain('"cp_users"').and.to.contain("not created by calpress");
    expect(await catalog(host)).to.deep.equal(before);

    // The same with the host's table named as calpress's tables were before prefixes.
    await hostUsers(host, "users");
    const { engine, close } = await createEngine(database.target, { tablePrefix: "" });
    try {
      const refused = await engine.migrate().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(TableClashError);
      expect((refused as Error).message).to.contain('"users"');
    } finally {
      await close();
    }
  });

  it("migrates its own tables again, and a site made before prefixes existed keeps working with the empty prefix", async () => {
    const first = await createSite({ db: database.target, tablePrefix: "", webhooks: false });
    await first.engine.options.set("blogname", "Old site");
    await first.close();
    // What a database made by an earlier calpress looks like: the same tables, and no record of them.
    await host.schema.dropTable("calpress_tables");
    const again = await createSite({ db: database.target, tablePrefix: "", webhooks: false });
    try {
      expect(await again.engine.options.get("blogname")).to.equal("Old site");
    } finally {
      await again.close();
    }
    expect(await host("calpress_tables").pluck("name")).to.include.members(["posts", "users", "options", "cache_tags"]);
    const third = await createSite({ db: database.target, tablePrefix: "", webhooks: false });
    await third.close();
  });

  it("fits the databases' name limits with the longest prefix and post type name", async () => {
    const prefix = "long_prefix_of_20ch_";
    const type = "a_post_type_named_with_32_chars_";
    const { engine, close } = await createEngine(database.target, { tablePrefix: prefix });
    try {
      engine.registerPostType(type, { fields: { the_longest_field_name_we_index: { type: "string", index: true } } });
      await engine.migrate();
      const { id } = await engine.posts.create({ type, status: "publish", title: "Long names", fields: { the_longest_field_name_we_index: "x" } });
      expect((await engine.posts.get(id))?.fields.the_longest_field_name_we_index).to.equal("x");
    } finally {
      await close();
    }
    for (const [kind, names] of Object.entries(await catalog(host))) {
      expect((names as string[]).filter((n) => !n.startsWith(prefix)), kind).to.deep.equal([]);
    }
  });

  it("refuses a prefix that is not a plain SQL name, and a schema anywhere but on PostgreSQL", async () => {
    for (const bad of ["cp-", "CP_", "x; drop table", "a".repeat(21)]) {
      const refused = await createSite({ db: database.target, tablePrefix: bad }).then(
        (site) => site.close(),
        (err: unknown) => err,
      );
      expect(refused, bad).to.be.instanceOf(TableNameError);
    }
    if (db.name !== "postgres") {
      const refused = await createSite({ db: database.target, schema: "calpress" }).then(
        (site) => site.close(),
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(TableNameError);
    }
    expect((await catalog(host)).relations).to.deep.equal([]);
  });
});

forEachDatabase("PostgreSQL schema", (db) => {
  if (db.name !== "postgres") return;
  let database: TestDatabase;
  let host: Knex;
  beforeEach(async () => {
    database = await db.create();
    host = openKnex(database.target);
    // pg_trgm where a managed PostgreSQL keeps its extensions: in a schema of its own, not on calpress's path.
    await host.raw("CREATE SCHEMA extensions");
    await host.raw("CREATE EXTENSION pg_trgm SCHEMA extensions");
  });
  afterEach(async () => {
    await host.destroy();
    await database.drop();
  });

  it("keeps everything in the schema it is given, creating it, with trigram search and cache tags working", async () => {
    await hostUsers(host, "users");
    const site = await createSite({ db: database.target, schema: "calpress", webhooks: false });
    let id: number;
    try {
      expect(site.engine.tables.posts).to.equal("calpress.cp_posts");
      id = (await site.engine.posts.create({ type: "event", status: "publish", title: "Platypus parade" })).id;
      const found = await site.engine.posts.find({ type: "event", search: "typus par" });
      expect(found.posts.map((p) => p.id)).to.deep.equal([id]);

      // A write from a connection whose search_path does not name calpress's schema still bumps the tag.
      const before = (await readTagVersions(site.engine.knex, site.engine.tables, [postTag(id)])).get(postTag(id)) ?? 0;
      await host.raw("update calpress.cp_posts set title = 'Renamed' where id = ?", [id]);
      expect((await readTagVersions(site.engine.knex, site.engine.tables, [postTag(id)])).get(postTag(id))).to.equal(before + 1);
    } finally {
      await site.close();
    }
    const ours = await catalog(host, "calpress");
    expect(ours.relations).to.include.members(["cp_posts", "cp_cache_tags", "cp_posts_id_seq"]);
    expect(ours.indexes).to.include.members(["cp_posts_title_trgm", "cp_posts_excerpt_trgm", "cp_posts_content_trgm"]);
    for (const [kind, names] of Object.entries(ours)) expect((names as string[]).filter((n) => !n.startsWith("cp_")), kind).to.deep.equal([]);
    expect((await catalog(host, "public")).relations).to.deep.equal(["users", "users_id_seq"]);

    // Opened again (tables recorded, indexes there), in the schema that now exists.
    const again = await createSite({ db: database.target, schema: "calpress", webhooks: false });
    try {
      expect((await again.engine.posts.get(id))?.title).to.equal("Renamed");
    } finally {
      await again.close();
    }
  });

  it("follows a knex config whose searchPath names the schema", async () => {
    await host.raw("CREATE SCHEMA calpress");
    const config: Knex.Config = { ...configFromTarget(database.target), searchPath: ["calpress"] };
    const site = await createSite({ db: config, webhooks: false });
    try {
      expect(site.engine.tables.posts).to.equal("cp_posts");
      const { id } = await site.engine.posts.create({ type: "event", status: "publish", title: "Searched elsewhere" });
      expect((await site.engine.posts.find({ type: "event", search: "ched else" })).posts.map((p) => p.id)).to.deep.equal([id]);
    } finally {
      await site.close();
    }
    expect((await catalog(host, "calpress")).indexes).to.include("cp_posts_title_trgm");
    expect((await catalog(host, "public")).relations).to.deep.equal([]);
  });
});

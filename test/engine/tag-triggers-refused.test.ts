/**
 * A MariaDB/MySQL server may refuse a user the right to create triggers (no
 * TRIGGER privilege; with binary logging, no SUPER). The site then starts
 * anyway and says why, nothing relies on the tags (a conditional write is
 * refused rather than made unguarded), and a
 * later migration by a user who may create them adds them: the same path
 * upgrades a database made before MariaDB had tag triggers.
 */
import { expect } from "chai";
import knexFactory from "knex";
import { postTag, readTagVersions } from "../../lib/db/cache-tags";
import { configFromTarget } from "../../lib/db/target";
import { testTargets, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { makeEvent } from "../calendar/events-support";

const server = testTargets().find((t) => t.name === "mysql");

(server === undefined ? describe.skip : describe)("engine: cache-tag triggers refused by the server (mysql)", () => {
  const user = `calpress_nt_${process.pid}`;
  const password = "no-trigger-pass-0123";
  let database: TestDatabase;
  let name: string;
  let site: TestSite | undefined;
  const logged: string[] = [];

  /** The test database as `user`. */
  const target = (): string => {
    const url = new URL(database.target);
    url.username = user;
    url.password = password;
    return url.toString();
  };

  /** Runs `sql` as the server's administrator (the test URL's user). */
  const asAdmin = async (sql: string, bindings: readonly string[]): Promise<void> => {
    const k = knexFactory({ ...configFromTarget(database.target), pool: { min: 0, max: 1 } });
    try {
      await k.raw(sql, bindings);
    } finally {
      await k.destroy();
    }
  };

  before(async function () {
    this.timeout(60_000);
    if (server === undefined) return;
    database = await server.create();
    name = decodeURIComponent(new URL(database.target).pathname.slice(1));
    await asAdmin("CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?", [user, password]);
    // Everything calpress needs but TRIGGER.
    await asAdmin("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX, DROP, REFERENCES ON ??.* TO ?@'127.0.0.1'", [name, user]);
    site = await startTestSite({ target: target(), fixture: "minimal", timezone: "UTC", logger: { error: (message) => logged.push(message) } });
  });

  after(async function () {
    this.timeout(60_000);
    await site?.close();
    if (database !== undefined) {
      await asAdmin("DROP USER IF EXISTS ?@'127.0.0.1'", [user]);
      await database.drop();
    }
  });

  it("starts, says why and what to grant, and keeps no promise it cannot: conditional writes are refused", async () => {
    const t = site!;
    expect(t.site.engine.cacheTagsKept).to.equal(false);
    expect(logged).to.have.length(1);
    expect(logged[0]).to.contain("refused to create calpress's cache-tag triggers (TRIGGER command denied").and.contain("TRIGGER privilege").and.contain("log_bin_trust_function_creators");
    expect(t.site.rest.answerStore).to.equal(undefined);
    // A conditional write cannot be made safe here: it is refused, and changes nothing; a plain one goes through.
    const event = await makeEvent(t, { title: "Unguarded Night", status: "publish" });
    const url = `/events/${event.id}`;
    const etag = (await t.get(url, { as: "editor" })).headers.get("etag") ?? "";
    const refused = await t.post(url, { as: "editor", json: { title: "First" }, headers: { "If-Match": etag } });
    expect(refused.status).to.equal(412);
    expect(refused.body.code).to.equal("rest_precondition_unverifiable");
    expect((await t.get(url)).body.title).to.equal("Unguarded Night");
    // A precondition that fails on its own still answers rest_precondition_failed.
    expect((await t.post(url, { as: "editor", json: { title: "Stale" }, headers: { "If-Match": '"stale"' } })).body.code).to.equal("rest_precondition_failed");
    expect((await t.post(url, { as: "editor", json: { title: "First" } })).status).to.equal(200);
  });

  it("keeps nothing by the revision token the triggers would make: another writer's change shows at once", async () => {
    const t = site!;
    expect(t.site.engine.readCache).to.equal(null);
    expect(t.site.rest.records).to.equal(undefined);
    const event = await makeEvent(t, { title: "Untracked Night", status: "publish" });
    const url = `/events/${event.id}`;
    for (let i = 0; i < 3; i++) expect((await t.get(url)).body.title).to.equal("Untracked Night");
    expect((await t.get("/events?per_page=50")).body.events.map((e: { title: string }) => e.title)).to.include("Untracked Night");
    // Another writer (no trigger bumps anything): the response cache made before the migration must not answer from before.
    await asAdmin("UPDATE ?? SET title = 'Renamed Elsewhere' WHERE id = ?", [`${name}.cp_posts`, String(event.id)]);
    expect((await t.get(url)).body.title).to.equal("Renamed Elsewhere");
    expect((await t.get("/events?per_page=50")).body.events.map((e: { title: string }) => e.title)).to.include("Renamed Elsewhere");
  });

  it("a migration with the privilege adds them (idempotently), and from then on the tags are kept", async () => {
    await asAdmin("GRANT TRIGGER ON ??.* TO ?@'127.0.0.1'", [name, user]);
    // A database-wide grant reaches new connections: the site started again, as a host would.
    await site?.close();
    site = await startTestSite({ target: target(), timezone: "UTC", logger: { error: (message) => logged.push(message) } });
    const t = site;
    await t.site.migrate();
    expect(t.site.engine.cacheTagsKept).to.equal(true);
    expect(logged).to.have.length(1);
    const { knex, tables } = t.site.engine;
    const event = await t.site.engine.posts.create({ type: "venue", title: "Guarded Hall", status: "publish" });
    const version = async (): Promise<number> => (await readTagVersions(knex, tables, [postTag(event.id)])).get(postTag(event.id)) ?? 0;
    const before = await version();
    expect(before).to.be.greaterThan(0);
    // Plain SQL, as another process would write.
    await knex(tables.posts).where({ id: event.id }).update({ title: "Elsewhere" });
    expect(await version()).to.equal(before + 1);
    const triggers = (await knex("information_schema.TRIGGERS").where("TRIGGER_SCHEMA", name).count({ n: "*" }).first()) as { n: number | string };
    // posts, terms, postmeta, term relationships, post links, occurrences, options, users, and the typed-field tables: three each.
    expect(Number(triggers.n) % 3).to.equal(0);
    expect(Number(triggers.n)).to.be.greaterThan(8 * 3);
  });
});

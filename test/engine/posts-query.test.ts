import { expect } from "chai";
import type { Engine } from "../../lib/engine";
import { EngineError } from "../../lib/engine-errors";
import type { PostQuery, PostStatus } from "../../lib/posts/types";
import type { RoleName } from "../../lib/users/types";
import { forEachDatabase } from "../support/databases";
import { Fixture, useFixture } from "../support/engine";

const NOW = new Date(Date.UTC(2026, 2, 10, 12, 0, 0));

forEachDatabase("engine: post queries", (db) => {
  const fx = useFixture(db, { now: () => NOW });

  /** Titles of a query's page (every query here is limited to the fixture's posts by language `it`). */
  const titles = async (q: Partial<PostQuery>): Promise<string[]> =>
    (await fx().engine.posts.find({ type: "event", language: "it", perPage: 100, orderBy: [{ field: "title", dir: "asc" }], ...q })).posts.map((p) => p.title);

  let P: Record<string, number> = {};
  let T: Record<string, number> = {};

  before(async () => {
    const { engine, users, author2 } = fx();
    const tag = async (name: string, extra: { parent?: number; language?: string; translationGroup?: number } = {}): Promise<number> =>
      (await engine.terms.create({ taxonomy: "event_cat", name, language: extra.language ?? "it", ...extra })).id;
    T = {};
    T.music = await tag("Music");
    T.jazz = await tag("Jazz", { parent: T.music });
    T.bebop = await tag("Bebop", { parent: T.jazz });
    T.theatre = await tag("Theatre");
    T.musicEn = await tag("Music", { language: "en", translationGroup: T.music });
    const venueA = await engine.posts.create({ type: "venue", status: "publish", title: "Venue A", language: "it" });
    const venueB = await engine.posts.create({ type: "venue", status: "publish", title: "Venue B", language: "it" });
    const venueAen = await engine.posts.create({ type: "venue", status: "publish", title: "Venue A en", language: "en", translationGroup: venueA.id });
    P = { venueA: venueA.id, venueB: venueB.id, venueAen: venueAen.id };
    const mk = async (key: string, status: PostStatus, author: number, extra: Record<string, unknown> = {}): Promise<void> => {
      const p = await engine.posts.create({ type: "event", status, author, title: key, language: "it", dateLocal: "2026-01-01 10:00:00", ...extra });
      P[key] = p.id;
    };
    await mk("a-pub", "publish", users.author.id, {
      content: "Late night JAZZ in the cellar",
      fields: { city: "Roma", capacity: 50, start: "2026-04-01 20:00:00" },
      terms: { event_cat: [T.jazz] },
      links: { venue: [venueA.id] },
      meta: { note: "bring a torch" },
    });
    await mk("a-private", "private", users.author.id, { fields: { capacity: 10 } });
    await mk("a-draft", "draft", users.author.id, { excerpt: "night owls only" });
    await mk("a-pending", "pending", users.author.id);
    await mk("a-future", "future", users.author.id, { dateLocal: "2027-01-01 10:00:00" });
    await mk("a-trash", "publish", users.author.id);
    await engine.posts.trash(P["a-trash"]);
    await mk("b-pub", "publish", author2.id, {
      content: "Night theatre, late",
      password: "secret",
      fields: { city: "Milano", capacity: 200, start: "2026-03-01 20:00:00" },
      terms: { event_cat: [T.theatre, T.bebop] },
      links: { venue: [venueB.id, venueA.id] },
    });
    await mk("b-private", "private", author2.id);
    await mk("b-draft", "draft", author2.id, { content: "Ärger über Öl" });
    await mk("b-future", "future", author2.id, { dateLocal: "2027-02-01 10:00:00" });
    await mk("c-pub", "publish", users.editor.id, { title: "c-pub", content: "100% fun_time", fields: { start: "2026-05-01 20:00:00" }, terms: { event_cat: [T.music] } });
    await mk("c-pub-en", "publish", users.editor.id, { language: "en", links: { venue: [venueAen.id] } });
  });

  it("applies the read visibility of each role", async () => {
    const { as } = fx();
    const visible = async (role: RoleName | "author2" | null): Promise<string[]> =>
      titles({ visibility: { user: role === null ? null : as(role), mode: "read" } });
    const published = ["a-pub", "b-pub", "c-pub"];
    expect(await visible(null)).to.deep.equal(published);
    expect(await visible("subscriber")).to.deep.equal(published);
    expect(await visible("contributor")).to.deep.equal(published);
    expect(await visible("author")).to.deep.equal(["a-draft", "a-future", "a-pending", "a-private", "a-pub", "b-pub", "c-pub"]);
    expect(await visible("author2")).to.deep.equal(["a-pub", "b-draft", "b-future", "b-private", "b-pub", "c-pub"]);
    const everything = ["a-draft", "a-future", "a-pending", "a-private", "a-pub", "b-draft", "b-future", "b-private", "b-pub", "c-pub"];
    expect(await visible("editor")).to.deep.equal(everything);
    expect(await visible("administrator")).to.deep.equal(everything);
  });

  it("applies the list-edit visibility (every non-trash status for editors of the type)", async () => {
    const { as } = fx();
    const listed = async (role: RoleName | null): Promise<string[]> => titles({ visibility: { user: role === null ? null : as(role), mode: "list-edit" } });
    const everything = ["a-draft", "a-future", "a-pending", "a-private", "a-pub", "b-draft", "b-future", "b-private", "b-pub", "c-pub"];
    expect(await listed(null)).to.deep.equal(["a-pub", "b-pub", "c-pub"]);
    expect(await listed("subscriber")).to.deep.equal(["a-pub", "b-pub", "c-pub"]);
    expect(await listed("contributor")).to.deep.equal(everything);
    expect(await listed("author")).to.deep.equal(everything);
    // An explicit status list narrows the visible set further.
    expect(await titles({ status: ["draft", "publish"], visibility: { user: as("author"), mode: "read" } })).to.deep.equal(["a-draft", "a-pub", "b-pub", "c-pub"]);
  });

  it("filters by status, ids, excludeIds, author, parent, language and password", async () => {
    const { users, author2, engine } = fx();
    expect(await titles({ status: ["trash"] })).to.deep.equal(["a-trash"]);
    expect(await titles({ status: ["future"] })).to.deep.equal(["a-future", "b-future"]);
    expect(await titles({ ids: [P["a-pub"], P["b-draft"]] })).to.deep.equal(["a-pub", "b-draft"]);
    expect(await titles({ status: ["publish"], excludeIds: [P["a-pub"]] })).to.deep.equal(["b-pub", "c-pub"]);
    expect(await titles({ status: ["publish", "private"], author: [author2.id] })).to.deep.equal(["b-private", "b-pub"]);
    expect(await titles({ author: [users.editor.id] })).to.deep.equal(["c-pub"]);
    expect(await titles({ language: "en" })).to.deep.equal(["c-pub-en"]);
    expect(await titles({ hasPassword: true })).to.deep.equal(["b-pub"]);
    expect(await titles({ status: ["publish"], hasPassword: false })).to.deep.equal(["a-pub", "c-pub"]);
    const child = await engine.posts.create({ type: "page", status: "publish", title: "Child", parent: P.venueA, language: "it" });
    expect((await engine.posts.find({ type: "page", parent: [P.venueA] })).posts.map((p) => p.id)).to.deep.equal([child.id]);
    // Several types at once.
    const both = await engine.posts.find({ type: ["event", "venue"], language: "it", status: ["publish"], orderBy: [{ field: "title", dir: "asc" }] });
    expect(both.posts.map((p) => p.title)).to.deep.equal(["a-pub", "b-pub", "c-pub", "Venue A", "Venue B"]);
  });

  it("filters on typed fields and core columns", async () => {
    expect(await titles({ where: [{ field: "city", op: "=", value: "Roma" }] })).to.deep.equal(["a-pub"]);
    expect(await titles({ status: ["publish"], where: [{ field: "city", op: "!=", value: "Roma" }] })).to.deep.equal(["b-pub", "c-pub"]);
    expect(await titles({ where: [{ field: "capacity", op: ">=", value: 50 }] })).to.deep.equal(["a-pub", "b-pub"]);
    expect(await titles({ where: [{ field: "capacity", op: "in", value: [10, 200] }] })).to.deep.equal(["a-private", "b-pub"]);
    expect(await titles({ status: ["publish"], where: [{ field: "capacity", op: "not in", value: [50] }] })).to.deep.equal(["b-pub", "c-pub"]);
    expect(await titles({ status: ["publish"], where: [{ field: "city", op: "is null" }] })).to.deep.equal(["c-pub"]);
    expect(await titles({ where: [{ field: "start", op: "<", value: "2026-04-15 00:00:00" }] })).to.deep.equal(["a-pub", "b-pub"]);
    expect(await titles({ where: [{ field: "all_day", op: "=", value: false }, { field: "city", op: "not null" }] })).to.deep.equal(["a-pub", "b-pub"]);
    expect(await titles({ where: [{ field: "date_local", op: ">", value: "2026-06-01 00:00:00" }] })).to.deep.equal(["a-future", "b-future"]);
    expect(await titles({ where: [{ field: "slug", op: "=", value: "b-pub" }] })).to.deep.equal(["b-pub"]);
    try {
      await titles({ where: [{ field: "nope", op: "=", value: 1 }] });
      expect.fail("should throw");
    } catch (err) {
      expect((err as EngineError).code).to.equal("invalid_field");
    }
  });

  it("filters by taxonomy: IN, AND, NOT IN, children and translations", async () => {
    const tax = (t: NonNullable<PostQuery["tax"]>[number]): Promise<string[]> => titles({ status: ["publish"], tax: [t] });
    expect(await tax({ taxonomy: "event_cat", terms: [T.jazz] })).to.deep.equal(["a-pub"]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.music], includeChildren: true })).to.deep.equal(["a-pub", "b-pub", "c-pub"]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.jazz], includeChildren: true })).to.deep.equal(["a-pub", "b-pub"]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.theatre, T.bebop], operator: "AND" })).to.deep.equal(["b-pub"]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.theatre, T.jazz], operator: "AND" })).to.deep.equal([]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.theatre, T.jazz], operator: "AND", includeChildren: true })).to.deep.equal(["b-pub"]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.theatre], operator: "NOT IN" })).to.deep.equal(["a-pub", "c-pub"]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.musicEn] })).to.deep.equal([]);
    expect(await tax({ taxonomy: "event_cat", terms: [T.musicEn], translations: true })).to.deep.equal(["c-pub"]);
    expect(await tax({ taxonomy: "event_cat", terms: [987654] })).to.deep.equal([]);
  });

  it("filters by links: to, from, exists, translations", async () => {
    const { engine } = fx();
    expect(await titles({ links: [{ relation: "venue", to: [P.venueA] }] })).to.deep.equal(["a-pub", "b-pub"]);
    expect(await titles({ links: [{ relation: "venue", to: [P.venueB] }] })).to.deep.equal(["b-pub"]);
    expect(await titles({ links: [{ relation: "venue", to: [P.venueAen], translations: true }] })).to.deep.equal(["a-pub", "b-pub"]);
    expect(await titles({ status: ["publish"], links: [{ relation: "venue", exists: false }] })).to.deep.equal(["c-pub"]);
    expect(await titles({ links: [{ relation: "venue", exists: true }] })).to.deep.equal(["a-pub", "b-pub"]);
    const venues = await engine.posts.find({ type: "venue", links: [{ relation: "venue", from: [P["b-pub"]] }], orderBy: [{ field: "title", dir: "asc" }] });
    expect(venues.posts.map((p) => p.title)).to.deep.equal(["Venue A", "Venue B"]);
  });

  it("filters by posts linking in (linkedBy) with their own status and field conditions", async () => {
    const { engine } = fx();
    const venues = async (linkedBy: NonNullable<NonNullable<PostQuery["links"]>[number]["linkedBy"]>): Promise<string[]> =>
      (
        await engine.posts.find({
          type: "venue",
          ids: [P.venueA, P.venueB, P.venueAen],
          links: [{ relation: "venue", linkedBy }],
          orderBy: [{ field: "title", dir: "asc" }],
        })
      ).posts.map((p) => p.title);
    expect(await venues({ exists: true, type: "event", status: ["publish"] })).to.deep.equal(["Venue A", "Venue A en", "Venue B"]);
    expect(await venues({ exists: true, type: "event", where: [{ field: "city", op: "=", value: "Roma" }] })).to.deep.equal(["Venue A"]);
    expect(await venues({ exists: false, type: "event", where: [{ field: "city", op: "=", value: "Milano" }] })).to.deep.equal(["Venue A en"]);
    expect(await venues({ exists: true, type: "event", status: ["draft"] })).to.deep.equal([]);
  });

  it("searches like WordPress: every word in some field, phrases, exclusions, case and wildcards", async () => {
    const s = (search: string, extra: Partial<PostQuery> = {}): Promise<string[]> => titles({ search, ...extra });
    expect(await s("jazz")).to.deep.equal(["a-pub"]);
    expect(await s("NIGHT late")).to.deep.equal(["a-pub", "b-pub"]);
    // Words may match different fields: "roma" is the city field, "cellar" the content.
    expect(await s("roma cellar")).to.deep.equal(["a-pub"]);
    expect(await s('"late night"')).to.deep.equal(["a-pub"]);
    expect(await s('"night late"')).to.deep.equal([]);
    expect(await s("night -theatre")).to.deep.equal(["a-draft", "a-pub"]);
    expect(await s("owls")).to.deep.equal(["a-draft"]);
    expect(await s("torch")).to.deep.equal(["a-pub"]);
    expect(await s("100%")).to.deep.equal(["c-pub"]);
    expect(await s("0%")).to.deep.equal(["c-pub"]);
    // `_` and `%` are literal: "fu_" is not in "fun_time" (as a wildcard it would match "fun").
    expect(await s("fu_")).to.deep.equal([]);
    expect(await s("n_t")).to.deep.equal(["c-pub"]);
    expect(await s("fun_time")).to.deep.equal(["c-pub"]);
    // Non-ASCII text always finds itself (SQLite folds only ASCII case).
    expect(await s("Ärger")).to.deep.equal(["b-draft"]);
    // Stop words and single letters are dropped ("the" would match "theatre").
    expect(await s("the jazz a")).to.deep.equal(["a-pub"]);
  });

  it("searches venues and organizers with all words in one field", async () => {
    const { engine } = fx();
    await engine.posts.create({ type: "venue", status: "publish", title: "Grand Hall", language: "it", fields: { city: "Torino", address: "Via Grand 1" } });
    const find = async (search: string, mode: PostQuery["searchMode"]): Promise<string[]> =>
      (await engine.posts.find({ type: "venue", language: "it", search, searchMode: mode })).posts.map((p) => p.title);
    expect(await find("grand torino", "words-any-field")).to.deep.equal(["Grand Hall"]);
    expect(await find("grand torino", "all-words-one-field")).to.deep.equal([]);
    expect(await find("grand hall", "all-words-one-field")).to.deep.equal(["Grand Hall"]);
    expect(await find("via grand", "all-words-one-field")).to.deep.equal(["Grand Hall"]);
  });

  it("orders by core columns and typed fields with id as a stable tie-breaker, NULLs first", async () => {
    const { engine } = fx();
    const ids = (await engine.posts.find({ type: "event", language: "it", perPage: 100, orderBy: [{ field: "date_local", dir: "asc" }] })).posts.map((p) => p.id);
    const sorted = [...ids];
    // Every non-future post shares one date, so they come in id order.
    const sameDate = ids.filter((id) => id !== P["a-future"] && id !== P["b-future"]);
    expect(sameDate).to.deep.equal([...sameDate].sort((a, b) => a - b));
    expect(sorted.slice(-2)).to.deep.equal([P["a-future"], P["b-future"]]);
    expect(await titles({ status: ["publish", "private"], orderBy: [{ field: "capacity", dir: "asc" }] })).to.deep.equal(["b-private", "c-pub", "a-private", "a-pub", "b-pub"]);
    expect(await titles({ status: ["publish", "private"], orderBy: [{ field: "capacity", dir: "desc" }] })).to.deep.equal(["b-pub", "a-pub", "a-private", "c-pub", "b-private"]);
    expect(await titles({ status: ["publish"], orderBy: [{ field: "start", dir: "desc" }] })).to.deep.equal(["c-pub", "a-pub", "b-pub"]);
    expect(await titles({ ids: [P["c-pub"], P["a-pub"], P["b-pub"]], orderBy: [{ field: "include", dir: "asc" }] })).to.deep.equal(["c-pub", "a-pub", "b-pub"]);
  });

  it("pages without gaps or repeats and reports exact totals", async () => {
    const { engine } = fx();
    const base: PostQuery = { type: "event", language: "it", perPage: 3, orderBy: [{ field: "date_local", dir: "desc" }] };
    const all = await engine.posts.find({ ...base, perPage: 100 });
    const seen: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await engine.posts.find({ ...base, page });
      expect(r.total).to.equal(all.posts.length);
      seen.push(...r.posts.map((p) => p.id));
    }
    expect(seen).to.deep.equal(all.posts.map((p) => p.id));
    expect((await engine.posts.find({ ...base, page: 99 })).total).to.equal(all.posts.length);
    expect((await engine.posts.find({ ...base, noTotal: true })).total).to.equal(-1);
    expect(await engine.posts.count({ type: "event", language: "it", status: ["publish"] })).to.equal(3);
    // Default page size is the posts_per_page option.
    expect((await engine.posts.find({ type: "event", language: "it" })).posts.length).to.equal(10);
  });

  it("batch-loads meta, terms and links: the query count does not grow with the page", async () => {
    const { engine } = fx();
    const countQueries = async (perPage: number): Promise<{ n: number; posts: Awaited<ReturnType<Engine["posts"]["find"]>>["posts"] }> => {
      let n = 0;
      const listener = (): void => {
        n++;
      };
      engine.knex.on("query", listener);
      try {
        const r = await engine.posts.find({ type: "event", language: "it", perPage, noTotal: true, with: { meta: true, terms: true, links: true } });
        return { n, posts: r.posts };
      } finally {
        engine.knex.removeListener("query", listener);
      }
    };
    const small = await countQueries(2);
    const large = await countQueries(11);
    expect(large.posts.length).to.equal(11);
    expect(large.n).to.equal(small.n);
    const bPub = large.posts.find((p) => p.id === P["b-pub"])!;
    expect(bPub.termIds).to.deep.equal({ event_cat: [T.theatre, T.bebop], event_tag: [] });
    expect(bPub.links).to.deep.equal({ venue: [P.venueB, P.venueA] });
    expect(large.posts.find((p) => p.id === P["a-pub"])!.meta).to.deep.equal({ note: "bring a torch" });
  });

  it("loads many posts by id in the asked order", async () => {
    const { engine } = fx();
    const got = await engine.posts.getMany([P["c-pub"], P["a-pub"], 999999]);
    expect([...got.keys()]).to.deep.equal([P["c-pub"], P["a-pub"]]);
  });

  void (null as unknown as Fixture);
});

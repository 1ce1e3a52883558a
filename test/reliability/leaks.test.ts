/**
 * No leaks: drafts, pending, private, scheduled, trashed and
 * password-protected events, venues and organizers never reach readers who
 * may not see them, through any read route, count, search, embedded record,
 * by-slug lookup or error message; and application passwords, their hashes
 * and user e-mails never appear in any response, whoever asks.
 */
import { expect } from "chai";
import { collectSecrets, findSecrets, type Secret } from "../../fuzz/secrets";
import { startTestSite, type ApiResponse, type Credentials, type RequestOptions, type TestSite } from "../support/site";
import { EVENT_PASSWORD, leakFixture, MARKER, VENUE_PASSWORD } from "./leak-fixture";

type Role = "anonymous" | "subscriber" | "contributor" | "author" | "editor" | "admin";

interface Probe {
  path: string;
  query?: RequestOptions["query"];
  /** The request itself unlocks the content (the right post password): markers are expected. */
  unlocks?: boolean;
}

interface Ids {
  events: Record<string, number>;
  venues: Record<string, number>;
  organizers: Record<string, number>;
  categories: Record<string, number>;
  tags: Record<string, number>;
}

async function idsByTitle(t: TestSite): Promise<Ids> {
  const knex = t.site.engine.knex;
  const posts = (await knex(t.site.engine.tables.posts).select("id", "type", "title", "slug")) as { id: number; type: string; title: string; slug: string }[];
  const terms = (await knex(t.site.engine.tables.terms).select("id", "taxonomy", "name")) as { id: number; taxonomy: string; name: string }[];
  const ids: Ids = { events: {}, venues: {}, organizers: {}, categories: {}, tags: {} };
  for (const p of posts) {
    const bucket = p.type === "event" ? ids.events : p.type === "venue" ? ids.venues : p.type === "organizer" ? ids.organizers : undefined;
    if (bucket) bucket[p.title] = Number(p.id);
  }
  for (const term of terms) (term.taxonomy === "post_tag" ? ids.tags : ids.categories)[term.name] = Number(term.id);
  return ids;
}

/** Every read a client can make of this site, with the filters that touch hidden records. */
function probes(ids: Ids, slugs: string[]): Probe[] {
  const all = Object.values(ids.events);
  const wide = { start_date: "1970-01-01", end_date: "2100-01-01", per_page: 50 };
  const out: Probe[] = [
    { path: "/wp-json/" },
    { path: "/wp-json/calendar/events/v1" },
    { path: "/doc" },
    { path: "/events" },
    { path: "/events", query: wide },
    { path: "/events", query: { ...wide, strict_dates: "true" } },
    { path: "/events", query: { include: all.join(","), per_page: 50 } },
    { path: "/events", query: { ...wide, search: "hush" } },
    { path: "/events", query: { ...wide, search: "event" } },
    { path: "/events", query: { ...wide, status: "publish" } },
    { path: "/events", query: { ...wide, status: "draft" } },
    { path: "/events", query: { ...wide, status: "private,draft,pending,future,trash" } },
    { path: "/events", query: { ...wide, categories: String(ids.categories.Backstage) } },
    { path: "/events", query: { ...wide, tags: String(ids.tags.internal) } },
    { path: "/events", query: { starts_after: "1970-01-01", per_page: 50 } },
    { path: "/events", query: { ...wide, page: 2, per_page: 1 } },
    { path: "/events", query: { ...wide, _fields: "events,total" } },
    { path: "/events", query: { ...wide, _envelope: "1" } },
    { path: "/events", query: { ...wide, context: "edit" } },
    { path: "/venues", query: { per_page: 50 } },
    { path: "/venues", query: { per_page: 50, has_events: "true" } },
    { path: "/venues", query: { per_page: 50, has_events: "false" } },
    { path: "/venues", query: { per_page: 50, only_with_upcoming: "true" } },
    { path: "/venues", query: { per_page: 50, search: "hush" } },
    { path: "/venues", query: { per_page: 50, status: "draft" } },
    { path: "/organizers", query: { per_page: 50 } },
    { path: "/organizers", query: { per_page: 50, has_events: "1" } },
    { path: "/organizers", query: { per_page: 50, has_events: "0" } },
    { path: "/organizers", query: { per_page: 50, only_with_upcoming: "1" } },
    { path: "/organizers", query: { per_page: 50, search: "hush" } },
    { path: "/categories", query: { per_page: 50 } },
    { path: "/categories", query: { per_page: 50, hide_empty: "false" } },
    { path: "/categories", query: { per_page: 50, hide_empty: "false", orderby: "count", order: "desc" } },
    { path: "/tags", query: { per_page: 50, hide_empty: "false" } },
  ];
  for (const id of Object.values(ids.events)) {
    out.push({ path: `/events/${id}` }, { path: `/events/${id}`, query: { password: "wrong" } }, { path: `/events/${id}`, query: { context: "edit" } });
    out.push({ path: "/venues", query: { per_page: 50, event: id } }, { path: "/organizers", query: { per_page: 50, event: id } });
    out.push({ path: "/categories", query: { per_page: 50, hide_empty: "false", event: id } }, { path: "/tags", query: { per_page: 50, hide_empty: "false", post: id } });
    out.push({ path: "/events", query: { ...wide, post_parent: id } });
  }
  for (const id of Object.values(ids.venues)) {
    out.push({ path: `/venues/${id}` }, { path: `/venues/${id}`, query: { password: "wrong" } }, { path: "/events", query: { ...wide, venue: id } });
  }
  for (const id of Object.values(ids.organizers)) {
    out.push({ path: `/organizers/${id}` }, { path: "/events", query: { ...wide, organizer: id } });
  }
  for (const id of [...Object.values(ids.categories)]) out.push({ path: `/categories/${id}` });
  for (const id of [...Object.values(ids.tags)]) out.push({ path: `/tags/${id}` });
  for (const slug of slugs) {
    for (const kind of ["events", "venues", "organizers"]) out.push({ path: `/${kind}/by-slug/${encodeURIComponent(slug)}` });
  }
  // The right passwords do unlock; only the responses to these may show protected content.
  out.push({ path: `/events/${ids.events["Protected Event"]}`, query: { password: EVENT_PASSWORD }, unlocks: true });
  out.push({ path: `/venues/${ids.venues["Protected Venue"]}`, query: { password: VENUE_PASSWORD }, unlocks: true });
  return out;
}

function asOption(role: Role, t: TestSite): Credentials | undefined {
  return role === "anonymous" ? undefined : t.users[role];
}

function listLength(body: unknown): number | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  for (const key of ["events", "venues", "organizers", "categories", "tags"]) {
    const list = (body as Record<string, unknown>)[key];
    if (Array.isArray(list)) return list.length;
  }
  return undefined;
}

describe("reliability: no leaks of hidden content or secrets", function () {
  this.timeout(60_000);
  let t: TestSite;
  let ids: Ids;
  let allProbes: Probe[];
  let secrets: Secret[];
  const answers = new Map<Role, Array<{ probe: Probe; res: ApiResponse }>>();

  before(async () => {
    t = await startTestSite({ fixture: leakFixture });
    ids = await idsByTitle(t);
    const slugs = ((await t.site.engine.knex(t.site.engine.tables.posts).select("slug")) as { slug: string }[]).map((r) => r.slug).filter((s) => s !== "");
    slugs.push("hidden-draft-event", "hidden-venue-draft", "hidden-org-draft", "hidden-trashed-event");
    allProbes = probes(ids, [...new Set(slugs)]);
    secrets = await collectSecrets(
      t.site.engine.knex,
      t.site.engine.tables,
      (leakFixture.users ?? []).map((u) => ({ login: u.login, email: u.email, appPasswords: u.app_password ? [u.app_password] : [] })),
    );
    for (const role of ["anonymous", "subscriber", "contributor", "admin"] as Role[]) {
      const list: Array<{ probe: Probe; res: ApiResponse }> = [];
      for (const probe of allProbes) list.push({ probe, res: await t.get(probe.path, { as: asOption(role, t), query: probe.query }) });
      answers.set(role, list);
    }
  });
  after(async () => {
    await t?.close();
  });

  it("the fixture really has hidden records (the markers are in the database)", async () => {
    const hidden = (await t.site.engine.knex(t.site.engine.tables.posts).whereNot("status", "publish").select("id")) as unknown[];
    expect(hidden.length).to.be.at.least(10);
    expect(Object.keys(ids.events)).to.include.members(["ZZLEAK Draft Event", "ZZLEAK Future Event", "Protected Event"]);
  });

  it("the sweep reaches hidden content: an administrator's answers to the same requests show every marker", () => {
    const seen = new Set<string>();
    for (const { res } of answers.get("admin") ?? []) for (const m of res.text.matchAll(/ZZLEAK-[a-z]+/g)) seen.add(m[0]);
    expect([...seen].sort()).to.include.members(["ZZLEAK-ed", "ZZLEAK-ep", "ZZLEAK-epriv", "ZZLEAK-efut", "ZZLEAK-eprot", "ZZLEAK-vd", "ZZLEAK-vpriv", "ZZLEAK-od"]);
  });

  for (const role of ["anonymous", "subscriber"] as Role[]) {
    it(`${role}: no hidden record in any list, count, search, embedded record, by-slug answer or error message`, () => {
      const leaks: string[] = [];
      for (const { probe, res } of answers.get(role) ?? []) {
        if (probe.unlocks) continue;
        const text = `${JSON.stringify([...res.headers])}\n${res.text}`;
        if (MARKER.test(text)) {
          const at = text.search(MARKER);
          leaks.push(`${probe.path} ${JSON.stringify(probe.query ?? {})} → ${res.status}: …${text.slice(Math.max(0, at - 120), at + 60)}…`);
        }
      }
      expect(leaks).to.deep.equal([]);
    });

    it(`${role}: X-WP-Total and X-CAL-Total count only what the list shows`, () => {
      const wrong: string[] = [];
      let checked = 0;
      for (const { probe, res } of answers.get(role) ?? []) {
        if (res.status !== 200 || probe.query?.per_page !== 50 || probe.query?.page !== undefined) continue;
        const shown = listLength(res.body);
        if (shown === undefined) continue;
        checked++;
        const headers = [res.headers.get("x-wp-total"), res.headers.get("x-cal-total"), String((res.body as { total?: number }).total)];
        if (headers.some((h) => h !== String(shown))) wrong.push(`${probe.path} ${JSON.stringify(probe.query)}: shows ${shown}, totals ${headers.join("/")}`);
      }
      expect(wrong).to.deep.equal([]);
      expect(checked).to.be.greaterThan(40);
    });

    it(`${role}: only_with_upcoming and has_events do not reveal records linked only to hidden events`, () => {
      const names = (path: string, query: Record<string, string | number>): string[] => {
        const hit = (answers.get(role) ?? []).find((a) => a.probe.path === path && JSON.stringify(a.probe.query) === JSON.stringify(query));
        expect(hit, `${path} ${JSON.stringify(query)}`).to.not.equal(undefined);
        expect(hit?.res.status).to.equal(200);
        const list = (hit?.res.body as Record<string, Array<Record<string, unknown>>>)[path.slice(1)] ?? [];
        return list.map((r) => String(r.venue ?? r.organizer));
      };
      // calendar-api.md §5.1: only_with_upcoming counts the events this reader may list (published only).
      expect(names("/venues", { per_page: 50, only_with_upcoming: "true" })).to.not.include.members(["Quiet Hall"]);
      expect(names("/venues", { per_page: 50, only_with_upcoming: "true" })).to.not.include("Lonely Hall");
      // has_events: events that are neither draft nor pending; Lonely Hall has only those.
      expect(names("/venues", { per_page: 50, has_events: "true" })).to.not.include("Lonely Hall");
      expect(names("/organizers", { per_page: 50, has_events: "1" })).to.not.include("Lonely Org");
    });

    it(`${role}: term counts count published events only`, async () => {
      const knex = t.site.engine.knex;
      const hit = (answers.get(role) ?? []).find((a) => a.probe.path === "/categories" && a.probe.query?.hide_empty === "false" && a.probe.query?.orderby === undefined);
      const cats = (hit?.res.body as { categories: Array<{ id: number; name: string; count: number }> }).categories;
      for (const c of cats) {
        const published = (await knex(`${t.site.engine.tables.termRelationships} as r`)
          .join(`${t.site.engine.tables.posts} as p`, "p.id", "r.object_id")
          .where({ "r.term_id": c.id, "p.status": "publish" })
          .count({ n: "*" })) as Array<{ n: number | string }>;
        expect(c.count, c.name).to.equal(Number(published[0]?.n));
      }
      expect(cats.find((c) => c.name === "Backstage")?.count).to.equal(0);
      const shown = (answers.get(role) ?? []).find((a) => a.probe.path === "/categories" && a.probe.query?.hide_empty === undefined);
      expect((shown?.res.body as { categories: Array<{ name: string }> }).categories.map((c) => c.name)).to.not.include("Backstage");
    });
  }

  // Was BUG-3: `search=<word>` told an anonymous reader whether a protected
  // description contains that word (the record was listed masked, but its
  // presence was the answer). WordPress adds `AND post_password = ''` to
  // searches of logged-out users (WP_Query::parse_search); calpress lets a
  // protected record match on its title only, which the list shows anyway.
  it("BUG-3: anonymous searches do not match the hidden content of password-protected records", async () => {
    for (const kind of ["events", "venues", "organizers"]) {
      const res = await t.get(`/${kind}`, { query: { search: "hush", start_date: "1970-01-01", end_date: "2100-01-01", per_page: 50 } });
      expect(res.status, kind).to.equal(200);
      expect((res.body as { total: number }).total, kind).to.equal(0);
    }
  });

  it("single reads of hidden events answer 403 (404 for trash is not required) to readers without the right, as §4.2 and §8 say", async () => {
    const expectations: Array<[string, Role, number]> = [
      ["ZZLEAK Draft Event", "anonymous", 403],
      ["ZZLEAK Draft Event", "subscriber", 403],
      ["ZZLEAK Draft Event", "author", 403],
      ["ZZLEAK Draft Event", "contributor", 403],
      ["ZZLEAK Private Event", "contributor", 403],
      ["ZZLEAK Private Event", "subscriber", 403],
      ["ZZLEAK Pending Event", "author", 403],
      ["ZZLEAK Future Event", "anonymous", 403],
      ["ZZLEAK Trashed Event", "anonymous", 403],
      ["Protected Event", "anonymous", 403],
      ["Protected Event", "subscriber", 403],
    ];
    for (const [title, role, status] of expectations) {
      const res = await t.get(`/events/${ids.events[title]}`, { as: asOption(role, t) });
      expect(res.status, `${role} reading ${title}`).to.equal(status);
      expect(res.text, `${role} reading ${title}`).to.not.match(MARKER);
    }
    // The owner and editors do see them; the right password opens a protected event.
    expect((await t.get(`/events/${ids.events["ZZLEAK Private Event"]}`, { as: t.users.author })).status).to.equal(200);
    expect((await t.get(`/events/${ids.events["ZZLEAK Draft Event"]}`, { as: t.users.editor })).status).to.equal(200);
    const opened = await t.get(`/events/${ids.events["Protected Event"]}`, { query: { password: EVENT_PASSWORD } });
    expect(opened.status).to.equal(200);
    expect(opened.text).to.match(MARKER);
  });

  it("no response to any role contains an application password, a password hash or a user e-mail", () => {
    expect(secrets.length).to.be.at.least(10);
    const found: string[] = [];
    for (const [role, list] of answers) {
      for (const { probe, res } of list) {
        const hits = findSecrets(`${JSON.stringify([...res.headers])}\n${res.text}`, secrets);
        if (hits.length > 0) found.push(`${role} ${probe.path}: ${hits.join(", ")}`);
      }
    }
    expect(found).to.deep.equal([]);
  });

  it("failed logins do not reveal whether a login or e-mail exists beyond the WordPress codes, nor echo the password", async () => {
    const tries: Credentials[] = [
      { login: "admin", password: "admin-app-pass-78" },
      { login: "root-admin@leak-test.invalid", password: "nope-nope-nope" },
      { login: "nobody", password: "admin-app-pass-77" },
    ];
    for (const creds of tries) {
      const res = await t.get("/events", { as: creds });
      expect(res.status).to.equal(401);
      expect(findSecrets(res.text, [...secrets, { value: creds.password }])).to.deep.equal([]);
    }
  });
});

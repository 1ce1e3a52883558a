/**
 * The changes feed's promise (README, "Keeping a copy in sync"): a copy of
 * the lists kept by replaying the feed equals the lists. Seeded random
 * mixes of writes by an administrator and an author through the HTTP API —
 * links to drafts, statuses, term deletes with children, two languages,
 * series with detached and cancelled occurrences — then the feed replayed
 * (in pages) into one copy per reader, anonymous and administrator, each
 * compared with every list that reader reads, record by record.
 */
import { expect } from "chai";
import { Random } from "../../lib/fixtures/random";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { EVENT_WINDOW, LANGUAGES, Mirror, readList, type Rec } from "./changes-mirror";
import { useSite } from "./events-support";

const ROUNDS = 4;
const WRITES_PER_ROUND = 60;
const STATUSES = ["publish", "publish", "draft", "private", "pending"] as const;
const WRITERS = ["admin", "admin", "author"] as const;

/** What the writers know of the site: ids to pick from (some gone by now: a write to one is a 4xx, which is fine). */
interface Known {
  venues: number[];
  organizers: number[];
  categories: number[];
  tags: number[];
  events: number[];
  series: number[];
}

class Writers {
  private n = 0;
  readonly log: string[] = [];

  constructor(
    private readonly t: TestSite,
    private readonly rnd: Random,
    private readonly known: Known,
  ) {}

  private async send(method: string, path: string, as: string, json?: Rec, query?: Record<string, string>): Promise<Rec | null> {
    const res = await this.t.request<Rec>(method, path, { as, ...(json === undefined ? {} : { json }), ...(query === undefined ? {} : { query }) });
    this.log.push(`${method} ${path} ${JSON.stringify(json ?? query ?? {})} as ${as} → ${res.status}`);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.below(500);
    return res.status < 300 ? res.body : null;
  }

  private day(): string {
    const d = new Date(Date.UTC(2027, 2, 1) + this.rnd.int(0, 90) * 86_400_000);
    return d.toISOString().slice(0, 10);
  }

  private language(): Record<string, string> {
    return { i18n_language: this.rnd.chance(0.3) ? "fr" : "en" };
  }

  async one(): Promise<void> {
    const r = this.rnd;
    const k = this.known;
    const name = `Mix ${++this.n}`;
    const op = r.weighted<string>([
      ["venue", 3],
      ["venue-status", 4],
      ["venue-edit", 2],
      ["organizer", 2],
      ["organizer-status", 2],
      ["event", 8],
      ["event-edit", 6],
      ["event-delete", 2],
      ["category", 3],
      ["category-delete", 2],
      ["category-edit", 2],
      ["tag", 1],
      ["tag-delete", 1],
      ["series", 3],
      ["detach", 4],
      ["cancel", 2],
      ["series-edit", 2],
    ]);
    switch (op) {
      case "venue": {
        const body = await this.send("POST", "/venues", r.pick(WRITERS), { venue: name, city: "Town", status: r.pick(STATUSES) }, this.language());
        if (body) k.venues.push(body.id as number);
        return;
      }
      case "venue-status":
      case "organizer-status": {
        const venue = op === "venue-status";
        const id = r.pick(venue ? k.venues : k.organizers);
        if (id === undefined) return;
        const path = `/${venue ? "venues" : "organizers"}/${id}`;
        if (r.chance(0.2)) await this.send("DELETE", path, "admin");
        else await this.send("POST", path, "admin", { status: r.pick(STATUSES) });
        return;
      }
      case "venue-edit": {
        const id = r.pick(k.venues);
        if (id === undefined) return;
        const now = await this.t.get<Rec>(`/venues/${id}`, { as: "admin" });
        if (now.status !== 200) return;
        await this.send("POST", `/venues/${id}`, "admin", { venue: `${name} hall`, city: `City ${this.n}`, status: now.body.status as string });
        return;
      }
      case "organizer": {
        const body = await this.send("POST", "/organizers", r.pick(WRITERS), { organizer: name, email: `o${this.n}@example.com`, status: r.pick(STATUSES) }, this.language());
        if (body) k.organizers.push(body.id as number);
        return;
      }
      case "event":
      case "series": {
        const day = this.day();
        const json: Rec = {
          title: name,
          status: r.pick(STATUSES),
          start_date: `${day} 18:00:00`,
          end_date: `${day} 20:00:00`,
          ...this.links(),
        };
        if (r.chance(0.1)) json.password = "pw";
        if (op === "series") json.recurrence = [r.pick(["RRULE:FREQ=WEEKLY;COUNT=4", "RRULE:FREQ=DAILY;COUNT=5", "RRULE:FREQ=MONTHLY;COUNT=3"])];
        const body = await this.send("POST", "/events", r.pick(WRITERS), json, this.language());
        if (body) (op === "series" ? k.series : k.events).push(body.id as number);
        return;
      }
      case "event-edit": {
        const id = r.pick([...k.events, ...k.series]);
        if (id === undefined) return;
        const json: Rec = r.weighted<Rec>([
          [{ status: r.pick(STATUSES) }, 3],
          [this.links(), 3],
          [{ title: `${name} (edited)` }, 1],
          [{ password: r.chance(0.5) ? "" : "pw" }, 1],
        ]);
        await this.send("POST", `/events/${id}`, "admin", json);
        return;
      }
      case "event-delete": {
        const id = r.pick([...k.events, ...k.series]);
        if (id !== undefined) await this.send("DELETE", `/events/${id}`, "admin", undefined, r.chance(0.3) ? { force: "true" } : undefined);
        return;
      }
      case "category":
      case "tag": {
        const category = op === "category";
        const parent = category && r.chance(0.6) ? r.pick(k.categories) : undefined;
        const body = await this.send("POST", category ? "/categories" : "/tags", "admin", { name, ...(parent === undefined ? {} : { parent }) }, this.language());
        if (body) (category ? k.categories : k.tags).push(body.id as number);
        return;
      }
      case "category-delete":
      case "tag-delete": {
        const category = op === "category-delete";
        const id = r.pick(category ? k.categories : k.tags);
        if (id !== undefined) await this.send("DELETE", `/${category ? "categories" : "tags"}/${id}`, "admin", undefined, { force: "true" });
        return;
      }
      case "category-edit": {
        const id = r.pick(k.categories);
        if (id === undefined) return;
        const parent = r.pick(k.categories);
        await this.send("POST", `/categories/${id}`, "admin", r.chance(0.5) || parent === undefined || parent === id ? { slug: `${name.toLowerCase().replace(/ /g, "-")}-slug` } : { parent });
        return;
      }
      case "detach":
      case "cancel": {
        const occurrence = await this.someOccurrence();
        if (occurrence === undefined) return;
        if (op === "cancel") await this.send("DELETE", `/events/${occurrence}`, "admin");
        else await this.send("POST", `/events/${occurrence}`, "admin", r.chance(0.5) ? { status: r.pick(STATUSES) } : { title: `${name} (detached)` });
        return;
      }
      case "series-edit": {
        const id = r.pick(k.series);
        if (id === undefined) return;
        await this.send("POST", `/events/${id}`, "admin", r.chance(0.5) ? { title: `${name} (series)` } : { recurrence: [r.pick(["RRULE:FREQ=WEEKLY;COUNT=2", "RRULE:FREQ=WEEKLY;COUNT=6", "RRULE:FREQ=DAILY;COUNT=3"])] });
        return;
      }
    }
  }

  /** Venue, organizers and terms for an event: any of those known, drafts and deleted ones included. */
  private links(): Rec {
    const r = this.rnd;
    const k = this.known;
    const out: Rec = {};
    if (k.venues.length > 0 && r.chance(0.7)) out.venue = r.pick(k.venues);
    if (k.organizers.length > 0 && r.chance(0.5)) out.organizer = r.sample(k.organizers, r.int(1, 2));
    if (k.categories.length > 0 && r.chance(0.6)) out.categories = r.sample(k.categories, r.int(1, 2));
    if (k.tags.length > 0 && r.chance(0.4)) out.tags = r.sample(k.tags, 1);
    return out;
  }

  /** The id of an occurrence of a known series, as the administrator lists them. */
  private async someOccurrence(): Promise<number | undefined> {
    const id = this.rnd.pick(this.known.series);
    if (id === undefined) return undefined;
    const res = await this.t.get<{ events: Rec[] }>("/events", { as: "admin", query: { include: id, per_page: 50 } });
    const occurrences = (res.body.events ?? []).filter((e) => e.series_id === id && (e.id as number) !== id);
    return occurrences.length === 0 ? undefined : (this.rnd.pick(occurrences).id as number);
  }
}

forEachDatabase("changes feed: a copy kept with it equals the lists", (db) => {
  const site = useSite(db);

  it("after seeded random mixes of writes, for anonymous and administrator readers", async function () {
    this.timeout(600_000);
    const t = site();
    // The fixture's records are part of the mix (translations among them).
    const known: Known = { venues: [], organizers: [], categories: [], tags: [], events: [], series: [] };
    for (const language of LANGUAGES) {
      for (const [collection, into] of [["venues", known.venues], ["organizers", known.organizers], ["categories", known.categories], ["tags", known.tags]] as const) {
        for (const r of await readList(t, collection, { i18n_language: language, ...(collection === "categories" || collection === "tags" ? { hide_empty: 0 } : {}) }, "admin")) into.push(r.id as number);
      }
      for (const r of await readList(t, "events", { ...EVENT_WINDOW, i18n_language: language }, "admin")) if ((r.id as number) < 10_000_000) known.events.push(r.id as number);
    }
    const mirrors = [new Mirror(t, undefined), new Mirror(t, "admin")];
    for (const m of mirrors) await m.start();
    const writers = new Writers(t, new Random(20260522), known);
    for (let round = 1; round <= ROUNDS; round++) {
      for (let i = 0; i < WRITES_PER_ROUND; i++) await writers.one();
      for (const m of mirrors) {
        await m.sync(round === 1 ? 7 : 50);
        try {
          await m.expectEqualsLists(`round ${round}, ${m === mirrors[0] ? "anonymous" : "admin"}:`);
        } catch (err) {
          // The seed replays the same mix: the writes are what a failure needs explaining with.
          console.log(writers.log.join("\n"));
          throw err;
        }
      }
    }
  });
});

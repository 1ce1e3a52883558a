/**
 * A copy of the calendar's lists kept with the changes feed, exactly as
 * README's "Keeping a copy in sync" tells a client to keep one: what the
 * feed's promise is tested against (test/calendar/changes-replay.test.ts).
 */
import { expect } from "chai";
import type { TestSite } from "../support/site";

export type Rec = Record<string, unknown>;

export interface FeedEntry {
  id: number;
  type: "event" | "venue" | "organizer" | "category" | "tag";
  deleted: boolean;
  language?: string;
  record?: Rec;
  occurrences?: Rec[];
}

/** README: occurrence ids are 10,000,000 and up; post ids stay below. */
const OCCURRENCE_ID_BASE = 10_000_000;
export const LANGUAGES = ["en", "fr"] as const;
/** Wide enough for every event the tests write (the lists' default window starts today). */
export const EVENT_WINDOW = { start_date: "1990-01-01", end_date: "2200-01-01" };
const COLLECTIONS = { venue: "venues", organizer: "organizers", category: "categories", tag: "tags" } as const;
type Linked = keyof typeof COLLECTIONS;
const EMBEDDED_TERM: Record<string, "categories" | "tags"> = { category: "categories", tag: "tags" };

/** One reader's copy: records by language, as the lists of that language show them. */
export class Mirror {
  /** Listed events (single events, detached ones and occurrences) by listed id. */
  readonly events = new Map<number, { language: string; record: Rec }>();
  readonly linked: Record<Linked, Map<number, { language: string; record: Rec }>> = {
    venue: new Map(),
    organizer: new Map(),
    category: new Map(),
    tag: new Map(),
  };
  token = "";

  constructor(
    private readonly t: TestSite,
    private readonly as: string | undefined,
  ) {}

  /** Takes the token first, then reads every list (a change in between is reported again). */
  async start(): Promise<void> {
    const res = await this.t.get("/changes", { as: this.as });
    expect(res.status).to.equal(200);
    this.token = res.body.next as string;
    for (const language of LANGUAGES) {
      for (const record of await readList(this.t, "events", { ...EVENT_WINDOW, i18n_language: language }, this.as)) this.events.set(record.id as number, { language, record });
      for (const type of Object.keys(COLLECTIONS) as Linked[]) {
        for (const record of await readList(this.t, COLLECTIONS[type], listQuery(type, language), this.as)) this.linked[type].set(record.id as number, { language, record });
      }
    }
  }

  /** Reads the feed from the kept token to its end, a page at a time, applying each entry in order. */
  async sync(perPage = 20): Promise<number> {
    let entries = 0;
    for (let pages = 0; pages < 10_000; pages++) {
      const res = await this.t.get("/changes", { as: this.as, query: { since: this.token, per_page: perPage } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      for (const entry of res.body.changes as FeedEntry[]) this.apply(entry);
      entries += (res.body.changes as FeedEntry[]).length;
      this.token = res.body.next as string;
      if (res.body.more !== true) return entries;
    }
    throw new Error("the feed never ended");
  }

  apply(entry: FeedEntry): void {
    if (entry.type === "event") {
      this.events.delete(entry.id);
      // A series is listed as its occurrences: those it had go, those it has come.
      for (const [id, e] of this.events) if (id >= OCCURRENCE_ID_BASE && e.record.series_id === entry.id) this.events.delete(id);
      if (entry.deleted) return;
      const language = entry.language as string;
      if (entry.occurrences !== undefined) for (const o of entry.occurrences) this.events.set(o.id as number, { language, record: o });
      else this.events.set(entry.id, { language, record: entry.record as Rec });
      return;
    }
    const kept = this.linked[entry.type];
    if (entry.deleted) kept.delete(entry.id);
    else kept.set(entry.id, { language: entry.language as string, record: entry.record as Rec });
    // What events embed of it: their copies follow its entry; a tombstone takes it out.
    for (const { record } of this.events.values()) embed(record, entry);
  }

  /** Compares the copy with the lists this reader reads now, member by member. */
  async expectEqualsLists(label: string): Promise<void> {
    for (const language of LANGUAGES) {
      const listed = await readList(this.t, "events", { ...EVENT_WINDOW, i18n_language: language }, this.as);
      const mine = [...this.events.values()].filter((e) => e.language === language && e.record.hide_from_listings !== true).map((e) => e.record);
      expectSameRecords(`${label} events/${language}`, mine, listed);
      for (const type of Object.keys(COLLECTIONS) as Linked[]) {
        const theirs = await readList(this.t, COLLECTIONS[type], listQuery(type, language), this.as);
        const copy = [...this.linked[type].values()].filter((e) => e.language === language).map((e) => e.record);
        expectSameRecords(`${label} ${COLLECTIONS[type]}/${language}`, copy, theirs);
      }
    }
  }
}

function listQuery(type: Linked, language: string): Record<string, string | number> {
  return type === "category" || type === "tag" ? { hide_empty: 0, i18n_language: language } : { i18n_language: language };
}

/** An entry of a venue, organizer, category or tag, applied to one event's embedded copies. */
function embed(event: Rec, entry: FeedEntry): void {
  if (entry.type === "venue") {
    const venues = (Array.isArray(event.venue) ? event.venue : [event.venue]) as Rec[];
    const after = replaced(venues, entry, (r) => r);
    // One venue is shown as the record, several as an array, none as [].
    event.venue = after.length === 1 ? after[0] : after;
  } else if (entry.type === "organizer") {
    event.organizer = replaced(event.organizer as Rec[], entry, (r) => r);
  } else {
    const member = EMBEDDED_TERM[entry.type];
    event[member] = replaced(event[member] as Rec[], entry, embeddedTerm);
  }
}

function replaced(list: Rec[], entry: FeedEntry, shape: (record: Rec) => Rec): Rec[] {
  const out: Rec[] = [];
  for (const r of list) {
    if (r === undefined || r === null || r.id !== entry.id) out.push(r);
    else if (!entry.deleted) out.push(shape(entry.record as Rec));
  }
  return out;
}

/** README: how an event embeds a category or tag, from the term's own record. */
function embeddedTerm(r: Rec): Rec {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    term_group: 0,
    term_taxonomy_id: r.id,
    taxonomy: r.taxonomy,
    description: r.description,
    parent: r.parent ?? 0,
    count: r.count,
    filter: "raw",
    urls: r.urls,
  };
}

/** Every page of a list (at most 200 pages). */
export async function readList(t: TestSite, collection: string, query: Record<string, string | number>, as?: string): Promise<Rec[]> {
  const out: Rec[] = [];
  for (let page = 1; page <= 200; page++) {
    const res = await t.get(`/${collection}`, { as, query: { ...query, per_page: 50, page } });
    expect(res.status, `${collection} ${JSON.stringify(res.body)}`).to.equal(200);
    out.push(...(res.body[collection] as Rec[]));
    // Past the last page the events list answers 404: stop at the count of pages the headers give.
    if (page >= Number(res.headers.get("x-wp-totalpages") ?? 0)) return out;
  }
  throw new Error(`${collection}: more than 200 pages`);
}

function expectSameRecords(label: string, mine: Rec[], theirs: Rec[]): void {
  const byId = (list: Rec[]): Map<number, Rec> => new Map(list.map((r) => [r.id as number, r]));
  const a = byId(mine);
  const b = byId(theirs);
  const missing = [...b.keys()].filter((id) => !a.has(id));
  const extra = [...a.keys()].filter((id) => !b.has(id));
  expect({ missing, extra }, `${label}: ids the copy lacks / has too many (${JSON.stringify({ missing: missing.map((id) => b.get(id)?.title ?? b.get(id)?.name ?? b.get(id)?.venue), extra: extra.map((id) => a.get(id)?.title ?? a.get(id)?.name ?? a.get(id)?.venue) })})`).to.deep.equal({ missing: [], extra: [] });
  for (const [id, record] of b) expect(a.get(id), `${label}: record ${id}`).to.deep.equal(record);
}

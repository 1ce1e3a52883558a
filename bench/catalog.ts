import knexFactory from "knex";
import { tableNames } from "../lib/db/tables";
import { configFromTarget } from "../lib/db/target";
import { Rng } from "./rng";

/**
 * What the workloads need to know about the loaded data: every published
 * event's id, slug and title (for the random item reads, and to update
 * events without changing what search finds), a category with many events,
 * a word that occurs in titles, and for the varied workloads every category
 * and venue with published events and a list of search terms.
 *
 * Read straight from the core `posts`/`terms` tables (lib/db/migrations.ts;
 * the names calpress gives them by default, as the benchmark's `calpress` runs)
 * rather than through the REST API: listing 100k events 50 at a time would
 * take longer than the benchmark, and a sample would flatter any cache.
 */
export interface CatalogEvent {
  id: number;
  slug: string;
  title: string;
}

export interface Catalog {
  events: CatalogEvent[];
  /** The event category with the most published events. */
  categoryId: number;
  categoryEvents: number;
  searchWord: string;
  searchHits: number;
  /** A venue id (writes link their new events to it). */
  venueId: number | undefined;
  language: string;
  /** Every category (of the site's language) with published events, by id: month_category_varied picks among them. */
  categoryIds: number[];
  /** Every venue with published events (of the site's language), by id: venue_varied picks among them. */
  venueIds: number[];
  /** search_varied's terms (buildSearchTerms). */
  searchTerms: SearchTerms;
}

export interface SearchTerms {
  /** Title words and adjacent two-word phrases: each occurs in at least one title. */
  hits: string[];
  /** Made-up words that occur in no title (a search that finds nothing is a request too). */
  misses: string[];
}

/** Post type and taxonomy names of lib/calendar/post-types.ts. */
const EVENT_TYPE = "event";
const VENUE_TYPE = "venue";
const CATEGORY_TAXONOMY = "calendar_events_cat";
/** The post_links relation from an event to its venue. */
const VENUE_LINK = "venue";

/** Words too common to test search (they match nearly every title). */
const STOP_WORDS = new Set(["the", "and", "for", "with", "from", "night"]);

export async function readCatalog(target: string, tables = tableNames()): Promise<Catalog> {
  const knex = knexFactory(configFromTarget(target));
  try {
    // Item reads without a language parameter resolve in the site's main
    // language; the commonest language among events is that language.
    const langs = (await knex(tables.posts)
      .select("language")
      .count({ n: "*" })
      .where({ type: EVENT_TYPE, status: "publish" })
      .groupBy("language")
      .orderBy("n", "desc")) as { language: string; n: number | string }[];
    if (langs.length === 0) throw new Error("the database has no published events: did the fixture load?");
    const language = langs[0].language;

    const rows = (await knex(tables.posts)
      .select("id", "slug", "title")
      // Password-protected events answer 403 to anonymous readers: not what the item workloads measure.
      .where({ type: EVENT_TYPE, status: "publish", password: "", language })
      .whereNot("slug", "")
      .orderBy("id")) as { id: number | string; slug: string; title: string }[];
    const events = rows.map((r) => ({ id: Number(r.id), slug: r.slug, title: r.title }));

    const cats = (await knex(`${tables.termRelationships} as tr`)
      .join(`${tables.terms} as t`, "t.id", "tr.term_id")
      .join(`${tables.posts} as p`, "p.id", "tr.object_id")
      .where({ "t.taxonomy": CATEGORY_TAXONOMY, "p.type": EVENT_TYPE, "p.status": "publish" })
      .select("t.id as id")
      .count({ n: "*" })
      .groupBy("t.id")
      .orderBy([{ column: "n", order: "desc" }, { column: "t.id", order: "asc" }])
      .limit(1)) as { id: number | string; n: number | string }[];
    if (cats.length === 0) throw new Error("no event category has published events");

    const venue = (await knex(tables.posts).select("id").where({ type: VENUE_TYPE, status: "publish" }).orderBy("id").first()) as
      | { id: number | string }
      | undefined;

    // Both only of the site's language: an id of another language's term or venue is not what a reader of this one sends.
    const categoryRows = (await knex(`${tables.termRelationships} as tr`)
      .join(`${tables.terms} as t`, "t.id", "tr.term_id")
      .join(`${tables.posts} as p`, "p.id", "tr.object_id")
      .where({ "t.taxonomy": CATEGORY_TAXONOMY, "t.language": language, "p.type": EVENT_TYPE, "p.status": "publish", "p.language": language })
      .distinct("t.id as id")
      .orderBy("t.id")) as { id: number | string }[];
    const venueRows = (await knex(`${tables.postLinks} as l`)
      .join(`${tables.posts} as p`, "p.id", "l.from_id")
      .join(`${tables.posts} as v`, "v.id", "l.to_id")
      .where({ "l.relation": VENUE_LINK, "p.type": EVENT_TYPE, "p.status": "publish", "p.language": language, "v.type": VENUE_TYPE, "v.status": "publish" })
      .distinct("v.id as id")
      .orderBy("v.id")) as { id: number | string }[];

    if (venueRows.length === 0) throw new Error("no venue has published events (venue_varied needs some)");

    const titles = events.map((e) => e.title);
    const { word, hits } = pickSearchWord(titles);
    return {
      events,
      categoryId: Number(cats[0].id),
      categoryEvents: Number(cats[0].n),
      searchWord: word,
      searchHits: hits,
      venueId: venue ? Number(venue.id) : undefined,
      language,
      categoryIds: categoryRows.map((r) => Number(r.id)),
      venueIds: venueRows.map((r) => Number(r.id)),
      searchTerms: buildSearchTerms(titles),
    };
  } finally {
    await knex.destroy();
  }
}

/**
 * A title word that selects about 5% of the events: selective enough to be a
 * real search, common enough to fill a page. Ties go to the alphabetically
 * first word so that the choice is the same on every run.
 */
export function pickSearchWord(titles: string[]): { word: string; hits: number } {
  const counts = new Map<string, number>();
  for (const title of titles) {
    const words = new Set(title.toLowerCase().match(/[a-z]{4,}/g) ?? []);
    for (const w of words) if (!STOP_WORDS.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  if (counts.size === 0) throw new Error("no title has a word of four letters or more to search for");
  const goal = titles.length * 0.05;
  let best = "";
  let bestHits = 0;
  for (const [w, n] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (best === "" || Math.abs(n - goal) < Math.abs(bestHits - goal)) {
      best = w;
      bestHits = n;
    }
  }
  return { word: best, hits: bestHits };
}

/** Share of search_varied's terms that find nothing. */
const MISS_SHARE = 0.1;
const CONSONANTS = "bdfgklmnprstvz";
const VOWELS = "aeiou";

/**
 * search_varied's terms, the same for the same titles: every title word of
 * four letters or more and every adjacent pair of such words ("late night",
 * "jazz session"; sent unquoted, so calpress looks for both words), sorted,
 * plus about 10% misses: made-up words (seeded) that occur in no title.
 * Only ASCII words: SQLite folds only ASCII case, so "île" would not find
 * "Île" there and a "hit" would be a miss on one database only.
 */
export function buildSearchTerms(titles: string[]): SearchTerms {
  const found = new Set<string>();
  const isWord = (t: string): boolean => /^[a-z]{4,}$/.test(t);
  for (const title of titles) {
    const tokens = title.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t !== "");
    for (let i = 0; i < tokens.length; i++) {
      if (!isWord(tokens[i])) continue;
      found.add(tokens[i]);
      if (i + 1 < tokens.length && isWord(tokens[i + 1])) found.add(`${tokens[i]} ${tokens[i + 1]}`);
    }
  }
  const hits = [...found].sort();
  const text = titles.join("\n").toLowerCase();
  const wanted = Math.ceil((hits.length * MISS_SHARE) / (1 - MISS_SHARE));
  const misses = new Set<string>();
  const rng = new Rng(21);
  // Pronounceable eight-letter words: a search engine sees nothing special in them.
  for (let tries = 0; misses.size < wanted && tries < wanted * 100; tries++) {
    let w = "";
    for (let k = 0; k < 4; k++) w += CONSONANTS[rng.below(CONSONANTS.length)] + VOWELS[rng.below(VOWELS.length)];
    if (!text.includes(w)) misses.add(w);
  }
  return { hits, misses: [...misses] };
}

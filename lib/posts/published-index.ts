import type { Knex } from "knex";
import { storedIds } from "../db/ids";
import type { SearchCaseFolding, TagChanges } from "../db/dialects/types";
import type { Tables } from "../db/tables";
import { FreshRuns } from "../cache/fresh-runs";
import { EngineError } from "../engine-errors";
import { toDbValue } from "./fields";
import type { RegisteredPostType } from "./registry";
import type { FieldCondition, FieldValue, PostQuery } from "./types";
import { PackedLists, roomFor } from "./packed-lists";
import { parseSearch } from "./search";
import { visibilityRules } from "./visibility";
import { isIndexedWord, WordIndex, type WordQuery } from "./word-index";
import { occurrenceId } from "./occurrence-ids";

/**
 * The published posts of one post type, in memory, answering the lists every
 * anonymous reader asks for (ids and total) without a statement: the page
 * walks a sorted array instead of counting tens of thousands of rows after
 * every write. Opt-in per type (`PostTypeConfig.publishedIndex`).
 *
 * Kept exact by the cache tags (lib/db/cache-tags.ts): before answering
 * under a revision token, the index reads which tags changed since its last
 * position (`TagChanges`, one statement) and reloads those posts. A post's
 * tag moves with its row, typed fields, terms and links from it, whoever
 * writes (another process, another site on the same database), so a write is
 * seen by the next read, as with the statements it replaces.
 *
 * What it answers: one post type, published posts only (anonymous visibility
 * or `status: ["publish"]`), conditions on the numeric, boolean and date
 * fields the type indexes and on id, author, parent, language, password,
 * publication date, terms and links to given posts, ordered by those fields.
 * A search of ASCII words is answered from the words of the posts' text
 * (lib/posts/word-index.ts); any other search from the ids the database
 * finds for it. The posts its posts link to answer another type's
 * `linkedBy` condition (`linkTargets`). Anything else (other statuses,
 * text fields, links from given posts) is
 * answered by SQL as before: `plan` says which.
 */

/**
 * What a slot lists. A post that repeats (lib/posts/occurrences.ts) has a
 * slot of its own, listed by queries without `occurrences`, and one per
 * instance, listed by queries with it; any other post is listed by both.
 */
const PLAIN = 0;
const SERIES = 1;
const INSTANCE = 2;
type Kind = typeof PLAIN | typeof SERIES | typeof INSTANCE;

/** A post, or an instance of one, as the index holds it: numbers where the database compares numbers or fixed-width dates. */
interface Entry {
  /** The id it is listed under: the post's, or the instance's (`occurrenceId`). */
  id: number;
  /** The post's id. */
  post: number;
  kind: Kind;
  language: string;
  author: number;
  parent: number;
  /** `date_local` packed (see `packDate`). */
  date: number;
  protected: boolean;
  /** The held fields, in `HeldField` order; NaN is NULL. */
  values: number[];
  /** Title, excerpt and content, where the index keeps their words; null otherwise. */
  text: string[] | null;
  terms: number[];
  /** Pairs: relation number, linked post id. */
  links: number[];
}

type HeldKind = "datetime" | "number" | "boolean";

/**
 * `YYYY-MM-DD HH:MM:SS` as the number YYYYMMDDHHMMSS: the same order as the
 * text (fixed width, digits), exact below 2^53. NaN for anything else.
 */
function packDate(text: string): number {
  if (text.length !== 19 || text[4] !== "-" || text[7] !== "-" || text[10] !== " " || text[13] !== ":" || text[16] !== ":") return Number.NaN;
  const digits = text.slice(0, 4) + text.slice(5, 7) + text.slice(8, 10) + text.slice(11, 13) + text.slice(14, 16) + text.slice(17, 19);
  return /^\d{14}$/.test(digits) ? Number(digits) : Number.NaN;
}

/** A stored value (as the driver gives it) as the index compares it; NaN for NULL, undefined when it cannot be held. */
function held(kind: HeldKind, raw: unknown): number | undefined {
  if (raw === null || raw === undefined) return Number.NaN;
  switch (kind) {
    case "boolean":
      return raw === true || raw === 1 || raw === "1" || raw === "t" ? 1 : 0;
    case "number": {
      const n = Number(raw);
      return Number.isFinite(n) ? n : undefined;
    }
    case "datetime": {
      const n = packDate(String(raw));
      return Number.isNaN(n) ? undefined : n;
    }
  }
}

/** How a column of the query is read from an entry; `kind` says how a query value is made comparable. */
interface Column {
  /** The column's one name (aliases resolved). */
  name: string;
  /** The value in a slot. */
  read: (slot: number) => number;
  kind: HeldKind | "int";
  def?: { name: string; def: RegisteredPostType["fields"][string] };
}

/** A test of a slot. */
type Predicate = (slot: number) => boolean;

/** A sorted view: slots in the order `compare` gives. */
interface Order {
  compare: (a: number, b: number) => number;
  list: number[];
  /** Each slot's index in `list` (-1: not in it), made when first needed after the list last changed; null: to be made. */
  positions: Int32Array | null;
}

/** Up to this many changed posts are looked for in a match list one by one, with the typed array's own search. */
const FEW_CHANGED = 16;

/**
 * Where in `list` the ids `ids` (distinct) are, ascending. A few are found
 * with `indexOf`, which scans natively (a write between two reads of a
 * 50,000-post list), many in one pass with a set.
 */
function placesOf(list: Int32Array, ids: readonly number[]): number[] {
  const at: number[] = [];
  if (ids.length <= FEW_CHANGED) {
    for (const id of ids) {
      const i = list.indexOf(id);
      if (i >= 0) at.push(i);
    }
    return at.sort((a, b) => a - b);
  }
  const wanted = new Set(ids);
  for (let i = 0; i < list.length; i++) if (wanted.has(list[i])) at.push(i);
  return at;
}

/** `order.positions`, made again if the list changed since. */
function positionsOf(order: Order, slots: number): Int32Array {
  if (order.positions === null || order.positions.length < slots) {
    const positions = new Int32Array(slots).fill(-1);
    order.list.forEach((slot, i) => {
      positions[slot] = i;
    });
    order.positions = positions;
  }
  return order.positions;
}

function insertionPoint(order: Order, slot: number): number {
  let lo = 0;
  let hi = order.list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (order.compare(order.list[mid], slot) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where `slot` (in the view, with the values it was sorted by) sits: keys are unique, as the order ends on the id. */
function locate(order: Order, slot: number): number {
  const at = insertionPoint(order, slot);
  if (order.list[at] !== slot) throw new Error("published index: a sorted view is out of order");
  return at;
}

/** The query's term and link conditions resolved to ids (terms expanded, translations added), in the query's order. */
export interface ResolvedSets {
  tax: number[][][];
  links: number[][];
  /** Per link condition with `linkedBy`: the posts its linking posts link to (another type's index, `linkTargets`). */
  linkedBy?: ReadonlyArray<readonly number[] | undefined>;
  /** The published posts of the type that match the query's search (`searchIds`); absent: no search. */
  search?: Int32Array;
}

/** The database's search statement for the published index (`searchIds`): its key, and its ids, whole or among `only`. */
export interface SearchStatement {
  key: string;
  read(only?: readonly number[]): Promise<number[]>;
}

/** Whether two id lists are the same, in the same order. */
function sameIds(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const ROW_CHUNK = 500;
/** Ids per statement of a whole load. */
const LOAD_SLICE = 5000;

/** Which posts to read: these ids, or every id from `from` to `to`. */
type Which = { ids: number[] } | { from: number; to: number };

function within(q: Knex.QueryBuilder, column: string, which: Which): Knex.QueryBuilder {
  return "ids" in which ? q.whereIn(column, which.ids) : q.whereBetween(column, [which.from, which.to]);
}
/** Kept match lists, one per filter (months × categories, venues…): at most this many, the earliest found going first. */
const MAX_RESULTS = 5000;
/** The change log keeps at most this many syncs and ids; a kept search older than the log is read again whole. */
const MAX_LOGGED_SYNCS = 256;
const MAX_LOGGED_IDS = 20_000;
/**
 * Kept search results: at most this many, holding at most this many ids in
 * all (8 MB: 4 bytes each). A common word matches thousands of posts and its statement
 * takes ~20 ms at 100k: the hundreds of words readers search for are worth
 * keeping whole.
 */
const MAX_SEARCHES = 2048;
const MAX_SEARCH_IDS_HELD = 2_000_000;
/** A kept search result is brought up to date by asking about at most this many changed posts; past that it is read again whole. */
const MAX_SEARCH_RECHECK = 500;
/** A kept match list is patched for at most this many changed posts; past that it is found again. */
const MAX_PATCHED = 256;
/** At most this many ids in the kept match lists (4 bytes each). */
const MAX_HELD_IDS = 1_000_000;

/** The posting-list key of a link to `to` through relation number `relation` (fewer than 64 relations). */
function linkKey(relation: number, to: number): number {
  return to * 64 + relation;
}

/**
 * Posting lists need only be supersets (the tests decide what matches): a
 * slot listed twice (a post linking twice to one post) or left behind is
 * harmless.
 */
/** The list under `key`, made when missing. */
function listOf(lists: Map<number, number[]>, key: number): number[] {
  let list = lists.get(key);
  if (list === undefined) lists.set(key, (list = []));
  return list;
}

function post(lists: Map<number, number[]>, key: number, slot: number): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [slot]);
  else list.push(slot);
}

function unpost(lists: Map<number, number[]>, key: number, slot: number): void {
  const list = lists.get(key);
  if (list === undefined) return;
  const at = list.indexOf(slot);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) lists.delete(key);
}

/**
 * Which posts changed at each version, bounded (MAX_LOGGED_SYNCS entries,
 * MAX_LOGGED_IDS ids): `since(v)` names every post changed after version
 * `v`, or null when the log no longer reaches back that far (a reset, or
 * the bound dropped it) or names more than `most`.
 */
class ChangeLog {
  private current = 0;
  private entries: Array<{ version: number; ids: readonly number[] }> = [];
  private from = 0;
  private logged = 0;

  get version(): number {
    return this.current;
  }

  add(ids: readonly number[]): void {
    this.current++;
    this.entries.push({ version: this.current, ids });
    this.logged += ids.length;
    while (this.entries.length > MAX_LOGGED_SYNCS || this.logged > MAX_LOGGED_IDS) {
      const dropped = this.entries.shift() as { version: number; ids: readonly number[] };
      this.logged -= dropped.ids.length;
      this.from = dropped.version;
    }
  }

  /** A new version that nothing before it can be brought forward to. */
  reset(): void {
    this.current++;
    this.entries = [];
    this.logged = 0;
    this.from = this.current;
  }

  since(version: number, most = Infinity): number[] | null {
    if (version < this.from) return null;
    const ids = new Set<number>();
    for (const entry of this.entries) if (entry.version > version) for (const id of entry.ids) ids.add(id);
    return ids.size <= most ? [...ids] : null;
  }
}

/** Equal, with NaN (NULL) equal to itself. */
function sameNumber(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * The posts in columns, one slot per post: typed arrays for the numbers
 * (a few dozen bytes a post, where objects took several hundred), packed
 * lists for terms and links. Slots of removed posts are reused.
 */
class Slots {
  private capacity = 0;
  id = new Int32Array(0);
  /** The post a slot belongs to (its own id but for an instance's slot). */
  post = new Int32Array(0);
  kind = new Uint8Array(0);
  author = new Int32Array(0);
  parent = new Int32Array(0);
  language = new Uint16Array(0);
  protected = new Uint8Array(0);
  date = new Float64Array(0);
  /** `width` held values per slot; NaN is NULL. */
  values = new Float64Array(0);
  /** Each slot's term ids. */
  readonly terms = new PackedLists();
  /** Each slot's links, as pairs of relation number and target id. */
  readonly links = new PackedLists();
  readonly slotOf = new Map<number, number>();
  /** Posting lists: the slots carrying a term, and those linking to a post through a relation (`linkKey`). */
  readonly byTerm = new Map<number, number[]>();
  readonly byLink = new Map<number, number[]>();
  private readonly free: number[] = [];
  private used = 0;

  /** Slots handed out so far (every slot is below it). */
  get slotCount(): number {
    return this.used;
  }

  constructor(private readonly width: number) {}

  /** Writes `e` into its slot (a new one for a new post); returns the slot. */
  put(e: Entry, language: number): number {
    let slot = this.slotOf.get(e.id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.used++;
      if (slot >= this.capacity) this.grow(roomFor(this.capacity + 1));
      this.slotOf.set(e.id, slot);
    } else {
      this.unpost(slot);
    }
    this.id[slot] = e.id;
    this.post[slot] = e.post;
    this.kind[slot] = e.kind;
    this.author[slot] = e.author;
    this.parent[slot] = e.parent;
    this.language[slot] = language;
    this.protected[slot] = e.protected ? 1 : 0;
    this.date[slot] = e.date;
    this.values.set(e.values, slot * this.width);
    this.terms.set(slot, e.terms);
    this.links.set(slot, e.links);
    for (const t of e.terms) post(this.byTerm, t, slot);
    for (let j = 0; j < e.links.length; j += 2) post(this.byLink, linkKey(e.links[j], e.links[j + 1]), slot);
    return slot;
  }

  /** Takes the slot out of the posting lists of what it carries now. */
  private unpost(slot: number): void {
    for (const t of this.terms.get(slot)) unpost(this.byTerm, t, slot);
    const links = this.links.get(slot);
    for (let j = 0; j < links.length; j += 2) unpost(this.byLink, linkKey(links[j], links[j + 1]), slot);
  }

  /** Whether the slot already holds exactly what `e` would write (an excerpt or title edit changes nothing held). */
  holds(slot: number, e: Entry, language: number): boolean {
    if (this.author[slot] !== e.author || this.parent[slot] !== e.parent || this.language[slot] !== language || this.kind[slot] !== e.kind) return false;
    if (this.protected[slot] !== (e.protected ? 1 : 0) || !sameNumber(this.date[slot], e.date)) return false;
    for (let i = 0; i < this.width; i++) if (!sameNumber(this.values[slot * this.width + i], e.values[i])) return false;
    return this.terms.equals(slot, e.terms) && this.links.equals(slot, e.links);
  }

  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.unpost(slot);
    this.terms.clear(slot);
    this.links.clear(slot);
    this.free.push(slot);
  }

  value(slot: number, at: number): number {
    return this.values[slot * this.width + at];
  }

  private grow(capacity: number): void {
    const copy = <T extends Int32Array | Uint16Array | Uint8Array | Float64Array>(old: T, make: (n: number) => T, per = 1): T => {
      const next = make(capacity * per);
      next.set(old);
      return next;
    };
    this.id = copy(this.id, (n) => new Int32Array(n));
    this.post = copy(this.post, (n) => new Int32Array(n));
    this.kind = copy(this.kind, (n) => new Uint8Array(n));
    this.author = copy(this.author, (n) => new Int32Array(n));
    this.parent = copy(this.parent, (n) => new Int32Array(n));
    this.language = copy(this.language, (n) => new Uint16Array(n));
    this.protected = copy(this.protected, (n) => new Uint8Array(n));
    this.date = copy(this.date, (n) => new Float64Array(n));
    this.values = copy(this.values, (n) => new Float64Array(n), this.width);
    this.terms.grow(capacity);
    this.links.grow(capacity);
    this.capacity = capacity;
  }

  get size(): number {
    return this.slotOf.size;
  }
}

export class PublishedIndex {
  private slots: Slots;
  /** The listed ids of the instances of each published post that repeats (an empty list for one that has none). */
  private instancesOf = new Map<number, number[]>();
  /** Sorted views (slots), by order signature; kept in step with `slots`. */
  private orders = new Map<string, Order>();
  /** Match lists by query, each as of a held version (patched forward when asked again). */
  private results = new Map<string, { matches: Int32Array; at: number }>();
  /** The posts whose held values each reload changed: what a kept match list must be patched for. */
  private readonly heldLog = new ChangeLog();
  /** Link targets found per kept match list (they go with it). */
  private readonly targets = new WeakMap<Int32Array, Map<string, number[]>>();
  /** Search id arrays by identity, for the match lists' keys (a kept search result is one array until it is patched). */
  private readonly serials = new WeakMap<Int32Array | readonly number[], number>();
  private nextSerial = 0;
  /** The posts each sync changed (any type: the tags do not say), for the kept searches. */
  private readonly postLog = new ChangeLog();
  /**
   * Search results by statement (`searchIds`), each as of a version of
   * `postLog`. Typed arrays (4 bytes an id, outside the collected heap): a
   * common word's result holds most of the posts, and many are kept.
   */
  private readonly searches = new Map<string, { version: number; ids: Int32Array }>();
  private searchIdsHeld = 0;
  /** The words of the posts' text, for searches answered without the database (`searchIds`); null where they are not kept. */
  private words: WordIndex | null = null;
  /**
   * Whether the words are kept: not where the database's search folds more
   * than case, nor for a type with search fields of its own (typed fields,
   * meta), which the words do not hold.
   */
  private readonly keepsWords: boolean;
  /** Ids held in `results`, for its bound. */
  private held = 0;
  private readonly heldFields: Array<{ name: string; kind: HeldKind }>;
  private readonly relations = new Map<string, number>();
  /** Languages by number (slots hold the number). */
  private readonly languages = new Map<string, number>();
  /** A stored value the index cannot compare as the database does: it answers nothing. */
  private irregular = false;
  private position: string | null = null;
  /** The revision token the entries are known to be current for. */
  private token: string | null = null;
  /** Syncs batched as the revision check is (lib/cache/fresh-runs.ts); a failed one leaves everything to be read again. */
  private readonly syncs = new FreshRuns(
    () => this.sync(),
    () => {
      this.position = null;
      this.token = null;
    },
  );

  constructor(
    private readonly knex: Knex,
    private readonly tables: Tables,
    private readonly type: RegisteredPostType,
    private readonly changes: TagChanges,
    private readonly folding: SearchCaseFolding | null,
  ) {
    this.heldFields = Object.entries(type.fields)
      .filter(([, def]) => def.index === true && def.type !== "string" && def.type !== "text")
      .map(([name, def]) => ({ name, kind: def.type === "datetime" ? "datetime" : def.type === "boolean" ? "boolean" : "number" }));
    this.slots = new Slots(this.heldFields.length);
    this.keepsWords = folding !== null && (type.config.searchFields ?? []).length === 0;
  }

  private languageNumber(language: string): number {
    let n = this.languages.get(language);
    if (n === undefined) this.languages.set(language, (n = this.languages.size));
    return n;
  }

  // ---------------------------------------------------------------- keeping current

  /**
   * Brings the entries up to date for `token` (read by the caller before
   * this call). A sync that started before this call could miss a commit the
   * token already shows, so the caller waits for one that starts after it; a
   * running sync's successor serves everyone who arrived meanwhile.
   */
  async syncedFor(token: string): Promise<void> {
    if (this.token === token) return;
    await this.syncs.after();
    this.token = token;
  }

  private async sync(): Promise<void> {
    const change = await this.changes.since(this.position);
    if ("all" in change) {
      await this.loadAll();
      this.postLog.reset();
      this.searches.clear();
    } else {
      // Post tags are `id * 4` (lib/db/cache-tags.ts); other kinds change no entry.
      const ids = change.tags.filter((t) => t > 0 && t % 4 === 0).map((t) => t / 4);
      for (let i = 0; i < ids.length; i += ROW_CHUNK) await this.reload(ids.slice(i, i + ROW_CHUNK));
      if (ids.length > 0) this.postLog.add(ids);
    }
    this.position = change.position;
  }

  // ---------------------------------------------------------------- searches kept across writes

  /**
   * The ids of the published posts that `query`'s search finds. A search of
   * ASCII words is answered from the posts' words (`words`); the database
   * is asked only about the posts they cannot decide. Any other search runs
   * the database's statement (`statement()`: its key, and `read(only?)`,
   * the statement narrowed to some ids or whole).
   *
   * Each result is kept across writes. A result from words is found again
   * when a sync changed posts, and stays the same array when it found the
   * same posts (kept match lists are named by the array). A statement's
   * result is asked again only about the posts changed since (the sync
   * log); it is labelled with the version read *before* its statement ran,
   * so that every post changed after it is in a later log entry and is
   * looked at again. The whole statement runs again past MAX_SEARCH_RECHECK
   * changed posts or when the log no longer reaches back.
   */
  async searchIds(query: PostQuery, statement: () => Promise<SearchStatement>): Promise<Int32Array> {
    const version = this.postLog.version;
    const words = this.wordQuery(query);
    if (words !== null && this.words !== null) {
      const kept = this.keptSearch(words.key);
      if (kept !== undefined && kept.version === version) return kept.ids;
      const found = this.words.find(words.query, this.slots.slotCount);
      if (found !== null) {
        // Slots name posts only until the next sync: turned into ids before anything is awaited.
        let ids: Int32Array = Int32Array.from(found.slots, (slot) => this.slots.id[slot]);
        const unsureIds = found.unsure.map((slot) => this.slots.id[slot]);
        if (unsureIds.length > 0) {
          const unsure = await (await statement()).read(unsureIds);
          const all = new Int32Array(ids.length + unsure.length);
          all.set(ids);
          all.set(unsure, ids.length);
          ids = all;
        }
        if (kept !== undefined && sameIds(kept.ids, ids)) ids = kept.ids;
        this.keepSearch(words.key, version, ids);
        return ids;
      }
    }
    const { key, read } = await statement();
    const kept = this.keptSearch(key);
    if (kept !== undefined && kept.version === version) return kept.ids;
    const changed = kept === undefined ? null : this.postLog.since(kept.version, MAX_SEARCH_RECHECK);
    let ids: Int32Array;
    if (kept !== undefined && changed !== null) {
      const now = new Set(kept.ids);
      for (const id of changed) now.delete(id);
      if (changed.length > 0) for (const id of await read(changed)) now.add(id);
      ids = Int32Array.from(now);
    } else {
      ids = Int32Array.from(await read());
    }
    this.keepSearch(key, version, ids);
    return ids;
  }

  /** A kept search result, made the most recently used. */
  private keptSearch(key: string): { version: number; ids: Int32Array } | undefined {
    const kept = this.searches.get(key);
    if (kept !== undefined) {
      this.searches.delete(key);
      this.searches.set(key, kept);
    }
    return kept;
  }

  /**
   * The search as a question to the words (WordPress's parsing, as the SQL
   * path's applySearch reads it), with the key its result is kept under;
   * null when the words cannot answer it: a word with a character other
   * than ASCII letters and digits, or no word to include.
   */
  private wordQuery(query: PostQuery): { key: string; query: WordQuery } | null {
    if (this.words === null || query.search === undefined) return null;
    const terms = parseSearch(query.search);
    if (!terms.every((t) => isIndexedWord(t.text))) return null;
    const include = terms.filter((t) => !t.exclude).map((t) => t.text.toLowerCase());
    const exclude = terms.filter((t) => t.exclude).map((t) => t.text.toLowerCase());
    if (include.length === 0) return null;
    // An anonymous searcher finds a protected post by its title alone (as applySearch).
    const searcher = query.searchAs !== undefined ? query.searchAs : query.visibility?.user;
    const titleOnly = searcher === null;
    const oneField = query.searchMode === "all-words-one-field";
    return {
      // Not a statement's key: those are SQL text.
      key: JSON.stringify(["words", include, exclude, oneField, titleOnly]),
      query: { include, exclude, oneField, titleOnly: titleOnly ? this.slots.protected : null },
    };
  }

  private keepSearch(key: string, version: number, ids: Int32Array): void {
    const old = this.searches.get(key);
    if (old !== undefined) {
      this.searches.delete(key);
      this.searchIdsHeld -= old.ids.length;
    }
    if (ids.length > MAX_SEARCH_IDS_HELD / 8) return;
    this.searches.set(key, { version, ids });
    this.searchIdsHeld += ids.length;
    while (this.searches.size > MAX_SEARCHES || this.searchIdsHeld > MAX_SEARCH_IDS_HELD) {
      const [oldest, value] = this.searches.entries().next().value as [string, { ids: Int32Array }];
      this.searches.delete(oldest);
      this.searchIdsHeld -= value.ids.length;
    }
  }

  /** A whole load reads slices of ids, so that each slice's rows are garbage soon. */
  private rowsQuery(which: Which): Knex.QueryBuilder {
    const k = this.knex;
    const q = k(`${this.tables.posts} as p`)
      .where("p.type", this.type.name)
      .where("p.status", "publish")
      .select("p.id", "p.language", "p.author", "p.parent", "p.date_local", k.raw("case when p.password = '' then 0 else 1 end as protected"));
    if (this.keepsWords) q.select("p.title", "p.excerpt", "p.content");
    if (this.type.config.occurrenceFields !== undefined) {
      // Whether it repeats is the post's own flag: a post that repeats may have no instance left (Occurrences.replace).
      q.select("p.repeats");
    }
    if (this.type.fieldsTable !== null && this.heldFields.length > 0) {
      q.leftJoin(`${this.type.fieldsTable} as f`, "f.post_id", "p.id");
      for (const f of this.heldFields) q.select(k.ref(`f.${f.name}`).as(`f_${f.name}`));
    }
    return within(q, "p.id", which);
  }

  /**
   * The entries of the published posts among `which`, read from the
   * database (terms and links of other posts in a range are read and dropped).
   */
  private async read(which: Which): Promise<Entry[]> {
    const k = this.knex;
    const rows = (await this.rowsQuery(which)) as Array<Record<string, unknown>>;
    const terms = (await within(k(this.tables.termRelationships).select("object_id", "term_id"), "object_id", which)) as Array<{ object_id: number; term_id: number }>;
    const links = (await within(k(this.tables.postLinks).select("from_id", "relation", "to_id"), "from_id", which)) as Array<{
      from_id: number;
      relation: string;
      to_id: number;
    }>;
    const byId = new Map<number, Entry>();
    for (const r of rows) {
      const values: number[] = [];
      for (const f of this.heldFields) {
        const v = held(f.kind, r[`f_${f.name}`]);
        if (v === undefined) this.irregular = true;
        values.push(v ?? Number.NaN);
      }
      const date = packDate(String(r.date_local));
      if (Number.isNaN(date)) this.irregular = true;
      const id = Number(r.id);
      const text = !this.keepsWords ? null : [String(r.title ?? ""), String(r.excerpt ?? ""), String(r.content ?? "")];
      byId.set(id, { id, language: String(r.language ?? ""), author: Number(r.author), parent: Number(r.parent), date, protected: Number(r.protected) === 1, values, text, terms: [], links: [], post: id, kind: held("boolean", r.repeats) === 1 ? SERIES : PLAIN });
    }
    for (const t of terms) byId.get(Number(t.object_id))?.terms.push(Number(t.term_id));
    for (const l of links) {
      const entry = byId.get(Number(l.from_id));
      if (entry === undefined) continue;
      let relation = this.relations.get(l.relation);
      if (relation === undefined) this.relations.set(l.relation, (relation = this.relations.size));
      // Posting lists key a link by its relation number in six bits.
      if (relation >= 64) this.irregular = true;
      entry.links.push(relation, Number(l.to_id));
    }
    const entries = [...byId.values()];
    return [...entries, ...(await this.instances(entries))];
  }

  /**
   * The instance entries of the posts among `entries` that repeat: each the
   * post's entry with the instance's times in the held fields they stand
   * for (PostTypeConfig.occurrenceFields), and no text (a search matches the
   * post, then its instances: see `filter`).
   */
  private async instances(entries: readonly Entry[]): Promise<Entry[]> {
    const names = this.type.config.occurrenceFields;
    const series = new Map(entries.filter((e) => e.kind === SERIES).map((e) => [e.id, e]));
    if (names === undefined || series.size === 0) return [];
    const at = (Object.keys(names) as Array<keyof typeof names>).map((time) => ({ time, at: this.heldFields.findIndex((f) => f.name === names[time]) })).filter((m) => m.at >= 0);
    const out: Entry[] = [];
    const ids = [...series.keys()];
    for (let i = 0; i < ids.length; i += ROW_CHUNK) {
      const rows = (await this.knex(this.tables.occurrences)
        .whereIn("post_id", ids.slice(i, i + ROW_CHUNK))
        .select("id", "post_id", "start_local", "end_local", "start_utc", "end_utc")) as Array<Record<string, unknown>>;
      for (const r of rows) {
        const post = series.get(Number(r.post_id));
        if (post === undefined) continue;
        const values = [...post.values];
        for (const m of at) {
          const v = held("datetime", r[m.time]);
          if (v === undefined) this.irregular = true;
          values[m.at] = v ?? Number.NaN;
        }
        out.push({ ...post, id: occurrenceId(Number(r.id)), kind: INSTANCE, values, text: null });
      }
    }
    return out;
  }

  private async loadAll(): Promise<void> {
    this.irregular = false;
    const slots = new Slots(this.heldFields.length);
    const words = this.keepsWords && this.folding !== null ? new WordIndex(this.folding) : null;
    const instancesOf = new Map<number, number[]>();
    const last = (await this.knex(this.tables.posts).max({ m: "id" }).first()) as { m: number | string | null } | undefined;
    const max = Number(last?.m ?? 0);
    for (let lo = 1; lo <= max; lo += LOAD_SLICE) {
      for (const e of await this.read({ from: lo, to: Math.min(max, lo + LOAD_SLICE - 1) })) {
        const slot = slots.put(e, this.languageNumber(e.language));
        if (e.text !== null) words?.set(slot, e.text);
        // A post that repeats has its list even with no instance: its own slot is then in no list of instances.
        if (e.kind === SERIES) listOf(instancesOf, e.post);
        if (e.kind === INSTANCE) listOf(instancesOf, e.post).push(e.id);
      }
    }
    this.slots = slots;
    this.instancesOf = instancesOf;
    this.words = words;
    this.orders.clear();
    this.forget();
  }

  private async reload(posts: number[]): Promise<void> {
    const found = await this.read({ ids: posts });
    const fresh = new Map(found.map((e) => [e.id, e]));
    // Each post's slot, and those of its instances before and now.
    const ids = new Set<number>(posts);
    for (const post of posts) {
      for (const id of this.instancesOf.get(post) ?? []) ids.add(id);
      this.instancesOf.delete(post);
    }
    for (const e of found) {
      if (e.kind === SERIES) listOf(this.instancesOf, e.post);
      if (e.kind !== INSTANCE) continue;
      ids.add(e.id);
      listOf(this.instancesOf, e.post).push(e.id);
    }
    const changed: number[] = [];
    for (const id of ids) {
      const old = this.slots.slotOf.get(id);
      const now = fresh.get(id);
      // Not a published post of the type, before or now (another type's post, a draft): nothing listed changed.
      if (old === undefined && now === undefined) continue;
      if (now === undefined) this.words?.clear(old as number);
      else if (old !== undefined && now.text !== null) this.words?.set(old, now.text);
      // Still published with the same held values (its text or excerpt changed): the views and match lists stand.
      if (old !== undefined && now !== undefined && this.slots.holds(old, now, this.languageNumber(now.language))) continue;
      changed.push(id);
      // Out of every sorted view under its old values, written, then back in under the new ones.
      if (old !== undefined) for (const order of this.orders.values()) order.list.splice(locate(order, old), 1);
      if (now === undefined) {
        this.slots.remove(id);
        continue;
      }
      const slot = this.slots.put(now, this.languageNumber(now.language));
      if (old === undefined && now.text !== null) this.words?.set(slot, now.text);
      for (const order of this.orders.values()) order.list.splice(insertionPoint(order, slot), 0, slot);
    }
    if (changed.length > 0) {
      // Every changed post moved in or out of the views: their positions are made again when next needed.
      for (const order of this.orders.values()) order.positions = null;
      this.heldLog.add(changed);
    }
  }

  /** The match lists of the version before (a whole load: nothing to patch from). */
  private forget(): void {
    this.results.clear();
    this.held = 0;
    this.heldLog.reset();
  }

  // ---------------------------------------------------------------- answering

  /**
   * How to read a column. `live`: through `this.slots` on each read (for
   * sorted views, which outlive a growing store's arrays); otherwise from
   * the arrays of now, for the tests of one synchronous walk.
   */
  private column(field: string, live = false): Column | null {
    const slots = this.slots;
    const { id, author, parent, date, values } = slots;
    const width = this.heldFields.length;
    switch (field) {
      case "id":
        return { name: "id", read: live ? (s) => this.slots.id[s] : (s) => id[s], kind: "int" };
      case "author":
        return { name: "author", read: live ? (s) => this.slots.author[s] : (s) => author[s], kind: "int" };
      case "parent":
        return { name: "parent", read: live ? (s) => this.slots.parent[s] : (s) => parent[s], kind: "int" };
      case "date":
      case "date_local":
      case "dateLocal":
        return { name: "date_local", read: live ? (s) => this.slots.date[s] : (s) => date[s], kind: "datetime" };
    }
    const at = this.heldFields.findIndex((f) => f.name === field);
    if (at < 0) return null;
    return { name: `f.${field}`, read: live ? (s) => this.slots.value(s, at) : (s) => values[s * width + at], kind: this.heldFields[at].kind, def: { name: field, def: this.type.fields[field] } };
  }

  /** Whether `query` lists instances in place of the posts that repeat (PostQuery.occurrences). */
  private listsInstances(query: PostQuery): boolean {
    return query.occurrences === true && this.type.config.occurrenceFields !== undefined;
  }

  /** Whether the index can answer `query` exactly (ids and total); no statement is run. */
  answers(query: PostQuery): boolean {
    if (this.irregular) return false;
    const types = Array.isArray(query.type) ? [...new Set(query.type)] : [query.type];
    if (types.length !== 1 || types[0] !== this.type.name) return false;
    // Published posts only: anonymous visibility, or the status asked for alone.
    if (query.visibility) {
      const rules = visibilityRules(this.type, query.visibility);
      if (rules.length !== 1 || rules[0].authorOnly !== undefined || rules[0].statuses.length !== 1 || rules[0].statuses[0] !== "publish") return false;
      if (query.status && !query.status.includes("publish")) return false;
    } else if (!(query.status?.length === 1 && query.status[0] === "publish")) return false;
    // A search is answered with the matching ids read from the database (ResolvedSets.search).
    if (query.search !== undefined && query.search.includes("\u0000")) return false;
    for (const c of query.where ?? []) if (this.column(c.field) === null) return false;
    // A `linkedBy` condition is answered with the targets the linking type's index names (ResolvedSets.linkedBy).
    for (const l of query.links ?? []) if (l.from !== undefined) return false;
    for (const o of query.orderBy ?? []) if (this.column(o.field) === null) return false;
    return true;
  }

  /**
   * The page and total of `query` (which `answers` accepted), given its term
   * and link conditions resolved to ids, the page size to use and the
   * conversion of a query value (the same checks as the SQL path: a bad
   * value throws the same error).
   */
  page(query: PostQuery, perPage: number, sets: ResolvedSets): { ids: number[]; total: number } {
    return this.slice(query, perPage, this.keptMatches(query, sets));
  }

  /**
   * The posts that the posts matching `query` (which `answers` accepted, with
   * no term or link conditions) link to through `relation`, ascending: a
   * `linkedBy` condition of another type's query, answered without a join.
   */
  linkTargets(query: PostQuery, relation: string): number[] {
    const matches = this.keptMatches(query, { tax: [], links: [] });
    let byRelation = this.targets.get(matches);
    if (byRelation === undefined) this.targets.set(matches, (byRelation = new Map()));
    let found = byRelation.get(relation);
    if (found === undefined) {
      const number = this.relations.get(relation);
      found = [];
      if (number !== undefined && matches.length > 0) {
        // From the posting lists of the relation's targets: each is named once
        // the first of its linking posts is found among the matches (a mark per id).
        // By post: an instance that matches names its post, whose slots all carry its links.
        const posts = this.slots.post;
        const slotOf = this.slots.slotOf;
        const matchedPosts: number[] = [];
        let max = 0;
        for (const id of matches) {
          const post = posts[slotOf.get(id) as number];
          matchedPosts.push(post);
          if (post > max) max = post;
        }
        const matched = new Uint8Array(max + 1);
        for (const post of matchedPosts) matched[post] = 1;
        for (const [key, posting] of this.slots.byLink) {
          if (key % 64 !== number) continue;
          for (const slot of posting) {
            const id = posts[slot];
            if (id <= max && matched[id] === 1) {
              found.push((key - number) / 64);
              break;
            }
          }
        }
        found.sort((a, b) => a - b);
      }
      byRelation.set(relation, found);
    }
    return found;
  }

  private serialOf(ids: Int32Array | readonly number[]): number {
    let serial = this.serials.get(ids);
    if (serial === undefined) this.serials.set(ids, (serial = ++this.nextSerial));
    return serial;
  }

  private keptMatches(query: PostQuery, sets: ResolvedSets): Int32Array {
    // Every page of a filter is a slice of its matches, found once and patched after writes. A search's ids are named by
    // the array they come in: a kept search result is one array until the posts it looked at change.
    const { search, linkedBy, ...named } = sets;
    const serial = (ids: Int32Array | readonly number[] | undefined): number | null => (ids === undefined ? null : this.serialOf(ids));
    const key = JSON.stringify([this.listsInstances(query), query.visibility?.mode, query.status, query.ids, query.excludeIds, query.author, query.parent, query.language, query.hasPassword, query.where, named, query.orderBy, serial(search), linkedBy?.map(serial)]);
    const kept = this.results.get(key);
    if (kept !== undefined && kept.at === this.heldLog.version) return kept.matches;
    const changed = kept === undefined ? null : this.heldLog.since(kept.at, MAX_PATCHED);
    let matches: Int32Array;
    if (kept !== undefined && changed !== null) {
      const patched = this.patch(kept.matches, changed, query, sets);
      matches = patched.matches;
      if (matches !== kept.matches && patched.removed === 0) this.addTargets(kept.matches, matches, patched.added);
    } else matches = this.matches(query, sets);
    if (kept !== undefined) {
      this.results.delete(key);
      this.held -= kept.matches.length;
    }
    this.held += matches.length;
    // Oldest found first out (a Map iterates in insertion order; a list found again goes to the end).
    for (const [oldKey, old] of this.results) {
      if (this.results.size < MAX_RESULTS && this.held <= MAX_HELD_IDS) break;
      this.results.delete(oldKey);
      this.held -= old.matches.length;
    }
    this.results.set(key, { matches, at: this.heldLog.version });
    return matches;
  }

  private slice(query: PostQuery, perPage: number, matches: Int32Array): { ids: number[]; total: number } {
    const page = Math.max(1, Math.trunc(query.page ?? 1));
    const unlimited = perPage <= 0;
    const ids = unlimited ? Array.from(matches) : Array.from(matches.subarray((page - 1) * perPage, page * perPage));
    return { ids, total: query.noTotal ? -1 : matches.length };
  }

  /** The ids of every post matching the query's conditions, in its order. */
  private matches(query: PostQuery, sets: ResolvedSets): Int32Array {
    const { pass, order, lo, hi, candidates: narrowed } = this.filter(query, sets);
    const candidates = narrowed();
    const slots = this.slots;
    let found: number[];
    if (candidates !== null && candidates.length < hi - lo) {
      // A term, link or id list narrows to fewer posts than the view's range: those within it are checked and put in the view's order.
      const positions = positionsOf(order, slots.slotCount);
      const at: number[] = [];
      for (const slot of candidates) {
        const p = positions[slot];
        if (p >= lo && p < hi && pass(slot)) at.push(p);
      }
      found = Array.from(Int32Array.from(at).sort(), (p) => order.list[p]);
    } else {
      found = [];
      const list = order.list;
      for (let i = lo; i < hi; i++) if (pass(list[i])) found.push(list[i]);
    }
    const ids = new Int32Array(found.length);
    for (let i = 0; i < found.length; i++) ids[i] = slots.id[found[i]];
    return ids;
  }

  /**
   * A kept match list brought up to date: the posts whose held values
   * changed since are taken out, and those that match now are put back in
   * order. The others kept their values, and so their place.
   */
  private patch(matches: Int32Array, changed: readonly number[], query: PostQuery, sets: ResolvedSets): { matches: Int32Array; removed: number; added: number[] } {
    const { pass, order } = this.filter(query, sets);
    const slots = this.slots;
    const adds = changed.flatMap((id) => {
      const slot = slots.slotOf.get(id);
      return slot !== undefined && pass(slot) ? [slot] : [];
    });
    const at = placesOf(matches, changed);
    // Nothing it holds changed and nothing joins: the same array, so that what is kept with it (link targets, pages) stands.
    if (at.length === 0 && adds.length === 0) return { matches, removed: 0, added: [] };
    const base = new Int32Array(matches.length - at.length);
    let n = 0;
    let from = 0;
    for (const i of at) {
      base.set(matches.subarray(from, i), n);
      n += i - from;
      from = i + 1;
    }
    base.set(matches.subarray(from), n);
    if (adds.length === 0) return { matches: base, removed: at.length, added: [] };
    adds.sort(order.compare);
    const out = new Int32Array(base.length + adds.length);
    from = 0;
    let put = 0;
    for (const slot of adds) {
      let lo = from;
      let hi = base.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (order.compare(slots.slotOf.get(base[mid]) as number, slot) < 0) lo = mid + 1;
        else hi = mid;
      }
      out.set(base.subarray(from, lo), put);
      put += lo - from;
      from = lo;
      out[put++] = slots.id[slot];
    }
    out.set(base.subarray(from), put);
    return { matches: out, removed: at.length, added: adds };
  }

  /**
   * The link targets of `next`, a match list that is `prev` with the posts
   * in `added` (slots) put in and none taken out: those of `prev` with the
   * added posts' own. Exact, since a post of `prev` whose links changed is
   * a changed post, taken out. A relation whose targets did not grow keeps
   * its array, so that lists filtered by it (a `linkedBy` condition's ids,
   * named by their array) keep their match lists too.
   */
  private addTargets(prev: Int32Array, next: Int32Array, added: readonly number[]): void {
    const before = this.targets.get(prev);
    if (before === undefined) return;
    const after = new Map<string, number[]>();
    for (const [relation, found] of before) {
      const number = this.relations.get(relation);
      const more = new Set<number>();
      if (number !== undefined) {
        for (const slot of added) {
          const links = this.slots.links.get(slot);
          for (let j = 0; j < links.length; j += 2) if (links[j] === number) more.add(links[j + 1]);
        }
      }
      for (const id of found) more.delete(id);
      after.set(relation, more.size === 0 ? found : [...found, ...more].sort((a, b) => a - b));
    }
    this.targets.set(next, after);
  }

  /** The query's conditions as one test of a slot, the sorted view to walk (within `lo`..`hi`) and the candidates, if a condition narrows. */
  private filter(query: PostQuery, sets: ResolvedSets): { pass: Predicate; order: Order; lo: number; hi: number; candidates: () => number[] | null } {
    const tests: Predicate[] = [];
    const slots = this.slots;
    const member = (values: readonly number[]): Set<number> => new Set(storedIds(values));
    // A post that repeats is listed as itself or as its instances, by the query's choice.
    if (this.instancesOf.size > 0) {
      const skip = this.listsInstances(query) ? SERIES : INSTANCE;
      tests.push((s) => slots.kind[s] !== skip);
    }
    // Ids, search results and link targets name posts: an instance is tested by its post's id.
    if (query.ids) {
      const ids = member(query.ids);
      tests.push((s) => ids.has(slots.post[s]));
    }
    if (sets.search !== undefined) {
      const found = new Set(sets.search);
      tests.push((s) => found.has(slots.post[s]));
    }
    const excluded = member(query.excludeIds ?? []);
    if (excluded.size > 0) tests.push((s) => !excluded.has(slots.post[s]));
    if (query.author) {
      const a = member(query.author);
      tests.push((s) => a.has(slots.author[s]));
    }
    if (query.parent) {
      const p = member(query.parent);
      tests.push((s) => p.has(slots.parent[s]));
    }
    if (query.language !== undefined) {
      // A language no post has matches nothing.
      const language = this.languages.get(query.language) ?? -1;
      tests.push((s) => slots.language[s] === language);
    }
    if (query.hasPassword === true) tests.push((s) => slots.protected[s] === 1);
    if (query.hasPassword === false) tests.push((s) => slots.protected[s] === 0);
    const ranges: Array<{ column: Column; op: FieldCondition["op"]; value: number }> = [];
    for (const cond of query.where ?? []) {
      const test = this.condition(cond, ranges);
      if (test !== null) tests.push(test);
    }
    (query.tax ?? []).forEach((cond, i) => {
      const groups = sets.tax[i];
      const operator = cond.operator ?? "IN";
      const any = (ids: number[]): Predicate => {
        const wanted = new Set(ids);
        const terms = slots.terms;
        return (s) => {
          const { pool } = terms;
          for (let j = terms.start[s], end = j + terms.length[s]; j < end; j++) if (wanted.has(pool[j])) return true;
          return false;
        };
      };
      const all = [...new Set(groups.flat())];
      if (operator === "IN") tests.push(all.length === 0 ? () => false : any(all));
      else if (operator === "NOT IN") {
        if (all.length > 0) {
          const has = any(all);
          tests.push((s) => !has(s));
        }
      } else {
        if (groups.some((g) => g.length === 0)) tests.push(() => false);
        for (const g of groups) tests.push(any(g));
      }
    });
    (query.links ?? []).forEach((cond, i) => {
      const relation = this.relations.get(cond.relation) ?? -1;
      if (cond.to !== undefined) {
        const to = new Set(sets.links[i]);
        const links = slots.links;
        tests.push((s) => {
          const { pool } = links;
          for (let j = links.start[s], end = j + links.length[s]; j < end; j += 2) if (pool[j] === relation && to.has(pool[j + 1])) return true;
          return false;
        });
      }
      if (cond.linkedBy !== undefined) {
        const targets = new Set(sets.linkedBy?.[i] ?? []);
        const want = cond.linkedBy.exists;
        tests.push((s) => targets.has(slots.post[s]) === want);
      }
      if (cond.exists !== undefined) {
        const want = cond.exists;
        const links = slots.links;
        tests.push((s) => {
          const { pool } = links;
          for (let j = links.start[s], end = j + links.length[s]; j < end; j += 2) if (pool[j] === relation) return want;
          return !want;
        });
      }
    });

    const { order, first } = this.orderFor(query);
    const [lo, hi] = this.range(order.list, first, ranges);
    const pass = (slot: number): boolean => {
      for (const t of tests) if (!t(slot)) return false;
      return true;
    };
    return { pass, order, lo, hi, candidates: () => this.candidates(query, sets, slots) };
  }

  /**
   * The fewest slots that can match, from the posting lists of one term or
   * link condition, or the id list; null when no condition narrows (every
   * slot may match). A superset: the tests still decide.
   */
  private candidates(query: PostQuery, sets: ResolvedSets, slots: Slots): number[] | null {
    let best: number[] | null = null;
    const consider = (slotsOf: number[]): void => {
      if (best === null || slotsOf.length < best.length) best = slotsOf;
    };
    const union = (lists: Array<number[] | undefined>): number[] => {
      const all = new Set<number>();
      for (const l of lists) if (l !== undefined) for (const slot of l) all.add(slot);
      return [...all];
    };
    // Posts by id, with their instances' slots when the query lists instances.
    const instances = this.listsInstances(query) && this.instancesOf.size > 0;
    const slotsOf = (ids: Iterable<number>): number[] => {
      const out: number[] = [];
      for (const id of ids) {
        const slot = slots.slotOf.get(id);
        if (slot !== undefined) out.push(slot);
        if (!instances) continue;
        for (const instance of this.instancesOf.get(id) ?? []) {
          const at = slots.slotOf.get(instance);
          if (at !== undefined) out.push(at);
        }
      }
      return out;
    };
    if (query.ids) consider(union([slotsOf(storedIds(query.ids))]));
    if (sets.search !== undefined) consider(slotsOf(sets.search));
    (query.tax ?? []).forEach((cond, i) => {
      const groups = sets.tax[i];
      const operator = cond.operator ?? "IN";
      if (operator === "IN") consider(union([...new Set(groups.flat())].map((t) => slots.byTerm.get(t))));
      if (operator === "AND") for (const g of groups) consider(union(g.map((t) => slots.byTerm.get(t))));
    });
    (query.links ?? []).forEach((cond, i) => {
      if (cond.linkedBy?.exists === true) consider(slotsOf(sets.linkedBy?.[i] ?? []));
      const relation = this.relations.get(cond.relation);
      if (cond.to === undefined) return;
      consider(relation === undefined ? [] : union(sets.links[i].map((to) => slots.byLink.get(linkKey(relation, to)))));
    });
    return best;
  }

  /** A `where` condition as a test (null: no condition, as SQL leaves an empty NOT IN out); bounds on columns are noted in `ranges`. */
  private condition(cond: FieldCondition, ranges: Array<{ column: Column; op: FieldCondition["op"]; value: number }>): Predicate | null {
    const column = this.column(cond.field);
    if (column === null) throw new Error(`published index: no column ${cond.field}`);
    const read = column.read;
    // The query value converted and checked as the SQL path does (lib/posts/query.ts applyCondition).
    const convert = (v: FieldValue): number | null => {
      if (v === null) return null;
      if (column.def !== undefined) {
        const stored = toDbValue("query", column.def.name, column.def.def, v);
        if (stored === null) return null;
        return held(column.kind === "int" ? "number" : column.kind, stored) ?? Number.NaN;
      }
      if (column.kind === "int") {
        const n = Number(v);
        if (!Number.isFinite(n)) throw new EngineError("invalid_field", `${cond.field} expects a number`, { field: cond.field });
        return n;
      }
      const n = packDate(String(v));
      return Number.isNaN(n) ? convertCore(cond.field, v) : n;
    };
    const list = (): number[] => {
      const raw = Array.isArray(cond.value) ? cond.value : cond.value === undefined ? [] : [cond.value];
      return raw.map(convert).filter((v): v is number => v !== null);
    };
    const one = (): number | null => convert((Array.isArray(cond.value) ? cond.value[0] : cond.value) ?? null);
    const isNull = (x: number): boolean => Number.isNaN(x);
    switch (cond.op) {
      case "=": {
        const v = one();
        if (v === null) return (e) => isNull(read(e));
        ranges.push({ column, op: "=", value: v });
        return (e) => read(e) === v;
      }
      case "!=": {
        const v = one();
        if (v === null) return (e) => !isNull(read(e));
        // "not equal" includes rows without a value.
        return (e) => read(e) !== v;
      }
      case "<":
      case "<=":
      case ">":
      case ">=": {
        const v = one();
        if (v === null) return () => false;
        ranges.push({ column, op: cond.op, value: v });
        if (cond.op === "<") return (e) => read(e) < v;
        if (cond.op === "<=") return (e) => read(e) <= v;
        if (cond.op === ">") return (e) => read(e) > v;
        return (e) => read(e) >= v;
      }
      case "in": {
        const s = new Set(list());
        return (e) => s.has(read(e));
      }
      case "not in": {
        const values = list();
        if (values.length === 0) return null;
        const s = new Set(values);
        return (e) => !s.has(read(e));
      }
      case "is null":
        return (e) => isNull(read(e));
      case "not null":
        return (e) => !isNull(read(e));
      default:
        throw new Error(`published index: unknown comparison ${String(cond.op)}`);
    }
  }

  /** The sorted view for the query's order (made once, then kept in step): SQL's order, NULL first ascending, ties by id. */
  private orderFor(query: PostQuery): { order: Order; first: { column: Column; dir: "asc" | "desc" } } {
    const asked = query.orderBy && query.orderBy.length > 0 ? query.orderBy : [{ field: "date_local", dir: "desc" as const }];
    const keys = asked.map((o) => ({ column: this.column(o.field, true) as Column, dir: o.dir === "desc" ? ("desc" as const) : ("asc" as const), field: o.field }));
    const signature = keys.map((k) => `${k.field} ${k.dir}`).join(",");
    let order = this.orders.get(signature);
    if (order === undefined) {
      const lastDir = keys[keys.length - 1].dir;
      // Reads the arrays afresh each time: a growing store replaces them.
      const compare = (a: number, b: number): number => {
        for (const k of keys) {
          const x = rank(k.column.read(a));
          const y = rank(k.column.read(b));
          if (x !== y) return (x < y ? -1 : 1) * (k.dir === "desc" ? -1 : 1);
        }
        return (this.slots.id[a] - this.slots.id[b]) * (lastDir === "desc" ? -1 : 1);
      };
      order = { compare, list: [...this.slots.slotOf.values()].sort(compare), positions: null };
      this.orders.set(signature, order);
    }
    return { order, first: keys[0] };
  }

  /** The slice of a sorted view outside of which a bound on its first key cannot hold. */
  private range(list: number[], first: { column: Column; dir: "asc" | "desc" }, ranges: Array<{ column: Column; op: FieldCondition["op"]; value: number }>): [number, number] {
    let lo = 0;
    let hi = list.length;
    const key = (i: number): number => rank(first.column.read(list[i]));
    /** The first index at which `pred` holds, for a `pred` false then true along the list. */
    const firstWhere = (pred: (k: number) => boolean): number => {
      let a = 0;
      let b = list.length;
      while (a < b) {
        const mid = (a + b) >> 1;
        if (pred(key(mid))) b = mid;
        else a = mid + 1;
      }
      return a;
    };
    for (const r of ranges) {
      if (r.column.name !== first.column.name) continue;
      const v = r.value;
      if (first.dir === "asc") {
        if (r.op === ">=" || r.op === "=") lo = Math.max(lo, firstWhere((k) => k >= v));
        if (r.op === ">") lo = Math.max(lo, firstWhere((k) => k > v));
        if (r.op === "<=" || r.op === "=") hi = Math.min(hi, firstWhere((k) => k > v));
        if (r.op === "<") hi = Math.min(hi, firstWhere((k) => k >= v));
      } else {
        if (r.op === ">=" || r.op === "=") hi = Math.min(hi, firstWhere((k) => k < v));
        if (r.op === ">") hi = Math.min(hi, firstWhere((k) => k <= v));
        if (r.op === "<=" || r.op === "=") lo = Math.max(lo, firstWhere((k) => k <= v));
        if (r.op === "<") lo = Math.max(lo, firstWhere((k) => k < v));
      }
    }
    return [lo, Math.max(lo, hi)];
  }

  /** How many posts the index holds (tests, reports). */
  get size(): number {
    return this.slots.size;
  }
}

/** NULL (NaN) sorts first, as SQL's order does here (lib/posts/query.ts applyOrder). */
function rank(x: number): number {
  return Number.isNaN(x) ? Number.NEGATIVE_INFINITY : x;
}

/** A core-column value the index cannot compare as SQL would (not a number, not a packed date): the caller falls back. */
class NotComparable extends Error {}

function convertCore(field: string, v: FieldValue): never {
  throw new NotComparable(`published index: ${field} = ${String(v)} is compared as text`);
}

export function isNotComparable(err: unknown): boolean {
  return err instanceof NotComparable;
}

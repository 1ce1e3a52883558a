/**
 * Kept records: the JSON text of one record (an event as a list shows it),
 * built once per revision of what it shows and reused by every answer that
 * shows it: list pages, whatever their filters, and single reads (with a
 * part of their own: lib/calendar/records/kept.ts `singleKey`). A list
 * answer is then its ids, its total and the kept texts put side by side;
 * only records not kept (or no longer good) are loaded and built.
 *
 * The invariant is the stored answers' (answer-store.ts): a text is reused
 * only while every cache tag it named has the version it had when it was
 * kept, and a text built while anything committed is not kept. One
 * implementation keeps them: the stored-answer file's (answer-store.ts
 * `AnswerStore.records`), on a file every process of the site shares (they
 * survive restarts and cost no heap) or, where no file can be had, on a
 * SQLite database in this process's memory, bounded by bytes (index.ts
 * `openRecords`).
 *
 * Only records that are the same for every reader may be kept: callers
 * keep and ask for anonymous records only, under keys that name everything
 * else a record depends on (its language, the URLs it is written with).
 */
export interface KeptRecord {
  readonly key: string;
  /** The record's JSON text (as `encodeJson` writes it), as UTF-8 bytes: answers are pasted together as bytes (lib/routes/json.ts `encodeJsonBytes`). */
  readonly bytes: Buffer;
  /** The cache tags of everything the record shows (lib/db/cache-tags.ts). */
  readonly tags: Iterable<number>;
}

export interface RecordCache {
  /**
   * The revision token now, or null when none can be had (nothing is kept).
   * Read before the records that will be kept are loaded.
   */
  token(): Promise<string | null>;
  /**
   * The kept texts still good now, as bytes, by key (keys without one are
   * absent). A text kept with holes (`recordHole`) comes back with its
   * parts pasted in: those kept and still good, else those `parts` builds;
   * a text whose parts cannot all be had is absent. `shown`, when given,
   * receives the tags of every text given back and of its parts: what an
   * answer made of them shows (`RestRequest.dependsOn`).
   */
  get(keys: readonly string[], parts?: PartSource, shown?: Set<number>): Promise<Map<string, Buffer>>;
  /** Keeps texts built after `token` was read; nothing when anything committed since. */
  keep(token: string, records: readonly KeptRecord[]): Promise<void>;
}

/**
 * Builds, as of now, the parts of kept texts (`recordHole`) named by `keys`
 * (those it cannot build, such as a term since deleted, are left out).
 */
export type PartSource = (keys: readonly string[]) => Promise<KeptRecord[]>;

/** What a kept-record cache counts: texts given back unproved and proved, kept, and not kept because something committed. */
export interface RecordStats {
  hits: number;
  proved: number;
  kept: number;
  skipped: number;
}

/** 16 MiB: a few thousand event records, the pages most readers ask for (kept in memory where no file serves). */
export const DEFAULT_MEMORY_RECORD_BYTES = 16 * 1024 * 1024;

/** Adds `tags` to `shown` when a caller asked for them (`RecordCache.get`). */
export function addShown(shown: Set<number> | undefined, tags: Iterable<number>): void {
  if (shown !== undefined) for (const tag of tags) shown.add(tag);
}

/** The tags of `records` with `always`, each once, sorted. */
export function unionTags(always: readonly number[], records: readonly KeptRecord[]): number[] {
  const all = new Set(always);
  for (const r of records) for (const tag of r.tags) all.add(tag);
  return [...all].sort((a, b) => a - b);
}

/**
 * Texts by key in memory, bounded by their bytes: past `maxBytes` the
 * oldest set go first (a Map iterates in insertion order), down to 15/16 of
 * the bound at once, except that one touched since it was set or last
 * looked at gets a second chance: it is moved behind the others, unmarked.
 * A text over `maxEntryBytes` is not kept.
 *
 * Both keep a full map cheap: a hit only marks its entry instead of
 * moving it (a delete and a set per record given back), and evicting in
 * batches spares `set` a new iterator each time (V8 leaves a deleted entry
 * as a hole until it rebuilds the table, and an iterator skips every hole
 * earlier evictions left at its front).
 */
export class BytesBoundedMap<V extends { readonly bytes: Buffer }> {
  private readonly map = new Map<string, { readonly value: V; touched: boolean }>();
  private held = 0;

  constructor(
    readonly maxBytes: number,
    private readonly maxEntryBytes = maxBytes,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The bytes of the texts held. */
  get bytes(): number {
    return this.held;
  }

  get(key: string): V | undefined {
    return this.map.get(key)?.value;
  }

  /** Keeps `value` under `key` as the newest (an older one under it goes), unless it is too large. */
  set(key: string, value: V): void {
    this.delete(key);
    if (value.bytes.length > this.maxEntryBytes) return;
    this.map.set(key, { value, touched: false });
    this.held += value.bytes.length;
    if (this.held <= this.maxBytes) return;
    const down = this.maxBytes - this.maxBytes / 16;
    // Ends: an entry moved behind the others is unmarked, so the iterator evicts it when it comes to it again.
    for (const [oldest, entry] of this.map) {
      if (this.held <= down) break;
      if (entry.touched) {
        entry.touched = false;
        this.map.delete(oldest);
        this.map.set(oldest, entry);
      } else this.delete(oldest);
    }
  }

  /** Marks the value under `key` as used: it outlasts the entries not used since (see the class comment). */
  touch(key: string): void {
    const entry = this.map.get(key);
    if (entry !== undefined) entry.touched = true;
  }

  delete(key: string): void {
    const old = this.map.get(key);
    if (old === undefined) return;
    this.map.delete(key);
    this.held -= old.value.bytes.length;
  }
}

/**
 * A hole in a kept text: where a part kept apart under `key` goes (its
 * bytes and its own tags, see `RecordsWithParts`). A raw NUL never occurs in
 * JSON text (strings escape it as `\u0000`), so the only NULs in a kept
 * text are the two around each hole's key; keys therefore hold none.
 */
export function recordHole(key: string): string {
  if (key.includes("\u0000")) throw new Error("a record part's key holds no NUL");
  return `\u0000${key}\u0000`;
}

/**
 * Kept texts whose holes (`recordHole`) take parts kept apart, in the same
 * cache under keys of their own, each proved against its own tags: a text
 * then no longer depends on what its parts show. An event record embeds
 * its terms with their `count`, so one new event in a category changed
 * every record of that category; kept with holes, the record stays good
 * and only the term's part is built again.
 *
 * The invariant holds piecewise: the text is reused only while its own tags
 * are unchanged, each part only while its tags are, and a part built
 * because it was missing is built from the database as of now.
 */
export class RecordsWithParts implements RecordCache {
  /** `inner` keeps the whole texts and their parts (a part's key names what it is: `recordHole`'s callers make them distinct). */
  constructor(private readonly inner: RecordCache & { stats(): RecordStats }) {}

  token(): Promise<string | null> {
    return this.inner.token();
  }

  keep(token: string, records: readonly KeptRecord[]): Promise<void> {
    return this.inner.keep(token, records);
  }

  /** The inner cache's counters: whole texts and parts. */
  stats(): RecordStats {
    return this.inner.stats();
  }

  async get(keys: readonly string[], source?: PartSource, shown?: Set<number>): Promise<Map<string, Buffer>> {
    // `shown` may get the tags of a text later left out (its parts cannot be had): a tag too many only makes a proof fail sooner.
    const found = await this.inner.get(keys, undefined, shown);
    const holed = new Map<string, { pieces: Buffer[]; parts: string[] }>();
    const wanted = new Set<string>();
    for (const [key, bytes] of found) {
      let at = bytes.indexOf(0);
      if (at < 0) continue;
      const pieces: Buffer[] = [];
      const parts: string[] = [];
      let from = 0;
      while (at >= 0) {
        const end = bytes.indexOf(0, at + 1);
        if (end < 0) break;
        pieces.push(bytes.subarray(from, at));
        const part = bytes.toString("utf8", at + 1, end);
        parts.push(part);
        wanted.add(part);
        from = end + 1;
        at = bytes.indexOf(0, from);
      }
      // A hole left open cannot be filled: the text is built again.
      if (at >= 0) {
        found.delete(key);
        continue;
      }
      pieces.push(bytes.subarray(from));
      holed.set(key, { pieces, parts });
    }
    if (holed.size === 0) return found;
    const partKeys = [...wanted];
    const have = await this.inner.get(partKeys, undefined, shown);
    const missing = partKeys.filter((k) => !have.has(k));
    if (missing.length > 0 && source !== undefined) {
      // Read before the parts are built: they are kept only if nothing committed since.
      const token = await this.inner.token();
      const built = await source(missing);
      for (const p of built) {
        have.set(p.key, p.bytes);
        addShown(shown, p.tags);
      }
      if (token !== null) await this.inner.keep(token, built);
    }
    for (const [key, { pieces, parts }] of holed) {
      const filled: Buffer[] = [];
      let complete = true;
      for (let i = 0; i < parts.length && complete; i++) {
        const part = have.get(parts[i]);
        if (part === undefined) complete = false;
        else filled.push(pieces[i], part);
      }
      if (!complete) {
        found.delete(key);
        continue;
      }
      filled.push(pieces[pieces.length - 1]);
      found.set(key, Buffer.concat(filled));
    }
    return found;
  }
}

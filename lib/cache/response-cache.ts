/**
 * Whole anonymous GET answers, kept while the data behind them is unchanged.
 *
 * A public calendar is read far more than it is written, and most readers ask
 * the same few URLs (this month, the upcoming list, the category menu).
 * Building such an answer takes queries, records and JSON; sending stored
 * bytes costs what the bare HTTP stack costs. An answer is reused only when
 * - its endpoint opted in (`RestEndpoint.cache`: the answer depends on
 *   nothing but the URL, the database and the clock);
 * - the request is anonymous (the authenticator said so), a plain GET or
 *   HEAD without a body or a method override;
 * - the revision token (`ResponseCacheOptions.revision`, read before the
 *   answer is built and again for every reuse) is the same: any committed
 *   write, in this process or another, changes it;
 * - its URL was asked before (admission: see `seenBefore`);
 * - it is younger than `maxAgeMs` (default 1 s): lists of upcoming events
 *   depend on the clock, and one second is as stale as they may get.
 * Keys are the REST root (scheme and host appear in every URL of a record),
 * the route path and the query (answer-key.ts) and the Accept header; the
 * CORS headers are added when an answer is sent, so the Origin is no part of it.
 *
 * Memory is bounded whatever the traffic: every entry counts its body,
 * headers and key (and a fixed overhead) against `maxBytes`, and at most
 * `maxEntries` are held; URLs asked once are remembered as a fixed-size
 * hash, not as their text; keys longer than MAX_KEY_LENGTH (answer-key.ts)
 * never reach the cache. Past a bound, the least recently used go first.
 */
import { keyId } from "./answer-store";
import type { Answer } from "./answer";

export interface ResponseCacheOptions {
  /**
   * A token that changes whenever any cached answer may have changed; `null`
   * when no such token can be had (nothing is then cached).
   */
  revision(): Promise<string | null>;
  /** Bound on the bytes held: bodies, headers and keys (default 16 MiB); least recently used first out. */
  readonly maxBytes?: number;
  /** Bound on the number of answers held (default 10,000); least recently used first out. */
  readonly maxEntries?: number;
  /** How old a reused answer may be (default 1000 ms). */
  readonly maxAgeMs?: number;
}

interface Entry {
  token: string;
  at: number;
  response: Answer;
  size: number;
}

/** How many once-asked URLs are remembered (by hash); the set is emptied when full (cheap, and the popular ones come back at once). */
const SEEN_KEYS = 10_000;
/** What an entry costs beyond its bytes (the Map slot, the entry and response objects), counted against `maxBytes`. */
const ENTRY_OVERHEAD = 256;

/** A built answer and whether it may be kept (the handler's own 200 to an anonymous request). */
export interface CacheableAnswer {
  readonly answer: Answer;
  readonly keep: boolean;
}

/** Bytes an answer and its key take in memory (strings count two bytes a character). */
function sizeOf(key: string, response: Answer): number {
  let size = ENTRY_OVERHEAD + 2 * key.length + (response.body?.length ?? 0);
  for (const [name, value] of response.headers) size += 2 * (name.length + value.length) + 32;
  return size;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** Answers being built, so that a burst of identical requests after a write builds one. */
  private readonly pending = new Map<string, { token: string; at: number; value: Promise<Answer> }>();
  /** Hashes of the URLs asked once and not kept yet (see `seenBefore`). */
  private readonly seen = new Set<number>();
  private held = 0;
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;

  constructor(private readonly options: ResponseCacheOptions) {
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.maxAgeMs = options.maxAgeMs ?? 1000;
  }

  /**
   * The stored answer for `key` when it is still good, else `build()`'s,
   * which is stored when it says it may be kept. `build` runs after the
   * token was read, so an answer built while a write commits is stored
   * under the older token and never reused.
   */
  async answer(key: string, eligible: () => boolean, build: () => Promise<CacheableAnswer>): Promise<Answer> {
    const fresh = async (): Promise<Answer> => (await build()).answer;
    // Only answers of eligible requests are ever kept, so a key that is held needs no second look.
    if (!this.entries.has(key) && !this.pending.has(key) && (!eligible() || !this.seenBefore(key))) return fresh();
    const token = await this.options.revision();
    if (token === null) return fresh();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      if (hit.token === token && now - hit.at < this.maxAgeMs) {
        this.entries.delete(key);
        this.entries.set(key, hit);
        return hit.response;
      }
      this.drop(key, hit);
    }
    const running = this.pending.get(key);
    if (running !== undefined && running.token === token && now - running.at < this.maxAgeMs) return running.value;
    const built = build();
    const value = built.then((b) => b.answer);
    this.pending.set(key, { token, at: now, value });
    try {
      const { answer: response, keep } = await built;
      if (keep) this.store(key, { token, at: now, response, size: sizeOf(key, response) });
      return response;
    } finally {
      if (this.pending.get(key)?.value === value) this.pending.delete(key);
    }
  }

  /**
   * Admission: an answer is kept from the second request for its URL on.
   * Reads of single events spread over every event of the site; keeping each
   * of them would churn the whole bound through the heap (and cost a
   * revision check each) for answers that are rarely asked twice.
   */
  private seenBefore(key: string): boolean {
    // A hash, not the key: the set's memory does not depend on the URLs asked. A collision only admits an answer one request early.
    const id = keyId(key);
    if (this.seen.delete(id)) return true;
    if (this.seen.size >= SEEN_KEYS) this.seen.clear();
    this.seen.add(id);
    return false;
  }

  /** Entries and bytes held (for tests and diagnostics). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.held };
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.held -= entry.size;
  }

  private store(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    if (entry.size > this.maxBytes / 8) return;
    this.entries.set(key, entry);
    this.held += entry.size;
    while (this.held > this.maxBytes || this.entries.size > this.maxEntries) {
      const oldest = this.entries.entries().next().value;
      if (oldest === undefined) break;
      this.drop(oldest[0], oldest[1]);
    }
  }
}

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
 * An answer whose handler named the tags it shows and a check of the rest
 * (`RestRequest.reuseWhile`: a list's members and total) outlives the
 * revision token it was built under: under a new one it is reused while
 * none of its tags changed since the state it was built from (the tag feed,
 * from memory) and its check holds, both as of one revision token; a burst
 * of requests after a write shares one such check. A list of events then
 * survives the writes that do not touch it (an edit of another event's text).
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
import type { TagFeed } from "./tag-feed";

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
  /**
   * The tag feed (the read cache's, tag-feed.ts), with which answers that
   * carry a proof (`CacheableAnswer.proof`) outlive their revision token;
   * absent or null: every answer lives for one token.
   */
  readonly feed?: TagFeed | null;
  /** Tags every answer shows (the site's options and users, the epoch), added to each proof's. */
  readonly always?: readonly number[];
}

/** What lets a kept answer outlive its token: the feed's position of the state it shows, its tags, and the handler's check. */
interface Proof {
  readonly position: string;
  readonly tags: readonly number[];
  readonly check: () => Promise<boolean>;
}

interface Entry {
  token: string;
  at: number;
  response: Answer;
  size: number;
  proof: Proof | null;
  /** The proof running for a newer token, shared by the requests that wait for it. */
  proving?: { token: string; result: Promise<boolean> };
}

/** How many once-asked URLs are remembered (by hash); the set is emptied when full (cheap, and the popular ones come back at once). */
const SEEN_KEYS = 10_000;
/** What an entry costs beyond its bytes (the Map slot, the entry and response objects), counted against `maxBytes`. */
const ENTRY_OVERHEAD = 256;

/** A built answer and whether it may be kept (the handler's own 200 to an anonymous request). */
export interface CacheableAnswer {
  readonly answer: Answer;
  readonly keep: boolean;
  /** The tags the answer shows and the check of the rest (`RestRequest.reuseWhile`); absent: it lives for one token. */
  readonly proof?: { readonly tags: ReadonlySet<number>; readonly check: () => Promise<boolean> };
}

/** Answers given back by their proof under a newer token, and proofs that failed (tests, diagnostics). */
export interface ProofStats {
  proved: number;
  failed: number;
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
  private readonly proofs: ProofStats = { proved: 0, failed: 0 };
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
      const young = now - hit.at < this.maxAgeMs;
      if (young && (hit.token === token || (hit.proof !== null && (await this.stillShown(hit, token))))) {
        if (this.entries.get(key) === hit) {
          this.entries.delete(key);
          this.entries.set(key, hit);
        }
        return hit.response;
      }
      if (this.entries.get(key) === hit) this.drop(key, hit);
    }
    const running = this.pending.get(key);
    if (running !== undefined && running.token === token && now - running.at < this.maxAgeMs) return running.value;
    const built = build();
    const value = built.then((b) => b.answer);
    this.pending.set(key, { token, at: now, value });
    try {
      const { answer: response, keep, proof } = await built;
      if (keep) {
        const kept = proof !== undefined ? await this.proofFor(token, proof) : null;
        this.store(key, { token, at: now, response, size: sizeOf(key, response) + 8 * (kept?.tags.length ?? 0), proof: kept });
      }
      return response;
    } finally {
      if (this.pending.get(key)?.value === value) this.pending.delete(key);
    }
  }

  /**
   * The proof an answer built under `token` is kept with: the feed's
   * position, which names the state under `token` only if nothing committed
   * while the answer was built (null then: `markFor` checks), and its tags
   * with the site's, sorted.
   */
  private async proofFor(token: string, proof: NonNullable<CacheableAnswer["proof"]>): Promise<Proof | null> {
    const feed = this.options.feed ?? null;
    const position = feed !== null ? await feed.markFor(token) : null;
    if (position === null) return null;
    const tags = [...new Set([...(this.options.always ?? []), ...proof.tags])].sort((a, b) => a - b);
    return { position, tags, check: proof.check };
  }

  /**
   * Whether an answer kept under an older token is what a build would give
   * now: none of its tags changed after the state it was built from, and its
   * check holds, both as of one revision token (read again once the check
   * ran: a commit meanwhile leaves it unproved). Relabels the entry with that
   * token. Requests asking under the same token share one proof.
   */
  private stillShown(entry: Entry, token: string): Promise<boolean> {
    if (entry.proving?.token === token) return entry.proving.result;
    const result = this.prove(entry);
    entry.proving = { token, result };
    return result;
  }

  private async prove(entry: Entry): Promise<boolean> {
    const feed = this.options.feed ?? null;
    const proof = entry.proof;
    if (feed === null || proof === null) return false;
    let good = false;
    try {
      // Synced for a token read now: the feed then knows every tag changed before it.
      const current = await feed.current();
      if (current !== null && feed.unchangedSince(proof.position, proof.tags) === true && (await proof.check())) {
        good = (await this.options.revision()) === current;
        if (good) entry.token = current;
      }
    } catch {
      good = false; // A check that fails proves nothing: the answer is built again (and reports its own error).
    }
    if (good) this.proofs.proved++;
    else this.proofs.failed++;
    return good;
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

  /** Entries and bytes held, and what proofs did (for tests and diagnostics). */
  stats(): { entries: number; bytes: number } & ProofStats {
    return { entries: this.entries.size, bytes: this.held, ...this.proofs };
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

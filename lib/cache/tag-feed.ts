import type { TagChanges } from "../db/dialects/types";
import { FreshRuns } from "./fresh-runs";

/**
 * Which cache tags changed since a position, answered from memory: what a
 * kept record or answer needs to be proved still good without asking the
 * database about each of its tags.
 *
 * The feed follows the database's tag changes (`Dialect.tagChanges`, one
 * statement per new revision token, batched as the revision check is) and
 * remembers, for each tag changed since it started, the last sync that saw
 * it change. A thing kept with the feed's position of the state it was built
 * from (`markFor`) is still good while none of its tags changed in a later
 * sync (`unchangedSince`); where the feed no longer reaches back to its
 * position (it started later, forgot, or never saw that position: another
 * process kept it) the feed does not know, and the caller proves it as
 * before (its tag versions, one statement) and may mark it again.
 *
 * Invariants:
 * - a position names one state of the database: `markFor(token)` gives one
 *   only when the revision token was still `token` after the sync that read
 *   it, so nothing committed between the state the caller read under
 *   `token` and the position;
 * - `unchangedSince` answers as of the last sync, which started after the
 *   token its caller read: a tag changed before that read is seen;
 * - tag versions only grow, so a thing whose tags kept their versions up to
 *   a later state was also good at every state in between.
 */
export interface TagFeedOptions {
  /** The database's revision token (lib/cache/revision.ts); null: none can be had, nothing is marked. */
  revision(): Promise<string | null>;
  /** Bound on the tags remembered; past it the oldest changes are forgotten and older positions are no longer answered. */
  readonly maxTags?: number;
  /** Bound on the positions remembered (PostgreSQL's snapshot moves with any transaction, changing no tag). */
  readonly maxPositions?: number;
}

const DEFAULT_MAX_TAGS = 200_000;
const DEFAULT_MAX_POSITIONS = 50_000;

export class TagFeed {
  /** Syncs seen; a change is labelled with the sync that saw it. */
  private seq = 0;
  /** Positions answered: those whose sync is at least this one. */
  private from = 0;
  /** Tag → the last sync that saw it change, oldest change first (a change moves the tag to the end). */
  private readonly changed = new Map<number, number>();
  /** Position → the sync that read it, oldest first. */
  private readonly positions = new Map<string, number>();
  private position: string | null = null;
  /** The revision token the feed is known to be current for. */
  private token: string | null = null;
  /** Syncs batched as the revision check is (fresh-runs.ts): a caller waits for one that started after it asked. */
  private readonly syncs = new FreshRuns(() => this.sync(), () => this.forgetAll());
  private readonly maxTags: number;
  private readonly maxPositions: number;

  constructor(
    private readonly changes: TagChanges,
    private readonly options: TagFeedOptions,
  ) {
    this.maxTags = options.maxTags ?? DEFAULT_MAX_TAGS;
    this.maxPositions = options.maxPositions ?? DEFAULT_MAX_POSITIONS;
  }

  /**
   * The position of the state the caller read under `token` (read before it
   * read anything it marks), or null when something committed since: then
   * nothing may be marked with it.
   */
  async markFor(token: string): Promise<string | null> {
    await this.syncedFor(token);
    const position = this.position;
    if ((await this.options.revision()) !== token) return null;
    return position;
  }

  /** The current revision token, with the feed synced for it (null: no token). */
  async current(): Promise<string | null> {
    const token = await this.options.revision();
    if (token !== null) await this.syncedFor(token);
    return token;
  }

  /**
   * Whether none of `tags` changed after `position`, as of the last sync:
   * undefined when the feed cannot tell (a position it does not know or no
   * longer reaches back to).
   */
  unchangedSince(position: string, tags: Iterable<number>): boolean | undefined {
    const at = this.positions.get(position);
    if (at === undefined || at < this.from) return undefined;
    for (const tag of tags) {
      const last = this.changed.get(tag);
      if (last !== undefined && last > at) return false;
    }
    return true;
  }

  /** Tags and positions remembered (tests, diagnostics). */
  size(): { tags: number; positions: number } {
    return { tags: this.changed.size, positions: this.positions.size };
  }

  private async syncedFor(token: string): Promise<void> {
    if (this.token === token) return;
    await this.syncs.after();
    this.token = token;
  }

  private async sync(): Promise<void> {
    const change = await this.changes.since(this.position);
    if ("all" in change) this.forgetAll();
    else if (change.tags.length > 0) {
      this.seq++;
      for (const tag of change.tags) {
        this.changed.delete(tag);
        this.changed.set(tag, this.seq);
      }
      // Forgetting a change makes every position before it unanswerable.
      for (const [tag, at] of this.changed) {
        if (this.changed.size <= this.maxTags) break;
        this.changed.delete(tag);
        this.from = Math.max(this.from, at);
      }
    }
    this.position = change.position;
    this.positions.delete(change.position);
    this.positions.set(change.position, this.seq);
    for (const [position, at] of this.positions) {
      if (this.positions.size <= this.maxPositions && at >= this.from) break;
      this.positions.delete(position);
    }
  }

  /** Nothing before now can be answered (a new database epoch, a failed sync). */
  private forgetAll(): void {
    this.seq++;
    this.from = this.seq;
    this.changed.clear();
    this.positions.clear();
    this.position = null;
    this.token = null;
  }
}

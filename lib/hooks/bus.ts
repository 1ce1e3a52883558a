import type { Change, HookListener, HookMap, Unsubscribe } from "./types";

export interface HookLogger {
  error(message: string, err?: unknown): void;
}

/**
 * The in-process hook bus (`site.hooks`). The engine hands it the changes
 * of a transaction once that transaction has committed; a rolled-back write
 * never reaches it. Listeners run later, on their own (a setImmediate turn),
 * so a slow or throwing listener never delays or fails the write that
 * caused it: an error is logged and the next listener runs.
 */
export class HookBus {
  private readonly listeners = new Map<string, Set<HookListener<Change>>>();
  private readonly outboxWatchers = new Set<() => void>();
  logger: HookLogger | undefined;

  on<N extends keyof HookMap>(name: N, listener: HookListener<HookMap[N]>): Unsubscribe;
  /** A host post type's hooks (`book.created`…). */
  on(name: string, listener: HookListener<Change>): Unsubscribe;
  on(name: string, listener: HookListener<never>): Unsubscribe {
    const typed = listener as HookListener<Change>;
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(typed);
    return () => {
      this.listeners.get(name)?.delete(typed);
    };
  }

  /** How many listeners are subscribed. */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /** @internal Called by the engine after a commit; `wroteOutbox`: the transaction also wrote webhook rows. */
  committed(changes: readonly Change[], wroteOutbox: boolean): void {
    if (changes.length === 0) return;
    if (wroteOutbox) for (const watch of this.outboxWatchers) watch();
    if (this.size === 0) return;
    setImmediate(() => {
      void this.run(changes);
    });
  }

  /** @internal The webhook deliverer's wake-up: called after each commit that wrote outbox rows. */
  watchOutbox(watch: () => void): Unsubscribe {
    this.outboxWatchers.add(watch);
    return () => {
      this.outboxWatchers.delete(watch);
    };
  }

  private async run(changes: readonly Change[]): Promise<void> {
    for (const change of changes) {
      const targets = [...(this.listeners.get(change.name) ?? []), ...(this.listeners.get("*") ?? [])];
      for (const listener of targets) {
        try {
          await listener(change);
        } catch (err) {
          this.logger?.error(`hook listener for ${change.name} failed`, err);
        }
      }
    }
  }
}

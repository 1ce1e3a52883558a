/** A scripted source of tag changes for the tag feed's tests (lib/cache/tag-feed.ts) and its users'. */
import type { TagChanges } from "../../lib/db/dialects/types";

/** A database whose commits are scripted: each commit changes some tags and moves the revision token. */
export function scripted(): { changes: TagChanges; commit(...tags: number[]): void; newEpoch(): void; revision(): Promise<string>; syncs: number } {
  let stamp = 0;
  let epoch = 1;
  const log: Array<{ stamp: number; tags: number[] }> = [];
  const state = {
    syncs: 0,
    changes: {
      async since(from: string | null) {
        state.syncs++;
        const position = `${epoch}:${stamp}`;
        const [e, s] = (from ?? "").split(":");
        if (from === null || Number(e) !== epoch) return { position, all: true as const };
        return { position, tags: log.filter((c) => c.stamp > Number(s)).flatMap((c) => c.tags) };
      },
    },
    commit(...tags: number[]) {
      stamp++;
      log.push({ stamp, tags });
    },
    newEpoch() {
      epoch++;
      log.length = 0;
    },
    revision: async () => `${epoch}:${stamp}`,
  };
  return state;
}

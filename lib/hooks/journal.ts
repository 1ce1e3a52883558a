import type { LoadedPost, PostStatus } from "../posts/types";
import type { Term } from "../taxonomy/types";
import { currentActor } from "./actor";
import type { Change, PostAction, PostChange, TermAction, TermChange } from "./types";

/**
 * The changes one transaction made, collected while it runs and handed on
 * only after it commits (hooks) or written in it just before it commits
 * (the webhook outbox). Several steps of one write touching one record —
 * an event created and then updated in the same transaction, a venue
 * updated twice — make one change: what a listener sees is the record's
 * state at commit.
 */
export class ChangeJournal {
  private readonly byKey = new Map<string, Change>();

  record(change: Change): void {
    const key = change.kind === "post" ? `p:${change.id}` : `t:${change.id}`;
    const before = this.byKey.get(key);
    if (!before) {
      this.byKey.set(key, change);
      return;
    }
    if (before.action === "created") {
      // Created and deleted inside one transaction: nothing anyone could have seen.
      if (change.action === "deleted") this.byKey.delete(key);
      else if (change.kind === "post") this.byKey.set(key, { ...change, action: "created", name: `${change.type}.created`, previousStatus: null });
      else this.byKey.set(key, { ...change, action: "created", name: "term.created" });
      return;
    }
    const merged = { ...change } as Change;
    if (merged.kind === "post" && before.kind === "post") merged.previousStatus = before.previousStatus;
    this.byKey.set(key, merged);
  }

  changes(): Change[] {
    return [...this.byKey.values()];
  }

  get empty(): boolean {
    return this.byKey.size === 0;
  }
}

export function postChange(action: PostAction, post: LoadedPost, previousStatus: PostStatus | null, now: Date, userId?: number | null): PostChange {
  return {
    kind: "post",
    name: `${post.type}.${action}`,
    action,
    id: post.id,
    type: post.type,
    slug: post.slug,
    title: post.title,
    status: post.status,
    previousStatus,
    language: post.language,
    author: post.author,
    userId: userId ?? currentActor(),
    occurredAt: now.toISOString(),
    post: action === "deleted" ? null : post,
  };
}

/** A deleted post, from the row it had (no loaded post left). */
export function deletedPostChange(
  row: { id: number; type: string; slug: string; title: string; status: string; language: string; author: number | string },
  now: Date,
): PostChange {
  return {
    kind: "post",
    name: `${row.type}.deleted`,
    action: "deleted",
    id: Number(row.id),
    type: row.type,
    slug: row.slug,
    title: row.title,
    status: row.status as PostStatus,
    previousStatus: row.status as PostStatus,
    language: row.language,
    author: Number(row.author),
    userId: currentActor(),
    occurredAt: now.toISOString(),
    post: null,
  };
}

export function termChange(action: TermAction, term: Term, now: Date): TermChange {
  return {
    kind: "term",
    name: `term.${action}`,
    action,
    id: term.id,
    taxonomy: term.taxonomy,
    slug: term.slug,
    title: term.name,
    parent: term.parent,
    language: term.language,
    userId: currentActor(),
    occurredAt: now.toISOString(),
    term,
  };
}

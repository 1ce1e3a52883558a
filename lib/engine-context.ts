import type { Knex } from "knex";
import type { ReadCache } from "./cache/revision";
import type { Tables } from "./db/tables";
import type { Dialect } from "./db/dialects";
import type { Change } from "./hooks/types";
import type { Options } from "./options/options";
import type { PublishedIndex } from "./posts/published-index";
import type { Registry } from "./posts/registry";

/**
 * What the repositories (lib/posts, lib/taxonomy/terms.ts, lib/users/users.ts)
 * need of the engine: only what they use. `Engine` implements it; the
 * repositories import this type-only file instead of the engine, so the
 * engine can build them without an import circle.
 */
export interface EngineContext {
  readonly knex: Knex;
  readonly dialect: Dialect;
  readonly tables: Tables;
  readonly registry: Registry;
  /** Whether `knex` is a transaction (row locks are taken only then). */
  readonly inTransaction: boolean;
  readonly options: Pick<Options, "get" | "set" | "timezone" | "defaultLanguage" | "postsPerPage" | "ensure" | "recheck">;
  /** The term operations posts run inside their own writes and queries. */
  readonly terms: TermOperations;
  /** The cache of list totals and shared posts; null inside a transaction or where the database has none. */
  readonly readCache: ReadCache | null;
  /** The in-memory index of the type's published posts (lib/posts/published-index.ts); null where there is none. */
  publishedIndex(type: string): PublishedIndex | null;
  now(): Date;
  /** Reports a change: kept with the transaction until it commits (then to the hooks). */
  recordChange(change: Change): void;
  /**
   * Reports records whose visible form changed without a change of their
   * own (a term's count, a post's instances, a term whose ancestor moved or
   * was renamed): the change log names them with the transaction's changes;
   * no hook fires.
   */
  noteChanged(kind: "post" | "term", ids: readonly number[]): void;
  /** Whether search can narrow its candidates with the SQLite trigram index. */
  hasSearchIndex(): Promise<boolean>;
  /** `EngineApi.write`: `work` runs on a context bound to one transaction (the current one, if any). */
  write<T>(work: (tx: EngineContext) => Promise<T>): Promise<T>;
}

/** The term operations of lib/taxonomy/terms.ts that posts call, on the same context. */
export interface TermOperations {
  /** Locks the term rows (in id order) until the transaction ends; returns the stored ids. */
  lockIn(termIds: number[]): Promise<number[]>;
  /** Recomputes the counts of these terms. */
  recountIn(termIds: number[]): Promise<void>;
  /** For each id: the id, plus its translations and/or descendants. */
  expandTermIds(
    taxonomy: string,
    ids: number[],
    opts: { translations?: boolean; children?: boolean; remember?: <T>(query: Knex.QueryBuilder, compute: () => Promise<T>, size: (value: T) => number) => Promise<T> },
  ): Promise<number[][]>;
}

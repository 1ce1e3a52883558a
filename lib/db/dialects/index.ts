import type { Knex } from "knex";
import { mysql } from "./mysql";
import { postgres } from "./postgres";
import { sqlite } from "./sqlite";
import type { Dialect } from "./types";

export type { CacheTagTriggers, Dialect, DialectName, RevisionSource, SearchIndex, SearchIndexMissing, TriggersRefused } from "./types";

/** Every database calpress runs on (see ./types.ts for how to add one); SQLite last, as it takes any path without a URL scheme. */
export const DIALECTS: readonly Dialect[] = [postgres, mysql, sqlite];

/** The dialect a knex `client` name speaks, if calpress knows it. */
export function dialectOfClient(client: string): Dialect | undefined {
  return DIALECTS.find((d) => d.matchesClient(client));
}

/** The dialect of a knex instance (a client calpress does not know is taken for SQLite, as it always was). */
export function dialectFor(knex: Knex): Dialect {
  return dialectOfClient(String(knex.client.config.client ?? "")) ?? sqlite;
}

/** Whether the database's dialect keeps cache tags by triggers (that a server refused them is the engine's `cacheTagsKept`). */
export function cacheTagsMaintained(knex: Knex): boolean {
  return dialectFor(knex).cacheTagTriggers !== null;
}

import type { Knex } from "knex";
import { DIALECTS, dialectFor, type DialectName } from "./dialects";
import { DbTargetError } from "./errors";

export { DbConnectError, DbTargetError } from "./errors";

/** The database a site runs on, as CONTRACT §3 spells it or as a host hands it over. */
export type DbOption = string | Knex.Config | Knex;

/** How a database is named in messages: a URL's password is masked, a knex config shows its client and where it points. */
export function describeTarget(db: DbOption): string {
  if (typeof db === "string") {
    const t = db.trim();
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) return t;
    try {
      const url = new URL(t);
      if (url.password !== "") url.password = "***";
      return url.toString();
    } catch {
      return t.replace(/\/\/[^@/]*@/, "//***@");
    }
  }
  if (typeof db === "function") return "the knex instance given";
  const conn = db.connection;
  if (typeof conn === "string") return describeTarget(conn);
  if (typeof conn === "object" && conn !== null) {
    const c = conn as { filename?: unknown; host?: unknown; port?: unknown; database?: unknown };
    if (typeof c.filename === "string") return c.filename;
    if (typeof c.host === "string") return `${String(db.client ?? "")} ${c.host}${c.port !== undefined ? `:${String(c.port)}` : ""}${typeof c.database === "string" ? `/${c.database}` : ""}`.trim();
  }
  return `the ${String(db.client ?? "database")} connection given`;
}

/** The database a knex instance is connected to, as `describeTarget` names it (a file's cache, lib/cache/index.ts, is named after it). */
export function describeConnection(k: Knex): string {
  return describeTarget(k.client.config as Knex.Config);
}

/**
 * Turns a `<target>` string into a knex config: the first dialect that
 * knows its URL scheme (a path with no scheme is SQLite's) builds it.
 */
export function configFromTarget(target: string): Knex.Config {
  const t = target.trim();
  if (t === "") throw new DbTargetError("empty database target");
  for (const dialect of DIALECTS) {
    const config = dialect.configFromTarget(t);
    if (config !== null) return config;
  }
  throw new DbTargetError(`unsupported database target: ${target}`);
}

/** The name of a knex instance's dialect (for the test suites; code branches on `dialectFor(knex)`'s capabilities instead). */
export function dialectOf(knex: Knex): DialectName {
  return dialectFor(knex).name;
}

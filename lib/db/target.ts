import path from "node:path";
import type { Knex } from "knex";
import { dialectFor, type DialectName } from "./dialects";

/** The database a site runs on, as CONTRACT §3 spells it or as a host hands it over. */
export type DbOption = string | Knex.Config | Knex;

/** A `<target>` calpress cannot use as given (a bad string, a SQLite file in a missing directory): the caller's mistake. */
export class DbTargetError extends Error {}

/** The database was named correctly but could not be reached or opened (server down, wrong credentials…). */
export class DbConnectError extends Error {}

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

/**
 * Turns a `<target>` string into a knex config. SQLite paths are resolved
 * against the working directory so that the CLI and a host agree on the file.
 */
export function configFromTarget(target: string): Knex.Config {
  const t = target.trim();
  if (t === "") throw new DbTargetError("empty database target");
  if (/^postgres(ql)?:\/\//i.test(t)) {
    return { client: "pg", connection: t, pool: { min: 0, max: 10 } };
  }
  if (/^(mysql|mariadb):\/\//i.test(t)) {
    // mysql2 only knows the mysql scheme; MariaDB speaks the same protocol.
    const url = new URL(t.replace(/^mariadb:/i, "mysql:"));
    return {
      client: "mysql2",
      connection: {
        host: url.hostname,
        port: url.port ? Number(url.port) : 3306,
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: decodeURIComponent(url.pathname.replace(/^\//, "")),
        charset: "utf8mb4",
        timezone: "Z",
        // Dates travel as the strings we stored: no driver time-zone guessing.
        dateStrings: true,
        supportBigNumbers: true,
      },
      pool: { min: 0, max: 10 },
    };
  }
  let file = t;
  if (/^sqlite:/i.test(t)) file = t.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) throw new DbTargetError(`unsupported database target: ${target}`);
  if (file === "") throw new DbTargetError("empty SQLite path");
  const filename = file === ":memory:" ? ":memory:" : path.resolve(file);
  return {
    client: "sqlite3",
    connection: { filename },
    useNullAsDefault: true,
    // An in-memory database exists once per connection: one connection.
    // A file in WAL mode: several, so that reads run side by side (each
    // sees the last commit) instead of queueing behind each other and behind
    // a writer on one connection. Writers still take turns: every
    // transaction begins IMMEDIATE (lib/db/connect.ts), and SQLite's busy
    // timeout queues the others.
    pool: filename === ":memory:" ? { min: 1, max: 1 } : { min: 1, max: SQLITE_FILE_CONNECTIONS },
  };
}

/** Connections to a SQLite file (see configFromTarget). */
export const SQLITE_FILE_CONNECTIONS = 3;

/** The name of a knex instance's dialect (for the test suites; code branches on `dialectFor(knex)`'s capabilities instead). */
export function dialectOf(knex: Knex): DialectName {
  return dialectFor(knex).name;
}

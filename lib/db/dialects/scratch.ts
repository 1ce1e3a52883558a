import fs from "node:fs";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { DbTargetError } from "../errors";
import { DIALECTS } from "./index";
import type { DialectName } from "./types";

/**
 * Scratch databases for tests (lib/testing): made beside a base, copied
 * from a template, dropped. The base is a directory for SQLite (a database
 * is a file in it) and a server's URL for the others (a database is one
 * `CREATE DATABASE` on it, which the URL's user must be allowed). Names
 * are the caller's: letters, digits and `_` only.
 */
export interface ScratchDatabases {
  /** A new, empty database `name`; its `<target>`. */
  create(base: string, name: string): Promise<string>;
  /**
   * A new database `name` holding what the database `template` (made by
   * `create`, no connection open to it) holds: rows, ids to come, indexes,
   * keys and triggers. Its `<target>`.
   */
  copy(base: string, template: string, name: string): Promise<string>;
  /** Removes a database `create` or `copy` made (connections still open to it are ended where the server can). */
  drop(base: string, name: string): Promise<void>;
}

const NAME = /^[A-Za-z0-9_]{1,60}$/;

function checkName(name: string): void {
  // Interpolated into file names; server names go through knex's identifier binding.
  if (!NAME.test(name)) throw new DbTargetError(`bad scratch database name: ${name}`);
}

/** The URL of another database on the same server. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A one-connection knex on `target` for administrative statements, closed after `work`. */
async function withConnection<T>(target: string, work: (k: Knex) => Promise<T>): Promise<T> {
  const dialect = DIALECTS.find((d) => d.configFromTarget(target) !== null);
  const config = dialect?.configFromTarget(target);
  if (!config) throw new DbTargetError(`unsupported database target: ${target}`);
  const k = knexFactory({ ...config, pool: { min: 0, max: 1 } });
  try {
    return await work(k);
  } finally {
    await k.destroy();
  }
}

/** Removes a SQLite file and the files SQLite keeps beside it (write-ahead log, shared memory, rollback journal). */
export function removeSqliteFile(file: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(file + suffix, { force: true });
}

/** Removes a site's SQLite database and the kept-record file a site makes beside it (lib/cache/index.ts defaultRecordFile). */
export function removeSqliteSite(file: string): void {
  removeSqliteFile(file);
  removeSqliteFile(`${file}.records`);
}

const sqlite: ScratchDatabases = {
  async create(dir, name) {
    checkName(name);
    // The file is made when the site first opens it.
    return path.join(dir, `${name}.sqlite`);
  },
  async copy(dir, template, name) {
    checkName(template);
    checkName(name);
    const from = path.join(dir, `${template}.sqlite`);
    const to = path.join(dir, `${name}.sqlite`);
    // Closed, so the file is whole; a WAL a crash left behind travels with it.
    for (const suffix of ["", "-wal"]) {
      if (fs.existsSync(from + suffix)) fs.copyFileSync(from + suffix, to + suffix, fs.constants.COPYFILE_FICLONE);
    }
    return to;
  },
  async drop(dir, name) {
    checkName(name);
    removeSqliteSite(path.join(dir, `${name}.sqlite`));
  },
};

const postgres: ScratchDatabases = {
  async create(url, name) {
    checkName(name);
    await withConnection(url, (k) => k.raw("CREATE DATABASE ?? ENCODING 'UTF8'", [name]));
    return withDatabase(url, name);
  },
  async copy(url, template, name) {
    checkName(template);
    checkName(name);
    // The server copies the template's files: everything comes along, sequences included.
    await withConnection(url, (k) => k.raw("CREATE DATABASE ?? TEMPLATE ??", [name, template]));
    return withDatabase(url, name);
  },
  async drop(url, name) {
    checkName(name);
    await withConnection(url, async (k) => {
      try {
        // FORCE (PostgreSQL 13+) ends connections a failed test may have left open.
        await k.raw("DROP DATABASE IF EXISTS ?? WITH (FORCE)", [name]);
      } catch {
        await k.raw("DROP DATABASE IF EXISTS ??", [name]);
      }
    });
  },
};

const mysql: ScratchDatabases = {
  async create(url, name) {
    checkName(name);
    await withConnection(url, (k) => k.raw("CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", [name]));
    return withDatabase(url, name);
  },
  /**
   * MariaDB/MySQL have no template databases: each table is made again
   * from the template's own `SHOW CREATE TABLE` (columns, indexes, foreign
   * keys, the next AUTO_INCREMENT) and filled with its rows, then the
   * triggers are made, last, so that copying rows fires none.
   */
  async copy(url, template, name) {
    await mysql.create(url, name);
    const target = withDatabase(url, name);
    await withConnection(target, async (k) => {
      // One connection: the session keeps foreign-key checks off while tables and rows arrive in any order.
      await k.raw("SET FOREIGN_KEY_CHECKS = 0");
      const tables = rows<Record<string, string>>(await k.raw("SHOW FULL TABLES FROM ?? WHERE Table_type = 'BASE TABLE'", [template])).map((r) => Object.values(r)[0]);
      for (const table of tables) {
        const created = rows<Record<string, string>>(await k.raw("SHOW CREATE TABLE ??.??", [template, table]))[0];
        // Unqualified names in it (the table, the tables its keys reference) land in this database.
        await k.raw(created["Create Table"]);
        await k.raw("INSERT INTO ?? SELECT * FROM ??.??", [table, template, table]);
      }
      const triggers = rows<{ name: string }>(await k.raw("SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? ORDER BY TRIGGER_NAME", [template]));
      for (const { name: trigger } of triggers) {
        const shown = rows<Record<string, string>>(await k.raw("SHOW CREATE TRIGGER ??.??", [template, trigger]))[0];
        // Made by (and run as) the user copying it, as the template's were.
        await k.raw(shown["SQL Original Statement"].replace(/^CREATE\s+DEFINER\s*=\s*\S+\s+TRIGGER/i, "CREATE TRIGGER"));
      }
      await k.raw("SET FOREIGN_KEY_CHECKS = 1");
    });
    return target;
  },
  async drop(url, name) {
    checkName(name);
    await withConnection(url, (k) => k.raw("DROP DATABASE IF EXISTS ??", [name]));
  },
};

/** The rows of a mysql2 `raw` result (`[rows, fields]`). */
function rows<T>(result: unknown): T[] {
  return (result as [T[], unknown])[0];
}

const SCRATCH: Record<DialectName, ScratchDatabases> = { sqlite, postgres, mysql };

/** The scratch databases of the database a base names (a directory: SQLite; a server URL: its dialect). */
export function scratchDatabases(base: string): ScratchDatabases {
  const dialect = DIALECTS.find((d) => d.configFromTarget(base) !== null);
  if (!dialect) throw new DbTargetError(`unsupported database target: ${base}`);
  return SCRATCH[dialect.name];
}

/**
 * The server a `testSites({ db })` option names, or `undefined` for SQLite
 * (no option, `"sqlite"`, or a path): SQLite's scratch databases are files
 * in a temporary directory instead.
 */
export function scratchServer(db: string | undefined): string | undefined {
  if (db === undefined || db.trim() === "sqlite") return undefined;
  const dialect = DIALECTS.find((d) => d.configFromTarget(db.trim()) !== null);
  return dialect === undefined || dialect.name === "sqlite" ? undefined : db;
}

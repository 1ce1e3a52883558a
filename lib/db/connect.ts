import fs from "node:fs";
import path from "node:path";
import knexFactory, { Knex } from "knex";
import { configFromTarget, DbOption, dialectOf } from "./target";

export interface OpenDb {
  knex: Knex;
  /** Whether calpress created the knex instance (and so must destroy it on close). */
  owned: boolean;
}

function isKnex(db: DbOption): db is Knex {
  return typeof db === "function" && typeof (db as Knex).schema === "object";
}

export async function openDb(db: DbOption): Promise<OpenDb> {
  if (isKnex(db)) {
    await prepareConnection(db);
    return { knex: db, owned: false };
  }
  const config = typeof db === "string" ? configFromTarget(db) : db;
  const conn = config.connection as { filename?: string } | undefined;
  if (typeof conn === "object" && conn && typeof conn.filename === "string" && conn.filename !== ":memory:") {
    fs.mkdirSync(path.dirname(conn.filename), { recursive: true });
  }
  const knex = knexFactory({
    ...config,
    pool: {
      ...(config.pool ?? {}),
      afterCreate: sqliteAfterCreate(config),
    },
  });
  await prepareConnection(knex);
  return { knex, owned: true };
}

type AfterCreate = (conn: unknown, done: (err: Error | null, conn: unknown) => void) => void;

function sqliteAfterCreate(config: Knex.Config): AfterCreate | undefined {
  const prior = (config.pool as { afterCreate?: AfterCreate } | undefined)?.afterCreate;
  if (!String(config.client ?? "").includes("sqlite")) return prior;
  return (conn, done) => {
    const db = conn as { exec(sql: string, cb: (err: Error | null) => void): void };
    // WAL keeps readers from blocking the writer; foreign_keys is off by
    // default in SQLite; busy_timeout lets a second process wait its turn.
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;", (err) => {
      if (err || !prior) return done(err, conn);
      prior(conn, done);
    });
  };
}

async function prepareConnection(knex: Knex): Promise<void> {
  // Fail fast with the driver's own message when the database is unreachable.
  await knex.raw("select 1");
  void dialectOf(knex);
}

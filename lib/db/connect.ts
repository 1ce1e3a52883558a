import fs from "node:fs";
import path from "node:path";
import knexFactory, { Knex } from "knex";
import { requireDriver } from "./drivers";
import { dialectFor, dialectOfClient } from "./dialects";
import { configFromTarget, DbConnectError, DbOption, DbTargetError, describeTarget } from "./target";

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
    try {
      await prepareConnection(db);
    } catch (err) {
      throw connectError(db, err);
    }
    return { knex: db, owned: false };
  }
  const config = typeof db === "string" ? configFromTarget(db) : db;
  requireDriver(config);
  const conn = config.connection as { filename?: string } | undefined;
  if (typeof conn === "object" && conn && typeof conn.filename === "string" && conn.filename !== ":memory:") {
    // SQLite creates the file, never its directory: a path with a typo must
    // not silently become a new directory tree with an empty site in it.
    const dir = path.dirname(path.resolve(conn.filename));
    if (!fs.existsSync(dir)) throw new DbTargetError(`the directory of the SQLite file ${conn.filename} does not exist: create ${dir} first`);
  }
  const opening = { done: false };
  const knex = knexFactory({
    ...config,
    log: quietWhileOpening(config.log, opening),
    pool: {
      ...(config.pool ?? {}),
      afterCreate: afterCreate(config),
    },
  });
  try {
    await prepareConnection(knex);
  } catch (err) {
    await knex.destroy().catch(() => undefined);
    throw connectError(db, err);
  }
  opening.done = true;
  return { knex, owned: true };
}

function connectError(db: DbOption, err: unknown): DbConnectError {
  return new DbConnectError(`cannot open the database ${describeTarget(db)}: ${(err as Error).message}`, { cause: err });
}

type KnexLog = NonNullable<Knex.Config["log"]>;

/**
 * knex reports every failed connection attempt with its stack (on stdout)
 * before the attempt's error reaches us; while opening, that error is
 * reported once, as DbConnectError, so those reports are dropped. Later ones
 * (a server that goes away) go to the caller's logger, else to stderr.
 */
function quietWhileOpening(log: Knex.Config["log"], opening: { done: boolean }): KnexLog {
  const warn = log?.warn ?? ((message: unknown) => console.warn(message));
  return {
    ...log,
    warn(message: string) {
      if (!opening.done && typeof message === "string" && message.startsWith("Acquire connection error")) return;
      warn(message);
    },
  };
}

type AfterCreate = (conn: unknown, done: (err: Error | null, conn: unknown) => void) => void;

/** The dialect's set-up of each new connection, then the host's own `afterCreate`, if any. */
function afterCreate(config: Knex.Config): AfterCreate | undefined {
  const prior = (config.pool as { afterCreate?: AfterCreate } | undefined)?.afterCreate;
  const setUp = dialectOfClient(String(config.client ?? ""))?.setUpConnection;
  if (!setUp) return prior;
  return (conn, done) => {
    setUp(conn, (err) => {
      if (err || !prior) return done(err, conn);
      prior(conn, done);
    });
  };
}

async function prepareConnection(knex: Knex): Promise<void> {
  // Fail fast with the driver's own message when the database is unreachable.
  await knex.raw("select 1");
}

/** Refreshes planner statistics that went stale (`Dialect.optimizeStorage`). */
export async function optimizeStorage(knex: Knex): Promise<void> {
  await dialectFor(knex).optimizeStorage(knex);
}

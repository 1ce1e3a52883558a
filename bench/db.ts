import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory, { Knex } from "knex";
import type { BenchDb } from "./args";
import { log } from "./log";
import { onCleanup } from "./proc";

/**
 * A fresh, empty database per fixture size, removed again afterwards: a
 * benchmark must never load into (or drop) a database somebody uses.
 */
export interface BenchDatabase {
  kind: BenchDb;
  /** The `--db` target calpress gets. */
  target: string;
  /** Removes the database (idempotent). */
  drop(): Promise<void>;
}

const DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/";
const DEFAULT_MYSQL = "mysql://root@127.0.0.1:3306/";

export async function createDatabase(kind: BenchDb, events: number): Promise<BenchDatabase> {
  // Unique per run so that two harnesses (or a crashed earlier one) never collide.
  const name = `calpress_bench_${events}_${process.pid}_${crypto.randomBytes(3).toString("hex")}`;
  if (kind === "sqlite") return sqliteDatabase(name);
  if (kind === "postgres") return serverDatabase("postgres", process.env.CALPRESS_BENCH_PG_URL ?? DEFAULT_PG, name);
  return serverDatabase("mysql", process.env.CALPRESS_BENCH_MYSQL_URL ?? DEFAULT_MYSQL, name);
}

function sqliteDatabase(name: string): BenchDatabase {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-bench-"));
  // A real file, not :memory:, so that the loader and the server (two processes) see the same data.
  const file = path.join(dir, `${name}.sqlite`);
  let dropped = false;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    dropped = true;
    unregister();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onCleanup(`sqlite file ${file}`, drop);
  return { kind: "sqlite", target: file, drop };
}

/** The server URL with another database name in its path. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function adminKnex(kind: "postgres" | "mysql", baseUrl: string): Knex {
  const u = new URL(baseUrl);
  if (kind === "postgres") {
    // The maintenance database: the target database does not exist yet.
    return knexFactory({ client: "pg", connection: withDatabase(baseUrl, "postgres"), pool: { min: 0, max: 1 } });
  }
  return knexFactory({
    client: "mysql2",
    connection: {
      host: u.hostname,
      port: u.port ? Number(u.port) : 3306,
      user: decodeURIComponent(u.username) || "root",
      password: decodeURIComponent(u.password),
    },
    pool: { min: 0, max: 1 },
  });
}

async function serverDatabase(kind: "postgres" | "mysql", baseUrl: string, name: string): Promise<BenchDatabase> {
  const admin = adminKnex(kind, baseUrl);
  try {
    if (kind === "postgres") await admin.raw(`CREATE DATABASE "${name}" ENCODING 'UTF8' TEMPLATE template0`);
    else await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await admin.destroy();
  }
  log(`created ${kind} database ${name}`);
  let dropped = false;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    dropped = true;
    unregister();
    const k = adminKnex(kind, baseUrl);
    try {
      if (kind === "postgres") {
        // FORCE (PostgreSQL 13+) ends sessions a killed server may have left behind.
        await k.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => k.raw(`DROP DATABASE IF EXISTS "${name}"`));
      } else {
        await k.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      }
      log(`dropped ${kind} database ${name}`);
    } finally {
      await k.destroy();
    }
  };
  const unregister = onCleanup(`${kind} database ${name}`, drop);
  const scheme = kind === "postgres" ? "postgres:" : "mysql:";
  const target = withDatabase(baseUrl.replace(/^[a-z]+:/i, scheme), name);
  return { kind, target, drop };
}

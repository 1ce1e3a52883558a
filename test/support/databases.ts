import os from "node:os";
import path from "node:path";
import knexFactory, { Knex } from "knex";
import { configFromTarget } from "../../lib/db/target";
import { removeSqliteSite } from "../../lib/db/dialects/scratch";

/**
 * The databases every storage test runs on: SQLite always; PostgreSQL when
 * CALPRESS_TEST_PG_URL is set and MariaDB/MySQL when CALPRESS_TEST_MYSQL_URL
 * is set. Each `create()` makes a brand-new database (a temporary SQLite
 * file, or `CREATE DATABASE calpress_t_<pid>_<n>` on the server named by the
 * URL) and `drop()` removes it, so no test depends on what an earlier run
 * left behind.
 */
export type TestDbName = "sqlite" | "postgres" | "mysql";

export interface TestDatabase {
  /** A `<target>` string (CONTRACT §3) for the new database. */
  target: string;
  drop(): Promise<void>;
}

export interface TestTarget {
  name: TestDbName;
  create(): Promise<TestDatabase>;
}

let counter = 0;

function nextName(): string {
  counter += 1;
  return `calpress_t_${process.pid}_${counter}`;
}

/** The URL of another database on the same server. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withAdmin<T>(url: string, work: (k: Knex) => Promise<T>): Promise<T> {
  const config = configFromTarget(url);
  const k = knexFactory({ ...config, pool: { min: 0, max: 1 } });
  try {
    return await work(k);
  } finally {
    await k.destroy();
  }
}

/** Removes a SQLite site database, SQLite's own files and the kept records a site opened on it makes beside it. */
export const removeSqliteFile = removeSqliteSite;

const sqliteTarget: TestTarget = {
  name: "sqlite",
  async create() {
    // A file rather than :memory:, so that two engines (two knex pools) can share it.
    const file = path.join(os.tmpdir(), `${nextName()}.sqlite`);
    return {
      target: file,
      async drop() {
        removeSqliteFile(file);
      },
    };
  },
};

function postgresTarget(adminUrl: string): TestTarget {
  return {
    name: "postgres",
    async create() {
      const name = nextName();
      await withAdmin(adminUrl, (k) => k.raw("CREATE DATABASE ?? ENCODING 'UTF8'", [name]));
      return {
        target: withDatabase(adminUrl, name),
        async drop() {
          await withAdmin(adminUrl, async (k) => {
            try {
              // FORCE (PostgreSQL 13+) ends connections a failed test may have left open.
              await k.raw("DROP DATABASE IF EXISTS ?? WITH (FORCE)", [name]);
            } catch {
              await k.raw("DROP DATABASE IF EXISTS ??", [name]);
            }
          });
        },
      };
    },
  };
}

function mysqlTarget(adminUrl: string): TestTarget {
  return {
    name: "mysql",
    async create() {
      const name = nextName();
      await withAdmin(adminUrl, (k) => k.raw("CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", [name]));
      return {
        target: withDatabase(adminUrl, name),
        async drop() {
          await withAdmin(adminUrl, (k) => k.raw("DROP DATABASE IF EXISTS ??", [name]));
        },
      };
    },
  };
}

let skipNoted = false;

/** Says once per run which server databases are left out, so a SQLite-only pass is never mistaken for a full one. */
function noteSkipped(): void {
  if (skipNoted) return;
  skipNoted = true;
  const missing = [
    ["CALPRESS_TEST_PG_URL", "PostgreSQL"],
    ["CALPRESS_TEST_MYSQL_URL", "MariaDB/MySQL"],
  ].filter(([variable]) => !process.env[variable as string]);
  if (missing.length === 0) return;
  const names = missing.map(([variable, name]) => `${name} (${variable} is not set)`).join(" and ");
  process.stdout.write(`\nNote: the storage suites run on SQLite only; skipped: ${names}.\n`);
}

export function testTargets(): TestTarget[] {
  noteSkipped();
  const targets: TestTarget[] = [sqliteTarget];
  const pg = process.env.CALPRESS_TEST_PG_URL;
  if (pg) targets.push(postgresTarget(pg));
  const my = process.env.CALPRESS_TEST_MYSQL_URL;
  if (my) targets.push(mysqlTarget(my));
  return targets;
}

/** One `describe` per database: `title (sqlite)`, `title (postgres)`, … */
export function forEachDatabase(title: string, fn: (db: TestTarget) => void): void {
  for (const target of testTargets()) {
    describe(`${title} (${target.name})`, function () {
      // Server databases are created per suite; allow for a slow CI server.
      this.timeout(60_000);
      fn(target);
    });
  }
}

import type { Knex } from "knex";
import type { Dialect } from "./types";

/** `mysql://` or `mariadb://user:password@host:port/database`. */
function configFromTarget(target: string): Knex.Config | null {
  if (!/^(mysql|mariadb):\/\//i.test(target)) return null;
  // mysql2 only knows the mysql scheme; MariaDB speaks the same protocol.
  const url = new URL(target.replace(/^mariadb:/i, "mysql:"));
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

/**
 * MariaDB/MySQL: concurrent writers lock rows; a failed statement is rolled
 * back alone; tables are InnoDB, utf8mb4 with a binary collation (so text
 * sorts by code point). No RETURNING, no cache-tag triggers yet and no cheap
 * commit counter: nothing is cached or stored by revision there. MariaDB has
 * no n-gram parser, and a FULLTEXT index finds whole words or word prefixes
 * only, which cannot narrow a substring search without losing matches:
 * search scans.
 */
export const mysql: Dialect = {
  name: "mysql",
  matchesClient: (client) => client.includes("mysql"),
  configFromTarget,
  optionalDriver: { pkg: "mysql2", clients: ["mysql2"], database: "MariaDB/MySQL" },

  optimizeStorage: async () => undefined,
  filePath: () => null,
  hasSchemas: false,

  serialisesWriters: false,
  // A savepoint would only add round trips (and lose the original error if a deadlock has already rolled the transaction back).
  errorAbortsTransaction: false,
  lockRowsKeepingKeys: (q) => void q.forUpdate(),
  // REPEATABLE READ answers plain reads from the transaction's first snapshot; a locking read sees the latest committed row.
  readLatestCommitted: (q) => void q.forShare(),

  hasReturning: false,
  codePointCollation: "",
  booleanLiteral: (value) => (value ? "1" : "0"),
  rawRows: <T>(result: unknown) => (result as [T[], unknown])[0],
  preparedStatements: null,

  prefersIndexOrderedPages: false,
  needsJoinOrderHints: false,

  // TEXT stops at 64 KiB; post content may be longer.
  longText: (t, name) => t.text(name, "mediumtext"),
  configureTable(t) {
    t.engine("InnoDB");
    t.charset("utf8mb4");
    t.collate("utf8mb4_bin");
  },
  async indexExists(k, _tables, table, index) {
    const r = await k.raw("select 1 from information_schema.statistics where table_schema = database() and table_name = ? and index_name = ?", [table, index]);
    return (r as unknown[][])[0].length > 0;
  },
  cacheTagTriggers: null,
  tagChanges: () => null,
  searchIndex: null,
  searchCaseFolding: null,

  revisionSource: () => null,

  withBulkSettings: (_k, work) => work(),
  async firstFreeId(k, _tables, table) {
    // AUTO_INCREMENT moves past explicit ids by itself.
    const max: { m?: number | null } | undefined = await k(table).max({ m: "id" }).first();
    return Number(max?.m ?? 0) + 1;
  },
  afterExplicitIds: async () => undefined,
  analyzeAfterBulk: async () => undefined,
};

import type { Knex } from "knex";

/**
 * The database drivers a host installs itself (optional peer dependencies,
 * as knex has them): a SQLite-only host installs neither. knex loads a
 * driver when the instance is made and, when it is missing, logs a stack and
 * throws a several-line message; a host deserves one line naming the
 * package to install.
 */
const OPTIONAL_DRIVERS: Readonly<Record<string, { pkg: string; database: string }>> = {
  pg: { pkg: "pg", database: "PostgreSQL" },
  postgres: { pkg: "pg", database: "PostgreSQL" },
  postgresql: { pkg: "pg", database: "PostgreSQL" },
  mysql2: { pkg: "mysql2", database: "MariaDB/MySQL" },
};

export class MissingDriverError extends Error {
  override name = "MissingDriverError";
}

/** Throws MissingDriverError when the driver `config` needs is not installed. */
export function requireDriver(config: Knex.Config): void {
  const driver = typeof config.client === "string" ? OPTIONAL_DRIVERS[config.client] : undefined;
  if (!driver) return;
  try {
    require(driver.pkg);
  } catch (err) {
    // Only the package itself missing: a driver that is there but broken keeps its own error.
    const e = err as NodeJS.ErrnoException;
    if (e.code !== "MODULE_NOT_FOUND" || !e.message.includes(`'${driver.pkg}'`)) throw err;
    throw new MissingDriverError(`${driver.database} needs the "${driver.pkg}" package: npm install ${driver.pkg}`);
  }
}

import type { Knex } from "knex";
import { DIALECTS } from "./dialects";

/**
 * The database drivers a host installs itself (optional peer dependencies,
 * as knex has them): a SQLite-only host installs neither. knex loads a
 * driver when the instance is made and, when it is missing, logs a stack and
 * throws a several-line message; a host deserves one line naming the
 * package to install.
 *
 * Each dialect names its optional driver (`Dialect.optionalDriver`).
 */

export class MissingDriverError extends Error {
  override name = "MissingDriverError";
}

/** Throws MissingDriverError when the driver `config` needs is not installed. */
export function requireDriver(config: Knex.Config): void {
  const client = config.client;
  const driver = typeof client === "string" ? DIALECTS.map((d) => d.optionalDriver).find((d) => d?.clients.includes(client)) : undefined;
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

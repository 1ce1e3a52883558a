/**
 * PostgreSQL extensions calpress can use. An extension's objects carry the
 * extension's own names (pg_trgm's ~30 functions, operators and types), not
 * calpress's table prefix, and it lives once per database: so calpress
 * creates one only when the host lists it (`pgExtensions`, CLI
 * `--pg-extension`), and then in calpress's schema. One that is already
 * installed, anywhere, is used as it is.
 *
 * - pg_trgm: the trigram indexes of post search (lib/db/search-index.ts);
 *   without it search scans every post's text, with the same results.
 */
export const PG_EXTENSIONS = ["pg_trgm"] as const;

export type PgExtension = (typeof PG_EXTENSIONS)[number];

/** The extensions named (by the option `option`), checked: an unknown name throws (before any database is opened). */
export function pgExtensionList(names: readonly string[] | undefined, option = "pgExtensions"): PgExtension[] {
  const known: readonly string[] = PG_EXTENSIONS;
  const list = [...(names ?? [])];
  for (const name of list) {
    if (!known.includes(name)) throw new Error(`${option}: calpress can create ${PG_EXTENSIONS.join(", ")}, not "${name}"`);
  }
  return list as PgExtension[];
}

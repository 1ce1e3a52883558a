import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { REVISION_OPTION, type Tables } from "../db/tables";
import type { OptionsApi } from "../engine-api";
import { EngineError } from "../engine-errors";
import { parseZone } from "../posts/dates";
import { parseSiteUrl } from "../format/site-url";

/** The row whose value changes on every write, so that other processes notice (named in lib/db/tables.ts). */
export { REVISION_OPTION };

/** The site URL options, as WordPress names them (`createSite({ siteUrl })` writes both, the same value). */
export const SITE_URL_OPTIONS = ["home", "siteurl"] as const;

/** Values served when the option has never been written (WordPress's defaults where it has one). */
export const OPTION_DEFAULTS: Readonly<Record<string, string>> = {
  timezone: "UTC",
  default_language: "en",
  posts_per_page: "10",
  date_format: "F j, Y",
  time_format: "g:i a",
  start_of_week: "1",
  blogname: "calpress",
  blogdescription: "",
};

/**
 * The per-engine options cache, shared by the engine and every
 * transaction-bound view of it. Options are read often (the time zone on every
 * post write) and written rarely, so the whole table is read once; afterwards
 * only the revision row is re-read, at most once per `recheckMs`, so a value
 * written by another process is noticed within that time.
 */
export class OptionsCache {
  values: Map<string, string> | null = null;
  revision: string | null = null;
  checkedAt = 0;

  constructor(readonly recheckMs: number) {}

  invalidate(): void {
    this.values = null;
    this.revision = null;
    this.checkedAt = 0;
  }
}

export class Options implements OptionsApi {
  /**
   * Set once this (transaction-bound) view has written an option: from then
   * on it reads the table through its transaction and leaves the shared
   * cache alone, so other requests never see a value that may roll back.
   */
  private dirty = false;

  constructor(
    private readonly knex: Knex,
    private readonly tables: Tables,
    private readonly cache: OptionsCache,
  ) {}

  /** Whether this transaction-bound view wrote an option (the engine drops the shared cache after commit). */
  get wroteInTransaction(): boolean {
    return this.dirty;
  }

  async get(name: string): Promise<string | undefined> {
    const values = await this.fresh();
    return values.get(name) ?? OPTION_DEFAULTS[name];
  }

  async set(name: string, value: string): Promise<void> {
    if (name === REVISION_OPTION) throw new EngineError("invalid_input", `${REVISION_OPTION} is managed by the engine`);
    const v = checkedOptionValue(name, value);
    const revision = newRevision();
    const write = async (k: Knex): Promise<void> => {
      await upsert(k, this.tables, name, v);
      await upsert(k, this.tables, REVISION_OPTION, revision);
    };
    // Both rows or neither: a reader must never see the value without the new revision.
    if (isTransaction(this.knex)) await write(this.knex);
    else await this.knex.transaction(write);
    if (isTransaction(this.knex)) {
      // The write may still roll back: the shared cache is dropped (the
      // committed value is read again after the transaction) and this view
      // reads through its transaction from now on.
      this.dirty = true;
      this.cache.invalidate();
    } else if (this.cache.values) {
      this.cache.values.set(name, v);
      this.cache.revision = revision;
      this.cache.checkedAt = Date.now();
    }
  }

  /**
   * The stored value, or `make()` stored first. Two processes racing here
   * agree on one value: the loser's insert is ignored (ON CONFLICT DO NOTHING /
   * INSERT IGNORE, which unlike a caught unique violation does not abort a
   * PostgreSQL transaction) and it reads the winner's.
   */
  async ensure(name: string, make: () => string): Promise<string> {
    const stored = (await this.fresh()).get(name);
    if (stored !== undefined) return stored;
    await this.knex(this.tables.options).insert({ name, value: make() }).onConflict("name").ignore();
    const row = await this.knex(this.tables.options).where({ name }).first<{ value: string } | undefined>("value");
    if (!row) throw new Error(`option ${name} vanished while being created`);
    await upsert(this.knex, this.tables, REVISION_OPTION, newRevision());
    this.cache.invalidate();
    return row.value;
  }

  /**
   * Reads the revision row now, whatever `recheckMs` says (the whole table
   * again if it moved). What is kept for other processes (kept records,
   * lib/cache/index.ts) calls it after reading the revision token it keeps
   * them under: what it builds then shows options at least as new as that
   * token, not the up to `recheckMs` old ones a write by another process
   * may have replaced (their tag would prove such a record good forever).
   */
  async recheck(): Promise<void> {
    if (this.dirty) return;
    this.cache.checkedAt = 0;
    await this.fresh();
  }

  async timezone(): Promise<string> {
    return (await this.get("timezone")) ?? "UTC";
  }

  async defaultLanguage(): Promise<string> {
    return (await this.get("default_language")) ?? "en";
  }

  async postsPerPage(): Promise<number> {
    const n = Number(await this.get("posts_per_page"));
    return Number.isInteger(n) && n > 0 ? n : 10;
  }

  private async fresh(): Promise<Map<string, string>> {
    if (this.dirty) return this.readAll();
    const cache = this.cache;
    const now = Date.now();
    if (cache.values && now - cache.checkedAt < cache.recheckMs) return cache.values;
    if (cache.values) {
      const row = await this.knex(this.tables.options).where({ name: REVISION_OPTION }).first<{ value: string } | undefined>("value");
      const revision = row?.value ?? null;
      if (revision === cache.revision) {
        cache.checkedAt = now;
        return cache.values;
      }
    }
    const values = await this.readAll();
    cache.values = values;
    cache.revision = values.get(REVISION_OPTION) ?? null;
    cache.checkedAt = now;
    return values;
  }

  private async readAll(): Promise<Map<string, string>> {
    const rows = await this.knex(this.tables.options).select<Array<{ name: string; value: string }>>("name", "value");
    const values = new Map<string, string>();
    for (const r of rows) values.set(r.name, r.value);
    return values;
  }
}

function isTransaction(k: Knex): boolean {
  return (k as Knex & { isTransaction?: boolean }).isTransaction === true;
}

function newRevision(): string {
  // Unique rather than incremented: two processes writing at once never
  // produce the same revision, so neither write can go unnoticed.
  return `${Date.now().toString(36)}-${randomBytes(6).toString("hex")}`;
}

async function upsert(k: Knex, tables: Tables, name: string, value: string): Promise<void> {
  await k(tables.options).insert({ name, value }).onConflict("name").merge(["value"]);
}

/** The value `set` stores for `name`, or the EngineError it refuses `value` with (fixtures check theirs before writing). */
export function checkedOptionValue(name: string, value: string): string {
  switch (name) {
    case "timezone": {
      const v = value.trim() === "" ? "UTC" : value.trim();
      if (!parseZone(v)) throw new EngineError("invalid_timezone", `unknown time zone: ${value}`);
      return v;
    }
    case "posts_per_page": {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new EngineError("invalid_input", "posts_per_page must be a positive integer");
      return String(n);
    }
    case "webhook_url": {
      // Where every change is POSTed (lib/hooks): an http(s) URL, or "" to stop sending.
      const v = value.trim();
      if (v === "") return v;
      let url: URL | undefined;
      try {
        url = new URL(v);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw new EngineError("invalid_input", "webhook_url must be an http or https URL");
      // The outbox stores it with every row (webhook_outbox.url is 2,048 characters).
      if (url.toString().length > 2048) throw new EngineError("invalid_input", "webhook_url must be at most 2048 characters");
      return url.toString();
    }
    case "home":
    case "siteurl": {
      // The site URL every generated URL is built from (read when a site starts), or "" for none.
      const v = value.trim();
      if (v === "") return v;
      try {
        return parseSiteUrl(v);
      } catch (err) {
        throw new EngineError("invalid_input", `${name}: ${(err as Error).message}`);
      }
    }
    default:
      return value;
  }
}

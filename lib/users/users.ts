import { createHmac, randomBytes, randomInt, randomUUID, scrypt, timingSafeEqual } from "node:crypto";
import type { EngineContext } from "../engine-context";
import type { AppPasswordRecord, UserPage, UserQuery, UserRecord, UsersApi } from "../engine-api";
import { isStoredId, storedIds } from "../db/ids";
import { assertNoNul, EngineError, hasNul, isUniqueViolation } from "../engine-errors";
import { utcSqlMillis } from "../dates/format";
import { formatUtc } from "../posts/dates";
import { countOf, insertReturningId, likeContains, orderByText } from "../posts/sql";
import { knownCapabilities, roleCan } from "./capabilities";
import { createNonce, verifyNonce } from "./nonce";
import { CapabilityObject, CurrentUser, ROLE_NAMES, RoleName } from "./types";

/** The per-site HMAC key of application passwords (created on first use). */
export const APP_PASSWORD_KEY_OPTION = "app_password_hmac_key";

/** WordPress records `last_used` at most this often, to avoid a write per request. */
const LAST_USED_GRANULARITY_MS = 60_000;

/** WordPress: wp_generate_password(24, false) — letters and digits. */
const APP_PASSWORD_LENGTH = 24;
const APP_PASSWORD_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

interface UserRow {
  id: number;
  login: string;
  email: string;
  display_name: string;
  role: string;
  password_hash: string | null;
  registered: string;
}

interface AppPasswordRow {
  id: number;
  user_id: number;
  uuid: string;
  name: string;
  hash: string;
  created: string;
  last_used: string | null;
  last_ip: string | null;
}

/**
 * rest-conventions §8: only the letters and digits of an application
 * password count, both when it is stored and when it is checked, so the
 * grouping spaces WordPress shows (`abcd efgh …`) and dashes do not matter.
 */
export function normaliseAppPassword(secret: string): string {
  return secret.replace(/[^A-Za-z0-9]/g, "");
}

function toRecord(r: UserRow): UserRecord {
  return { id: Number(r.id), login: r.login, email: r.email, displayName: r.display_name, role: r.role as RoleName, registered: r.registered };
}

function toAppRecord(r: AppPasswordRow): AppPasswordRecord {
  return { uuid: r.uuid, name: r.name, created: r.created, lastUsed: r.last_used };
}

function checkRole(role: string): RoleName {
  if (!(ROLE_NAMES as readonly string[]).includes(role)) throw new EngineError("invalid_role", `unknown role: ${role}`);
  return role as RoleName;
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

function scryptAsync(password: string, salt: Buffer, keylen: number, opts: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash so they can be raised later. */
export async function hashLoginPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.keylen, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function checkLoginPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64");
  const expected = Buffer.from(parts[5], "base64");
  const key = await scryptAsync(password, salt, expected.length, { N, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

class StoredUser implements CurrentUser {
  readonly id: number;
  readonly login: string;
  readonly email: string;
  readonly displayName: string;
  readonly role: RoleName;

  constructor(
    record: UserRecord,
    private readonly engine: Pick<EngineContext, "registry">,
  ) {
    this.id = record.id;
    this.login = record.login;
    this.email = record.email;
    this.displayName = record.displayName;
    this.role = record.role;
  }

  can(capability: string, object?: CapabilityObject): boolean {
    // Reads the registry on every call, so post types registered after the
    // user was built are known too.
    return roleCan(this.engine.registry, this.role, this.id, capability, object);
  }
}

export class Users implements UsersApi {
  /** `secret`: see `EngineOptions.secret`. */
  constructor(
    private readonly e: EngineContext,
    private readonly secret?: string,
  ) {}

  async create(input: { login: string; role: RoleName; email?: string; displayName?: string; password?: string }): Promise<UserRecord> {
    const login = input.login.trim();
    if (login === "" || login.length > 60) throw new EngineError("invalid_input", "a login of 1 to 60 characters is required");
    const role = checkRole(input.role);
    const email = (input.email ?? "").trim();
    assertNoNul({ login, email, display_name: input.displayName });
    const passwordHash = input.password !== undefined && input.password !== "" ? await hashLoginPassword(input.password) : null;
    return this.e.write(async (tx) => {
      if (await tx.knex(tx.tables.users).where({ login }).first("id")) throw new EngineError("existing_user_login", `login ${login} is taken`);
      if (email !== "" && (await tx.knex(tx.tables.users).where({ email }).first("id"))) {
        throw new EngineError("existing_user_email", `e-mail ${email} is taken`);
      }
      const row = { login, email, display_name: input.displayName ?? login, role, password_hash: passwordHash, registered: formatUtc(tx.now()) };
      let id: number;
      try {
        id = await insertReturningId(tx.knex, tx.dialect, this.e.tables.users, row);
      } catch (err) {
        // Lost a race with another creator of the same login.
        if (isUniqueViolation(err)) throw new EngineError("existing_user_login", `login ${login} is taken`);
        throw err;
      }
      return toRecord({ id, ...row });
    });
  }

  async ensure(input: { login: string; role: RoleName; email?: string; displayName?: string }): Promise<UserRecord> {
    const role = checkRole(input.role);
    const existing = await this.e.knex(this.e.tables.users).where({ login: input.login.trim() }).first<UserRow | undefined>();
    if (!existing) {
      try {
        return await this.create(input);
      } catch (err) {
        if (!(err instanceof EngineError && err.code === "existing_user_login")) throw err;
        return this.ensure(input);
      }
    }
    const changes: Partial<UserRow> = {};
    if (existing.role !== role) changes.role = role;
    if (input.email !== undefined && input.email !== existing.email) changes.email = input.email;
    if (input.displayName !== undefined && input.displayName !== existing.display_name) changes.display_name = input.displayName;
    if (Object.keys(changes).length > 0) await this.e.knex(this.e.tables.users).where({ id: existing.id }).update(changes);
    return toRecord({ ...existing, ...changes });
  }

  async get(id: number): Promise<UserRecord | undefined> {
    if (!isStoredId(id)) return undefined;
    const row = await this.e.knex(this.e.tables.users).where({ id }).first<UserRow | undefined>();
    return row ? toRecord(row) : undefined;
  }

  async getMany(ids: number[]): Promise<Map<number, UserRecord>> {
    const out = new Map<number, UserRecord>();
    const wanted = [...new Set(storedIds(ids))];
    if (wanted.length === 0) return out;
    const rows = await this.e.knex(this.e.tables.users).whereIn("id", wanted).select<UserRow[]>();
    for (const r of rows) out.set(Number(r.id), toRecord(r));
    return out;
  }

  async find(query: UserQuery): Promise<UserPage> {
    const k = this.e.knex;
    const qb = k(this.e.tables.users);
    // An empty list matches nobody (knex writes `1 = 0`); ids past the column range match nothing (db/ids.ts).
    if (query.roles !== undefined) qb.whereIn("role", query.roles);
    if (query.include !== undefined) qb.whereIn("id", storedIds(query.include));
    const search = query.search ?? "";
    // No stored login, name or e-mail holds U+0000, and PostgreSQL cannot compare with it (see hasNul).
    if (hasNul(search)) qb.whereRaw("1 = 0");
    else if (search !== "") {
      const columns = { login: "login", email: "email", display_name: "display_name" } as const;
      const searched = (query.searchColumns ?? ["login", "display_name"]).map((c) => columns[c]);
      qb.where((b) => {
        for (const column of searched) b.orWhere(likeContains(k, column, search));
      });
    }
    const rowsQb = qb.clone().select<UserRow[]>();
    // WordPress's default order of the users list (orderby=name); the id breaks ties alike on every database.
    orderByText(rowsQb, this.e.dialect, "display_name", "asc", true);
    rowsQb.orderBy("id", "asc");
    const page = Math.max(1, Math.trunc(query.page ?? 1));
    const perPage = query.perPage ?? 0;
    if (perPage > 0) rowsQb.limit(perPage).offset((page - 1) * perPage);
    const rows: UserRow[] = await rowsQb;
    let total: number;
    if (perPage <= 0) total = rows.length;
    else if (rows.length > 0 && rows.length < perPage) total = (page - 1) * perPage + rows.length;
    else total = countOf(await qb.clone().count({ n: "*" }).first());
    return { users: rows.map(toRecord), total };
  }

  capabilitiesOf(user: CurrentUser): string[] {
    return knownCapabilities(this.e.registry).filter((cap) => user.can(cap));
  }

  rolesWith(capability: string): RoleName[] {
    return ROLE_NAMES.filter((role) => roleCan(this.e.registry, role, 0, capability));
  }

  /** WordPress's lookup: the login first, then (when it looks like one) the e-mail. */
  async byLogin(loginOrEmail: string): Promise<UserRecord | undefined> {
    const row = await this.rowByLogin(loginOrEmail);
    return row ? toRecord(row) : undefined;
  }

  async setRole(userId: number, role: RoleName): Promise<void> {
    const r = checkRole(role);
    const n = await this.e.knex(this.e.tables.users).where({ id: userId }).update({ role: r });
    if (n === 0) throw new EngineError("invalid_user", `no user ${userId}`);
  }

  /** Sets (or with `null` removes) the login password, hashed with scrypt. */
  async setPassword(userId: number, password: string | null): Promise<void> {
    const hash = password === null || password === "" ? null : await hashLoginPassword(password);
    const n = await this.e.knex(this.e.tables.users).where({ id: userId }).update({ password_hash: hash });
    if (n === 0) throw new EngineError("invalid_user", `no user ${userId}`);
  }

  /** Checks a login password (not an application password). */
  async verifyPassword(loginOrEmail: string, password: string): Promise<UserRecord | undefined> {
    const row = await this.rowByLogin(loginOrEmail);
    if (!row || !row.password_hash) return undefined;
    return (await checkLoginPassword(password, row.password_hash)) ? toRecord(row) : undefined;
  }

  async addAppPassword(userId: number, name: string, secret?: string): Promise<{ record: AppPasswordRecord; secret: string }> {
    if (!(await this.get(userId))) throw new EngineError("invalid_user", `no user ${userId}`);
    const plain = secret ?? generateAppPassword();
    const normalised = normaliseAppPassword(plain);
    if (normalised === "") throw new EngineError("invalid_input", "an application password needs letters or digits");
    const hash = await this.hmac(normalised);
    const row = {
      user_id: userId,
      uuid: randomUUID(),
      name: name.trim() === "" ? "app" : name.trim().slice(0, 100),
      hash,
      created: formatUtc(this.e.now()),
      last_used: null,
      last_ip: null,
    };
    await this.e.knex(this.e.tables.appPasswords).insert(row);
    return { record: { uuid: row.uuid, name: row.name, created: row.created, lastUsed: null }, secret: plain };
  }

  async listAppPasswords(userId: number): Promise<AppPasswordRecord[]> {
    const rows = await this.e.knex(this.e.tables.appPasswords).where({ user_id: userId }).orderBy("id").select<AppPasswordRow[]>();
    return rows.map(toAppRecord);
  }

  async deleteAppPassword(userId: number, uuid: string): Promise<boolean> {
    return (await this.e.knex(this.e.tables.appPasswords).where({ user_id: userId, uuid }).delete()) > 0;
  }

  async verifyAppPassword(
    login: string,
    secret: string,
    ip?: string,
  ): Promise<{ ok: true; user: CurrentUser } | { ok: false; reason: "invalid_username" | "invalid_email" | "incorrect_password" }> {
    const row = await this.rowByLogin(login);
    if (!row) return { ok: false, reason: login.includes("@") ? "invalid_email" : "invalid_username" };
    const normalised = normaliseAppPassword(secret);
    const items = await this.e.knex(this.e.tables.appPasswords).where({ user_id: row.id }).orderBy("id").select<AppPasswordRow[]>();
    if (normalised === "" || items.length === 0) return { ok: false, reason: "incorrect_password" };
    const given = Buffer.from(await this.hmac(normalised), "hex");
    // Compare against every stored password (no early exit) in constant time each.
    let match: AppPasswordRow | undefined;
    for (const item of items) {
      const stored = Buffer.from(item.hash, "hex");
      if (stored.length === given.length && timingSafeEqual(stored, given) && !match) match = item;
    }
    if (!match) return { ok: false, reason: "incorrect_password" };
    const now = this.e.now();
    if (!match.last_used || now.getTime() - utcSqlMillis(match.last_used) >= LAST_USED_GRANULARITY_MS) {
      await this.e.knex(this.e.tables.appPasswords).where({ id: match.id }).update({ last_used: formatUtc(now), last_ip: ip ?? null });
    }
    return { ok: true, user: this.currentUser(toRecord(row)) };
  }

  currentUser(record: UserRecord): CurrentUser {
    return new StoredUser(record, this.e);
  }

  private async rowByLogin(loginOrEmail: string): Promise<UserRow | undefined> {
    const value = loginOrEmail.trim();
    // No stored login or e-mail holds U+0000 (see hasNul), and PostgreSQL
    // refuses it in a text parameter: such a lookup matches nothing, everywhere.
    if (value === "" || hasNul(value)) return undefined;
    const byLogin = await this.e.knex(this.e.tables.users).where({ login: value }).first<UserRow | undefined>();
    if (byLogin || !value.includes("@")) return byLogin;
    return this.e.knex(this.e.tables.users).where({ email: value }).orderBy("id").first<UserRow | undefined>();
  }

  /**
   * A nonce for cookie logins of this user (nonce.ts), valid for 12 to 24
   * hours: WordPress's `wp_create_nonce('wp_rest')`.
   */
  async createNonce(userId: number): Promise<string> {
    return createNonce(await this.key("nonces"), userId, this.e.now().getTime());
  }

  async verifyNonce(userId: number, nonce: string): Promise<boolean> {
    return verifyNonce(await this.key("nonces"), userId, nonce, this.e.now().getTime()) !== false;
  }

  /** HMAC-SHA-256 with the site key; the plain secret is never stored. */
  private async hmac(normalised: string): Promise<string> {
    return createHmac("sha256", await this.key("application passwords")).update(normalised, "utf8").digest("hex");
  }

  /**
   * The key of one use. With a secret, derived from it: the database alone
   * then holds nothing to check a guessed password or make a nonce with.
   * Without one, the random key stored on first use; application-password
   * hashes use it as it is (so hashes made before nonces existed still
   * match), nonces a key derived from it. Setting a secret later changes
   * the application-password key: passwords made before no longer match.
   */
  private async key(use: "application passwords" | "nonces"): Promise<Buffer> {
    if (this.secret !== undefined) return createHmac("sha256", this.secret).update(`calpress ${use}`, "utf8").digest();
    const stored = Buffer.from(await this.e.options.ensure(APP_PASSWORD_KEY_OPTION, () => randomBytes(32).toString("hex")), "hex");
    return use === "application passwords" ? stored : createHmac("sha256", stored).update(`calpress ${use}`, "utf8").digest();
  }
}

function generateAppPassword(): string {
  let out = "";
  for (let i = 0; i < APP_PASSWORD_LENGTH; i++) out += APP_PASSWORD_ALPHABET[randomInt(APP_PASSWORD_ALPHABET.length)];
  return out;
}

/**
 * Errors the engine reports on purpose. The REST layer answers each `code`
 * with the status and WordPress-style error body of its table
 * (`ENGINE_ERROR_ANSWERS`, lib/routes/errors.ts), in every route that lets
 * one escape; anything else that escapes the engine is a bug (a 500).
 *
 * Where a code is shared by several kinds of object, `data.object` says
 * which (`term` for a term's not_found / invalid_parent, `post` for a post's
 * author in invalid_user, `taxonomy` in invalid_type; absent: a post, a user
 * addressed by ID, a post type).
 *
 * Codes used by the engine:
 * - `not_found`            the post, term or user does not exist
 * - `invalid_type`         unregistered post type / taxonomy, or an object type the taxonomy does not cover
 * - `invalid_status`       a status the post type does not allow
 * - `invalid_date`         a date that is not `YYYY-MM-DD HH:MM:SS`
 * - `invalid_parent`       parent missing, of another taxonomy, or a cycle
 * - `invalid_user`         author / user id that does not exist
 * - `invalid_term`         term ids that do not exist in the named taxonomy
 * - `invalid_link`         link targets that do not exist
 * - `invalid_field`        unknown typed field or core column in a query or write
 * - `invalid_input`        anything else malformed (empty term name, bad login, …)
 * - `invalid_role`         not one of the five roles
 * - `invalid_rest`         a post type's or taxonomy's `rest` without a namespace or a base
 * - `invalid_timezone`     a `timezone` option value luxon cannot use
 * - `term_exists`          same term name at the same level and language; data `{ term_id }`
 * - `duplicate_term_slug`  an update asks for a slug another term has
 * - `existing_user_login`, `existing_user_email`
 * - `slug_conflict`        a unique slug could not be found after many attempts (should not happen)
 */
export class EngineError extends Error {
  readonly code: string;
  readonly data?: Record<string, unknown>;

  constructor(code: string, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = "EngineError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

export function isEngineError(err: unknown, code?: string): err is EngineError {
  return err instanceof EngineError && (code === undefined || err.code === code);
}

/**
 * Whether a string holds U+0000. PostgreSQL's text types cannot hold it
 * (the driver fails with "invalid byte sequence"), SQLite and MariaDB store
 * it: the engine refuses it in writes on every database (`invalid_input`,
 * see `assertNoNul`) so the three agree, and a lookup of such a string
 * matches nothing without reaching the database.
 */
export function hasNul(s: string): boolean {
  return s.includes("\u0000");
}

/** Throws `invalid_input` naming the first field whose string value holds U+0000 (see hasNul). */
export function assertNoNul(values: Readonly<Record<string, unknown>> | undefined): void {
  for (const [field, value] of Object.entries(values ?? {})) {
    if (typeof value === "string" && hasNul(value)) {
      throw new EngineError("invalid_input", `${field} must not contain a NUL character.`, { field });
    }
  }
}

interface DriverError {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
}

function driverError(err: unknown): DriverError {
  return typeof err === "object" && err !== null ? (err as DriverError) : {};
}

/**
 * A unique-index violation, as each driver reports it: SQLite's
 * SQLITE_CONSTRAINT (with "UNIQUE" in the message, to tell it from foreign-key
 * and NOT NULL failures), PostgreSQL's SQLSTATE 23505, MySQL/MariaDB's
 * ER_DUP_ENTRY (1062).
 */
export function isUniqueViolation(err: unknown): boolean {
  const e = driverError(err);
  if (e.code === "23505" || e.code === "ER_DUP_ENTRY" || e.errno === 1062) return true;
  if (e.code === "SQLITE_CONSTRAINT" || e.errno === 19) {
    const msg = String(e.message ?? "");
    return /UNIQUE|PRIMARY KEY/i.test(msg);
  }
  return false;
}

/**
 * Errors after which the whole transaction may simply be run again: deadlocks
 * and serialisation failures (PostgreSQL 40P01/40001, MySQL 1213/1205) and a
 * busy SQLite file (another process holds the write lock longer than the busy
 * timeout, or a deferred transaction could not upgrade to a writer).
 */
export function isRetryableTransactionError(err: unknown): boolean {
  const e = driverError(err);
  const code = e.code;
  if (code === "40P01" || code === "40001") return true;
  if (code === "ER_LOCK_DEADLOCK" || code === "ER_LOCK_WAIT_TIMEOUT" || e.errno === 1213 || e.errno === 1205) return true;
  // MariaDB 11.6+ (innodb_snapshot_isolation, on by default there): a
  // locking read of a row changed after the transaction's snapshot fails
  // with ER_CHECKREAD; run again, the transaction gets a fresh snapshot.
  if (code === "ER_CHECKREAD" || e.errno === 1020) return true;
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") return true;
  return false;
}

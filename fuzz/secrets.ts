/**
 * Things no response may ever contain: application passwords (as issued and
 * in the letters-and-digits form the server compares), their stored hashes,
 * login password hashes and user e-mail addresses — except where WordPress
 * shows an e-mail: a user's own, to that user (`/wp/v2/users/me?context=edit`),
 * and every user's to users who may list users (`/wp/v2/users?context=edit`).
 */
import type { Knex } from "knex";
import type { Tables } from "../lib/db/tables";

export interface KnownUser {
  login: string;
  email?: string;
  appPasswords: string[];
}

/** Plain secrets shorter than this are too likely to occur by chance (`admin` inside `administrator`). */
const MIN_SECRET = 6;

/** A secret, and the login whose own answers may show it (their e-mail), if any. */
export interface Secret {
  value: string;
  owner?: string;
}

export async function collectSecrets(knex: Knex, tables: Tables, users: readonly KnownUser[]): Promise<Secret[]> {
  const secrets = new Map<string, Secret>();
  const add = (value: string, owner?: string): void => {
    if (!secrets.has(value)) secrets.set(value, owner === undefined ? { value } : { value, owner });
  };
  for (const u of users) {
    for (const p of u.appPasswords) {
      add(p);
      add(p.replace(/[^A-Za-z0-9]/g, ""));
    }
  }
  const rows = (await knex(tables.users).select("login", "email", "password_hash")) as { login: string; email: string | null; password_hash: string | null }[];
  for (const r of rows) {
    if (r.email) add(r.email.toLowerCase(), r.login);
    if (r.password_hash) add(r.password_hash);
  }
  for (const u of users) if (u.email) add(u.email.toLowerCase(), u.login);
  const hashes = (await knex(tables.appPasswords).select("hash")) as { hash: string }[];
  for (const h of hashes) add(h.hash);
  return [...secrets.values()].filter((s) => s.value.length >= MIN_SECRET);
}

/** Who asked: their login, and whether they may list users (and so see every user's e-mail). */
export interface Viewer {
  login: string;
  listsUsers: boolean;
}

/**
 * The secrets found in a response (headers and body) to a request made by
 * `viewer` (none: anonymous). Bodies are compared after undoing JSON's `\/`
 * and `\u0040` escapes, so an escaped copy still counts.
 */
export function findSecrets(text: string, secrets: readonly Secret[], viewer?: Viewer): string[] {
  const lower = text.toLowerCase();
  const unescaped = lower.includes("\\") ? lower.replace(/\\\//g, "/").replace(/\\u0040/g, "@") : lower;
  const shown = (s: Secret): boolean => viewer !== undefined && s.owner !== undefined && (viewer.listsUsers || s.owner === viewer.login);
  return secrets.filter((s) => !shown(s) && unescaped.includes(s.value.toLowerCase())).map((s) => s.value);
}

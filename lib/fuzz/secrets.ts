/**
 * Things no response may ever contain: application passwords (as issued and
 * in the letters-and-digits form the server compares), their stored hashes,
 * login password hashes and user e-mail addresses.
 */
import type { Knex } from "knex";
import type { Tables } from "../db/tables";

export interface KnownUser {
  login: string;
  email?: string;
  appPasswords: string[];
}

/** Plain secrets shorter than this are too likely to occur by chance (`admin` inside `administrator`). */
const MIN_SECRET = 6;

export async function collectSecrets(knex: Knex, tables: Tables, users: readonly KnownUser[]): Promise<string[]> {
  const secrets = new Set<string>();
  for (const u of users) {
    if (u.email) secrets.add(u.email.toLowerCase());
    for (const p of u.appPasswords) {
      secrets.add(p);
      secrets.add(p.replace(/[^A-Za-z0-9]/g, ""));
    }
  }
  const rows = (await knex(tables.users).select("email", "password_hash")) as { email: string | null; password_hash: string | null }[];
  for (const r of rows) {
    if (r.email) secrets.add(r.email.toLowerCase());
    if (r.password_hash) secrets.add(r.password_hash);
  }
  const hashes = (await knex(tables.appPasswords).select("hash")) as { hash: string }[];
  for (const h of hashes) secrets.add(h.hash);
  return [...secrets].filter((s) => s.length >= MIN_SECRET);
}

/**
 * The secrets found in a response (headers and body). Bodies are compared
 * after undoing JSON's `\/` and `\u0040` escapes, so an escaped copy still counts.
 */
export function findSecrets(text: string, secrets: readonly string[]): string[] {
  const lower = text.toLowerCase();
  const unescaped = lower.includes("\\") ? lower.replace(/\\\//g, "/").replace(/\\u0040/g, "@") : lower;
  return secrets.filter((s) => unescaped.includes(s.toLowerCase()));
}

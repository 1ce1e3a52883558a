/**
 * Nonces for cookie logins, as WordPress's `wp_create_nonce('wp_rest')`:
 * an HMAC of the time window, the action and the user, cut to 10 hex
 * digits. A nonce is valid in the 12-hour window it was made in and the
 * next one (WordPress's `nonce_life` of a day, two ticks), and only for its
 * user: a page of another site cannot know it, so a request it makes the
 * browser send (cookies and all) cannot carry it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Half of WordPress's `nonce_life` (one day). */
export const NONCE_TICK_MS = 12 * 60 * 60 * 1000;
const ACTION = "wp_rest";

/** WordPress `wp_nonce_tick()`: the number of the current half-day. */
function tick(nowMs: number): number {
  return Math.ceil(nowMs / NONCE_TICK_MS);
}

function nonceAt(key: Buffer, userId: number, at: number): string {
  const digest = createHmac("sha256", key).update(`${at}|${ACTION}|${userId}`, "utf8").digest("hex");
  // WordPress keeps 10 of the hash's last 12 hex digits.
  return digest.slice(-12, -2);
}

export function createNonce(key: Buffer, userId: number, nowMs: number): string {
  return nonceAt(key, userId, tick(nowMs));
}

/** WordPress `wp_verify_nonce()`: 1 when made in this window, 2 in the previous one, false otherwise. */
export function verifyNonce(key: Buffer, userId: number, nonce: string, nowMs: number): 1 | 2 | false {
  const given = Buffer.from(nonce, "utf8");
  const now = tick(nowMs);
  for (const [age, at] of [
    [1, now],
    [2, now - 1],
  ] as const) {
    const expected = Buffer.from(nonceAt(key, userId, at), "utf8");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return age;
  }
  return false;
}

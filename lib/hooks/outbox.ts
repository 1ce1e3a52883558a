import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Tables } from "../db/tables";
import { changeData, type Change } from "./types";

/** Site options that turn webhooks on (`webhook_url`) and sign them (`webhook_secret`). */
export const WEBHOOK_URL_OPTION = "webhook_url";
export const WEBHOOK_SECRET_OPTION = "webhook_secret";

export type OutboxStatus = "pending" | "delivered" | "failed";

export interface OutboxRow {
  id: number;
  delivery_id: string;
  event: string;
  url: string;
  body: string;
  status: OutboxStatus;
  attempts: number;
  /** Epoch milliseconds (integers compare the same way on every database, with no time-zone conversion). */
  next_attempt_at: number;
  claimed_until: number;
  claim_token: string | null;
  created_at: number;
  delivered_at: number | null;
  last_error: string | null;
}

/** The body a webhook POSTs: built once, when the change is written, so every retry sends (and signs) the same bytes. */
export function webhookBody(deliveryId: string, change: Change): string {
  return JSON.stringify({ id: deliveryId, event: change.name, occurred_at: change.occurredAt, data: changeData(change) });
}

/**
 * Writes the outbox rows (`tables.webhookOutbox`, created by lib/db/migrations.ts) of a transaction's changes, on that transaction:
 * the change and its delivery commit or roll back together.
 */
export async function writeOutbox(trx: Knex, tables: Tables, changes: readonly Change[], url: string, now: Date): Promise<void> {
  const nowMs = now.getTime();
  const rows = changes.map((change) => {
    const deliveryId = randomUUID();
    return {
      delivery_id: deliveryId,
      event: change.name,
      url,
      body: webhookBody(deliveryId, change),
      status: "pending",
      attempts: 0,
      next_attempt_at: nowMs,
      claimed_until: 0,
      created_at: nowMs,
    };
  });
  // Bounded batches: SQLite caps the bound parameters of one statement.
  for (let i = 0; i < rows.length; i += 50) await trx(tables.webhookOutbox).insert(rows.slice(i, i + 50));
}

import { createHmac, randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Tables } from "../db/tables";
import type { HookBus, HookLogger } from "./bus";
import { WEBHOOK_SECRET_OPTION, type OutboxRow } from "./outbox";

export interface WebhookSettings {
  /**
   * How often the outbox is looked at for retries and rows other processes
   * left (default 5 s); only once this process has seen webhook work (rows
   * at start, or a change of its own written with a webhook), so a site
   * without webhooks runs one query at start and none after.
   */
  intervalMs?: number;
  /** Attempts before a delivery is marked `failed` (default 8). */
  maxAttempts?: number;
  /** Delay before the first retry; each next one doubles (default 30 s), up to `maxRetryMs` (default 6 h). */
  retryBaseMs?: number;
  maxRetryMs?: number;
  /** How long one POST may take (default 10 s). */
  timeoutMs?: number;
  /**
   * Run the background deliverer (default true). Off, nothing is sent until
   * `site.webhooks.deliverDue()` is called (tests; a host with its own scheduler).
   */
  autoStart?: boolean;
  /** The clock of the background deliverer (default the real one). */
  now?: () => Date;
  /** The HTTP client (default the global fetch). */
  fetch?: typeof fetch;
}

export interface DeliveryReport {
  delivered: number;
  /** Failed attempts that will be tried again. */
  retried: number;
  /** Deliveries that failed their last attempt and are now marked `failed`. */
  failed: number;
}

/** What the deliverer needs of the engine. */
export interface DelivererEngine {
  readonly knex: Knex;
  readonly tables: Tables;
  readonly options: { get(name: string): Promise<string | undefined> };
  readonly hooks: HookBus;
}

const BATCH = 20;
const DELIVERED_KEPT_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Sends the outbox's pending rows (lib/hooks/outbox.ts) as signed POSTs, in
 * the serving process but never inside a request: a background loop (every
 * `intervalMs`, and right after a commit that wrote rows) or
 * `deliverDue()`.
 *
 * Several processes may share the database: each row is claimed with one
 * conditional UPDATE (`claimed_until <= now` → `now + lease`, with a token
 * of its own) and only the process whose UPDATE changed the row sends it.
 * A process that dies mid-send leaves a claim that expires after the lease,
 * and rows written before a crash are still `pending` for the next start.
 * Delivery is at least once: receivers dedupe on `id` (X-Calpress-Delivery).
 */
export class WebhookDeliverer {
  private readonly intervalMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryMs: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly clock: () => Date;
  private readonly send: typeof fetch;
  private timer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  /** The run in progress: runs are serialised, one at a time per process. */
  private chain: Promise<unknown> = Promise.resolve();
  private queued = false;
  /** Whether this process has seen webhook work (see `intervalMs`). */
  private active = false;
  private lastPrune = 0;

  constructor(
    private readonly engine: DelivererEngine,
    settings: WebhookSettings = {},
    private readonly logger?: HookLogger,
  ) {
    this.intervalMs = settings.intervalMs ?? 5_000;
    this.maxAttempts = Math.max(1, settings.maxAttempts ?? 8);
    // At least 1 ms: a retry is never due again within the run that failed it.
    this.retryBaseMs = Math.max(1, settings.retryBaseMs ?? 30_000);
    this.maxRetryMs = settings.maxRetryMs ?? 6 * 3_600_000;
    this.timeoutMs = settings.timeoutMs ?? 10_000;
    // Longer than any one send, so a live claim never expires under its owner.
    this.leaseMs = this.timeoutMs * 3 + 30_000;
    this.clock = settings.now ?? (() => new Date());
    this.send = settings.fetch ?? fetch;
  }

  /** Starts the background loop; rows left pending by an earlier process are picked up at once. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.active) this.wake();
    }, this.intervalMs);
    this.timer.unref();
    this.unwatch = this.engine.hooks.watchOutbox(() => {
      this.active = true;
      this.wake();
    });
    this.wake();
  }

  /** Stops the loop and waits for the run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unwatch?.();
    this.unwatch = null;
    await this.chain.catch(() => undefined);
  }

  /**
   * Sends every row due at `now` (default the deliverer's clock) once, and
   * records the outcome; a failed attempt is retried after
   * `retryBaseMs × 2^(attempts−1)`. Waits for a run already in progress first.
   */
  deliverDue(now?: Date): Promise<DeliveryReport> {
    const run = this.chain.catch(() => undefined).then(() => this.runOnce(now ?? this.clock()));
    this.chain = run;
    return run;
  }

  private wake(): void {
    if (!this.timer || this.queued) return;
    this.queued = true;
    setImmediate(() => {
      this.queued = false;
      if (!this.timer) return;
      this.deliverDue().catch((err: unknown) => this.logger?.error("webhook delivery failed", err));
    });
  }

  private async runOnce(now: Date): Promise<DeliveryReport> {
    const report: DeliveryReport = { delivered: 0, retried: 0, failed: 0 };
    const nowMs = now.getTime();
    let secret: string | undefined;
    for (;;) {
      const due = await this.due(nowMs);
      for (const id of due) {
        const row = await this.claim(id, nowMs);
        if (!row) continue;
        // Read per run, so that a new secret applies from the next run on.
        secret ??= (await this.engine.options.get(WEBHOOK_SECRET_OPTION)) ?? "";
        await this.deliver(row, secret, nowMs, report);
      }
      if (due.length < BATCH) break;
    }
    if (report.delivered + report.retried + report.failed > 0) this.active = true;
    if (this.active) await this.prune(nowMs);
    return report;
  }

  private async due(nowMs: number): Promise<number[]> {
    const ids = await this.engine
      .knex(this.engine.tables.webhookOutbox)
      .where("status", "pending")
      .where("next_attempt_at", "<=", nowMs)
      .where("claimed_until", "<=", nowMs)
      .orderBy("id")
      .limit(BATCH)
      .pluck("id");
    return ids.map(Number);
  }

  /** The row, when this process's conditional UPDATE won it; undefined when another process holds it or it is done. */
  private async claim(id: number, nowMs: number): Promise<(OutboxRow & { claim_token: string }) | undefined> {
    const token = randomUUID();
    const won = await this.engine
      .knex(this.engine.tables.webhookOutbox)
      .where({ id, status: "pending" })
      .where("next_attempt_at", "<=", nowMs)
      .where("claimed_until", "<=", nowMs)
      .update({ claimed_until: nowMs + this.leaseMs, claim_token: token });
    if (Number(won) !== 1) return undefined;
    const row = await this.engine.knex(this.engine.tables.webhookOutbox).where({ id, claim_token: token }).first<OutboxRow | undefined>();
    return row ? { ...row, claim_token: token, attempts: Number(row.attempts) } : undefined;
  }

  private async deliver(row: OutboxRow & { claim_token: string }, secret: string, nowMs: number, report: DeliveryReport): Promise<void> {
    const problem = await this.post(row, secret, nowMs);
    const attempts = row.attempts + 1;
    const mine = this.engine.knex(this.engine.tables.webhookOutbox).where({ id: row.id, claim_token: row.claim_token });
    if (problem === null) {
      await mine.update({ status: "delivered", attempts, delivered_at: nowMs, claimed_until: 0, claim_token: null, last_error: null });
      report.delivered += 1;
      return;
    }
    const lastError = problem.slice(0, 500);
    if (attempts >= this.maxAttempts) {
      await mine.update({ status: "failed", attempts, claimed_until: 0, claim_token: null, last_error: lastError });
      report.failed += 1;
      this.logger?.error(`webhook ${row.delivery_id} (${row.event}) failed after ${attempts} attempts: ${lastError}`);
      return;
    }
    const delay = Math.min(this.maxRetryMs, this.retryBaseMs * 2 ** (attempts - 1));
    await mine.update({ attempts, next_attempt_at: nowMs + delay, claimed_until: 0, claim_token: null, last_error: lastError });
    report.retried += 1;
  }

  /** One POST; null when the receiver answered 2xx, else what went wrong. */
  private async post(row: OutboxRow, secret: string, nowMs: number): Promise<string | null> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "calpress-webhooks",
      "x-calpress-event": row.event,
      "x-calpress-delivery": row.delivery_id,
      "x-calpress-timestamp": String(Math.floor(nowMs / 1000)),
    };
    if (secret !== "") headers["x-calpress-signature"] = `sha256=${createHmac("sha256", secret).update(row.body).digest("hex")}`;
    try {
      const res = await this.send(row.url, { method: "POST", headers, body: row.body, redirect: "manual", signal: AbortSignal.timeout(this.timeoutMs) });
      // The answer's body is not needed (and may be large): dropped, which frees the connection.
      await res.body?.cancel().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}`;
    } catch (err) {
      return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
  }

  private async prune(nowMs: number): Promise<void> {
    if (nowMs - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = nowMs;
    await this.engine.knex(this.engine.tables.webhookOutbox).where("status", "delivered").where("delivered_at", "<", nowMs - DELIVERED_KEPT_MS).delete();
  }
}

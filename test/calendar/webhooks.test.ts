import { expect } from "chai";
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createEvent } from "../../lib/calendar/events/operations";
import { WEBHOOK_SECRET_OPTION, WEBHOOK_URL_OPTION } from "../../lib/hooks";
import { RestError } from "../../lib/routes/errors";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { userId, waitFor } from "../support/hooks";
import { startTestSite, type TestSite } from "../support/site";
import { dayAt } from "./events-support";

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: { id: string; event: string; occurred_at: string; data: Record<string, unknown> };
}

/** A local webhook receiver: records every POST and answers with the next queued status (default 200). */
async function receiver(): Promise<{
  url: string;
  received: Received[];
  statuses: number[];
  /** While set, requests wait for it before being answered. */
  gate: Promise<void> | null;
  close(): Promise<void>;
}> {
  const state = {
    url: "",
    received: [] as Received[],
    statuses: [] as number[],
    gate: null as Promise<void> | null,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      state.received.push({ headers: req.headers, raw, body: JSON.parse(raw) as Received["body"] });
      const answer = (): void => {
        res.writeHead(state.statuses.shift() ?? 200, { "content-type": "text/plain" });
        res.end("ok");
      };
      if (state.gate) void state.gate.then(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return state;
}

const SECRET = "whsec-test-secret";
const logged: string[] = [];
const logger = { error: (message: string) => void logged.push(message) };

function signature(raw: string): string {
  return `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`;
}

async function outbox(t: TestSite): Promise<Array<{ id: number; event: string; status: string; attempts: number; next_attempt_at: number; last_error: string | null; delivery_id: string }>> {
  const rows: Array<Record<string, unknown>> = await t.site.engine.knex(t.site.engine.tables.webhookOutbox).orderBy("id");
  return rows.map((r) => ({
    id: Number(r.id),
    event: String(r.event),
    status: String(r.status),
    attempts: Number(r.attempts),
    next_attempt_at: Number(r.next_attempt_at),
    last_error: r.last_error === null ? null : String(r.last_error),
    delivery_id: String(r.delivery_id),
  }));
}

forEachDatabase("outgoing webhooks", (db) => {
  let database: TestDatabase;
  let t: TestSite;
  let hook: Awaited<ReturnType<typeof receiver>>;
  const extra: TestSite[] = [];

  before(async function () {
    this.timeout(60_000);
    database = await db.create();
    hook = await receiver();
    t = await startTestSite({
      fixture: "minimal",
      timezone: "UTC",
      target: database.target,
      webhooks: { autoStart: false, retryBaseMs: 60_000, maxAttempts: 3 },
      logger,
    });
    await t.site.engine.options.set(WEBHOOK_URL_OPTION, hook.url);
    await t.site.engine.options.set(WEBHOOK_SECRET_OPTION, SECRET);
  });
  after(async function () {
    this.timeout(60_000);
    for (const s of extra) await s.close();
    await t?.close();
    await hook?.close();
    await database?.drop();
  });
  beforeEach(() => {
    hook.received.length = 0;
    hook.statuses.length = 0;
  });

  it("writes nothing before webhook_url is set, and refuses a URL that is not http(s)", async () => {
    await t.site.engine.options.set(WEBHOOK_URL_OPTION, "");
    expect((await t.post("/tags", { as: "admin", json: { name: "unsent-tag" } })).status).to.equal(201);
    expect(await outbox(t)).to.deep.equal([]);
    let failure: unknown;
    await t.site.engine.options.set(WEBHOOK_URL_OPTION, "ftp://example.com/x").catch((err: unknown) => (failure = err));
    expect(failure).to.be.an("error");
    await t.site.engine.options.set(WEBHOOK_URL_OPTION, hook.url);
    expect(await t.site.engine.options.get(WEBHOOK_URL_OPTION)).to.equal(hook.url);
  });

  it("delivers a signed POST {id, event, occurred_at, data} for each change, once", async () => {
    const res = await t.post("/events", {
      as: "editor",
      json: { title: "Webhook Gala", start_date: dayAt(5, "19:00:00"), end_date: dayAt(5, "23:00:00"), venue: { venue: "Webhook Hall" } },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    // Committed with the change: there as soon as the response is.
    const rows = await outbox(t);
    expect(rows.map((r) => [r.event, r.status])).to.deep.equal([
      ["venue.created", "pending"],
      ["event.created", "pending"],
    ]);
    expect(hook.received).to.have.length(0);

    const report = await t.site.webhooks.deliverDue(new Date());
    expect(report).to.deep.equal({ delivered: 2, retried: 0, failed: 0 });
    expect(hook.received.map((r) => r.body.event)).to.deep.equal(["venue.created", "event.created"]);
    const event = hook.received[1];
    expect(event.headers["content-type"]).to.equal("application/json");
    expect(event.headers["x-calpress-signature"]).to.equal(signature(event.raw));
    expect(event.headers["x-calpress-delivery"]).to.equal(event.body.id);
    expect(event.headers["x-calpress-event"]).to.equal("event.created");
    expect(Number(event.headers["x-calpress-timestamp"])).to.be.greaterThan(1_700_000_000);
    expect(event.body.id).to.equal(rows[1].delivery_id);
    expect(Number.isNaN(Date.parse(event.body.occurred_at))).to.equal(false);
    expect(event.body.data).to.include({ kind: "post", action: "created", id: res.body.id, type: "event", title: "Webhook Gala", status: "publish" });
    expect(event.body.data.user_id).to.equal(await userId(t, "editor"));
    expect((event.body.data.fields as Record<string, unknown>).start_local).to.equal(dayAt(5, "19:00:00"));
    expect(hook.received[0].body.data).to.include({ id: res.body.venue.id, title: "Webhook Hall" });

    expect((await outbox(t)).map((r) => [r.status, r.attempts])).to.deep.equal([
      ["delivered", 1],
      ["delivered", 1],
    ]);
    expect(await t.site.webhooks.deliverDue(new Date())).to.deep.equal({ delivered: 0, retried: 0, failed: 0 });
    expect(hook.received).to.have.length(2);
  });

  it("retries a failed delivery later with exponential backoff, resending the same body", async () => {
    const res = await t.post("/categories", { as: "admin", json: { name: "Retry Me" } });
    expect(res.status).to.equal(201);
    hook.statuses.push(500, 503);
    const t0 = Date.now();
    expect(await t.site.webhooks.deliverDue(new Date(t0))).to.deep.equal({ delivered: 0, retried: 1, failed: 0 });
    let row = (await outbox(t)).at(-1)!;
    expect(row).to.include({ event: "term.created", status: "pending", attempts: 1, next_attempt_at: t0 + 60_000, last_error: "HTTP 500" });

    // Not due yet: nothing is sent.
    expect(await t.site.webhooks.deliverDue(new Date(t0 + 59_999))).to.deep.equal({ delivered: 0, retried: 0, failed: 0 });
    expect(hook.received).to.have.length(1);

    // Due: fails again, and the next wait doubles.
    expect(await t.site.webhooks.deliverDue(new Date(t0 + 60_000))).to.deep.equal({ delivered: 0, retried: 1, failed: 0 });
    row = (await outbox(t)).at(-1)!;
    expect(row).to.include({ attempts: 2, next_attempt_at: t0 + 60_000 + 120_000, last_error: "HTTP 503" });

    expect(await t.site.webhooks.deliverDue(new Date(t0 + 180_000))).to.deep.equal({ delivered: 1, retried: 0, failed: 0 });
    row = (await outbox(t)).at(-1)!;
    expect(row).to.include({ status: "delivered", attempts: 3, last_error: null });
    expect(hook.received).to.have.length(3);
    expect(new Set(hook.received.map((r) => r.raw)).size).to.equal(1);
    expect(hook.received.every((r) => r.headers["x-calpress-signature"] === signature(r.raw))).to.equal(true);
  });

  it("gives up after the last attempt and marks the row failed", async () => {
    expect((await t.post("/tags", { as: "admin", json: { name: "never-accepted" } })).status).to.equal(201);
    hook.statuses.push(500, 500, 500, 500);
    const t0 = Date.now();
    expect((await t.site.webhooks.deliverDue(new Date(t0))).retried).to.equal(1);
    expect((await t.site.webhooks.deliverDue(new Date(t0 + 60_000))).retried).to.equal(1);
    expect(await t.site.webhooks.deliverDue(new Date(t0 + 180_000))).to.deep.equal({ delivered: 0, retried: 0, failed: 1 });
    expect((await outbox(t)).at(-1)).to.include({ status: "failed", attempts: 3 });
    expect(logged.at(-1)).to.match(/^webhook [0-9a-f-]{36} \(term\.created\) failed after 3 attempts: HTTP 500$/);
    expect(await t.site.webhooks.deliverDue(new Date(t0 + 86_400_000))).to.deep.equal({ delivered: 0, retried: 0, failed: 0 });
    expect(hook.received).to.have.length(3);
  });

  it("a write that fails leaves no outbox row (same transaction)", async () => {
    const before = (await outbox(t)).length;
    // In-process, validation skipped: the venue and the term are written before the organizer fails.
    const admin = t.site.engine.users.currentUser((await t.site.engine.users.byLogin("admin"))!);
    let failure: unknown;
    await createEvent(
      t.site.engine,
      {
        title: "Rolled Back",
        start_date: "tomorrow 10am",
        end_date: "tomorrow 11am",
        categories: "Rolled Back Category",
        venue: { venue: "Rolled Back Venue" },
        organizer: [{ organizer: "Rolled Back Organizer" }, { email: "x@example.com" }],
      },
      admin,
      { validated: true },
    ).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(RestError);
    // Over HTTP: a host route whose write fails after creating a term.
    t.site.rest.registerNamespace("webhooktest/v1");
    t.site.rest.registerRoute("webhooktest/v1", "/fail", [
      {
        methods: "POST",
        permission: "public",
        handler: async () => {
          await t.site.engine.write(async (tx) => {
            await tx.terms.create({ taxonomy: "post_tag", name: "rolled-back-tag" });
            throw new RestError("webhooktest_failed", "Failed on purpose.", 409);
          });
          return {};
        },
      },
    ]);
    expect((await fetch(`${t.root}webhooktest/v1/fail`, { method: "POST" })).status).to.equal(409);
    expect(await t.site.engine.terms.bySlug("post_tag", "rolled-back-tag")).to.equal(undefined);
    expect(await outbox(t)).to.have.length(before);
    expect((await t.site.webhooks.deliverDue(new Date())).delivered).to.equal(0);
    expect(hook.received).to.have.length(0);
  });

  it("two processes on one database never send the same row twice", async () => {
    const other = await startTestSite({ target: database.target, webhooks: { autoStart: false }, logger });
    extra.push(other);
    for (const name of ["race-1", "race-2", "race-3", "race-4", "race-5"]) {
      expect((await t.post("/tags", { as: "admin", json: { name } })).status).to.equal(201);
    }
    const now = new Date();
    const [a, b] = await Promise.all([t.site.webhooks.deliverDue(now), other.site.webhooks.deliverDue(now)]);
    expect(a.delivered + b.delivered).to.equal(5);
    const ids = hook.received.map((r) => r.body.id);
    expect(ids).to.have.length(5);
    expect(new Set(ids).size).to.equal(5);
    expect(hook.received.map((r) => r.body.data.name).sort()).to.deep.equal(["race-1", "race-2", "race-3", "race-4", "race-5"]);
  });

  it("rows written before a crash are delivered by the next process, in the background, without blocking requests", async () => {
    const admin = t.users.admin;
    const res = await t.post("/organizers", { as: "admin", json: { organizer: "Left Behind" } });
    expect(res.status).to.equal(201);
    // The process goes away before delivering.
    await t.close();
    expect(hook.received).to.have.length(0);

    let release: () => void = () => undefined;
    hook.gate = new Promise<void>((resolve) => (release = resolve));
    const next = await startTestSite({ target: database.target, webhooks: { intervalMs: 50 }, logger });
    extra.push(next);
    await waitFor(() => hook.received.length === 1, "the left-behind delivery");
    expect(hook.received[0].body).to.deep.include({ event: "organizer.created" });
    expect(hook.received[0].body.data).to.include({ id: res.body.id, title: "Left Behind" });

    // The receiver has not answered yet: a write still gets its answer.
    const write = await next.post("/tags", { as: admin, json: { name: "not-blocked" } });
    expect(write.status).to.equal(201);
    release();
    hook.gate = null;
    await waitFor(async () => (await outbox(next)).every((r) => r.status !== "pending"), "both deliveries");
    expect(hook.received.map((r) => r.body.event)).to.deep.equal(["organizer.created", "term.created"]);
    expect((await outbox(next)).filter((r) => r.event === "organizer.created").at(-1)!.status).to.equal("delivered");
  });
});

/**
 * Graceful shutdown: SIGTERM to `calpress serve` under load. Requests the
 * server is already handling complete (their bodies are held back until
 * after the signal, and a concurrent burst keeps the server busy), new
 * connections are refused once it stops listening, nothing answers 5xx,
 * every acknowledged write is in the database, and the process exits 0
 * within a bound, even when a client never finishes its request.
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import knexFactory from "knex";
import { call, startServer, type Server } from "./cli-process";
import { tableNames } from "../../lib/db/tables";

const ADMIN = `Basic ${Buffer.from("admin:admin-pass").toString("base64")}`;
const WHEN = { start_date: "2031-07-01 10:00:00", end_date: "2031-07-01 12:00:00" };

interface Slow {
  /** Resolves when the server has read the headers (it answered `100 Continue`). */
  accepted: Promise<void>;
  /** Sends the rest of the body. */
  finish(): void;
  reply: Promise<{ status: number; body: string }>;
}

/**
 * A create whose body is held back: `Expect: 100-continue` makes the server
 * say when it has the request, which is the moment it is "in flight".
 */
function slowCreate(port: number, title: string): Slow {
  const body = Buffer.from(JSON.stringify({ title, ...WHEN }));
  const req = http.request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/wp-json/calendar/events/v1/events",
    agent: false,
    headers: { authorization: ADMIN, "content-type": "application/json", "content-length": body.length, expect: "100-continue", connection: "close" },
  });
  const accepted = new Promise<void>((resolve) => req.once("continue", () => resolve()));
  const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.once("error", reject);
  });
  req.flushHeaders();
  return { accepted, finish: () => req.end(body), reply };
}

/** Whether a new TCP connection is accepted (`refused` once the server stopped listening). */
function tryConnect(port: number): Promise<"connected" | "refused" | string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED" ? "refused" : (err.code ?? err.message)));
  });
}

type BurstOutcome = { kind: "answer"; status: number; complete: boolean; id?: number; at: number } | { kind: "error"; code: string };

/** Fires `n` requests at once; `onAnswer` is told of each answer as it arrives. */
function burst(port: number, n: number, onAnswer: () => void): Promise<BurstOutcome[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i): Promise<BurstOutcome> => {
      try {
        const reply =
          i % 3 === 0
            ? await call(port, "POST", "/events", { auth: "admin:admin-pass", json: { title: `Burst ${i}`, ...WHEN } })
            : await call(port, "GET", "/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01");
        const complete = typeof reply.body === "object" && reply.body !== null;
        onAnswer();
        return { kind: "answer", status: reply.status, complete, id: reply.status === 201 ? (reply.body as { id: number }).id : undefined, at: Date.now() };
      } catch (err) {
        return { kind: "error", code: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
      }
    }),
  );
}

describe("reliability: graceful shutdown under load (SIGTERM)", function () {
  this.timeout(90_000);
  let dir: string;
  const servers: Server[] = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-shutdown-"));
  });
  after(() => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("finishes in-flight requests, refuses new connections, answers no 5xx, keeps acknowledged writes and exits 0 promptly", async () => {
    const file = path.join(dir, "graceful.sqlite");
    const server = await startServer(["--db", file, "--fixture", "minimal"]);
    servers.push(server);

    const slow = Array.from({ length: 8 }, (_, i) => slowCreate(server.port, `In flight ${i}`));
    await Promise.all(slow.map((s) => s.accepted));
    // Signal once part of the burst is answered (not after a fixed delay, which a slow or busy
    // machine may spend before the first answer), so the signal lands on a server mid-burst.
    let answered = 0;
    let started!: () => void;
    const underway = new Promise<void>((resolve) => (started = resolve));
    const load = burst(server.port, 120, () => {
      answered += 1;
      if (answered === 25) started();
    });
    await underway;

    const signalled = Date.now();
    server.child.kill("SIGTERM");
    // The busy server gets to the signal within a moment; from then on new connections are refused,
    // while the held-back requests are still open.
    // A connection the kernel completed just as the listening socket closed is reset (ECONNRESET): part of the switch, not yet its end.
    let attempt = await tryConnect(server.port);
    while ((attempt === "connected" || attempt === "ECONNRESET") && Date.now() - signalled < 3_000) {
      await new Promise((r) => setTimeout(r, 25));
      attempt = await tryConnect(server.port);
    }
    expect(attempt).to.equal("refused");
    expect((await tryConnect(server.port)), "still refused").to.equal("refused");

    for (const s of slow) s.finish();
    const replies = await Promise.all(slow.map((s) => s.reply));
    for (const r of replies) expect(r.status, r.body).to.equal(201);

    const outcomes = await load;
    const answers = outcomes.filter((o): o is Extract<BurstOutcome, { kind: "answer" }> => o.kind === "answer");
    expect(answers.filter((a) => a.status >= 500)).to.deep.equal([]);
    expect(answers.filter((a) => !a.complete), "truncated answers").to.deep.equal([]);
    // A connection still in the kernel's accept queue when the listener closes, or accepted but
    // with its request not yet read (Node's close() drops such idle sockets), is refused or
    // reset; nothing else may fail.
    const errors = outcomes.filter((o): o is Extract<BurstOutcome, { kind: "error" }> => o.kind === "error");
    for (const e of errors) expect(["ECONNREFUSED", "ECONNRESET"]).to.include(e.code);
    expect(answers.length).to.be.greaterThan(20);
    // The signal really landed on a busy server: part of the burst was answered after it.
    expect(answers.filter((a) => a.at > signalled).length).to.be.greaterThan(0);

    const { code } = await server.exit;
    const took = Date.now() - signalled;
    expect(code, server.stderr()).to.equal(0);
    expect(took).to.be.lessThan(5_000);

    // Every acknowledged create is in the database after the stop.
    const created = [...replies.map((r) => (JSON.parse(r.body) as { id: number }).id), ...answers.flatMap((a) => (a.id === undefined ? [] : [a.id]))];
    const k = knexFactory({ client: "sqlite3", connection: { filename: file }, useNullAsDefault: true });
    try {
      const rows = (await k(tableNames().posts).whereIn("id", created).select("id")) as unknown[];
      expect(rows.length).to.equal(created.length);
      expect(await k.raw("PRAGMA integrity_check")).to.deep.equal([{ integrity_check: "ok" }]);
    } finally {
      await k.destroy();
    }
  });

  it("exits 0 within the 10 s grace period even when a client never finishes its request", async () => {
    const server = await startServer(["--db", path.join(dir, "stalled.sqlite"), "--fixture", "minimal"]);
    servers.push(server);
    const stalled = slowCreate(server.port, "Never finished");
    await stalled.accepted;
    const cut = stalled.reply.then(
      () => "answered",
      (err: NodeJS.ErrnoException) => err.code ?? err.message,
    );
    const signalled = Date.now();
    server.child.kill("SIGTERM");
    const { code } = await server.exit;
    const took = Date.now() - signalled;
    expect(code, server.stderr()).to.equal(0);
    expect(took).to.be.within(9_000, 12_000);
    expect(await cut).to.be.oneOf(["ECONNRESET", "socket hang up"]);
  });
});

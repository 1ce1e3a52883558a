/**
 * `If-Match` raced across `calpress serve --workers 2`, on every database:
 * two updates of one event with one ETag, each on a connection of its own
 * (the primary hands consecutive connections to alternating workers), so
 * that two processes check and write at once. One must answer 200 and the
 * other 412, and the record is the winner's. (test/calendar/if-match-race.test.ts
 * races the same in one process, and through two sites.)
 */
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { type Run, runCli } from "./run-cli";

const PAIRS = 200;
const ADMIN = `Basic ${Buffer.from("ada:ada-race-pass-0123456789").toString("base64")}`;

interface Answer {
  status: number;
  etag: string | undefined;
  body: { id?: number; title?: string; code?: string };
}

/** One request on a connection of its own, as the admin. */
function request(url: string, method = "GET", body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent: false,
        headers: {
          Connection: "close",
          Authorization: ADMIN,
          ...headers,
          ...(payload === undefined ? {} : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, body: JSON.parse(text) as Answer["body"] }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

forEachDatabase("calpress serve --workers 2: If-Match raced", (db) => {
  let database: TestDatabase;
  let dir: string;
  let run: Run;
  let ns: string;

  before(async function () {
    this.timeout(120_000);
    database = await db.create();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-workers-race-"));
    // A SQLite database lives in the test's own file; a server's is the target itself.
    const target = db.name === "sqlite" ? path.join(dir, "site.sqlite") : database.target;
    run = runCli(["serve", "--port", "0", "--workers", "2", "--db", target, "--user", "ada:ada-race-pass-0123456789:administrator"]);
    const start = Date.now();
    for (;;) {
      const line = run.stdout.find((l) => l.startsWith("calpress listening on "));
      if (line !== undefined) {
        ns = `${line.slice("calpress listening on ".length)}calendar/events/v1`;
        break;
      }
      if (run.child.exitCode !== null || Date.now() - start > 110_000) throw new Error(`serve did not start: ${run.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  after(async function () {
    this.timeout(60_000);
    if (run !== undefined && run.child.exitCode === null) {
      run.child.kill("SIGTERM");
      await run.exit;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it(`${PAIRS} pairs of updates with one ETag, one per worker: one 200 and one 412 each, the record is the winner's`, async function () {
    // A hang guard only.
    this.timeout(240_000);
    const created = await request(`${ns}/events`, "POST", { title: "Raced Night", start_date: "2031-05-01 10:00:00", end_date: "2031-05-01 11:00:00", status: "publish" });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const url = `${ns}/events/${created.body.id}`;
    const failures: string[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const read = await request(url);
      expect(read.status).to.equal(200);
      const etag = read.etag;
      if (etag === undefined) throw new Error("no ETag");
      const titles = [`Pair ${pair} a`, `Pair ${pair} b`];
      const answers = await Promise.all(titles.map((title, i) => request(url, i === 1 && pair % 2 === 1 ? "PUT" : "POST", { title }, { "If-Match": etag })));
      const statuses = answers.map((a) => a.status).sort();
      const won = answers.findIndex((a) => a.status === 200);
      if (statuses[0] !== 200 || statuses[1] !== 412 || won < 0) {
        failures.push(`pair ${pair}: ${answers.map((a) => `${a.status} ${a.body.code ?? ""}`).join(", ")}`);
        continue;
      }
      const now = await request(url);
      expect(now.body.title, `pair ${pair}: the record is the winner's`).to.equal(titles[won]);
    }
    expect(failures, `${failures.length} of ${PAIRS} pairs did not end in one 200 and one 412`).to.deep.equal([]);
  });
});

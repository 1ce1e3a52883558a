/**
 * Requests that Node's HTTP parser refuses before the REST layer sees them
 * (the fuzzer keeps its URLs short, so these are checked here) still get the
 * JSON error envelope from `calpress serve`, and the server keeps serving.
 */
import net from "node:net";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { call, startServer, type Server } from "./cli-process";

/** Sends raw bytes and returns everything the server sends back before closing. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => socket.end(bytes));
    let out = "";
    socket.on("data", (c: Buffer) => (out += c.toString("utf8")));
    socket.on("close", () => resolve(out));
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" ? resolve(out) : reject(err)));
  });
}

function envelope(response: string): { status: number; type: string; body: { code?: string; data?: { status?: number } } } {
  const [head = "", body = ""] = response.split("\r\n\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const type = /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? "";
  return { status, type, body: JSON.parse(body) as { code?: string; data?: { status?: number } } };
}

describe("reliability: requests Node's HTTP parser refuses still get the JSON envelope (calpress serve)", function () {
  this.timeout(60_000);
  let server: Server;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-parser-"));
    server = await startServer(["--db", path.join(dir, "parser.sqlite")]);
  });
  after(async () => {
    server?.child.kill("SIGTERM");
    await server?.exit;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a URL over 16 KB: 431 with the envelope", async () => {
    const res = envelope(await raw(server.port, `GET /wp-json/calendar/events/v1/events?search=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(res.status).to.equal(431);
    expect(res.type).to.match(/^application\/json/);
    expect(res.body.code).to.be.a("string");
    expect(res.body.data?.status).to.equal(431);
  });

  it("headers over 16 KB and a malformed request line: 4xx with the envelope", async () => {
    for (const bytes of [`GET /wp-json/ HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`, "NOT A REQUEST\r\n\r\n", "GET /wp-json/ HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"]) {
      const res = envelope(await raw(server.port, bytes));
      expect(res.status, bytes.slice(0, 40)).to.be.within(400, 499);
      expect(res.body.data?.status).to.equal(res.status);
    }
    // And the server still serves.
    expect((await call(server.port, "GET", "/events")).status).to.equal(200);
  });
});

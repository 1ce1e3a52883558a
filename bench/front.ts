import net from "node:net";
import type { AddressInfo } from "node:net";
import { log } from "./log";
import { Child, spawnNode, tsNodeArgs, waitForLine } from "./proc";

/**
 * A round-robin TCP front for the scale-out comparison: each incoming
 * connection goes to the next backend in turn and is then piped byte for
 * byte. Balancing per connection (not per request) is enough here: the
 * load generator holds a fixed set of keep-alive connections, so they split
 * evenly, and the front never has to parse HTTP, which keeps its own CPU
 * cost (on a 2-core machine, shared with everything else) as small as it
 * can be.
 *
 * Run as a child process: `node --import tsx bench/front.ts host:port[,host:port…]`.
 */

export const FRONT_READY = /^front listening on (http:\/\/[^/\s]+)\/$/;

export interface Backend {
  host: string;
  port: number;
}

export function parseBackends(list: string): Backend[] {
  return list.split(",").map((hp) => {
    const m = /^(.+):(\d+)$/.exec(hp.trim());
    if (!m) throw new Error(`backend must be host:port, not "${hp}"`);
    return { host: m[1], port: Number(m[2]) };
  });
}

export function createFront(backends: Backend[]): net.Server {
  if (backends.length === 0) throw new Error("the front needs at least one backend");
  let next = 0;
  return net.createServer((client) => {
    const backend = backends[next];
    next = (next + 1) % backends.length;
    client.setNoDelay(true);
    const upstream = net.connect({ host: backend.host, port: backend.port });
    upstream.setNoDelay(true);
    client.pipe(upstream);
    upstream.pipe(client);
    // Either side failing or closing ends both: no half-open pairs left behind.
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
}

/** Starts the front in a child process; resolves with its origin. */
export async function startFront(backends: string[]): Promise<{ child: Child; origin: string }> {
  const child = spawnNode({ label: "front", args: [...tsNodeArgs("bench/front.ts"), backends.join(",")], stdinLifeline: true });
  const m = await waitForLine(child, FRONT_READY, 60_000);
  log(`front ready at ${m[1]} → ${backends.join(", ")} (pid ${child.pid})`);
  return { child, origin: m[1] };
}

function main(list: string): void {
  const server = createFront(parseBackends(list));
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`front listening on http://127.0.0.1:${port}/\n`);
  });
  const stop = (): void => {
    server.close(() => process.exit(0));
    // Open keep-alive pairs would hold close() forever.
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  process.stdin.on("end", stop);
  process.stdin.resume();
}

if (require.main === module) {
  const list = process.argv[2];
  if (!list) {
    process.stderr.write("usage: node --import tsx bench/front.ts host:port[,host:port…]\n");
    process.exit(2);
  }
  main(list);
}

import fs from "node:fs";
import type { AddressInfo } from "node:net";
import express, { NextFunction, Request, Response } from "express";
import { log } from "./log";
import { Child, spawnNode, tsNodeArgs, waitForLine } from "./proc";

/**
 * The ceiling: plain Express on the same Node, answering the benchmark's URL
 * paths with bytes captured from calpress. No database, no validation, no
 * serialising: what is left is what the HTTP stack costs here, so
 * calpress's throughput divided by this one says how much calpress itself
 * costs on top.
 *
 * Run as a child process (`node --import tsx bench/ceiling.ts <spec.json>`)
 * so that it gets a core of its own like calpress does, not a share of the
 * load generator's event loop.
 */

export interface CeilingResponse {
  method: "GET" | "POST";
  /** Express route, e.g. /wp-json/calendar/events/v1/events/:id */
  route: string;
  /** Exact query string (without "?") this response answers; null answers any (unless queryKeys is set). */
  query: string | null;
  /** With query null: answers a query with exactly these parameter names (querySignature), whatever their values. */
  queryKeys?: string;
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

export interface CeilingSpec {
  /** calpress answered with an ETag: Express then computes one per response here too. */
  etag: boolean;
  responses: CeilingResponse[];
}

export const CEILING_READY = /^ceiling listening on (http:\/\/[^/\s]+)\/$/;

/** The sorted parameter names of a query string ("b=2&a=1" → "a&b"): what the ceiling matches varied queries by. */
export function querySignature(query: string): string {
  if (query === "") return "";
  return query
    .split("&")
    .map((part) => {
      const eq = part.indexOf("=");
      return eq < 0 ? part : part.slice(0, eq);
    })
    .sort()
    .join("&");
}

interface Prepared {
  query: string | null;
  queryKeys: string | undefined;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function ceilingApp(spec: CeilingSpec): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", spec.etag);
  const byRoute = new Map<string, Prepared[]>();
  for (const r of spec.responses) {
    const key = `${r.method} ${r.route}`;
    const list = byRoute.get(key) ?? [];
    list.push({ query: r.query, queryKeys: r.queryKeys, status: r.status, headers: r.headers, body: Buffer.from(r.bodyBase64, "base64") });
    byRoute.set(key, list);
  }
  // calpress parses JSON bodies of writes; so does the ceiling, as part of the stack.
  const json = express.json({ limit: "1mb" });
  for (const [key, list] of byRoute) {
    const [method, route] = key.split(" ");
    const signed = list.some((p) => p.queryKeys !== undefined);
    const handler = (req: Request, res: Response, next: NextFunction): void => {
      const q = req.url.indexOf("?");
      const query = q < 0 ? "" : req.url.slice(q + 1);
      // The exact query first (fixed kinds), then the parameter names (varied kinds sharing the route), then any query.
      let hit = list.find((p) => p.query === query);
      if (hit === undefined && signed) {
        const signature = querySignature(query);
        hit = list.find((p) => p.queryKeys === signature);
      }
      hit ??= list.find((p) => p.query === null && p.queryKeys === undefined);
      // A route for one URL (the revalidated event, with its query) leaves that URL's other requests to the route of its kind.
      if (hit === undefined) {
        next();
        return;
      }
      res.status(hit.status).set(hit.headers).send(hit.body);
    };
    if (method === "POST") app.post(route, json, handler);
    else app.get(route, handler);
  }
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ code: "ceiling_no_route", message: "the ceiling has no captured response for this path" });
  });
  return app;
}

/** Starts the ceiling in a child process; resolves with its origin once it listens. */
export async function startCeiling(specFile: string): Promise<{ child: Child; origin: string }> {
  const child = spawnNode({ label: "ceiling", args: [...tsNodeArgs("bench/ceiling.ts"), specFile], stdinLifeline: true });
  const m = await waitForLine(child, CEILING_READY, 60_000);
  log(`ceiling ready at ${m[1]} (pid ${child.pid})`);
  return { child, origin: m[1] };
}

function main(specFile: string): void {
  const spec = JSON.parse(fs.readFileSync(specFile, "utf8")) as CeilingSpec;
  const server = ceilingApp(spec).listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`ceiling listening on http://127.0.0.1:${port}/\n`);
  });
  const stop = (): void => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // The harness holds our stdin open: when it goes away, however it died, so do we.
  process.stdin.on("end", stop);
  process.stdin.resume();
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write("usage: node --import tsx bench/ceiling.ts <spec.json>\n");
    process.exit(2);
  }
  main(file);
}

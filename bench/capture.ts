import { BENCH_USER } from "./calpress";
import type { CeilingResponse, CeilingSpec } from "./ceiling";
import { log } from "./log";
import { Rng } from "./rng";
import { BenchRequest, Kind, KindName } from "./workloads";

/**
 * Asks calpress once per request kind, keeps the exact response (status,
 * headers that matter, body bytes) for the ceiling, and checks that the
 * answer is the real thing: a 2xx with a non-empty list or the asked-for
 * event. A kind that fails here is flagged in the report, whatever its
 * throughput later looks like.
 */
export interface CaptureResult {
  spec: CeilingSpec;
  /** Problems per request kind (empty: looks right). */
  flags: Partial<Record<KindName, string[]>>;
  /** Body size per kind, for the log and the report. */
  bytes: Partial<Record<KindName, number>>;
}

/** Headers the ceiling must not replay: per-response, hop-by-hop, or recomputed by Express. */
const DROP_HEADERS = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding", "etag"]);

const AUTH = `Basic ${Buffer.from(`${BENCH_USER.login}:${BENCH_USER.password}`).toString("base64")}`;

async function send(origin: string, r: BenchRequest): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const headers: Record<string, string> = {};
  if (r.body !== undefined) headers["content-type"] = "application/json";
  if (r.auth) headers.authorization = AUTH;
  if (r.headers) Object.assign(headers, r.headers);
  const res = await fetch(`${origin}${r.path}`, { method: r.method, headers, body: r.body });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** What a correct answer of each read kind looks like; returns a problem or undefined. */
function check(kind: KindName, r: BenchRequest, status: number, json: unknown): string | undefined {
  if (kind === "revalidate_list" || kind === "revalidate_event") {
    // Nothing changed since the ETag was read: the answer must be a 304.
    return status === 304 ? undefined : `${r.method} ${r.path} with If-None-Match answered ${status}, expected 304`;
  }
  const expected = kind === "create" ? 201 : 200;
  if (status !== expected) {
    const code = json && typeof json === "object" && "code" in json ? ` (${String((json as { code: unknown }).code)})` : "";
    return `${r.method} ${r.path} answered ${status}${code}, expected ${expected}`;
  }
  if (!json || typeof json !== "object") return `${r.method} ${r.path} did not answer JSON`;
  const obj = json as Record<string, unknown>;
  const listKey = kind === "venues_upcoming" ? "venues" : kind === "categories" ? "categories" : ["default", "month_category", "search"].includes(kind) ? "events" : undefined;
  if (listKey !== undefined) {
    const list = obj[listKey];
    if (!Array.isArray(list)) return `${r.path}: no "${listKey}" array in the answer`;
    if (list.length === 0) return `${r.path}: empty "${listKey}" list (the workload would measure an empty result)`;
  } else if (typeof obj.id !== "number") {
    return `${r.method} ${r.path}: the answer has no numeric "id"`;
  }
  return undefined;
}

export async function capture(origin: string, kinds: Kind[], seed: number): Promise<CaptureResult> {
  const responses: CeilingResponse[] = [];
  const flags: Partial<Record<KindName, string[]>> = {};
  const bytes: Partial<Record<KindName, number>> = {};
  let etag = false;
  for (const kind of kinds) {
    const rng = new Rng(seed + 1);
    // Varying paths (item reads, updates) get a few samples: one bad event should not hide, nor should one good one.
    const samples = kind.query === null ? 5 : 1;
    const problems: string[] = [];
    let kept: CeilingResponse | undefined;
    for (let i = 0; i < samples; i++) {
      const r = kind.next(rng);
      let res: { status: number; headers: Headers; body: Buffer };
      try {
        res = await send(origin, r);
      } catch (err) {
        problems.push(`${r.method} ${r.path} failed: ${(err as Error).message}`);
        continue;
      }
      const problem = check(kind.name, r, res.status, parse(res.body));
      if (problem) problems.push(problem);
      if (res.headers.has("etag")) etag = true;
      if (kept === undefined || (problem === undefined && kept.status >= 300)) {
        const headers: Record<string, string> = {};
        res.headers.forEach((value, name) => {
          // A 304 is nothing but its headers: its ETag is replayed as it is (the ceiling then computes none).
          if (!DROP_HEADERS.has(name) || (res.status === 304 && name === "etag")) headers[name] = value;
        });
        kept = {
          method: kind.method,
          route: kind.route,
          query: kind.query === null ? null : kind.query,
          status: res.status,
          headers,
          bodyBase64: res.body.toString("base64"),
        };
        bytes[kind.name] = res.body.length;
      }
    }
    if (kept) responses.push(kept);
    if (problems.length > 0) {
      flags[kind.name] = problems;
      for (const p of problems) log(`CHECK ${kind.name}: ${p}`);
    }
  }
  // Exact-query responses first: the ceiling's lookup takes the first match.
  responses.sort((a, b) => Number(a.query === null) - Number(b.query === null));
  return { spec: { etag, responses }, flags, bytes };
}

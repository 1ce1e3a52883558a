import { BENCH_USER } from "./calpress";
import { CeilingResponse, CeilingSpec, querySignature } from "./ceiling";
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

/** The list member of each list kind's answer; the other kinds answer one record with an id. */
const LIST_KEYS: Partial<Record<KindName, string>> = {
  default: "events",
  month_category: "events",
  search: "events",
  venues_upcoming: "venues",
  categories: "categories",
  month_category_varied: "events",
  pages_varied: "events",
  venue_varied: "events",
  search_varied: "events",
};

interface Checked {
  problem?: string;
  /** A right answer with an empty list (allowed for kinds with emptyOk, but not the one to replay). */
  empty: boolean;
}

/** What a correct answer of each read kind looks like. */
function check(kind: Kind, r: BenchRequest, status: number, json: unknown): Checked {
  if (kind.name === "revalidate_list" || kind.name === "revalidate_event") {
    // Nothing changed since the ETag was read: the answer must be a 304.
    return { empty: false, problem: status === 304 ? undefined : `${r.method} ${r.path} with If-None-Match answered ${status}, expected 304` };
  }
  const expected = kind.name === "create" ? 201 : 200;
  if (status !== expected) {
    const code = json && typeof json === "object" && "code" in json ? ` (${String((json as { code: unknown }).code)})` : "";
    return { empty: false, problem: `${r.method} ${r.path} answered ${status}${code}, expected ${expected}` };
  }
  if (!json || typeof json !== "object") return { empty: false, problem: `${r.method} ${r.path} did not answer JSON` };
  const obj = json as Record<string, unknown>;
  const listKey = LIST_KEYS[kind.name];
  if (listKey !== undefined) {
    const list = obj[listKey];
    if (!Array.isArray(list)) return { empty: false, problem: `${r.path}: no "${listKey}" array in the answer` };
    if (list.length === 0) {
      return { empty: true, problem: kind.emptyOk ? undefined : `${r.path}: empty "${listKey}" list (the workload would measure an empty result)` };
    }
  } else if (typeof obj.id !== "number") {
    return { empty: false, problem: `${r.method} ${r.path}: the answer has no numeric "id"` };
  }
  return { empty: false };
}

/** Samples per kind: varying paths (item reads, updates, varied lists) get a few, so that one bad answer does not hide, nor does one good one. */
const SAMPLES = 5;
/** More samples a kind whose empty lists are right may take to find a non-empty answer for the ceiling. */
const EXTRA_FOR_NON_EMPTY = 45;

export async function capture(origin: string, kinds: Kind[], seed: number): Promise<CaptureResult> {
  const responses: CeilingResponse[] = [];
  const flags: Partial<Record<KindName, string[]>> = {};
  const bytes: Partial<Record<KindName, number>> = {};
  let etag = false;
  for (const kind of kinds) {
    const rng = new Rng(seed + 1);
    const samples = kind.query === null ? SAMPLES : 1;
    const problems: string[] = [];
    let kept: CeilingResponse | undefined;
    let keptGood = false;
    // Past the first samples only while no non-empty answer was found (a run of search misses or empty months).
    for (let i = 0; i < samples || (kind.emptyOk === true && !keptGood && i < samples + EXTRA_FOR_NON_EMPTY); i++) {
      const r = kind.next(rng);
      let res: { status: number; headers: Headers; body: Buffer };
      try {
        res = await send(origin, r);
      } catch (err) {
        problems.push(`${r.method} ${r.path} failed: ${(err as Error).message}`);
        continue;
      }
      const { problem, empty } = check(kind, r, res.status, parse(res.body));
      if (problem) problems.push(problem);
      if (res.headers.has("etag")) etag = true;
      const good = problem === undefined && !empty;
      // The first answer, replaced by the first good one: the ceiling replays a right, non-empty answer when there is one.
      if (kept === undefined || (good && !keptGood)) {
        keptGood = good;
        const headers: Record<string, string> = {};
        res.headers.forEach((value, name) => {
          // A 304 is nothing but its headers: its ETag is replayed as it is (the ceiling then computes none).
          if (!DROP_HEADERS.has(name) || (res.status === 304 && name === "etag")) headers[name] = value;
        });
        kept = {
          method: kind.method,
          route: kind.route,
          query: kind.query === null ? null : kind.query,
          ...(kind.queryKeys !== undefined ? { queryKeys: querySignature(kind.queryKeys.map((k) => `${k}=`).join("&")) } : {}),
          status: res.status,
          headers,
          bodyBase64: res.body.toString("base64"),
        };
        bytes[kind.name] = res.body.length;
      }
    }
    if (kept) responses.push(kept);
    if (kept !== undefined && !keptGood && problems.length === 0) {
      problems.push(`no non-empty answer in ${samples + EXTRA_FOR_NON_EMPTY} samples: the ceiling would replay an empty list`);
    }
    if (problems.length > 0) {
      flags[kind.name] = problems;
      for (const p of problems) log(`CHECK ${kind.name}: ${p}`);
    }
  }
  // Exact-query responses first (the ceiling's lookup takes the first match; signatures and catch-alls are looked up apart).
  responses.sort((a, b) => Number(a.query === null) - Number(b.query === null));
  return { spec: { etag, responses }, flags, bytes };
}

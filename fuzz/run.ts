/**
 * The fuzz run: discover the routes from the site index, generate requests
 * from a seed, send them one at a time, and check after each one:
 *
 * - no 5xx, no dropped connection, no timeout;
 * - every 4xx is the JSON error envelope `{code, message, data}` with
 *   `data.status` equal to the HTTP status (also inside `_envelope`);
 * - no response contains a secret (application passwords, hashes, e-mails);
 * - the database checksum changes only on a 2xx write (POST, PUT, PATCH,
 *   DELETE after any method override).
 *
 * Requests are sequential so that a checksum change belongs to exactly one
 * request; the checksum is cheap (see checksum.ts), so it is taken after
 * every request and no bisection is needed.
 */
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import type { Knex } from "knex";
import type { Tables } from "../lib/db/tables";
import { removeSqliteSite } from "../lib/db/dialects/scratch";
import { catalogueFromIndex, type FuzzRoute } from "./catalogue";
import { changedTables, databaseChecksum, type Checksum } from "./checksum";
import { materialize, requestPlan, type Credentials, type WireRequest } from "./plan";
import { collectSecrets, findSecrets } from "./secrets";
import { closeAgents, sendRequest, type WireResponse } from "./send";
import { startFuzzSite, type FuzzSite, type SiteSetup } from "./site";
import { readPools, type Pools } from "./state";

export interface FuzzOptions {
  requests: number;
  seed: number;
  /** Database target; default a new temporary SQLite file. */
  target?: string;
  fixture?: string;
  /** Registers more post types and routes before the run (a host's plugin); the index shows them, so they are fuzzed. */
  setup?: SiteSetup;
  /** Per-request timeout (default 60 s). */
  timeoutMs?: number;
  /** Called with a line for each problem as it is found, and progress now and then. */
  log?: (line: string) => void;
  /** Print progress every this many requests (0 = never). */
  progressEvery?: number;
  /** Called for every request with its summary and the answer's start (for tuning the generators). */
  trace?: (line: string) => void;
}

export type ProblemKind = "server-error" | "no-response" | "bad-envelope" | "not-json" | "secret" | "unexpected-change";

export interface Problem {
  kind: ProblemKind;
  index: number;
  request: string;
  status?: number;
  detail: string;
}

export interface FuzzReport {
  requests: number;
  serverErrors: number;
  unexpectedChanges: number;
  badEnvelopes: number;
  leaks: number;
  problems: Problem[];
  /** Responses by HTTP status. */
  statuses: Record<string, number>;
  /** 2xx writes per route pattern: shows the run got past validation. */
  writes: Record<string, number>;
  /** How many distinct secrets every response was searched for. */
  secretsChecked: number;
  /** Changes made by the site's own timer that publishes due scheduled posts, not by a request. */
  scheduledPublishes: number;
  /** Statuses per `METHOD pattern` (after method override), for tuning the generators. */
  byRoute: Record<string, Record<string, number>>;
  routes: number;
  durationMs: number;
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const BATCH = 25;

/** A different, well-spread seed for each batch of plans (fast-check seeds are 32-bit integers). */
function batchSeed(seed: number, batch: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (batch + 1), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) | 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the status and body really are, looking inside `_envelope`. */
function unwrap(req: WireRequest, res: WireResponse): { status: number; body: unknown; json: boolean } {
  const type = String(res.headers["content-type"] ?? "");
  let body: unknown;
  let json = false;
  if (res.body.length > 0 && type.startsWith("application/json")) {
    try {
      body = JSON.parse(res.body.toString("utf8"));
      json = true;
    } catch {
      json = false;
    }
  }
  if (req.path.includes("_envelope") && res.status === 200 && isRecord(body) && typeof body.status === "number" && "body" in body && "headers" in body) {
    return { status: body.status, body: body.body, json };
  }
  return { status: res.status, body, json };
}

function envelopeProblem(status: number, body: unknown): string | undefined {
  if (!isRecord(body)) return "the body is not a JSON object";
  if (typeof body.code !== "string" || body.code === "") return "no string `code`";
  if (typeof body.message !== "string") return "no string `message`";
  if (!isRecord(body.data)) return "`data` is not an object";
  if (body.data.status !== status) return `data.status ${String(body.data.status)} ≠ HTTP ${status}`;
  return undefined;
}

function snippet(res: WireResponse): string {
  const text = res.body.toString("utf8");
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  let tempFile: string | undefined;
  let target = options.target;
  if (target === undefined) {
    tempFile = path.join(os.tmpdir(), `calpress-fuzz-${process.pid}-${Date.now()}.sqlite`);
    target = tempFile;
  }
  let fuzzSite: FuzzSite | undefined;
  try {
    fuzzSite = await startFuzzSite(target, options.fixture ?? "minimal", options.setup);
    return await fuzzAgainst(fuzzSite, options, log, started);
  } finally {
    closeAgents();
    await fuzzSite?.close();
    if (tempFile) removeSqliteSite(tempFile);
  }
}

async function fuzzAgainst(fuzzSite: FuzzSite, options: FuzzOptions, log: (line: string) => void, started: number): Promise<FuzzReport> {
  const knex = fuzzSite.site.engine.knex;
  const tables = fuzzSite.site.engine.tables;
  const target = { host: fuzzSite.host, port: fuzzSite.port };
  const timeoutMs = options.timeoutMs ?? 60_000;

  const index = await sendRequest(target, { method: "GET", path: "/wp-json/", headers: {} }, timeoutMs);
  if (index.status !== 200) throw new Error(`the site index answered ${index.status}`);
  const catalogue: FuzzRoute[] = catalogueFromIndex(JSON.parse(index.body.toString("utf8")));

  const credentials: Record<string, Credentials> = {};
  for (const role of ["administrator", "subscriber"] as const) {
    const rows = (await knex(tables.users).where({ role }).select("login").orderBy("id")) as { login: string }[];
    const known = fuzzSite.users.find((u) => u.appPasswords.length > 0 && rows.some((r) => r.login === u.login));
    if (known) credentials[role] = { login: known.login, password: known.appPasswords[0] as string };
  }
  const secrets = await collectSecrets(knex, tables, fuzzSite.users);

  const report: FuzzReport = {
    requests: 0,
    serverErrors: 0,
    unexpectedChanges: 0,
    badEnvelopes: 0,
    leaks: 0,
    problems: [],
    statuses: {},
    writes: {},
    byRoute: {},
    scheduledPublishes: 0,
    secretsChecked: secrets.length,
    routes: catalogue.length,
    durationMs: 0,
  };
  const problem = (p: Problem): void => {
    report.problems.push(p);
    log(`  #${p.index} ${p.kind}${p.status !== undefined ? ` (${p.status})` : ""}: ${p.request}\n      ${p.detail}`);
  };

  let pools: Pools = await readPools(knex, tables, fuzzSite.imageBase);
  let checksum: Checksum = await databaseChecksum(knex, tables);
  let scheduled = await futurePosts(knex, tables);
  const arbitrary = requestPlan(catalogue);

  for (let batch = 0; report.requests < options.requests; batch++) {
    const plans = fc.sample(arbitrary, { seed: batchSeed(options.seed, batch), numRuns: Math.min(BATCH, options.requests - report.requests) });
    for (const plan of plans) {
      const i = report.requests++;
      const materialized = materialize(plan, catalogue, pools, credentials);
      const wire = { ...materialized, summary: materialized.bodyPreview ? `${materialized.summary}\n      body: ${materialized.bodyPreview}` : materialized.summary };
      const loggedBefore = fuzzSite.logged.length;
      let res: WireResponse | undefined;
      try {
        res = await sendRequest(target, wire, timeoutMs);
      } catch (err) {
        report.serverErrors++;
        problem({ kind: "no-response", index: i, request: wire.summary, detail: (err as Error).message });
      }

      if (options.trace) options.trace(`#${i} ${wire.summary}\n   → ${res ? `${res.status} ${snippet(res).slice(0, 200)}` : "no answer"}`);
      let wrote = false;
      if (res) {
        const { status, body, json } = unwrap(wire, res);
        report.statuses[status] = (report.statuses[status] ?? 0) + 1;
        const routeKey = `${wire.effectiveMethod} ${plan.target.kind === "route" ? (catalogue[plan.target.route]?.pattern ?? "?") : "(no route)"}`;
        const perRoute = (report.byRoute[routeKey] ??= {});
        perRoute[status] = (perRoute[status] ?? 0) + 1;
        const isHead = wire.method === "HEAD" || wire.effectiveMethod === "HEAD";
        // WordPress's answer to a DELETE without force on what has no trash (terms; a type an extension makes untrashable): deliberate, not a fault.
        const deliberate = status === 501 && typeof body === "object" && body !== null && (body as { code?: unknown }).code === "rest_trash_not_supported";
        if (status >= 500 && !deliberate) {
          report.serverErrors++;
          // Logged errors can quote the SQL with a megabyte of parameters in it: keep the start of each line.
          const cut = (line: string): string => (line.length > 300 ? `${line.slice(0, 300)}…` : line);
          const cause = fuzzSite.logged.slice(loggedBefore).map((l) => `${cut(l.message)}: ${l.error.split("\n").slice(0, 4).map(cut).join(" | ")}`);
          problem({ kind: "server-error", index: i, request: wire.summary, status, detail: `${snippet(res)}${cause.length ? `\n      logged: ${cause.join("\n      logged: ")}` : ""}` });
        } else if (status >= 400 && !isHead) {
          const bad = json ? envelopeProblem(status, body) : `not JSON (content-type ${String(res.headers["content-type"])})`;
          if (bad) {
            report.badEnvelopes++;
            problem({ kind: "bad-envelope", index: i, request: wire.summary, status, detail: `${bad}: ${snippet(res)}` });
          }
        } else if (status < 300 && !isHead && !json && !String(res.headers["content-type"] ?? "").startsWith("text/calendar")) {
          // Every 2xx is JSON but the events list's iCalendar feed (`rawResponse`).
          report.badEnvelopes++;
          problem({ kind: "not-json", index: i, request: wire.summary, status, detail: snippet(res) });
        }
        // E-mails WordPress shows: a user's own to them, every user's to administrators (list_users).
        const login = plan.role === "administrator" || plan.role === "subscriber" ? credentials[plan.role]?.login : undefined;
        const viewer = login === undefined ? undefined : { login, listsUsers: plan.role === "administrator" };
        const leaked = findSecrets(`${JSON.stringify(res.headers)}\n${res.body.toString("utf8")}`, secrets, viewer);
        if (leaked.length > 0) {
          report.leaks++;
          problem({ kind: "secret", index: i, request: wire.summary, status, detail: `contains ${leaked.map((s) => `${s.slice(0, 3)}…`).join(", ")}` });
        }
        // The effective method decides (a HEAD or GET overridden to DELETE does delete).
        wrote = status >= 200 && status < 300 && WRITE_METHODS.has(wire.effectiveMethod);
        if (wrote) report.writes[routeKey] = (report.writes[routeKey] ?? 0) + 1;
      }

      const after = await databaseChecksum(knex, tables);
      const changed = changedTables(checksum, after);
      const nowScheduled = await futurePosts(knex, tables);
      if (changed.length > 0 && !wrote && [...scheduled].some((id) => !nowScheduled.has(id))) {
        // createSite publishes due `future` posts on a timer (WordPress's cron): a change it made is not the request's.
        report.scheduledPublishes++;
        log(`  #${i}: scheduled posts were published meanwhile (changed: ${changed.join(", ")})`);
      } else if (changed.length > 0 && !wrote) {
        report.unexpectedChanges++;
        problem({ kind: "unexpected-change", index: i, request: wire.summary, status: res?.status, detail: `changed: ${changed.join(", ")}${res ? `; answer ${snippet(res)}` : ""}` });
      }
      checksum = after;
      scheduled = nowScheduled;
      if (wrote) pools = await readPools(knex, tables, fuzzSite.imageBase);
      if (options.progressEvery && report.requests % options.progressEvery === 0) {
        log(`fuzz: ${report.requests}/${options.requests} requests, ${report.serverErrors} server errors, ${report.unexpectedChanges} unexpected changes (${Math.round((Date.now() - started) / 1000)} s)`);
      }
    }
  }
  report.durationMs = Date.now() - started;
  return report;
}

async function futurePosts(knex: Knex, tables: Tables): Promise<Set<number>> {
  const rows = (await knex(tables.posts).where({ status: "future" }).select("id")) as { id: number }[];
  return new Set(rows.map((r) => Number(r.id)));
}

/** The one summary line: `fuzz: <N> requests, <M> server errors, <K> unexpected changes`. */
export function summaryLine(report: FuzzReport): string {
  return `fuzz: ${report.requests} requests, ${report.serverErrors} server errors, ${report.unexpectedChanges} unexpected changes`;
}

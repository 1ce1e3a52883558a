/**
 * Records WordPress's answers to the scenario (scenario.ts) as test vectors:
 * discovery.json, jobs.json, terms.json and fixtures.json beside this file.
 *
 *   npx tsx test/vectors/wordpress/record.ts            reset WordPress, record
 *   npx tsx test/vectors/wordpress/record.ts --no-setup record against the running
 *                                                        server (its database must be
 *                                                        fresh from setup-wordpress.sh)
 *
 * The answers are normalised so that two runs give the same files: the site's
 * address becomes `{{home}}`, and times that are "now" at recording (the
 * `modified` of a post written by the scenario, the `date` of a draft created
 * without one) become `{{now}}` (site time) or `{{now_gmt}}` (UTC), each
 * listed in the vector's `response.volatile` (JSON pointers into the body).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Ref, scenario, type Body, type BodyFilter, type FileName, type Role, type Step } from "./scenario";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface State {
  home: string;
  wordpress: string;
  php: string;
  mysql: string;
  timezone: string;
  users: Record<Role, { id: number; login: string; password: string }>;
  terms: Record<string, number>;
  posts: Record<string, number>;
  uncategorized: number;
}

interface Vector {
  seq: number;
  name: string;
  note?: string;
  request: {
    method: string;
    path: string;
    query?: string;
    /** Extra request headers (besides Authorization, Accept and Content-Type). */
    headers?: Record<string, string>;
    user: Role | null;
    body?: Json;
    form?: string;
    raw?: string;
  };
  /** The request as sent, when placeholders were replaced. */
  sent?: { path: string; query?: string; body?: Json; form?: string };
  response: {
    status: number;
    headers: Record<string, string | string[]>;
    body: Json;
    /** What part of a very large body was kept. */
    filtered?: string;
    volatile?: string[];
  };
  /** Ids this step's answer gave, under the keys later steps use. */
  saved?: Record<string, number>;
}

const HERE = __dirname;
const STATE_FILE = "/var/lib/calpress-wordpress/state.json";
const PARTIAL_FILE = "/var/lib/calpress-wordpress/partial.json";
/** Headers that change with every request or with the machine, not with WordPress's behaviour. */
const DROPPED_HEADERS = new Set(["date", "host", "connection", "x-powered-by", "content-length", "transfer-encoding", "keep-alive"]);
const FILE_ORDER: FileName[] = ["discovery", "jobs", "terms"];
const DESCRIPTIONS: Record<FileName, string> = {
  discovery: "Index, namespace index, OPTIONS (schemas and Allow per user), /wp/v2/types and /wp/v2/taxonomies for the reference content. Read-only.",
  jobs:
    "WP_REST_Posts_Controller for the post type job (rest_base jobs, namespace wp/v2), and a little of gig (own capability type) and listing (namespace board/v1): " +
    "reads of the fixtures first, then creates, updates, deletes, permissions per role, sanitising, batch. Replay in seq order.",
  terms:
    "WP_REST_Terms_Controller for the taxonomies department (hierarchical, rest_base departments) and skill (flat, rest_base skills): " +
    "reads of the fixtures (between the jobs reads and the jobs writes in seq), then writes and term counts (after the jobs writes).",
};

function main(): void {
  const args = new Set(process.argv.slice(2));
  if (!args.has("--no-setup")) {
    execFileSync("bash", [path.join(HERE, "setup-wordpress.sh")], { stdio: "inherit" });
  }
  const state = JSON.parse(readFileSync(STATE_FILE, "utf8")) as State;
  const ids = new Map<string, number>();
  for (const [role, user] of Object.entries(state.users)) ids.set(`user.${role}`, user.id);
  for (const [key, id] of Object.entries(state.terms)) ids.set(`term.${key}`, id);
  for (const [key, id] of Object.entries(state.posts)) ids.set(`post.${key}`, id);
  ids.set("term.uncategorized", state.uncategorized);
  const fixtureKeys = new Set(ids.keys());

  const steps = scenario();
  void record(state, ids, steps).then((vectors) => {
    write(state, ids, fixtureKeys, steps, vectors);
  }, (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}

async function record(state: State, ids: Map<string, number>, steps: Step[]): Promise<Vector[]> {
  const started = Date.now();
  const vectors: Vector[] = [];
  for (const [i, step] of steps.entries()) {
    try {
      vectors.push(await run(state, ids, step, i + 1));
    } catch (err) {
      // What was recorded so far, to see why a later step could not run.
      writeFileSync(PARTIAL_FILE, JSON.stringify(vectors, null, 1));
      throw new Error(`step ${i + 1} ${step.name}: ${String(err)} (answers so far in ${PARTIAL_FILE})`);
    }
  }
  const window = { from: started - 60_000, to: Date.now() + 60_000 };
  for (const v of vectors) normaliseVector(v, state, window);
  return vectors;
}

async function run(state: State, ids: Map<string, number>, step: Step, seq: number): Promise<Vector> {
  const path = fill(step.path, ids);
  const query = step.query === undefined ? undefined : fill(step.query, ids);
  const body = step.body === undefined ? undefined : resolve(step.body, ids);
  const form = step.form === undefined ? undefined : fill(step.form, ids);
  let payload: string | undefined;
  let contentType: string | undefined;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    contentType = "application/json";
  } else if (form !== undefined) {
    payload = form;
    contentType = "application/x-www-form-urlencoded";
  } else if (step.raw !== undefined) {
    payload = step.raw;
    contentType = "application/json";
  }
  const headers: Record<string, string> = { Accept: "application/json", ...step.headers };
  if (contentType) headers["Content-Type"] = contentType;
  if (step.user) {
    const u = state.users[step.user];
    headers.Authorization = `Basic ${Buffer.from(`${u.login}:${u.password}`).toString("base64")}`;
  }
  const url = new URL(`${state.home}/wp-json${path}${query === undefined ? "" : `?${query}`}`);
  const res = await send(url, step.method, headers, payload);

  const changed = path !== step.path || query !== step.query || form !== step.form ||
    (body !== undefined && JSON.stringify(body) !== JSON.stringify(template(step.body ?? null)));
  const vector: Vector = {
    seq,
    name: step.name,
    ...(step.note ? { note: step.note } : {}),
    request: {
      method: step.method,
      path: step.path,
      ...(step.query !== undefined ? { query: step.query } : {}),
      ...(step.headers !== undefined ? { headers: step.headers } : {}),
      user: step.user,
      ...(step.body !== undefined ? { body: template(step.body) } : {}),
      ...(step.form !== undefined ? { form: step.form } : {}),
      ...(step.raw !== undefined ? { raw: step.raw } : {}),
    },
    ...(changed
      ? {
        sent: {
          path,
          ...(query !== undefined ? { query } : {}),
          ...(body !== undefined ? { body } : {}),
          ...(form !== undefined ? { form } : {}),
        },
      }
      : {}),
    response: {
      status: res.status,
      headers: res.headers,
      body: step.filter ? applyFilter(step.filter, res.body) : res.body,
      ...(step.filter ? { filtered: FILTER_DESCRIPTIONS[step.filter] } : {}),
    },
  };
  const saved = save(step, res.status, res.body);
  if (saved) {
    for (const [key, id] of Object.entries(saved)) ids.set(key, id);
    vector.saved = saved;
  }
  console.log(`${String(seq).padStart(3)} ${res.status} ${step.method} ${path}${query ? `?${query}` : ""} ${step.user ?? "anonymous"}`);
  return vector;
}

function send(url: URL, method: string, headers: Record<string, string>, payload: string | undefined):
  Promise<{ status: number; headers: Record<string, string | string[]>; body: Json }> {
  return new Promise((resolvePromise, reject) => {
    const req = http.request(url, { method, headers: payload === undefined ? headers : { ...headers, "Content-Length": String(Buffer.byteLength(payload)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const out: Record<string, string | string[]> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i].toLowerCase();
          const value = res.rawHeaders[i + 1];
          if (DROPPED_HEADERS.has(name)) continue;
          const prev = out[name];
          out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
        }
        let body: Json = text === "" ? null : text;
        if (text !== "") {
          try {
            body = JSON.parse(text) as Json;
          } catch {
            // Not JSON (JSONP, HTML error pages): kept as text.
          }
        }
        resolvePromise({ status: res.statusCode ?? 0, headers: out, body });
      });
      res.on("error", reject);
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`timeout: ${method} ${url.href}`)));
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Replaces `{{key}}` placeholders with ids. */
function fill(text: string, ids: Map<string, number>): string {
  return text.replace(/\{\{([a-z_]+\.[a-z0-9_]+)\}\}/g, (_, key: string) => {
    const id = ids.get(key);
    if (id === undefined) throw new Error(`unknown id ${key} in ${text}`);
    return String(id);
  });
}

function resolve(body: Body, ids: Map<string, number>): Json {
  if (body instanceof Ref) {
    const id = ids.get(body.key);
    if (id === undefined) throw new Error(`unknown id ${body.key}`);
    return id;
  }
  if (typeof body === "string") return fill(body, ids);
  if (Array.isArray(body)) return body.map((b) => resolve(b, ids));
  if (body !== null && typeof body === "object") {
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, resolve(v, ids)]));
  }
  return body;
}

/** The body as written in the scenario: ids as `{{key}}`. */
function template(body: Body): Json {
  if (body instanceof Ref) return `{{${body.key}}}`;
  if (Array.isArray(body)) return body.map(template);
  if (body !== null && typeof body === "object") {
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, template(v)]));
  }
  return body;
}

function isObject(v: Json): v is { [key: string]: Json } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function save(step: Step, status: number, body: Json): Record<string, number> | undefined {
  if (step.save === undefined || status < 200 || status >= 300) return undefined;
  const out: Record<string, number> = {};
  if (typeof step.save === "string") {
    if (isObject(body) && typeof body.id === "number") out[step.save] = body.id;
  } else if (isObject(body) && Array.isArray(body.responses)) {
    // Batch: one key (or null) per sub-request, in order.
    const responses = body.responses;
    step.save.forEach((key, i) => {
      const r = responses[i];
      if (key === null || !isObject(r) || !isObject(r.body)) return;
      if (typeof r.status === "number" && r.status >= 200 && r.status < 300 && typeof r.body.id === "number") out[key] = r.body.id;
    });
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const FILTER_DESCRIPTIONS: Record<BodyFilter, string> = {
  "index-routes": "routes: only /batch/v1, /board/v1… and the /wp/v2 routes of jobs, gigs, departments, skills, types, taxonomies; every other key whole",
  "namespace-routes": "routes: only those of jobs, gigs, departments and skills; every other key whole",
};

function applyFilter(filter: BodyFilter, body: Json): Json {
  if (!isObject(body) || !isObject(body.routes)) return body;
  const keep = filter === "index-routes"
    ? /^\/(batch\/v1|board\/v1|wp\/v2\/(jobs|gigs|departments|skills|types|taxonomies)\b)/
    : /^\/wp\/v2\/(jobs|gigs|departments|skills)\b/;
  const routes = Object.fromEntries(Object.entries(body.routes).filter(([route]) => keep.test(route)));
  return { ...body, routes };
}

// ------------------------------------------------------------ normalisation

interface Window {
  from: number;
  to: number;
}

/** Offset of the site's zone from UTC at `ms`, in ms (Intl, no dependency). */
function zoneOffset(zone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
  }).formatToParts(new Date(ms));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value);
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return wall - Math.floor(ms / 1000) * 1000;
}

function normaliseVector(v: Vector, state: State, window: Window): void {
  const offset = zoneOffset(state.timezone, window.from);
  const volatile: string[] = [];
  const home = (s: string): string => s.split(state.home).join("{{home}}");
  const walk = (value: Json, pointer: string): Json => {
    if (typeof value === "string") {
      const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})$/.exec(value);
      if (m) {
        const ms = Date.parse(`${m[1]}T${m[2]}Z`);
        if (ms >= window.from && ms <= window.to) {
          volatile.push(pointer);
          return "{{now_gmt}}";
        }
        if (ms >= window.from + offset && ms <= window.to + offset) {
          volatile.push(pointer);
          return "{{now}}";
        }
      }
      return home(value);
    }
    if (Array.isArray(value)) return value.map((x, i) => walk(x, `${pointer}/${i}`));
    if (isObject(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, x]) => [home(k), walk(x, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`)]));
    }
    return value;
  };
  v.response.body = walk(v.response.body, "");
  for (const [name, value] of Object.entries(v.response.headers)) {
    v.response.headers[name] = Array.isArray(value) ? value.map(home) : home(value);
  }
  if (volatile.length > 0) v.response.volatile = volatile;
}

// ------------------------------------------------------------------ output

function write(state: State, ids: Map<string, number>, fixtureKeys: Set<string>, steps: Step[], vectors: Vector[]): void {
  const inFile = (f: FileName): Vector[] => vectors.filter((v) => steps[v.seq - 1].file === f);
  const source = {
    wordpress: state.wordpress,
    php: state.php,
    database: `MariaDB ${state.mysql}`,
    recorder: "test/vectors/wordpress/record.ts (scenario.ts) against setup-wordpress.sh",
  };
  for (const file of FILE_ORDER) {
    const doc = { description: DESCRIPTIONS[file], source, vectors: inFile(file) };
    writeFileSync(path.join(HERE, `${file}.json`), format(doc) + "\n");
  }
  const sorted = (keys: string[]): Record<string, number> =>
    Object.fromEntries(keys.map((k) => [k, ids.get(k) ?? 0]));
  const allKeys = [...ids.keys()];
  const fixtures = {
    description:
      "The state every vector file starts from (setup.php), and the ids behind the placeholders of requests: " +
      "{{post.<key>}}, {{term.<key>}}, {{user.<role>}}. `fixtures` were laid before the first request; `created` were saved from answers (vector.saved). " +
      "Files replay in this order, each in seq order (seq is global): " + FILE_ORDER.join(", ") + " — but the terms reads sit between the jobs reads and the jobs writes: sort all vectors by seq to replay.",
    source,
    site: {
      home: "{{home}}",
      timezone: state.timezone,
      permalink_structure: "/%postname%/",
      posts_per_page: 10,
      default_category: state.uncategorized,
      application_passwords: "one per user, sent as HTTP Basic (login:password)",
    },
    users: Object.fromEntries(Object.entries(state.users).map(([role, u]) => [role, { id: u.id, login: u.login }])),
    fixtures: sorted(allKeys.filter((k) => fixtureKeys.has(k))),
    created: sorted(allKeys.filter((k) => !fixtureKeys.has(k))),
    counts: Object.fromEntries(FILE_ORDER.map((f) => [f, inFile(f).length])),
  };
  writeFileSync(path.join(HERE, "fixtures.json"), format(fixtures) + "\n");
  const statuses = new Map<number, number>();
  for (const v of vectors) statuses.set(v.response.status, (statuses.get(v.response.status) ?? 0) + 1);
  console.log(`${vectors.length} vectors; statuses: ${[...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(" ")}`);
}

/**
 * JSON with one line per small node: a value whose compact form fits in the
 * width stays on one line, larger ones are broken up. Diffs stay local, the
 * files stay far smaller than with full indentation.
 */
function format(value: unknown, indent = "", width = 110): string {
  const compact = JSON.stringify(value);
  if (compact === undefined) return "null";
  if (compact.length + indent.length <= width || value === null || typeof value !== "object") return compact;
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + format(v, inner, width)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${format(v, inner, width)}`).join(",\n")}\n${indent}}`;
}

main();

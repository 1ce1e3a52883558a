/**
 * Replays the WordPress vectors (reference.ts) against a calpress site and
 * compares each answer with WordPress's, after a documented normalisation:
 *
 * - the recorded `{{home}}` is the replay site's home;
 * - ids: the fixtures have WordPress's ids; posts and terms the scenario
 *   creates are named by the keys the recorder saved them under, and their
 *   ids are mapped (WordPress spends ids on writes it then refuses; calpress
 *   does not, and PostgreSQL and MariaDB spend sequence values on rolled-back
 *   inserts), in bodies, `_links` hrefs, `Location` and `Link`;
 * - times that were "now" at recording (`response.volatile`) are compared by
 *   shape only;
 * - headers: `X-WP-Total`, `X-WP-TotalPages`, `Allow`, `Location` and the
 *   `Link` relations (`prev`, `next`, `alternate`) are compared, a URL by its
 *   path and its query parameters in any order;
 * - errors by status, `code` and, for `rest_invalid_param`, the names in
 *   `data.params`; messages are not compared;
 * - lists whose order WordPress leaves to the database (ties, the vector's
 *   note says so) as sets.
 *
 * What is left is a list of differences per vector, each a short text;
 * the test compares them with the documented ones (known-differences.ts).
 */
import type { Json, Vector } from "./reference";
import { LOGINS, PASSWORDS } from "./reference";

export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

type Kind = "post" | "term" | "user" | "none";

/** Ids by key (`post.created_full`), WordPress's and calpress's. */
export class IdMap {
  readonly wp = new Map<string, number>();
  readonly ours = new Map<string, number>();

  constructor(fixtures: Record<string, number>) {
    for (const [key, id] of Object.entries(fixtures)) {
      this.wp.set(key, id);
      this.ours.set(key, id);
    }
  }

  /** calpress's id of a WordPress id of that kind (unchanged when unknown: fixtures and ids that exist nowhere, like 999). */
  map(kind: Kind, wpId: number): number {
    if (kind === "none" || kind === "user") return wpId;
    for (const [key, id] of this.wp) if (key.startsWith(`${kind}.`) && id === wpId) return this.ours.get(key) ?? wpId;
    return this.unnamed[kind].get(wpId) ?? wpId;
  }

  fill(text: string): string {
    return text.replace(/\{\{([a-z_]+\.[a-z0-9_]+)\}\}/g, (m, key: string) => {
      const id = this.ours.get(key);
      if (id === undefined) throw new Error(`no id for ${key}`);
      return String(id);
    });
  }

  resolve(body: Json): Json {
    if (typeof body === "string") {
      const whole = /^\{\{([a-z_]+\.[a-z0-9_]+)\}\}$/.exec(body);
      if (whole) return this.ours.get(whole[1]) ?? body;
      return this.fill(body);
    }
    if (Array.isArray(body)) return body.map((b) => this.resolve(b));
    if (body !== null && typeof body === "object") return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, this.resolve(v)]));
    return body;
  }

  /** Created records' ids that no key names: WordPress's id → calpress's, by kind. */
  private readonly unnamed = { post: new Map<number, number>(), term: new Map<number, number>() };

  /** After a vector ran: the keys it saved, with calpress's ids from the same places of its answer, and the ids of what it created. */
  learn(vector: Vector, ours: Answer, kind: Kind): void {
    const created = (wp: Json, mine: Json, k: Kind): void => {
      if ((k === "post" || k === "term") && isObject(wp) && isObject(mine) && typeof wp.id === "number" && typeof mine.id === "number") this.unnamed[k].set(wp.id, mine.id);
    };
    if (vector.response.status === 201 && ours.status === 201) created(vector.response.body, ours.body, kind);
    const wpBody = vector.response.body;
    if (isObject(wpBody) && Array.isArray(wpBody.responses) && isObject(ours.body) && Array.isArray(ours.body.responses)) {
      const requests = isObject(vector.request.body) && Array.isArray(vector.request.body.requests) ? vector.request.body.requests : [];
      wpBody.responses.forEach((slot, i) => {
        const mine = (ours.body as { responses: Json[] }).responses[i];
        const req = requests[i];
        if (isObject(slot) && slot.status === 201 && isObject(mine) && mine.status === 201 && isObject(req) && typeof req.path === "string") created(slot.body, mine.body, kindOfPath(req.path));
      });
    }
    this.learnSaved(vector, ours);
  }

  private learnSaved(vector: Vector, ours: Answer): void {
    for (const [key, wpId] of Object.entries(vector.saved ?? {})) {
      this.wp.set(key, wpId);
      const body = ours.body;
      const wpBody = vector.response.body;
      if (isObject(body) && typeof body.id === "number" && !Array.isArray(body.responses)) {
        this.ours.set(key, body.id);
      } else if (isObject(body) && Array.isArray(body.responses) && isObject(wpBody) && Array.isArray(wpBody.responses)) {
        const slot = wpBody.responses.findIndex((r) => isObject(r) && isObject(r.body) && r.body.id === wpId);
        const mine = body.responses[slot];
        if (slot >= 0 && isObject(mine) && isObject(mine.body) && typeof mine.body.id === "number") this.ours.set(key, mine.body.id);
      }
    }
  }
}

export function isObject(v: unknown): v is { [key: string]: Json } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The request of a vector, as calpress receives it. */
export function requestOf(vector: Vector, ids: IdMap, home: string): { url: string; init: RequestInit } {
  const r = vector.request;
  const query = r.query === undefined ? "" : `?${ids.fill(r.query)}`;
  const url = `${home}/wp-json${ids.fill(r.path)}${query}`;
  const headers: Record<string, string> = { Accept: "application/json", ...(r.headers ?? {}) };
  let body: string | undefined;
  if (r.body !== undefined) {
    body = JSON.stringify(ids.resolve(r.body));
    headers["Content-Type"] = "application/json";
  } else if (r.form !== undefined) {
    body = ids.fill(r.form);
    headers["Content-Type"] = "application/x-www-form-urlencoded";
  } else if (r.raw !== undefined) {
    body = r.raw;
    headers["Content-Type"] = "application/json";
  }
  if (r.user) headers.Authorization = `Basic ${Buffer.from(`${LOGINS[r.user]}:${PASSWORDS[r.user]}`).toString("base64")}`;
  return { url, init: { method: r.method, headers, body } };
}

/** The kind of records a route path answers with. */
export function kindOfPath(path: string): Kind {
  if (/^\/(wp\/v2\/(jobs|gigs)|board\/v1\/listings)\b/.test(path)) return "post";
  if (/^\/wp\/v2\/(departments|skills)\b/.test(path)) return "term";
  if (/^\/wp\/v2\/users\b/.test(path)) return "user";
  return "none";
}

const POST_ROUTE = /\/(wp\/v2\/(?:jobs|gigs)|board\/v1\/listings)\/(\d+)/g;
const TERM_ROUTE = /\/(wp\/v2\/(?:departments|skills))\/(\d+)/g;

/** A WordPress URL with its ids as calpress's, and the home replaced. */
function mapUrl(text: string, ids: IdMap, home: string): string {
  return text
    .split("{{home}}")
    .join(home)
    .replace(POST_ROUTE, (_m, base: string, id: string) => `/${base}/${ids.map("post", Number(id))}`)
    .replace(TERM_ROUTE, (_m, base: string, id: string) => `/${base}/${ids.map("term", Number(id))}`)
    .replace(/([?&](?:post|parent|p)=)(\d+)/g, (_m, p: string, id: string) => `${p}${ids.map("post", Number(id))}`)
    .replace(/([?&](?:departments|skills)=)(\d+)/g, (_m, p: string, id: string) => `${p}${ids.map("term", Number(id))}`);
}

/** WordPress's body with calpress's ids and home, for records of `kind`. */
export function mapBody(body: Json, kind: Kind, ids: IdMap, home: string): Json {
  const walk = (value: Json, k: Kind, key: string | null): Json => {
    if (typeof value === "string") return mapUrl(value, ids, home);
    if (typeof value === "number") {
      if (key === "id" || key === "parent") return ids.map(k, value);
      if (key === "term_id") return ids.map("term", value);
      return value;
    }
    if (Array.isArray(value)) {
      if (key === "departments" || key === "skills") return value.map((v) => (typeof v === "number" ? ids.map("term", v) : v));
      // `_embedded["wp:term"]` holds lists of terms; `_embedded.author` users; `_embedded.up` posts.
      return value.map((v) => walk(v, k, null));
    }
    if (value !== null && typeof value === "object") {
      const out: { [key: string]: Json } = {};
      for (const [name, v] of Object.entries(value)) {
        const inner: Kind = name === "wp:term" && key === "_embedded" ? "term" : name === "author" && key === "_embedded" ? "user" : name === "up" && key === "_embedded" ? k : k;
        out[name] = walk(v, inner, name);
      }
      return out;
    }
    return value;
  };
  return walk(body, kind, null);
}

/** A batch answer: each slot's body mapped for the records of its own request's path. */
function mapBatch(vector: Vector, ids: IdMap, home: string): Json {
  const body = vector.response.body;
  const requests = isObject(vector.request.body) && Array.isArray(vector.request.body.requests) ? vector.request.body.requests : [];
  if (!isObject(body) || !Array.isArray(body.responses)) return mapBody(body, "none", ids, home);
  const responses = body.responses.map((slot, i) => {
    const req = requests[i];
    const kind = isObject(req) && typeof req.path === "string" ? kindOfPath(ids.fill(req.path)) : "none";
    return mapBody(slot, kind, ids, home);
  });
  return { ...mapBody(body, "none", ids, home) as { [key: string]: Json }, responses };
}

/** Differences between WordPress's answer (mapped) and calpress's, as short texts. */
export function compare(vector: Vector, ours: Answer, ids: IdMap, home: string): string[] {
  const out: string[] = [];
  const wp = vector.response;
  const path = ids.fill(vector.request.path);
  if (wp.status !== ours.status) out.push(`status ${wp.status} → ${ours.status}`);
  const kind = kindOfPath(path);
  const wpBody = path === "/batch/v1" ? mapBatch(vector, ids, home) : mapBody(wp.body, kind, ids, home);
  if (wp.status >= 400) {
    const a = isObject(wpBody) ? wpBody : {};
    const b = isObject(ours.body) ? ours.body : {};
    if (a.code !== b.code) out.push(`code ${String(a.code)} → ${String(b.code)}`);
    if (a.code === "rest_invalid_param" && b.code === "rest_invalid_param") {
      const pa = Object.keys(isObject(a.data) && isObject(a.data.params) ? a.data.params : {}).sort().join(",");
      const pb = Object.keys(isObject(b.data) && isObject(b.data.params) ? b.data.params : {}).sort().join(",");
      if (pa !== pb) out.push(`params ${pa} → ${pb}`);
    }
    return out;
  }
  out.push(...compareHeaders(wp.headers, ours.headers, ids, home));
  if (vector.request.method === "HEAD" || vector.request.method === "OPTIONS") {
    if (vector.request.method === "OPTIONS") out.push(...compareValue(wpBody, ours.body, "", new Set()));
    return out;
  }
  const volatile = new Set(wp.volatile ?? []);
  if (/ties \(the same sort value\)/.test(vector.note ?? "") && Array.isArray(wpBody) && Array.isArray(ours.body)) {
    out.push(...compareTies(vector, wpBody, ours.body));
    return out;
  }
  out.push(...compareValue(wpBody, ours.body, "", volatile));
  return out;
}

/**
 * A list whose ties WordPress leaves in the database's order: the sort
 * values must come in the same order, and when the page holds every match,
 * the same records (by id).
 */
function compareTies(vector: Vector, a: Json[], b: Json[]): string[] {
  const key = new URLSearchParams(vector.request.query ?? "").get("orderby") ?? "date";
  const values = (list: Json[]): string => JSON.stringify(list.map((x) => (isObject(x) ? (x[key] ?? null) : null)));
  const out: string[] = [];
  if (values(a) !== values(b)) out.push(`${key} order ${values(a)} → ${values(b)}`);
  const total = Number(header(vector.response.headers, "x-wp-total") ?? a.length);
  const ids = (list: Json[]): string => JSON.stringify(list.map((x) => (isObject(x) ? x.id : null)).sort());
  if (total <= a.length && ids(a) !== ids(b)) out.push(`records ${ids(a)} → ${ids(b)}`);
  return out;
}

function header(h: Record<string, string | string[]>, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** A Link header's relations (without the REST discovery link), each URL as path and sorted query. */
function links(value: string | undefined | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of (value ?? "").matchAll(/<([^>]*)>;\s*rel="([^"]+)"/g)) {
    if (m[2] === "https://api.w.org/") continue;
    out.set(m[2], normaliseUrl(m[1]));
  }
  return out;
}

function normaliseUrl(url: string): string {
  const u = new URL(url);
  const params = [...u.searchParams.entries()].map(([k, v]) => `${k}=${v}`).sort();
  return `${u.pathname}?${params.join("&")}`;
}

function compareHeaders(wp: Record<string, string | string[]>, ours: Headers, ids: IdMap, home: string): string[] {
  const out: string[] = [];
  for (const name of ["x-wp-total", "x-wp-totalpages", "allow"]) {
    const a = header(wp, name);
    const b = ours.get(name) ?? undefined;
    if (a !== b) out.push(`header ${name} ${a ?? "(none)"} → ${b ?? "(none)"}`);
  }
  const loc = header(wp, "location");
  if (loc !== undefined && mapUrl(loc, ids, home) !== ours.get("location")) out.push(`header location ${loc} → ${ours.get("location") ?? "(none)"}`);
  const a = links(mapUrl(header(wp, "link") ?? "", ids, home));
  const b = links(ours.get("link"));
  for (const rel of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(rel) !== b.get(rel)) out.push(`link ${rel} ${a.get(rel) ?? "(none)"} → ${b.get(rel) ?? "(none)"}`);
  }
  return out;
}

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function compareValue(a: Json, b: Json, at: string, volatile: ReadonlySet<string>): string[] {
  if (volatile.has(at)) return typeof b === "string" || b === null ? [] : [`${at}: a time → ${JSON.stringify(b)}`];
  if (typeName(a) !== typeName(b)) return [`${at || "body"}: ${short(a)} → ${short(b)}`];
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [`${at || "body"}: ${a.length} items → ${b.length}`];
    return a.flatMap((x, i) => compareValue(x, b[i], `${at}/${i}`, volatile));
  }
  if (isObject(a) && isObject(b)) {
    const out: string[] = [];
    for (const k of Object.keys(a)) {
      const p = `${at}/${k}`;
      // calpress stores no GUID: a record's `guid` is its plain link (README "Differences from WordPress"); only its members are compared.
      if (k === "guid" && isObject(a[k]) && isObject(b[k])) {
        const ka = Object.keys(a[k] as object).sort().join(",");
        const kb = Object.keys(b[k] as object).sort().join(",");
        if (ka !== kb) out.push(`${p}: members ${ka} → ${kb}`);
        continue;
      }
      if (!(k in b)) out.push(`${p}: missing`);
      else out.push(...compareValue(a[k], b[k], p, volatile));
    }
    for (const k of Object.keys(b)) if (!(k in a)) out.push(`${at}/${k}: extra`);
    return out;
  }
  return a === b ? [] : [`${at || "body"}: ${short(a)} → ${short(b)}`];
}

function short(v: Json): string {
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

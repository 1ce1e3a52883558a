// The editor's one door to the REST API. Everything the editor shows or
// changes goes through `api()`; nothing else calls fetch.
//
// Credentials: a host's cookie login comes with a nonce in the page
// (`data-nonce`), sent as X-WP-Nonce with the browser's cookies; otherwise
// the user name and application password typed at the login form, kept in
// sessionStorage (gone when the tab closes) and sent as HTTP Basic.

const body = document.body;
export const REST_ROOT = body.dataset.restRoot || "/wp-json/";
let nonce = body.dataset.nonce || "";
const STORE_KEY = "calpress-editor-login";

/** How the editor logs in: "cookie" (host login with nonce), "password" or null (not yet). */
export function loginMode() {
  if (nonce !== "") return "cookie";
  return sessionStorage.getItem(STORE_KEY) === null ? null : "password";
}

export function setPasswordLogin(username, password) {
  sessionStorage.setItem(STORE_KEY, JSON.stringify({ username, password }));
}

export function logout() {
  sessionStorage.removeItem(STORE_KEY);
}

function authHeaders() {
  if (nonce !== "") return { "X-WP-Nonce": nonce };
  const saved = sessionStorage.getItem(STORE_KEY);
  if (saved === null) return {};
  const { username, password } = JSON.parse(saved);
  // btoa takes Latin-1 only: encode UTF-8 first.
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return { Authorization: `Basic ${btoa(binary)}` };
}

/** `path` relative to the REST root (`calendar/events/v1/events`); `query` an object (arrays repeat `k[]`). */
export function restUrl(path, query) {
  const url = new URL(REST_ROOT + path.replace(/^\/+/, ""), location.href);
  if (query) {
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null || value === "") continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(`${key}[]`, String(v));
      else url.searchParams.set(key, String(value));
    }
  }
  return url.toString();
}

/**
 * One request. Resolves (never rejects on an HTTP error) with
 * `{ status, ok, body, headers, etag }`; `body` is the parsed JSON or null.
 * Options: `query`, `body` (sent as JSON), `headers`, `ifMatch` (an ETag).
 * Rejects only when the network fails.
 */
export async function api(method, path, options = {}) {
  const headers = { Accept: "application/json", ...authHeaders(), ...(options.headers || {}) };
  if (options.ifMatch) headers["If-Match"] = options.ifMatch;
  let payload;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(options.body);
  }
  const response = await fetch(restUrl(path, options.query), {
    method,
    headers,
    body: payload,
    credentials: nonce !== "" ? "same-origin" : "omit",
    cache: "no-store",
  });
  // WordPress sends a fresh nonce with answers to a cookie login.
  const fresh = response.headers.get("X-WP-Nonce");
  if (fresh && nonce !== "") nonce = fresh;
  const text = await response.text();
  let parsed = null;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  return { status: response.status, ok: response.ok, body: parsed, headers: response.headers, etag: response.headers.get("ETag") };
}

/** WordPress's default batch size (`rest_get_max_batch_size`), which calpress keeps: larger sets are sent in chunks. */
export const MAX_BATCH = 25;

/**
 * Several writes: `requests` are `{ method, path, body }` (path relative to
 * the REST root). Through `POST batch/v1` in chunks of MAX_BATCH when the
 * routes opt in to batching (`allowBatch`), else one request each. Resolves
 * with one `{ status, ok, body }` per request, in order; a failed batch
 * request (network, 4xx for the whole batch) gives every slot its answer.
 */
export async function writeMany(requests, { allowBatch = true } = {}) {
  const results = [];
  if (!allowBatch) {
    for (const r of requests) {
      const res = await api(r.method, r.path, { body: r.body, query: r.query });
      results.push({ status: res.status, ok: res.ok, body: res.body });
    }
    return results;
  }
  for (let i = 0; i < requests.length; i += MAX_BATCH) {
    const chunk = requests.slice(i, i + MAX_BATCH);
    const res = await api("POST", "batch/v1", {
      body: {
        requests: chunk.map((r) => {
          const entry = { method: r.method, path: `/${r.path.replace(/^\/+/, "")}` };
          if (r.query) entry.path += `?${new URLSearchParams(r.query).toString()}`;
          if (r.body !== undefined) entry.body = r.body;
          return entry;
        }),
      },
    });
    const slots = res.body && Array.isArray(res.body.responses) ? res.body.responses : null;
    for (let j = 0; j < chunk.length; j++) {
      const slot = slots ? slots[j] : null;
      if (slot) results.push({ status: slot.status, ok: slot.status >= 200 && slot.status < 300, body: slot.body });
      else results.push({ status: res.status, ok: false, body: res.body });
    }
  }
  return results;
}

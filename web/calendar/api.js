// A small client of the calendar/events/v1 REST API: URL building, error
// envelopes turned into readable errors, and lists fetched page by page
// (the API answers at most 50 records per page).

/** Most records one list request can return (the API clamps per_page to 50). */
export const PER_PAGE = 50;

/** An error the page can show: what went wrong, in words a visitor understands. */
export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {{status?: number, code?: string, unreachable?: boolean}} info
   */
  constructor(message, info = {}) {
    super(message);
    this.name = "ApiError";
    this.status = info.status;
    this.code = info.code;
    this.unreachable = info.unreachable === true;
  }
}

export class CalendarApi {
  /**
   * @param {string} restRoot the REST root, absolute or origin-relative, ending in "/"
   * @param {string} namespace e.g. "calendar/events/v1"
   */
  constructor(restRoot, namespace) {
    // Resolved against the page, so an origin-relative root works under any prefix.
    this.root = new URL(restRoot, document.baseURI);
    this.namespace = namespace;
    /** Sent with every request when set (the content language). */
    this.language = "";
  }

  /** The absolute URL of a route of the namespace ("" for the namespace itself) with its query. */
  url(route, params = {}) {
    const path = route === "" ? this.namespace : `${this.namespace}/${route.replace(/^\/+/, "")}`;
    const url = new URL(path, this.root);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, String(value));
    }
    if (this.language) url.searchParams.set("i18n_language", this.language);
    return url;
  }

  /** The REST root itself (the site index), with a query. */
  rootUrl(params = {}) {
    const url = new URL(this.root);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
    return url;
  }

  /**
   * GET a URL and parse its JSON body; a non-2xx answer or a network failure
   * becomes an ApiError. An aborted request rejects with the AbortError as is.
   * @returns {Promise<{body: any, headers: Headers}>}
   */
  async get(url, signal) {
    let res;
    try {
      res = await fetch(url, { headers: { Accept: "application/json" }, signal });
    } catch (err) {
      if (err && err.name === "AbortError") throw err;
      throw new ApiError("The calendar API could not be reached. Check the connection and try again.", { unreachable: true });
    }
    let body = null;
    try {
      body = await res.json();
    } catch (err) {
      if (err && err.name === "AbortError") throw err;
      body = null;
    }
    if (!res.ok) {
      // WordPress's error envelope: {"code", "message", "data": {"status"}}.
      const message = body && typeof body.message === "string" && body.message !== "" ? body.message : `HTTP ${res.status} ${res.statusText}`.trim();
      const code = body && typeof body.code === "string" ? body.code : undefined;
      throw new ApiError(`The calendar API answered with an error: ${message}`, { status: res.status, code });
    }
    if (body === null || typeof body !== "object") {
      throw new ApiError("The calendar API sent an answer this page cannot read.", { status: res.status });
    }
    return { body, headers: res.headers };
  }

  /**
   * Every record of a list route, all pages. The first page tells how many
   * pages there are (X-WP-TotalPages, or total_pages in the body); the rest
   * are fetched a few at a time.
   * @param {string} route e.g. "events"
   * @param {string} key the list member of the body, e.g. "events"
   * @param {Record<string, string|number>} params
   * @param {{signal?: AbortSignal, maxPages?: number}} options
   * @returns {Promise<{items: any[], total: number, truncated: boolean}>}
   */
  async list(route, key, params, options = {}) {
    const { signal, maxPages = 40 } = options;
    const first = await this.get(this.url(route, { ...params, per_page: PER_PAGE, page: 1 }), signal);
    const items = [...listOf(first.body, key)];
    const header = Number.parseInt(first.headers.get("X-WP-TotalPages") ?? "", 10);
    const totalPages = Number.isFinite(header) ? header : Number(first.body.total_pages ?? 1);
    const total = Number(first.body.total ?? first.headers.get("X-WP-Total") ?? items.length);
    const lastPage = Math.min(totalPages, maxPages);

    let next = 2;
    const pages = new Map();
    const worker = async () => {
      while (next <= lastPage) {
        const page = next++;
        try {
          const res = await this.get(this.url(route, { ...params, per_page: PER_PAGE, page }), signal);
          pages.set(page, listOf(res.body, key));
        } catch (err) {
          // Records deleted between the first and a later page: the archive
          // page is gone (404), which ends the list rather than failing it.
          if (err instanceof ApiError && err.status === 404) pages.set(page, []);
          else throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, Math.max(0, lastPage - 1)) }, worker));
    for (let page = 2; page <= lastPage; page++) items.push(...(pages.get(page) ?? []));
    return { items, total, truncated: totalPages > lastPage };
  }
}

function listOf(body, key) {
  const list = body && body[key];
  return Array.isArray(list) ? list : [];
}

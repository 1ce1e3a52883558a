// The demo calendar: state (month, view, filters, language, open event),
// kept in the URL fragment so a view can be bookmarked and the Back button
// works; data only from the public REST API.

import { ApiError, CalendarApi } from "./api.js";
import { decodeText, firstDayOfWeek, isoDate, monthTitle } from "./format.js";
import { h, renderDetail, renderList, renderMonth } from "./views.js";

const FILTERS = [
  { key: "categories", select: "filter-category", route: "categories", list: "categories", params: { hide_empty: 0 }, label: "categories" },
  { key: "tags", select: "filter-tag", route: "tags", list: "tags", params: { hide_empty: 0 }, label: "tags" },
  { key: "venue", select: "filter-venue", route: "venues", list: "venues", params: {}, label: "venues" },
  { key: "organizer", select: "filter-organizer", route: "organizers", list: "organizers", params: {}, label: "organizers" },
];
const LANGUAGES = new Set(["nl", "en", "fi", "fr", "de", "it", "no"]);

const $ = (id) => document.getElementById(id);
const body = document.body;
const api = new CalendarApi(body.dataset.restRoot || "/wp-json/", body.dataset.namespace || "calendar/events/v1");

const els = {
  form: $("filters"),
  search: $("search"),
  language: $("language"),
  monthTitle: $("month-title"),
  status: $("status"),
  error: $("error"),
  results: $("results"),
  detail: $("detail"),
  detailTitle: $("detail-title"),
  detailBody: $("detail-body"),
  detailClose: $("detail-close"),
  viewMonth: $("view-month"),
  viewList: $("view-list"),
};

function todayParts() {
  const now = new Date();
  return { year: now.getFullYear(), month: now.getMonth() + 1, day: now.getDate() };
}

const state = {
  year: todayParts().year,
  month: todayParts().month,
  view: "month",
  filters: { categories: "", tags: "", venue: "", organizer: "" },
  search: "",
  language: "",
  /** The loaded events of the month, in API order (by start). */
  events: [],
  loaded: false,
  /** The event shown in the detail panel, and what to give focus back to. */
  openEvent: null,
  returnFocus: null,
};

/** Errors by source ("events", "filters", "detail"), shown together in the alert region. */
const errors = new Map();

// ---- URL fragment -------------------------------------------------------

function readHash() {
  const p = new URLSearchParams(location.hash.replace(/^#/, ""));
  const m = /^(\d{4})-(\d{2})$/.exec(p.get("month") ?? "");
  if (m && +m[2] >= 1 && +m[2] <= 12) {
    state.year = +m[1];
    state.month = +m[2];
  }
  state.view = p.get("view") === "list" ? "list" : "month";
  for (const f of FILTERS) state.filters[f.key] = /^\d+$/.test(p.get(f.key) ?? "") ? p.get(f.key) : "";
  state.search = (p.get("search") ?? "").trim();
  state.language = LANGUAGES.has(p.get("lang") ?? "") ? p.get("lang") : "";
  const event = p.get("event");
  return /^\d+$/.test(event ?? "") ? Number(event) : null;
}

function writeHash() {
  const p = new URLSearchParams();
  p.set("month", `${state.year}-${String(state.month).padStart(2, "0")}`);
  if (state.view === "list") p.set("view", "list");
  for (const f of FILTERS) if (state.filters[f.key]) p.set(f.key, state.filters[f.key]);
  if (state.search) p.set("search", state.search);
  if (state.language) p.set("lang", state.language);
  if (state.openEvent) p.set("event", String(state.openEvent.id));
  const hash = `#${p.toString()}`;
  // replaceState: filters and the panel are not worth a Back step each.
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

// ---- Status and errors ------------------------------------------------

function setStatus(text) {
  els.status.textContent = text;
}

function showErrors() {
  els.error.replaceChildren();
  for (const [source, message] of errors) {
    els.error.append(
      h(
        "p",
        { class: "error-message" },
        message,
        " ",
        source === "events" || source === "filters" ? h("button", { type: "button", class: "retry", dataset: { retry: source } }, "Try again") : null,
      ),
    );
  }
}

function setError(source, err) {
  if (err === null) errors.delete(source);
  else errors.set(source, err instanceof ApiError ? err.message : `Something went wrong: ${err && err.message ? err.message : String(err)}`);
  showErrors();
}

// ---- Filters ----------------------------------------------------------

/** Categories as a tree: children under their parent, indented; names sorted at each level. */
function categoryOptions(terms) {
  const byParent = new Map();
  const ids = new Set(terms.map((t) => t.id));
  for (const t of terms) {
    const parent = ids.has(t.parent) ? t.parent : 0;
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push(t);
  }
  const out = [];
  const walk = (parent, depth) => {
    const list = (byParent.get(parent) ?? []).sort((a, b) => decodeText(a.name).localeCompare(decodeText(b.name)));
    for (const t of list) {
      out.push({ value: String(t.id), text: `${"— ".repeat(depth)}${decodeText(t.name)}` });
      if (depth < 10) walk(t.id, depth + 1);
    }
  };
  walk(0, 0);
  return out;
}

function nameOf(record) {
  return decodeText(record.name ?? record.venue ?? record.organizer ?? `#${record.id}`);
}

let filtersController = null;

async function loadFilterOptions() {
  filtersController?.abort();
  const controller = new AbortController();
  filtersController = controller;
  setError("filters", null);
  const failures = [];
  let changed = false;
  await Promise.all(
    FILTERS.map(async (f) => {
      const select = $(f.select);
      select.setAttribute("aria-busy", "true");
      try {
        const { items } = await api.list(f.route, f.list, f.params, { signal: controller.signal, maxPages: 20 });
        const options =
          f.route === "categories"
            ? categoryOptions(items)
            : items
                .map((r) => ({ value: String(r.id), text: nameOf(r) }))
                .sort((a, b) => a.text.localeCompare(b.text));
        const first = select.options[0];
        select.replaceChildren(first, ...options.map((o) => h("option", { value: o.value }, o.text)));
        select.value = state.filters[f.key];
        // A filter from a bookmark that no longer exists (or another language's ID).
        if (select.value !== state.filters[f.key]) {
          state.filters[f.key] = "";
          select.value = "";
          changed = true;
        }
      } catch (err) {
        if (err && err.name === "AbortError") return;
        failures.push(f.label);
      } finally {
        select.removeAttribute("aria-busy");
      }
    }),
  );
  if (controller !== filtersController) return;
  if (failures.length) setError("filters", new ApiError(`The lists of ${failures.join(", ")} could not be loaded, so those filters are incomplete.`));
  if (changed) {
    writeHash();
    loadEvents();
  }
}

// ---- Events -----------------------------------------------------------

function pad(n) {
  return String(n).padStart(2, "0");
}

/**
 * The month's events: every event that overlaps the month, not only those
 * that start in it. Whole-day bounds (the default, non-strict mode):
 * starts_before the last day means "starts on or before it", ends_after
 * the day before the first means "ends on the first or later".
 */
function monthQuery() {
  const last = new Date(Date.UTC(state.year, state.month, 0)).getUTCDate();
  const before = new Date(Date.UTC(state.year, state.month - 1, 0));
  const params = {
    starts_before: `${state.year}-${pad(state.month)}-${pad(last)}`,
    ends_after: isoDate({ year: before.getUTCFullYear(), month: before.getUTCMonth() + 1, day: before.getUTCDate() }),
  };
  for (const f of FILTERS) if (state.filters[f.key]) params[f.key] = state.filters[f.key];
  if (state.search) params.search = state.search;
  return params;
}

function describeSelection() {
  const parts = [];
  if (state.search) parts.push(`matching “${state.search}”`);
  const active = FILTERS.filter((f) => state.filters[f.key]).map((f) => {
    const select = $(f.select);
    return select.selectedOptions[0]?.textContent?.replace(/^(— )+/, "") ?? state.filters[f.key];
  });
  if (active.length) parts.push(`filtered by ${active.join(", ")}`);
  return parts.length ? ` ${parts.join(", ")}` : "";
}

let eventsController = null;

async function loadEvents() {
  eventsController?.abort();
  const controller = new AbortController();
  eventsController = controller;
  const title = monthTitle(state.year, state.month);
  els.monthTitle.textContent = title;
  document.title = `${title} · ${siteName}`;
  els.results.setAttribute("aria-busy", "true");
  body.classList.add("loading");
  setStatus(`Loading events for ${title}…`);
  try {
    const { items, total, truncated } = await api.list("events", "events", monthQuery(), { signal: controller.signal });
    if (controller !== eventsController) return;
    state.events = items;
    state.loaded = true;
    setError("events", null);
    render();
    const count = items.length === 0 ? "No events" : items.length === 1 ? "1 event" : `${items.length} events`;
    setStatus(`${count} in ${title}${describeSelection()}.${truncated ? ` Showing the first ${items.length} of ${total}.` : ""}`);
  } catch (err) {
    if (err && err.name === "AbortError") return;
    if (controller !== eventsController) return;
    state.events = [];
    state.loaded = false;
    setStatus("");
    setError("events", err);
    render();
  } finally {
    if (controller === eventsController) {
      els.results.setAttribute("aria-busy", "false");
      body.classList.remove("loading");
    }
  }
}

// ---- Rendering --------------------------------------------------------

function render() {
  els.viewMonth.setAttribute("aria-pressed", String(state.view === "month"));
  els.viewList.setAttribute("aria-pressed", String(state.view === "list"));
  contentLanguage(els.results);
  const title = monthTitle(state.year, state.month);
  if (!state.loaded) {
    els.results.replaceChildren(h("p", { class: "empty" }, `The events of ${title} could not be loaded.`));
    return;
  }
  if (state.view === "month") {
    const t = todayParts();
    els.results.replaceChildren(
      renderMonth({ year: state.year, month: state.month, events: state.events, today: isoDate(t), firstDay: firstDayOfWeek(), title: `Events in ${title}` }),
    );
  } else if (state.events.length === 0) {
    els.results.replaceChildren(h("p", { class: "empty" }, `No events in ${title}${describeSelection()}.`));
  } else {
    els.results.replaceChildren(renderList({ year: state.year, month: state.month, events: state.events }));
  }
}

/** Content is in the chosen language; the page's own words stay English. */
function contentLanguage(el) {
  if (state.language) el.setAttribute("lang", state.language);
  else el.removeAttribute("lang");
}

// ---- Detail panel -----------------------------------------------------

function openDetail(event, trigger) {
  if (errors.has("detail")) setError("detail", null);
  state.openEvent = event;
  state.returnFocus = trigger ?? null;
  els.detailTitle.textContent = decodeText(event.title);
  els.detailBody.replaceChildren(renderDetail(event));
  contentLanguage(els.detail);
  els.detail.hidden = false;
  body.classList.add("detail-open");
  writeHash();
  // Focus the heading (tabindex=-1) so a screen reader starts reading the event.
  els.detailTitle.focus();
}

function closeDetail() {
  if (!state.openEvent) return;
  const id = String(state.openEvent.id);
  const trigger = state.returnFocus;
  state.openEvent = null;
  state.returnFocus = null;
  els.detail.hidden = true;
  body.classList.remove("detail-open");
  writeHash();
  // Back to the button that opened it, or the same event's button after a re-render.
  const target = trigger && trigger.isConnected ? trigger : els.results.querySelector(`[data-event-id="${CSS.escape(id)}"]`);
  (target ?? els.results).focus();
}

async function openById(id, trigger) {
  const known = state.events.find((e) => e.id === id);
  if (known) {
    openDetail(known, trigger);
    return;
  }
  // The month's own load may finish meanwhile and report its count: only
  // clear the status line if it still says this.
  const note = "Loading the event…";
  setStatus(note);
  const done = () => {
    if (els.status.textContent === note) setStatus("");
  };
  try {
    const { body: event } = await api.get(api.url(`events/${id}`));
    setError("detail", null);
    done();
    openDetail(event, trigger);
  } catch (err) {
    done();
    setError("detail", err);
  }
}

// ---- Wiring -----------------------------------------------------------

function moveMonth(delta) {
  const d = new Date(Date.UTC(state.year, state.month - 1 + delta, 1));
  state.year = d.getUTCFullYear();
  state.month = d.getUTCMonth() + 1;
  writeHash();
  loadEvents();
}

function syncControls() {
  els.search.value = state.search;
  els.language.value = state.language;
  for (const f of FILTERS) $(f.select).value = state.filters[f.key];
}

$("prev-month").addEventListener("click", () => moveMonth(-1));
$("next-month").addEventListener("click", () => moveMonth(1));
$("this-month").addEventListener("click", () => {
  const t = todayParts();
  state.year = t.year;
  state.month = t.month;
  writeHash();
  loadEvents();
});

for (const [button, view] of [
  [els.viewMonth, "month"],
  [els.viewList, "list"],
]) {
  button.addEventListener("click", () => {
    if (state.view === view) return;
    state.view = view;
    writeHash();
    render();
  });
}

els.form.addEventListener("submit", (e) => {
  e.preventDefault();
  state.search = els.search.value.trim();
  writeHash();
  loadEvents();
});

els.form.addEventListener("reset", (e) => {
  e.preventDefault();
  state.search = "";
  for (const f of FILTERS) state.filters[f.key] = "";
  syncControls();
  writeHash();
  loadEvents();
});

for (const f of FILTERS) {
  $(f.select).addEventListener("change", (e) => {
    state.filters[f.key] = e.target.value;
    writeHash();
    loadEvents();
  });
}

els.language.addEventListener("change", () => {
  state.language = els.language.value;
  api.language = state.language;
  // Terms, venues and organizers are per language: their IDs do not carry over.
  for (const f of FILTERS) state.filters[f.key] = "";
  syncControls();
  writeHash();
  loadFilterOptions();
  loadEvents();
});

els.results.addEventListener("click", (e) => {
  const target = e.target instanceof Element ? e.target : null;
  const eventButton = target?.closest("[data-event-id]");
  if (eventButton) {
    openById(Number(eventButton.dataset.eventId), eventButton);
    return;
  }
  const more = target?.closest("button.more[data-day]");
  if (more) {
    state.view = "list";
    writeHash();
    render();
    document.getElementById(`day-${more.dataset.day}`)?.focus();
  }
});

els.error.addEventListener("click", (e) => {
  const retry = e.target instanceof Element ? e.target.closest("[data-retry]") : null;
  if (!retry) return;
  if (retry.dataset.retry === "events") loadEvents();
  else loadFilterOptions();
});

els.detailClose.addEventListener("click", closeDetail);
els.detail.addEventListener("keydown", (e) => {
  if (e.key === "Escape") {
    e.preventDefault();
    closeDetail();
  }
});

window.addEventListener("hashchange", () => {
  const before = JSON.stringify([state.year, state.month, state.filters, state.search, state.language]);
  const languageBefore = state.language;
  const event = readHash();
  api.language = state.language;
  syncControls();
  if (state.language !== languageBefore) loadFilterOptions();
  if (JSON.stringify([state.year, state.month, state.filters, state.search, state.language]) !== before) loadEvents();
  else render();
  if (event && event !== state.openEvent?.id) openById(event, null);
  else if (!event && state.openEvent) closeDetail();
});

// ---- Start ------------------------------------------------------------

let siteName = "Events calendar";

async function loadSiteInfo() {
  try {
    const { body: info } = await api.get(api.rootUrl({ _fields: "name,description" }));
    if (info.name) {
      siteName = decodeText(info.name);
      $("site-name").textContent = siteName;
      document.title = `${monthTitle(state.year, state.month)} · ${siteName}`;
    }
    if (info.description) $("site-description").textContent = decodeText(info.description);
  } catch {
    // The name is decoration; the events request reports an unreachable API.
  }
}

function start() {
  const docs = body.dataset.docsUrl;
  if (docs) {
    $("docs-link").href = docs;
    $("docs-link-item").hidden = false;
  }
  const restLink = $("rest-root-link");
  restLink.href = api.root.href;
  restLink.textContent = api.root.href;

  const event = readHash();
  api.language = state.language;
  syncControls();
  writeHash();
  loadSiteInfo();
  loadFilterOptions();
  loadEvents();
  if (event) openById(event, null);
}

start();

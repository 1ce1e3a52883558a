// The list screen of a post type, generated from its collection's GET
// arguments: a search box when there is `search`, a status filter when there
// is `status`, a filter per taxonomy of the type whose rest_base (or slug)
// is an argument, sorting when `orderby`/`order` have enums. One page at a
// time (never the whole list), with the API's totals. Bulk trash, restore and
// publish go through batch/v1 when the routes allow batching.
//
// The filters live in the URL fragment (#/types/events?status=draft&page=2),
// so Back and bookmarks work.

import { api, writeMany } from "./api.js";
import { announce, confirmDialog, fill, flashOf, h, humanize, nextId, plainText, srOnly } from "./dom.js";
import { combobox, resolveTerms, searchTerms } from "./picker.js";
import {
  canDeleteRecord,
  canEditRecord,
  listOf,
  pagingOf,
  perPageFor,
  routesOf,
  site,
  statusesOf,
  statusLabel,
  taxonomiesOf,
  textOf,
  titleField,
  typeCan,
  typeLabel,
} from "./model.js";
import { listOptionsFor } from "./widgets.js";

const PER_PAGE = 20;

function termPath(tax) {
  return `${(tax.rest_namespace || "wp/v2").replace(/^\/+|\/+$/g, "")}/${tax.rest_base}`;
}

/** ctx: { main, type, params (URLSearchParams of the fragment), navigate, flash }. */
export async function listScreen(ctx) {
  const { main, type, params } = ctx;
  const routes = await routesOf(type);
  const label = typeLabel(type);
  document.title = `${label} · Editor`;
  const heading = h("h1", { tabindex: "-1", id: "list-title" }, label);
  const notice = h("div", { class: "form-notice" });
  if (!routes.list) {
    fill(main, heading, h("p", {}, `${label} cannot be listed through the API.`));
    return;
  }
  const args = routes.list.args || {};
  const canCreate = routes.create && typeCan(type, "edit_posts");
  const actions = h("div", { class: "heading-row" }, heading, canCreate ? h("a", { class: "button primary", href: `#/types/${type.slug}/new` }, `Add ${typeLabel(type, false).toLowerCase()}`) : null);

  // ---- Filters --------------------------------------------------------
  // Every status the type has: the API leaves out what the user may not read (an author's own private posts stay in).
  const statuses = statusesOf(type, routes);
  const state = {
    search: params.get("search") || "",
    status: args.status ? params.get("status") || "" : "",
    page: Math.max(1, Number(params.get("page")) || 1),
    orderby: params.get("orderby") || "",
    order: params.get("order") || "",
    terms: {},
  };
  const taxFilters = taxonomiesOf(type)
    .map((tax) => ({ tax, arg: [tax.rest_base, tax.slug].find((n) => n && n in args) }))
    .filter((f) => f.arg);
  for (const f of taxFilters) if (/^\d+$/.test(params.get(f.arg) || "")) state.terms[f.arg] = Number(params.get(f.arg));
  // Filters a plugin adds (widgets.js): a choice each, the default when the address names none or an unknown one.
  const extraFilters = listOptionsFor(type).flatMap((options) => options.filters || []);
  state.extra = {};
  for (const f of extraFilters) {
    const asked = params.get(f.name);
    state.extra[f.name] = f.choices.some((c) => c.value === asked) ? asked : f.default;
  }

  const go = (changes) => {
    const next = { ...state, ...changes, terms: { ...state.terms, ...(changes.terms || {}) }, extra: { ...state.extra, ...(changes.extra || {}) } };
    const q = new URLSearchParams();
    if (next.search) q.set("search", next.search);
    for (const f of extraFilters) if (next.extra[f.name] !== f.default) q.set(f.name, next.extra[f.name]);
    if (next.status) q.set("status", next.status);
    for (const [k, v] of Object.entries(next.terms)) if (v) q.set(k, String(v));
    if (next.orderby) q.set("orderby", next.orderby);
    if (next.order) q.set("order", next.order);
    if (next.page > 1) q.set("page", String(next.page));
    const qs = q.toString();
    ctx.navigate(`#/types/${type.slug}${qs ? `?${qs}` : ""}`);
  };

  const filters = h("form", { class: "filters", role: "search", "aria-label": `Filter ${label.toLowerCase()}` });
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(filters);
    const extra = {};
    for (const f of extraFilters) extra[f.name] = String(data.get(f.name) || f.default);
    go({ search: String(data.get("search") || "").trim(), status: String(data.get("status") || ""), orderby: String(data.get("orderby") || ""), order: String(data.get("order") || ""), extra, page: 1 });
  });
  if (args.search) {
    const id = nextId("search");
    filters.append(h("div", { class: "field" }, h("label", { for: id }, "Search"), h("input", { id, type: "search", name: "search", value: state.search })));
  }
  if (args.status) {
    const id = nextId("status");
    filters.append(
      h(
        "div",
        { class: "field" },
        h("label", { for: id }, "Status"),
        h(
          "select",
          { id, name: "status" },
          h("option", { value: "" }, "All (but trash)"),
          statuses.map((s) => h("option", { value: s, selected: s === state.status }, statusLabel(s))),
        ),
      ),
    );
  }
  for (const f of extraFilters) {
    const id = nextId(f.name);
    filters.append(h("div", { class: "field" }, h("label", { for: id }, f.label), h("select", { id, name: f.name }, f.choices.map((c) => h("option", { value: c.value, selected: c.value === state.extra[f.name] }, c.label)))));
  }
  for (const f of taxFilters) filters.append(await termFilter(f, state, go));
  const sortable = args.orderby && Array.isArray(args.orderby.enum);
  if (sortable) {
    const id = nextId("orderby");
    filters.append(h("div", { class: "field" }, h("label", { for: id }, "Sort by"), h("select", { id, name: "orderby" }, h("option", { value: "" }, "Default"), args.orderby.enum.map((v) => h("option", { value: v, selected: v === state.orderby }, humanize(v))))));
  }
  if (args.order && Array.isArray(args.order.enum)) {
    const id = nextId("order");
    filters.append(h("div", { class: "field" }, h("label", { for: id }, "Order"), h("select", { id, name: "order" }, h("option", { value: "" }, "Default"), args.order.enum.map((v) => h("option", { value: v, selected: v === state.order }, v === "asc" ? "Ascending" : v === "desc" ? "Descending" : v)))));
  }
  if (filters.children.length > 0) filters.append(h("div", { class: "field field-submit" }, h("button", { type: "submit", class: "button" }, "Apply")));

  // ---- The page of records ---------------------------------------------
  const perPage = perPageFor(routes.list, PER_PAGE);
  const query = { page: args.page ? state.page : undefined, per_page: perPage ?? undefined };
  for (const options of listOptionsFor(type)) Object.assign(query, options.query ? options.query() : {});
  for (const f of extraFilters) Object.assign(query, f.choices.find((c) => c.value === state.extra[f.name])?.query || {});
  if (state.search) query.search = state.search;
  if (args.status) query.status = state.status || statuses.filter((s) => s !== "trash").join(",");
  for (const [arg, id] of Object.entries(state.terms)) query[arg] = id;
  if (state.orderby) query.orderby = state.orderby;
  if (state.order) query.order = state.order;
  // Users who may not edit others' posts see their own, when the route can filter by author.
  if (args.author && !typeCan(type, "edit_others_posts") && site.me) query.author = site.me.id;

  const results = h("div", { class: "results" });
  fill(main, actions, notice, filters.children.length > 0 ? filters : null, results);
  const flash = flashOf(ctx.flash);
  if (flash) {
    fill(notice, h("p", { class: `notice ${flash.kind}` }, flash.text));
    announce(flash.text);
  }
  results.setAttribute("aria-busy", "true");
  const res = await api("GET", routes.path, { query });
  results.removeAttribute("aria-busy");
  if (!res.ok) {
    fill(results, h("p", { class: "notice error", role: "alert" }, plainText((res.body && res.body.message) || `The server answered ${res.status}.`)));
    return;
  }
  const records = listOf(res.body);
  const paging = pagingOf(res, perPage || records.length || 1);
  const titleName = titleField(routes);
  await renderTable({ ctx, type, routes, records, paging, state, go, results, titleName, statuses, label });
  if (!flash) announce(`${paging.total} ${paging.total === 1 ? typeLabel(type, false).toLowerCase() : label.toLowerCase()} found.`);
}

/** A taxonomy filter: the chosen term (if any) with a server-side search to change it. */
async function termFilter(f, state, go) {
  const path = termPath(f.tax);
  const name = (f.tax.labels && f.tax.labels.singular_name) || humanize(f.tax.slug);
  const chosen = state.terms[f.arg];
  let chosenName = "";
  if (chosen) chosenName = (await resolveTerms(path, [chosen]))[0]?.name || `#${chosen}`;
  const box = combobox({
    label: name,
    labelClass: "",
    placeholder: chosen ? chosenName : `Any ${name.toLowerCase()}`,
    search: (text) => searchTerms(path, text),
    onPick: (item) => go({ terms: { [f.arg]: item.id }, page: 1 }),
  });
  box.input.dataset.filter = f.arg;
  return h(
    "div",
    { class: "field term-filter" },
    box.element,
    chosen ? h("p", { class: "chosen-filter" }, `${name}: ${chosenName} `, h("button", { type: "button", class: "button small", onclick: () => go({ terms: { [f.arg]: 0 }, page: 1 }), "aria-label": `Clear the ${name.toLowerCase()} filter` }, "Clear")) : null,
  );
}

async function renderTable(o) {
  const { type, routes, records, paging, state, go, results, titleName, label } = o;
  const taxonomies = taxonomiesOf(type).filter((t) => records.some((r) => Array.isArray(r[t.rest_base])));
  const extraColumns = listOptionsFor(type).flatMap((options) => options.columns || []);
  // Term names: records that carry only ids get their names in one request per taxonomy.
  const termNames = new Map();
  await Promise.all(
    taxonomies.map(async (t) => {
      const ids = [...new Set(records.flatMap((r) => r[t.rest_base]).map((v) => (v && typeof v === "object" ? v.id : v)))];
      const named = records.flatMap((r) => r[t.rest_base]).every((v) => v && typeof v === "object" && v.name);
      const resolved = named ? records.flatMap((r) => r[t.rest_base]).map((v) => ({ id: v.id, name: plainText(v.name) })) : await resolveTerms(termPath(t), ids);
      termNames.set(t.slug, new Map(resolved.map((x) => [Number(x.id), x.name])));
    }),
  );
  const authors = await authorNames(records);

  if (records.length === 0) {
    fill(results, h("p", { class: "empty" }, state.search || state.status || Object.values(state.terms).some(Boolean) ? `No ${label.toLowerCase()} match these filters.` : `No ${label.toLowerCase()} yet.`));
    return;
  }

  const inTrash = state.status === "trash";
  // Restore and publish are status changes: offered when the item route takes a status.
  const canSetStatus = Boolean(routes.update && routes.update.args && routes.update.args.status);
  const bulk = [];
  if (routes.remove && !inTrash) bulk.push(["trash", "Move to trash"]);
  if (inTrash && canSetStatus) bulk.push(["restore", "Restore"]);
  if (inTrash && routes.remove && routes.remove.args && routes.remove.args.force) bulk.push(["delete", "Delete permanently"]);
  if (!inTrash && canSetStatus && typeCan(type, "publish_posts")) bulk.push(["publish", "Publish"]);

  /** Restore / Delete permanently for one row of the trash, as the routes allow. */
  const trashActions = (r, name) => {
    const one = async (action) => {
      if (action === "delete" && !(await confirmDialog({ title: "Delete permanently?", message: `“${name}” will be deleted for good. This cannot be undone.`, confirm: "Delete permanently", danger: true }))) return;
      const res =
        action === "restore"
          ? await api("POST", routes.itemPath(r.id), { body: { status: "draft" } })
          : await api("DELETE", routes.itemPath(r.id), { query: { force: "true" } });
      const message = res.ok
        ? action === "restore"
          ? `“${name}” restored as a draft.`
          : `“${name}” deleted permanently.`
        : { text: `Not done: ${plainText((res.body && res.body.message) || String(res.status))}`, kind: "error" };
      o.ctx.navigate(location.hash, message, true);
    };
    return h(
      "span",
      { class: "row-actions" },
      canSetStatus ? h("button", { type: "button", class: "button small", "aria-label": `Restore ${name}`, onclick: () => void one("restore") }, "Restore") : null,
      routes.remove && routes.remove.args && routes.remove.args.force && canDeleteRecord(type, r)
        ? h("button", { type: "button", class: "button small danger-link", "aria-label": `Delete ${name} permanently`, onclick: () => void one("delete") }, "Delete permanently")
        : null,
    );
  };

  const selectable = (r) => bulk.length > 0 && (canEditRecord(type, r) || canDeleteRecord(type, r));
  const boxes = [];
  const selectAll = h("input", { type: "checkbox", id: nextId("all"), "aria-label": "Select all on this page" });
  selectAll.addEventListener("change", () => {
    for (const b of boxes) b.checked = selectAll.checked;
    updateBulk();
  });

  const rows = records.map((r) => {
    const name = plainText(textOf(r[titleName])) || "(no title)";
    const editable = canEditRecord(type, r);
    let box = null;
    if (selectable(r)) {
      box = h("input", { type: "checkbox", value: String(r.id), "aria-label": `Select “${name}”`, onchange: () => updateBulk() });
      box._record = r;
      boxes.push(box);
    }
    // In the trash a row is restored or deleted, not edited (some routes do not even show a trashed post).
    const titleCell = h(
      "td",
      { class: "col-title", "data-label": "Title" },
      editable && !inTrash ? h("a", { href: `#/types/${type.slug}/${r.id}`, class: "row-title" }, name) : h("span", { class: "row-title" }, name, editable ? null : srOnly(" (you cannot edit this)")),
      r.status && r.status !== "publish" && !inTrash ? h("span", { class: `badge status-${r.status}` }, ` — ${statusLabel(r.status)}`) : null,
      inTrash && editable ? trashActions(r, name) : null,
    );
    return h(
      "tr",
      { dataset: { id: String(r.id) } },
      bulk.length > 0 ? h("td", { class: "col-check" }, box) : null,
      titleCell,
      extraColumns.map((c) => h("td", { "data-label": c.label }, c.value(r))),
      taxonomies.map((t) =>
        h("td", { "data-label": (t.labels && t.labels.name) || humanize(t.slug) }, (r[t.rest_base] || []).map((v) => termNames.get(t.slug)?.get(Number(v && typeof v === "object" ? v.id : v)) || "").filter(Boolean).join(", ")),
      ),
      "author" in r ? h("td", { "data-label": "Author" }, authors.get(String(r.author)) || (r.author ? `#${r.author}` : "")) : null,
      "date" in r ? h("td", { "data-label": "Date" }, formatDate(r.date), r.status === "future" ? h("span", { class: "muted" }, " (scheduled)") : null) : null,
    );
  });
  const first = records[0];
  const head = h(
    "tr",
    {},
    bulk.length > 0 ? h("th", { scope: "col", class: "col-check" }, selectAll) : null,
    h("th", { scope: "col" }, "Title"),
    extraColumns.map((c) => h("th", { scope: "col" }, c.label)),
    taxonomies.map((t) => h("th", { scope: "col" }, (t.labels && t.labels.name) || humanize(t.slug))),
    "author" in first ? h("th", { scope: "col" }, "Author") : null,
    "date" in first ? h("th", { scope: "col" }, "Date") : null,
  );
  const table = h("table", { class: "records", "aria-describedby": "list-count" }, h("caption", { class: "visually-hidden" }, label), h("thead", {}, head), h("tbody", {}, rows));

  // ---- Bulk actions -------------------------------------------------------
  const bulkSelect = h("select", { id: nextId("bulk"), "aria-label": "Bulk action" }, h("option", { value: "" }, "Bulk actions"), bulk.map(([v, text]) => h("option", { value: v }, text)));
  const bulkApply = h("button", { type: "button", class: "button", disabled: true }, "Apply");
  const bulkCount = h("span", { class: "muted", "aria-live": "polite" });
  function updateBulk() {
    const n = boxes.filter((b) => b.checked).length;
    bulkApply.disabled = n === 0;
    bulkCount.textContent = n === 0 ? "" : `${n} selected`;
    selectAll.checked = n > 0 && n === boxes.length;
    selectAll.indeterminate = n > 0 && n < boxes.length;
  }
  bulkApply.addEventListener("click", async () => {
    const action = bulkSelect.value;
    const chosen = boxes.filter((b) => b.checked).map((b) => b._record);
    if (!action || chosen.length === 0) {
      announce("Choose a bulk action and at least one row.");
      bulkSelect.focus();
      return;
    }
    if (action === "delete") {
      const ok = await confirmDialog({ title: "Delete permanently?", message: `${chosen.length} item(s) will be deleted for good.`, confirm: "Delete permanently", danger: true });
      if (!ok) return;
    }
    bulkApply.disabled = true;
    announce("Working…");
    const requests = chosen.map((r) => {
      const path = `/${routes.itemPath(r.id)}`;
      if (action === "trash") return { method: "DELETE", path };
      if (action === "delete") return { method: "DELETE", path, query: { force: "true" } };
      return { method: "POST", path, body: { status: action === "publish" ? "publish" : "draft" } };
    });
    const endpoint = action === "trash" || action === "delete" ? routes.remove : routes.update;
    const answers = await writeMany(requests, { allowBatch: Boolean(endpoint && endpoint.allow_batch) });
    const failed = answers.map((a, i) => ({ a, r: chosen[i] })).filter((x) => !x.a.ok);
    const done = answers.length - failed.length;
    const verb = { trash: "moved to the trash", restore: "restored as drafts", publish: "published", delete: "deleted permanently" }[action];
    let text = `${done} ${done === 1 ? "item" : "items"} ${verb}.`;
    if (failed.length > 0) text += ` ${failed.length} failed: ${failed.map((x) => `“${plainText(textOf(x.r[titleName])) || x.r.id}”: ${plainText((x.a.body && x.a.body.message) || String(x.a.status))}`).join("; ")}`;
    o.ctx.navigate(location.hash, { text, kind: failed.length > 0 ? "error" : "success" }, true);
  });

  const pager = pagerOf(paging, state, go);
  fill(
    results,
    h("p", { id: "list-count", class: "list-count" }, `${paging.total} ${paging.total === 1 ? "item" : "items"}${paging.pages > 1 ? `, page ${state.page} of ${paging.pages}` : ""}`),
    bulk.length > 0 ? h("div", { class: "bulk-bar", role: "group", "aria-label": "Bulk actions" }, bulkSelect, bulkApply, bulkCount) : null,
    h("div", { class: "table-wrap" }, table),
    pager,
  );
}

function pagerOf(paging, state, go) {
  if (paging.pages <= 1) return null;
  const button = (text, page, disabled, aria) => h("button", { type: "button", class: "button", disabled, "aria-label": aria, onclick: () => go({ page }) }, text);
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    button("« First", 1, state.page <= 1, "First page"),
    button("‹ Previous", state.page - 1, state.page <= 1, "Previous page"),
    h("span", { class: "pager-status" }, `Page ${state.page} of ${paging.pages}`),
    button("Next ›", state.page + 1, state.page >= paging.pages, "Next page"),
    button("Last »", paging.pages, state.page >= paging.pages, "Last page"),
  );
}

/** Author names of a page of records (one search of the site's authors by id). */
async function authorNames(records) {
  const names = new Map();
  if (site.me) names.set(String(site.me.id), `${site.me.name} (you)`);
  const ids = [...new Set(records.map((r) => r.author).filter((a) => a !== undefined && a !== null && a !== "" && !names.has(String(a))))];
  if (ids.length === 0) return names;
  const res = await api("GET", "wp/v2/users", { query: { who: "authors", include: ids.join(","), per_page: Math.min(100, ids.length) } });
  if (res.ok) for (const u of listOf(res.body)) names.set(String(u.id), u.name);
  return names;
}

function formatDate(value) {
  const text = textOf(value);
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})/.exec(text);
  return m ? `${m[1]} ${m[2]}` : text;
}

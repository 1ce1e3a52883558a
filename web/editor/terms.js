// The terms screen of a taxonomy: a tree for hierarchical ones (the first
// pages of terms, by name, with "show more"), a paged table for flat ones and
// for searches; create, edit (rename, change the slug or description, move
// to another parent) and delete, with each term's count linking to the list
// of posts filtered by it. The create and edit forms are generated from the
// term routes' arguments, like the post forms.

import { api } from "./api.js";
import { announce, confirmDialog, fill, flashOf, h, humanize, nextId, plainText } from "./dom.js";
import { bodyOf, buildField, planFields } from "./fields.js";
import { listOf, pagingOf, perPageFor, routesOf, site, typeCan } from "./model.js";

const TREE_PAGE = 100;

/** ctx: { main, taxonomy, params, navigate, flash, guard }. */
export async function termsScreen(ctx) {
  const { main, taxonomy: tax, params } = ctx;
  const routes = await routesOf(tax);
  const label = (tax.labels && tax.labels.name) || humanize(tax.slug);
  const singular = (tax.labels && tax.labels.singular_name) || label;
  document.title = `${label} · Editor`;
  const heading = h("h1", { tabindex: "-1" }, label);
  const notice = h("div", { class: "form-notice", tabindex: "-1" });
  const canManage = typeCan(tax, "manage_terms") || typeCan(tax, "edit_terms");
  const canDelete = typeCan(tax, "delete_terms") || typeCan(tax, "manage_terms");
  const say = (text, kind = "success") => {
    fill(notice, h("p", { class: `notice ${kind}` }, text));
    announce(text);
  };
  const search = params.get("search") || "";
  const page = Math.max(1, Number(params.get("page")) || 1);
  const reload = (flash) => ctx.navigate(location.hash, flash, true);

  // ---- Create ------------------------------------------------------------
  let createPanel = null;
  if (routes.create && canManage) {
    createPanel = termForm({ tax, routes, record: null, singular, onDone: (answer) => reload(`${singular} “${plainText(answer.name)}” added.`), guard: ctx.guard });
  }

  // ---- List ----------------------------------------------------------------
  const listArgs = (routes.list && routes.list.args) || {};
  const tree = tax.hierarchical && search === "";
  const perPage = tree ? perPageFor(routes.list, TREE_PAGE) || TREE_PAGE : perPageFor(routes.list, 20) || 20;
  const searchForm = h("form", { class: "filters", role: "search", "aria-label": `Search ${label.toLowerCase()}` });
  if (listArgs.search) {
    const id = nextId("tsearch");
    searchForm.append(h("div", { class: "field" }, h("label", { for: id }, "Search"), h("input", { id, type: "search", name: "search", value: search })), h("div", { class: "field field-submit" }, h("button", { type: "submit", class: "button" }, "Search")));
    searchForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = String(new FormData(searchForm).get("search") || "").trim();
      ctx.navigate(`#/taxonomies/${tax.slug}${text ? `?search=${encodeURIComponent(text)}` : ""}`);
    });
  }
  const results = h("div", { class: "results" });
  const editor = h("div", { class: "term-editor" });
  // As WordPress's term screens: the forms beside the list on wide screens, above it on phones.
  fill(
    main,
    heading,
    notice,
    h(
      "div",
      { class: createPanel ? "terms-layout" : "terms-layout single" },
      createPanel || routes.update ? h("div", { class: "terms-forms" }, editor, createPanel ? h("section", { class: "box", "aria-labelledby": "add-term" }, h("h2", { id: "add-term" }, `Add ${singular.toLowerCase()}`), createPanel) : null) : null,
      h("section", { class: "terms-list", "aria-label": label }, listArgs.search ? searchForm : null, results),
    ),
  );
  const flash = flashOf(ctx.flash);
  if (flash) say(flash.text, flash.kind);

  const terms = [];
  let total = 0;
  let pages = 1;
  let loadedPages = 0;
  const load = async (p) => {
    const res = await api("GET", routes.path, { query: { page: p, per_page: perPage, hide_empty: listArgs.hide_empty ? 0 : undefined, search: search || undefined, orderby: listArgs.orderby ? "name" : undefined, order: listArgs.order ? "asc" : undefined } });
    if (!res.ok) {
      fill(results, h("p", { class: "notice error", role: "alert" }, plainText((res.body && res.body.message) || String(res.status))));
      return false;
    }
    const paging = pagingOf(res, perPage);
    total = paging.total;
    pages = paging.pages;
    loadedPages = p;
    terms.push(...listOf(res.body));
    return true;
  };
  if (!(await load(tree ? 1 : page))) return;

  /** The post type list a count links to (the first type of the taxonomy the user may edit). */
  const countType = site.types.find((t) => (tax.types || []).includes(t.slug) || (t.taxonomies || []).includes(tax.slug));

  const edit = (term) => {
    fill(
      editor,
      h(
        "section",
        { class: "box", "aria-labelledby": "edit-term" },
        h("h2", { id: "edit-term", tabindex: "-1" }, `Edit “${plainText(term.name)}”`),
        termForm({
          tax,
          routes,
          record: term,
          singular,
          guard: ctx.guard,
          onDone: (answer) => reload(`${singular} “${plainText(answer.name)}” saved.`),
          onCancel: () => {
            fill(editor);
            ctx.guard.setDirty(false);
          },
        }),
      ),
    );
    editor.querySelector("h2").focus();
  };

  const remove = async (term) => {
    const name = plainText(term.name);
    const ok = await confirmDialog({ title: `Delete ${singular.toLowerCase()}?`, message: `“${name}” will be deleted. Posts keep their other ${label.toLowerCase()}.`, confirm: "Delete", danger: true });
    if (!ok) return;
    const res = await api("DELETE", routes.itemPath(term.id), { query: routes.remove.args && routes.remove.args.force ? { force: "true" } : undefined });
    if (res.ok) reload(`${singular} “${name}” deleted.`);
    else say(`Not deleted: ${plainText((res.body && res.body.message) || String(res.status))}`, "error");
  };

  const row = (term, depth) => {
    const name = plainText(term.name);
    const count = Number(term.count || 0);
    const countCell = countType && count > 0 ? h("a", { href: `#/types/${countType.slug}?${tax.rest_base}=${term.id}`, "aria-label": `${count} posts in ${name}` }, String(count)) : String(count);
    return h(
      "tr",
      { dataset: { id: String(term.id) } },
      h("td", { class: `col-title depth-${Math.min(depth, 5)}`, "data-label": "Name" }, depth > 0 ? h("span", { "aria-hidden": "true", class: "tree-dash" }, "— ".repeat(depth)) : null, h("span", { class: "row-title" }, name)),
      h("td", { "data-label": "Slug" }, term.slug || ""),
      h("td", { "data-label": "Description" }, plainText(term.description || "")),
      h("td", { "data-label": "Count", class: "col-count" }, countCell),
      h(
        "td",
        { class: "col-actions", "data-label": "Actions" },
        routes.update && canManage ? h("button", { type: "button", class: "button small", "aria-label": `Edit ${name}`, onclick: () => edit(term) }, "Edit") : null,
        routes.remove && canDelete ? h("button", { type: "button", class: "button small danger-link", "aria-label": `Delete ${name}`, onclick: () => void remove(term) }, "Delete") : null,
      ),
    );
  };

  const draw = () => {
    let rows;
    if (tree) {
      const byId = new Map(terms.map((t) => [Number(t.id), t]));
      const kids = new Map();
      for (const t of terms) {
        const parent = byId.has(Number(t.parent)) ? Number(t.parent) : 0;
        if (!kids.has(parent)) kids.set(parent, []);
        kids.get(parent).push(t);
      }
      rows = [];
      const walk = (parent, depth) => {
        for (const t of kids.get(parent) || []) {
          rows.push(row(t, depth));
          walk(Number(t.id), depth + 1);
        }
      };
      walk(0, 0);
    } else rows = terms.map((t) => row(t, 0));
    const table = h(
      "table",
      { class: "records terms" },
      h("caption", { class: "visually-hidden" }, label),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "Slug"), h("th", { scope: "col" }, "Description"), h("th", { scope: "col" }, "Count"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
      h("tbody", {}, rows),
    );
    const more = tree && loadedPages < pages ? h("button", { type: "button", class: "button", onclick: async () => (await load(loadedPages + 1)) && draw() }, `Show more (${terms.length} of ${total})`) : null;
    const pager =
      !tree && pages > 1
        ? h(
            "nav",
            { class: "pager", "aria-label": "Pages" },
            h("button", { type: "button", class: "button", disabled: page <= 1, onclick: () => ctx.navigate(pageHash(tax, search, page - 1)) }, "‹ Previous"),
            h("span", { class: "pager-status" }, `Page ${page} of ${pages}`),
            h("button", { type: "button", class: "button", disabled: page >= pages, onclick: () => ctx.navigate(pageHash(tax, search, page + 1)) }, "Next ›"),
          )
        : null;
    fill(
      results,
      h("p", { class: "list-count" }, `${total} ${total === 1 ? singular.toLowerCase() : label.toLowerCase()}`),
      terms.length === 0 ? h("p", { class: "empty" }, search ? "No matches." : `No ${label.toLowerCase()} yet.`) : h("div", { class: "table-wrap" }, table),
      more,
      pager,
    );
  };
  draw();
}

function pageHash(tax, search, page) {
  const q = new URLSearchParams();
  if (search) q.set("search", search);
  if (page > 1) q.set("page", String(page));
  const qs = q.toString();
  return `#/taxonomies/${tax.slug}${qs ? `?${qs}` : ""}`;
}

/** The create or edit form of a term, from the route's arguments; the API's messages at their fields. */
function termForm({ tax, routes, record, singular, onDone, onCancel, guard }) {
  const endpoint = record ? routes.update : routes.create;
  const args = (endpoint && endpoint.args) || {};
  const mode = record ? "edit" : "create";
  const plan = planFields({ args, record, mode, taxonomies: [], skip: routes.common, parentTaxonomy: tax.hierarchical ? tax : null });
  const fields = plan.map((spec) => buildField(spec, { record, mode, compact: true, onChange: () => guard.setDirty(true), parentTaxonomy: tax.hierarchical ? tax : null }));
  const status = h("div", { class: "form-status" });
  const form = h("form", { class: "term-form", novalidate: true }, fields.map((f) => f.element), h("div", { class: "buttons" }, h("button", { type: "submit", class: "button primary" }, record ? `Save ${singular.toLowerCase()}` : `Add ${singular.toLowerCase()}`), onCancel ? h("button", { type: "button", class: "button", onclick: onCancel }, "Cancel") : null), status);
  let etag = null;
  // The edit form reads the term first, for its ETag (a safe save, as for posts).
  if (record) void api("GET", routes.itemPath(record.id)).then((res) => (etag = res.ok ? res.etag : null));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    for (const f of fields) f.showError(null);
    fill(status);
    const body = bodyOf(fields, mode);
    const res = await api("POST", record ? routes.itemPath(record.id) : routes.path, { body, ifMatch: etag || undefined });
    if (res.ok) {
      guard.setDirty(false);
      onDone(res.body);
      return;
    }
    const params = res.body && res.body.data && res.body.data.params;
    let first = null;
    if (res.status === 400 && params) {
      for (const [name, message] of Object.entries(params)) {
        const field = fields.find((f) => f.name === name);
        if (field) {
          field.showError(message);
          if (!first) first = field;
        }
      }
    }
    const message = res.status === 412 ? `This ${singular.toLowerCase()} was changed by someone else. Reload the page to see their version.` : plainText((res.body && res.body.message) || `The server answered ${res.status}.`);
    fill(status, h("p", { class: "notice error" }, `Not saved: ${message}`));
    announce(`Not saved: ${message} ${params ? Object.values(params).join(" ") : ""}`);
    if (first) first.focus();
  });
  return form;
}

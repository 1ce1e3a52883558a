// The edit screen of a post type, generated from its write route: the
// collection's POST arguments when creating, the item route's when editing.
// Widget groups (widgets.js) take over the arguments they claim; every other
// argument is a generic field (fields.js). The status argument becomes the
// save buttons (Save draft / Submit for review / Publish / Schedule), as the
// user's capabilities allow.
//
// Safe saves: the form keeps the ETag of the record it loaded and sends it
// as If-Match; a 412 shows the other person's version beside the user's
// input (kept), with "overwrite" and "load theirs".

import { api } from "./api.js";
import { announce, confirmDialog, fill, flashOf, h, humanize, plainText, showAlert } from "./dom.js";
import { bodyOf, buildField, FieldError, planFields } from "./fields.js";
import { canDeleteRecord, routesOf, site, statusesOf, statusLabel, taxonomiesOf, textOf, titleField, typeCan, typeLabel } from "./model.js";
import { widgetGroupsFor } from "./widgets.js";

/** Arguments shown in the side column (publishing and classification), the rest in the main one. */
const SIDE = new Set(["date", "author", "password", "slug", "menu_order", "parent", "sticky", "featured"]);

/** The query a record is read with, and so written with: If-Match compares with the tag of that same URL. */
function readQuery(routes) {
  return routes.read && routes.read.args && routes.read.args.context ? { context: "edit" } : undefined;
}

/** Loads the record (edit) and draws the form; `ctx`: { main, type, id, guard, navigate, flash }. */
export async function editScreen(ctx) {
  const { main, type } = ctx;
  const routes = await routesOf(type);
  const mode = ctx.id === null ? "create" : "edit";
  const endpoint = mode === "create" ? routes.create : routes.update;
  const singular = typeLabel(type, false);
  if (!endpoint) {
    fill(main, h("h1", { tabindex: "-1" }, singular), h("p", {}, mode === "create" ? `New ${singular.toLowerCase()} cannot be created through the API.` : `This ${singular.toLowerCase()} cannot be changed through the API.`));
    return;
  }
  let record = null;
  let etag = null;
  if (mode === "edit") {
    const res = await api("GET", routes.itemPath(ctx.id), { query: readQuery(routes) });
    if (!res.ok) {
      fill(main, h("h1", { tabindex: "-1" }, singular), h("p", { class: "notice error" }, (res.body && res.body.message) || `The server answered ${res.status}.`), backLink(type));
      return;
    }
    record = res.body;
    etag = res.etag;
  }
  const form = new EditForm({ ...ctx, routes, mode, endpoint, record, etag });
  form.render();
}

function backLink(type) {
  return h("p", {}, h("a", { href: `#/types/${type.slug}` }, `Back to ${typeLabel(type).toLowerCase()}`));
}

class EditForm {
  constructor(opts) {
    Object.assign(this, opts);
    this.fields = [];
    this.groups = [];
    this.singular = typeLabel(opts.type, false);
    this.args = opts.endpoint.args || {};
    this.titleName = titleField(opts.routes);
    this.canPublish = typeCan(opts.type, "publish_posts");
  }

  changed() {
    this.guard.setDirty(true);
  }

  render() {
    const { type, record, mode } = this;
    const title = mode === "create" ? `Add ${this.singular.toLowerCase()}` : `Edit ${this.singular.toLowerCase()}`;
    document.title = `${title} · Editor`;
    this.heading = h("h1", { tabindex: "-1" }, title);
    this.notice = h("div", { class: "form-notice", tabindex: "-1" });
    this.conflict = h("section", { class: "conflict", tabindex: "-1", hidden: true, "aria-labelledby": "conflict-title" });
    this.summary = h("div", { class: "error-summary", tabindex: "-1", hidden: true });

    // Widget groups first: what they claim is not generic.
    const groups = widgetGroupsFor(type);
    const claimed = new Set(groups.flatMap((g) => g.fields || []));
    const taxonomies = taxonomiesOf(type);
    const plan = planFields({ args: this.args, record, mode, taxonomies, skip: new Set([...claimed, ...this.routes.common]), createArgs: this.routes.create && this.routes.create.args });
    this.hasStatus = plan.some((p) => p.kind === "status");
    // The author picker is for users who may give a post to someone else.
    const shown = plan.filter((p) => p.kind !== "status" && !(p.kind === "author" && !typeCan(type, "edit_others_posts")));
    const fctx = { record, mode, onChange: () => this.changed(), labels: { [this.titleName]: "Title", date: "Publish date" } };
    this.fields = shown.map((spec) => buildField(spec, fctx));

    const main = h("div", { class: "form-main" });
    const side = h("div", { class: "form-side" });
    const publish = h("section", { class: "box publish-box", "aria-labelledby": "publish-title" }, h("h2", { id: "publish-title" }, "Publish"));
    const terms = [];
    // Title first, long text next, then the rest in the route's order.
    const rank = (f) => (f.name === this.titleName ? 0 : f.kind === "textarea" ? 1 : 2);
    for (const field of [...this.fields].sort((a, b) => rank(a) - rank(b))) {
      if (field.kind === "term-tree" || field.kind === "term-tokens") terms.push(field.element);
      else if (SIDE.has(field.name)) publish.append(field.element);
      else main.append(field.element);
    }
    for (const group of groups) {
      const instance = group.render({ type, record, args: this.args, api, mode, changed: () => this.changed() });
      const legendId = `group-${group.id}`;
      const fieldset = h("fieldset", { class: "widget-group", dataset: { group: group.id } }, h("legend", { id: legendId }, group.legend), instance.element);
      this.groups.push({ group, instance, element: fieldset });
      main.append(fieldset);
    }
    const statusLine = this.statusLine();
    if (statusLine) publish.append(statusLine);
    else publish.querySelector("h2").textContent = "Save";
    publish.append(this.buttons());
    side.append(publish, ...terms);

    const formEl = h("form", { class: "edit-form", novalidate: true, "aria-labelledby": "form-title" }, this.summary, this.conflict, h("div", { class: "form-columns" }, main, side));
    formEl.addEventListener("submit", (event) => {
      event.preventDefault();
      // Enter in a text field: the primary button's action.
      const primary = formEl.querySelector("button.primary[data-action]");
      if (primary) primary.click();
    });
    this.heading.id = "form-title";
    this.formEl = formEl;
    const crumbs = h("p", { class: "crumbs" }, h("a", { href: `#/types/${type.slug}` }, typeLabel(type)));
    const meta = record ? h("p", { class: "record-meta" }, `${statusLabel(record.status || "")}`, record.id ? ` · ID ${record.id}` : "") : null;
    fill(this.main, crumbs, this.heading, meta, this.notice, formEl);
    const flash = flashOf(this.flash);
    if (flash) this.say(flash.text, flash.kind);
    this.heading.focus();
    this.guard.setDirty(false);
  }

  /** The current status, in words, and the schedule hint. */
  statusLine() {
    if (!this.hasStatus) return null;
    const status = this.record ? this.record.status : null;
    return h("p", { class: "status-line" }, "Status: ", h("strong", {}, status ? statusLabel(status) : "Not saved yet"));
  }

  /** The save buttons the route and the user's capabilities allow. */
  buttons() {
    const box = h("div", { class: "buttons" });
    const add = (label, action, cls = "button") => {
      const b = h("button", { type: "button", class: cls, dataset: { action } }, label);
      b.addEventListener("click", () => void this.act(action));
      box.append(b);
      return b;
    };
    const { record, mode } = this;
    const status = record ? record.status : null;
    const statuses = statusesOf(this.type, this.routes);
    if (!this.hasStatus) {
      add(mode === "create" ? `Create ${this.singular.toLowerCase()}` : "Save changes", "save", "button primary");
    } else if (status === "trash") {
      add("Restore", "restore", "button primary");
    } else if (status === "publish" || status === "future" || status === "private") {
      add("Update", "save", "button primary");
      if (statuses.includes("draft")) add("Switch to draft", "draft");
    } else {
      if (status === "pending" && !this.canPublish) add("Save as pending", "save", "button");
      else add("Save draft", "draft");
      if (this.canPublish) {
        const publish = add("Publish", "publish", "button primary");
        this.publishButton = publish;
        // A future publish date turns "Publish" into "Schedule" (the API then makes the post "future").
        const date = this.fields.find((f) => f.name === "date");
        if (date) {
          const update = () => (publish.textContent = isFuture(date.value()) ? "Schedule" : "Publish");
          date.control.addEventListener("input", update);
          update();
        }
      } else if (statuses.includes("pending") && status !== "pending") {
        add("Submit for review", "pending", "button primary");
      }
    }
    if (record && this.routes.remove && canDeleteRecord(this.type, record)) {
      if (status !== "trash") add("Move to trash", "trash", "button danger-link");
      else if (this.routes.remove.args && this.routes.remove.args.force) add("Delete permanently", "delete", "button danger");
    }
    return box;
  }

  /** The request body: generic fields and each group's value. */
  body() {
    const body = bodyOf(this.fields, this.mode);
    for (const { instance } of this.groups) Object.assign(body, instance.value());
    return body;
  }

  clearErrors() {
    for (const f of this.fields) f.showError(null);
    for (const { instance } of this.groups) instance.showErrors && instance.showErrors({});
    this.summary.hidden = true;
    fill(this.summary);
    showAlert(null);
  }

  say(text, kind = "success") {
    fill(this.notice, h("p", { class: `notice ${kind}` }, text));
    announce(text);
  }

  async act(action) {
    if (this.busy) return;
    if (action === "trash" || action === "delete") return this.remove(action === "delete");
    this.clearErrors();
    let body;
    try {
      body = this.body();
    } catch (err) {
      if (err instanceof FieldError) return this.showErrors({ [err.field]: err.message }, "This form has a mistake.");
      throw err;
    }
    if (action === "draft") body.status = "draft";
    else if (action === "publish") body.status = "publish";
    else if (action === "pending") body.status = "pending";
    else if (action === "restore") body.status = "draft";
    else if (this.hasStatus && this.record && this.record.status) {
      // "Update" keeps the status, and says so: some APIs (the original
      // calendar's, for one) publish or draft a post whose update names no
      // status. A scheduled post is sent as "publish" and stays scheduled
      // while its date is in the future.
      body.status = this.record.status === "future" ? "publish" : this.record.status;
    }
    this.lastAction = action;
    await this.send(body, this.etag);
  }

  async send(body, ifMatch) {
    this.busy = true;
    this.formEl.setAttribute("aria-busy", "true");
    announce("Saving…");
    const path = this.mode === "create" ? this.routes.path : this.routes.itemPath(this.record.id);
    let res;
    try {
      res = await api("POST", path, { body, ifMatch: this.mode === "edit" ? ifMatch : undefined, query: this.mode === "edit" ? readQuery(this.routes) : undefined });
    } catch {
      res = { status: 0, ok: false, body: { message: "The server could not be reached. Your changes are still here; try again." } };
    } finally {
      this.busy = false;
      this.formEl.removeAttribute("aria-busy");
    }
    if (res.ok) return this.saved(res.body);
    if (res.status === 412) return this.showConflict(body, (etag) => this.send(body, etag));
    const params = res.body && res.body.data && res.body.data.params;
    if (res.status === 400 && params && typeof params === "object") return this.showErrors(params, res.body.message);
    // WordPress's type errors name their one parameter (`meta.isbn`) in `data.param`.
    const param = res.body && res.body.data && res.body.data.param;
    if (res.status === 400 && typeof param === "string" && this.fieldNamed(param)) return this.showErrors({ [param]: res.body.message }, res.body.message);
    const message = (res.body && res.body.message) || `The server answered ${res.status}.`;
    this.say(`Not saved: ${plainText(message)}`, "error");
    showAlert(`Not saved: ${plainText(message)}`);
  }

  async saved(answer) {
    const status = answer && answer.status;
    // Said after what the user asked for, and what the API made of it (a future date makes "publish" scheduled).
    const verb =
      {
        publish: status === "future" ? "Scheduled." : status === "publish" ? "Published." : `Saved as ${statusLabel(status || "").toLowerCase()}.`,
        draft: "Draft saved.",
        pending: "Submitted for review.",
        restore: "Restored as a draft.",
      }[this.lastAction] || "Saved.";
    const text = this.mode === "create" ? `${this.singular} created. ${verb === "Saved." ? "" : verb}`.trim() : verb;
    this.guard.setDirty(false);
    const id = answer && answer.id !== undefined ? answer.id : this.record && this.record.id;
    // Re-read: the write's answer carries no ETag, and the form must show what was stored.
    this.navigate(`#/types/${this.type.slug}/${id}`, text, this.mode === "edit");
  }

  /** The field of an argument name, or of a member of a group (`meta.isbn`, `meta[isbn]`); null when the form has none. */
  fieldNamed(name) {
    const m = /^([^.[]+)(?:\.|\[)([^\]]+)\]?$/.exec(name);
    if (m) {
      const group = this.fields.find((f) => f.name === m[1] && f.member);
      return group ? group.member(m[2]) : null;
    }
    return this.fields.find((f) => f.name === name) || null;
  }

  /** Shows the API's messages at their fields; focus goes to the first invalid one. */
  showErrors(params, message) {
    const names = Object.keys(params);
    const owned = new Map();
    for (const entry of this.groups) for (const name of entry.group.fields || []) owned.set(name, entry);
    const links = [];
    let first = null;
    const firstOf = (element, focus) => {
      if (!first || (first.element.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_PRECEDING) !== 0) first = { element, focus };
    };
    for (const entry of this.groups) {
      // Every group sees every message (it shows its own and clears the rest).
      entry.instance.showErrors(params);
      const mine = names.filter((n) => owned.get(n) === entry);
      if (mine.length === 0) continue;
      const name = (entry.group.fields || []).find((n) => mine.includes(n));
      firstOf(entry.element, () => entry.instance.focus(name));
    }
    for (const name of names) {
      const field = this.fieldNamed(name);
      const target = field ? field.element : owned.get(name)?.element;
      if (field) {
        field.showError(params[name]);
        firstOf(field.element, () => field.focus());
      }
      const shown = name === this.titleName ? "title" : name.replace(/^.*[.[]/, "").replace(/\]$/, "");
      const link = h("a", { href: "#" }, `${humanize(shown)}: ${params[name]}`);
      link.addEventListener("click", (event) => {
        event.preventDefault();
        if (field) field.focus();
        else if (owned.has(name)) owned.get(name).instance.focus(name);
        target?.scrollIntoView({ block: "center" });
      });
      links.push(h("li", {}, link));
    }
    const lead = names.length === 1 ? "Not saved: 1 field needs attention." : `Not saved: ${names.length} fields need attention.`;
    fill(this.summary, h("h2", {}, lead), message ? h("p", {}, plainText(message)) : null, h("ul", {}, links));
    this.summary.hidden = false;
    announce(`${lead} ${names.map((n) => params[n]).join(" ")}`);
    if (first) first.focus();
    else this.summary.focus();
  }

  /**
   * 412: someone saved in between. Their version is shown; the user's input
   * stays in the form. `retry(etag)` repeats what the user asked for against
   * their version (overwriting it).
   */
  async showConflict(body, retry) {
    const res = await api("GET", this.routes.itemPath(this.record.id), { query: readQuery(this.routes) });
    const theirs = res.ok ? res.body : null;
    const rows = [];
    const names = new Set([...Object.keys(body).filter((n) => n !== "status")]);
    if (theirs) for (const name of Object.keys(this.args)) if (name in theirs && display(theirs[name]) !== display(this.record[name])) names.add(name);
    for (const name of names) {
      rows.push(
        h(
          "tr",
          {},
          h("th", { scope: "row" }, name === this.titleName ? "Title" : humanize(name)),
          h("td", {}, theirs ? display(theirs[name]) : "—"),
          h("td", {}, name in body ? display(body[name]) : h("span", { class: "muted" }, "(unchanged)")),
        ),
      );
    }
    const overwrite = h("button", { type: "button", class: "button primary" }, Object.keys(body).length > 0 ? "Overwrite with my version" : "Do it anyway");
    const reload = h("button", { type: "button", class: "button" }, "Discard my changes and load theirs");
    overwrite.addEventListener("click", () => {
      this.conflict.hidden = true;
      // The same request (the action the user chose: Publish, Save draft…), now against their version.
      this.etag = res.ok ? res.etag : this.etag;
      this.record = theirs || this.record;
      void retry(this.etag);
    });
    reload.addEventListener("click", () => {
      this.guard.setDirty(false);
      this.navigate(`#/types/${this.type.slug}/${this.record.id}`, "Loaded the latest version.", true);
    });
    fill(
      this.conflict,
      h("h2", { id: "conflict-title" }, "Changed by someone else"),
      h("p", {}, `This ${this.singular.toLowerCase()} was changed by someone else after you opened it, so your changes were not saved. Your input is still in the form below.`),
      rows.length > 0
        ? h("table", { class: "conflict-table" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "Their version"), h("th", { scope: "col" }, "Yours"))), h("tbody", {}, rows))
        : null,
      h("div", { class: "buttons" }, overwrite, reload),
    );
    this.conflict.hidden = false;
    announce(`Not saved: this ${this.singular.toLowerCase()} was changed by someone else.`);
    this.conflict.focus();
  }

  async remove(permanently, ifMatch = this.etag) {
    const name = plainText(textOf(this.record[this.titleName])) || `#${this.record.id}`;
    if (permanently) {
      const ok = await confirmDialog({ title: "Delete permanently?", message: `“${name}” will be deleted for good. This cannot be undone.`, confirm: "Delete permanently", danger: true });
      if (!ok) return;
    }
    const query = { ...(readQuery(this.routes) || {}), ...(permanently ? { force: "true" } : {}) };
    const res = await api("DELETE", this.routes.itemPath(this.record.id), { query, ifMatch: permanently ? undefined : ifMatch });
    if (res.status === 412) return this.showConflict({}, (etag) => this.remove(false, etag));
    if (!res.ok) {
      this.say(`Not done: ${plainText((res.body && res.body.message) || String(res.status))}`, "error");
      return;
    }
    this.guard.setDirty(false);
    this.navigate(`#/types/${this.type.slug}`, permanently ? `“${name}” deleted permanently.` : `“${name}” moved to the trash.`);
  }
}

function isFuture(value) {
  if (!value) return false;
  const when = new Date(String(value).replace(" ", "T"));
  return Number.isFinite(when.getTime()) && when.getTime() > Date.now();
}

/** A value as one line of text for the conflict table. */
function display(value) {
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map((v) => (v && typeof v === "object" ? v.name || v.id : v)).join(", ");
  if (typeof value === "object") {
    if ("raw" in value || "rendered" in value) return plainText(textOf(value));
    if (typeof value.name === "string" || typeof value.title === "string") return plainText(value.name ?? value.title);
    return JSON.stringify(value);
  }
  return plainText(String(value));
}

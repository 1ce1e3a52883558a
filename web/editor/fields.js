// Form fields generated from a route's argument schema (the JSON schema of
// each argument, as the namespace index publishes it). One field per
// argument; the kind follows the schema:
//   string → text (textarea for long text: content/description/excerpt),
//   format date-time (or the publish `date`) → datetime-local, date → date,
//   uri → url, email → email; `password` → password;
//   integer/number → number; boolean → checkbox; enum → select;
//   array of integers named like one of the type's taxonomies → term picker;
//   other arrays → comma-separated; no type and an object value → JSON.
// The API validates; the form only mirrors its limits as attributes
// (required, maxlength, min, max) for assistive technology, and shows the
// API's own messages next to the fields (form `novalidate`).

import { api } from "./api.js";
import { h, humanize, nextId, plainText } from "./dom.js";
import { combobox, resolveTerms, searchTerms, termTokens, termTree } from "./picker.js";
import { listOf, site, textOf, typeCan } from "./model.js";

const LONG_TEXT = new Set(["content", "description", "excerpt", "bio", "summary", "notes"]);

function typesOf(schema) {
  const t = schema.type;
  return Array.isArray(t) ? t : t ? [t] : [];
}

/** "2030-01-02 10:00:00" / "2030-01-02T10:00:00Z" → "2030-01-02T10:00:00" (datetime-local's form); "" when not a date. */
function toLocalInput(value) {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?/.exec(textOf(value));
  return m ? `${m[1]}T${m[2]}${m[3] || ":00"}` : "";
}

/** datetime-local's "2030-01-02T10:00" → "2030-01-02 10:00:00", the form every date parser of the API takes. */
function fromLocalInput(value) {
  if (value === "") return "";
  const [date, time = "00:00"] = value.split("T");
  return `${date} ${time.length === 5 ? `${time}:00` : time}`;
}

/** A scalar record value for a text input: plain strings, `{ raw | rendered }`, or an object's `url` or `id` (an image). */
function scalarText(value) {
  if (value === null || value === undefined || value === false) return "";
  if (typeof value === "object" && !Array.isArray(value)) {
    if ("raw" in value || "rendered" in value) return textOf(value);
    if (typeof value.url === "string") return value.url;
    if (value.id !== undefined) return String(value.id);
    return "";
  }
  if (Array.isArray(value)) return value.map((v) => scalarText(v)).join(", ");
  return String(value);
}

/** Ids of a record value that holds ids or objects with an `id` (linked records, terms). */
function idsOf(value) {
  const list = Array.isArray(value) ? value : value === null || value === undefined || value === false || value === "" ? [] : [value];
  return list.map((v) => (v && typeof v === "object" ? Number(v.id) : Number(v))).filter((n) => Number.isFinite(n) && n > 0);
}

/** The taxonomy an argument assigns, when its name is a taxonomy's rest_base (or slug) and it takes a list. */
export function taxonomyForArg(name, schema, taxonomies) {
  if (!(typesOf(schema).includes("array") || schema.items)) return null;
  return taxonomies.find((t) => t.rest_base === name || t.slug === name) || null;
}

/** WordPress's text members (`title`, `content`, `excerpt`): an object argument with a `raw` property, which also takes a plain string. */
function isRawText(schema) {
  return Boolean(schema.properties && typeof schema.properties === "object" && !Array.isArray(schema.properties) && schema.properties.raw);
}

/** An object argument with named properties (WordPress's registered `meta`): a group of fields, one per property. */
function isGroup(schema) {
  return typesOf(schema).includes("object") && schema.properties && typeof schema.properties === "object" && !Array.isArray(schema.properties) && !isRawText(schema);
}

/**
 * Which of a write route's arguments become generic fields, and how.
 * ctx: { args, record, mode, taxonomies, skip: Set, createArgs }.
 * Answers [{ name, schema, kind, taxonomy?, members? }] in argument order;
 * a group's `members` are the plans of its properties.
 */
export function planFields(ctx) {
  const plan = [];
  const names = Object.keys(ctx.args);
  for (const name of names) {
    const schema = ctx.args[name] || {};
    if (ctx.skip.has(name) || name === "id") continue;
    // WordPress's page template: calpress has no theme to choose one from.
    if (name === "template") continue;
    if (isGroup(schema)) {
      // An object with nothing to fill in (a taxonomy's empty `meta`) is no field.
      if (Object.keys(schema.properties).length === 0) continue;
      const record = ctx.record && ctx.record[name] && typeof ctx.record[name] === "object" ? ctx.record[name] : null;
      const members = planFields({ ...ctx, args: schema.properties, record, skip: new Set() });
      plan.push({ name, schema, kind: "group", members });
      continue;
    }
    // `date_utc` / `date_gmt` repeat `date` in another zone: one field is enough.
    const twin = /^(.*)_(utc|gmt)$/.exec(name);
    if (twin && names.includes(twin[1])) continue;
    // An item route's `password` that creating does not take unlocks reading; it is not the post's password.
    if (name === "password" && ctx.createArgs && !("password" in ctx.createArgs)) continue;
    const types = typesOf(schema);
    const value = ctx.record ? ctx.record[name] : undefined;
    let kind;
    const taxonomy = taxonomyForArg(name, schema, ctx.taxonomies);
    if (name === "status") kind = "status";
    else if (taxonomy) kind = taxonomy.hierarchical ? "term-tree" : "term-tokens";
    else if (name === "author" && types.includes("integer")) kind = "author";
    else if (name === "parent" && ctx.parentTaxonomy) kind = "parent-term";
    else if (isRawText(schema)) kind = LONG_TEXT.has(name) ? "textarea" : "text";
    else if (Array.isArray(schema.enum) && schema.enum.length > 0) kind = "select";
    else if (types.includes("boolean")) kind = "checkbox";
    else if (types.includes("integer") || types.includes("number")) kind = "number";
    else if (types.includes("array") || schema.items) kind = schema.items && typesOf(schema.items).includes("integer") ? "ids" : "list";
    else if (types.includes("object") || (types.length === 0 && value !== null && typeof value === "object" && !("raw" in value) && !("rendered" in value) && !("url" in value) && !("id" in value))) kind = "json";
    else if (name === "password") kind = "password";
    else if (schema.format === "date-time" || name === "date") kind = "datetime";
    else if (schema.format === "date") kind = "date";
    else if (schema.format === "uri" || schema.format === "url") kind = "url";
    else if (schema.format === "email" || name === "email") kind = "email";
    else if (LONG_TEXT.has(name) || (typeof schema.maxLength === "number" && schema.maxLength > 300)) kind = "textarea";
    else kind = "text";
    plan.push({ name, schema, kind, taxonomy });
  }
  return plan;
}

/**
 * One field: { name, kind, element, focus(), dirty(), value() → API value or
 * undefined (nothing to send), present() (has a value, for creates),
 * showError(message|null), error (the element holding the message),
 * control (the element focus goes to) }.
 * fctx: { record, mode, onChange(), label?, parentTaxonomy }.
 */
export function buildField(spec, fctx) {
  const { name, schema, kind } = spec;
  const id = nextId(`f-${name}`);
  const hintId = schema.description ? `${id}-hint` : undefined;
  const errorId = `${id}-error`;
  const labelText = fctx.labels?.[name] || humanize(name);
  const required = schema.required === true;
  const raw = fctx.record ? fctx.record[name] : undefined;
  const error = h("p", { class: "field-error", id: errorId, hidden: true });
  const hint = hintId ? h("p", { class: "hint", id: hintId }, schema.description) : null;
  const label = (forId) => h("label", { for: forId }, labelText, required ? h("span", { class: "required" }, " (required)") : null);
  const describe = (el) => {
    if (hintId) el.setAttribute("aria-describedby", hintId);
    return el;
  };
  const wrap = (control, labelEl, cls = "") => h("div", { class: `field field-${kind} ${cls}`.trim(), dataset: { field: name } }, labelEl, hint, control, error);

  const field = {
    name,
    kind,
    required,
    error,
    showError(message) {
      const target = field.control;
      if (message) {
        error.textContent = message;
        error.hidden = false;
        if (target) {
          target.setAttribute("aria-invalid", "true");
          const ids = new Set((target.getAttribute("aria-describedby") || "").split(" ").filter(Boolean));
          ids.add(errorId);
          target.setAttribute("aria-describedby", [...ids].join(" "));
        }
        field.element.classList.add("invalid");
      } else {
        error.textContent = "";
        error.hidden = true;
        if (target) {
          target.removeAttribute("aria-invalid");
          const ids = (target.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && x !== errorId);
          if (ids.length > 0) target.setAttribute("aria-describedby", ids.join(" "));
          else target.removeAttribute("aria-describedby");
        }
        field.element.classList.remove("invalid");
      }
    },
    focus() {
      field.control?.focus();
    },
  };

  // ---- Plain inputs: the input's own state is compared with its first state.
  const plain = (input, read, present = () => input.value !== "") => {
    input.id = id;
    input.name = name;
    if (required) {
      input.setAttribute("aria-required", "true");
    }
    describe(input);
    const initial = input.type === "checkbox" ? input.checked : input.value;
    input.addEventListener("input", fctx.onChange);
    input.addEventListener("change", fctx.onChange);
    field.control = input;
    field.dirty = () => (input.type === "checkbox" ? input.checked !== initial : input.value !== initial);
    field.value = read;
    field.present = present;
    return input;
  };

  switch (kind) {
    case "checkbox": {
      const input = h("input", { type: "checkbox", checked: raw === undefined ? schema.default === true : raw === true || raw === "1" || raw === 1 });
      plain(input, () => input.checked, () => input.checked !== (schema.default === true));
      field.element = h("div", { class: "field field-checkbox", dataset: { field: name } }, h("div", { class: "check-row" }, input, label(id)), hint, error);
      return field;
    }
    case "select": {
      const current = raw === undefined || raw === null ? (fctx.mode === "create" && schema.default !== undefined ? String(schema.default) : "") : String(raw);
      const select = h(
        "select",
        {},
        required && current !== "" ? null : h("option", { value: "" }, "—"),
        schema.enum.map((v) => h("option", { value: String(v), selected: String(v) === current }, String(v))),
      );
      select.value = current;
      plain(select, () => (select.value === "" ? undefined : typesOf(schema).includes("integer") ? Number(select.value) : select.value));
      field.element = wrap(select, label(id));
      return field;
    }
    case "number": {
      const input = h("input", { type: "number", step: typesOf(schema).includes("integer") ? "1" : "any", inputmode: "decimal", value: raw === null || raw === undefined || raw === "" ? "" : String(raw) });
      if (typeof schema.minimum === "number") input.min = String(schema.minimum);
      if (typeof schema.maximum === "number") input.max = String(schema.maximum);
      // An emptied number is not sent: most routes take no null for a number.
      plain(input, () => (input.value === "" ? undefined : Number(input.value)));
      field.element = wrap(input, label(id));
      return field;
    }
    case "datetime":
    case "date": {
      const value = kind === "date" ? textOf(raw).slice(0, 10) : toLocalInput(raw);
      const input = h("input", { type: kind === "date" ? "date" : "datetime-local", step: kind === "date" ? undefined : "1", value });
      plain(input, () => (input.value === "" ? undefined : kind === "date" ? input.value : fromLocalInput(input.value)));
      field.element = wrap(input, label(id));
      return field;
    }
    case "textarea": {
      const area = h("textarea", { rows: name === "excerpt" || fctx.compact ? "3" : "8" });
      area.value = scalarText(raw);
      if (typeof schema.maxLength === "number") area.maxLength = schema.maxLength;
      plain(area, () => area.value);
      field.element = wrap(area, label(id));
      return field;
    }
    case "json": {
      const area = h("textarea", { rows: "4", class: "code", spellcheck: "false" });
      area.value = raw === undefined || raw === null ? "" : JSON.stringify(raw, null, 2);
      plain(area, () => {
        if (area.value.trim() === "") return null;
        try {
          return JSON.parse(area.value);
        } catch {
          throw new FieldError(name, "This is not valid JSON.");
        }
      });
      field.element = wrap(area, label(id));
      return field;
    }
    case "ids":
    case "list": {
      const input = h("input", { type: "text", value: kind === "ids" ? idsOf(raw).join(", ") : Array.isArray(raw) ? raw.map(scalarText).join(", ") : scalarText(raw) });
      plain(input, () => {
        const parts = input.value.split(",").map((s) => s.trim()).filter(Boolean);
        return kind === "ids" ? parts.map(Number).filter((n) => Number.isFinite(n)) : parts;
      });
      field.element = wrap(input, h("label", { for: id }, labelText, h("span", { class: "muted" }, kind === "ids" ? " (IDs, separated by commas)" : " (separated by commas)")));
      return field;
    }
    case "group":
      return groupField(field, spec, fctx, { labelText, hint, error });
    case "term-tree":
    case "term-tokens":
      return termField(field, spec, fctx, { labelText, hint, error, id });
    case "author":
      return authorField(field, spec, fctx, { labelText, hint, error, id });
    case "parent-term":
      return parentField(field, spec, fctx, { labelText, hint, error, id });
    default: {
      const type = { url: "url", email: "email", password: "password" }[kind] || "text";
      const input = h("input", { type, value: scalarText(raw) });
      if (kind === "password") input.autocomplete = "new-password";
      if (kind === "url") input.inputMode = "url";
      if (typeof schema.maxLength === "number") input.maxLength = schema.maxLength;
      if (typeof schema.minLength === "number") input.minLength = schema.minLength;
      plain(input, () => input.value);
      field.element = wrap(input, label(id));
      return field;
    }
  }
}

/** A field's own client-side refusal (JSON that does not parse), shown like the API's. */
export class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

/**
 * A group of fields for an object argument (a type's typed fields, under
 * `meta`): one field per property, the value an object of those to send.
 * `member(name)` finds one, for the API's messages about it (`meta.isbn`).
 */
function groupField(field, spec, fctx, parts) {
  const record = fctx.record && fctx.record[spec.name] && typeof fctx.record[spec.name] === "object" ? fctx.record[spec.name] : null;
  const members = spec.members.map((m) => buildField(m, { ...fctx, record, labels: {} }));
  const legend = spec.schema.description ? spec.schema.description.replace(/\.$/, "") : parts.labelText;
  field.element = h("fieldset", { class: "field field-group", dataset: { field: spec.name } }, h("legend", {}, legend), members.map((m) => m.element), parts.error);
  field.members = members;
  field.member = (name) => members.find((m) => m.name === name) || null;
  // Clearing the group's message clears its members' too (a new save starts clean).
  const showOwn = field.showError;
  field.showError = (message) => {
    showOwn(message);
    if (!message) for (const m of members) m.showError(null);
  };
  field.control = members[0] ? members[0].control : null;
  field.focus = () => members[0]?.focus();
  field.dirty = () => members.some((m) => m.dirty());
  field.present = () => members.some((m) => m.present());
  field.value = () => {
    const out = {};
    for (const m of members) {
      if (fctx.mode === "edit" ? !m.dirty() : !m.present()) continue;
      const v = m.value();
      if (v !== undefined) out[m.name] = v;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  return field;
}

/** Terms of a record: a checkbox tree or tokens; the value is the list of ids. */
function termField(field, spec, fctx, parts) {
  const tax = spec.taxonomy;
  const path = `${(tax.rest_namespace || "wp/v2").replace(/^\/+|\/+$/g, "")}/${tax.rest_base}`;
  const label = (tax.labels && tax.labels.name) || parts.labelText;
  const holder = h("div", { class: "term-holder" }, h("p", { class: "muted" }, "Loading…"));
  const fieldset = h("fieldset", { class: `field field-${spec.kind}`, dataset: { field: spec.name } }, h("legend", {}, label), parts.hint, holder, parts.error);
  let picker = null;
  let initial = "";
  field.element = fieldset;
  field.ready = resolveTerms(path, fctx.record ? fctx.record[spec.name] : []).then((selected) => {
    const options = {
      label: label.toLowerCase(),
      path,
      selected,
      canCreate: typeCan(tax, "manage_terms") || typeCan(tax, "edit_terms"),
      onChange: fctx.onChange,
    };
    picker = spec.kind === "term-tree" ? termTree(options) : termTokens(options);
    initial = JSON.stringify(picker.value());
    holder.replaceChildren(picker.element);
    field.control = picker.element.querySelector("input");
  });
  field.dirty = () => picker !== null && JSON.stringify(picker.value()) !== initial;
  field.value = () => (picker ? picker.value() : undefined);
  field.present = () => picker !== null && picker.value().length > 0;
  field.focus = () => picker?.focus();
  return field;
}

async function authorName(id) {
  if (site.me && String(site.me.id) === String(id)) return site.me.name;
  const res = await api("GET", "wp/v2/users", { query: { who: "authors", include: String(id) } });
  const found = res.ok ? listOf(res.body).find((u) => String(u.id) === String(id)) : null;
  return found ? found.name : `User #${id}`;
}

/** The author: the current one's name and a search of the site's authors (wp/v2/users?who=authors). */
function authorField(field, spec, fctx, parts) {
  const raw = fctx.record ? fctx.record[spec.name] : undefined;
  const initial = raw === undefined || raw === null || raw === "" ? null : Number(raw);
  let current = initial;
  const currentText = h("output", { class: "current-author" }, initial === null ? `${site.me?.name ?? "You"} (you)` : "…");
  if (initial !== null) void authorName(initial).then((name) => (currentText.textContent = name));
  const box = combobox({
    label: `Change ${parts.labelText.toLowerCase()}`,
    labelClass: "sub-label",
    placeholder: "Search authors",
    search: async (text) => {
      const res = await api("GET", "wp/v2/users", { query: { who: "authors", search: text || undefined, per_page: 20 } });
      return res.ok ? listOf(res.body).map((u) => ({ id: Number(u.id), label: u.name, hint: u.slug ? `(${u.slug})` : "" })) : [];
    },
    onPick: (item) => {
      current = item.id;
      currentText.textContent = item.label;
      box.clear();
      fctx.onChange();
    },
  });
  field.element = h("div", { class: "field field-author", dataset: { field: spec.name } }, h("p", { class: "label-like" }, `${parts.labelText}: `, currentText), parts.hint, box.element, parts.error);
  field.control = box.input;
  field.dirty = () => current !== initial;
  field.value = () => (current === null ? undefined : current);
  field.present = () => current !== null;
  return field;
}

/** A term's parent: "(none)" or another term of the taxonomy, searched on the server. */
function parentField(field, spec, fctx, parts) {
  const tax = fctx.parentTaxonomy;
  const path = `${(tax.rest_namespace || "wp/v2").replace(/^\/+|\/+$/g, "")}/${tax.rest_base}`;
  const raw = fctx.record ? Number(fctx.record.parent || 0) : 0;
  const selfId = fctx.record ? Number(fctx.record.id) : null;
  let current = raw;
  const currentText = h("output", { class: "current-parent" }, raw === 0 ? "(none: top level)" : "…");
  if (raw !== 0) void resolveTerms(path, [raw]).then(([t]) => (currentText.textContent = t ? t.name : `#${raw}`));
  const top = h(
    "button",
    {
      type: "button",
      class: "button small",
      hidden: raw === 0,
      onclick: () => {
        current = 0;
        currentText.textContent = "(none: top level)";
        top.hidden = true;
        box.input.focus();
        fctx.onChange();
      },
    },
    "Move to top level",
  );
  const box = combobox({
    label: `Choose ${parts.labelText.toLowerCase()}`,
    labelClass: "sub-label",
    placeholder: `Search ${((tax.labels && tax.labels.name) || "terms").toLowerCase()}`,
    // A term cannot be its own parent (the API refuses descendants too, with its message).
    search: async (text) => (await searchTerms(path, text)).filter((t) => t.id !== selfId),
    onPick: (item) => {
      current = item.id;
      currentText.textContent = item.label;
      top.hidden = false;
      box.clear();
      fctx.onChange();
    },
  });
  field.element = h("div", { class: "field field-parent", dataset: { field: spec.name } }, h("p", { class: "label-like" }, `${parts.labelText}: `, currentText, " ", top), parts.hint, box.element, parts.error);
  field.control = box.input;
  field.dirty = () => current !== raw;
  field.value = () => current;
  field.present = () => current !== 0;
  return field;
}

/**
 * The request body of a set of fields: on create the fields that hold
 * something, on edit only those the user changed (so that a save never
 * rewrites what it did not show faithfully). Throws FieldError.
 */
export function bodyOf(fields, mode) {
  const body = {};
  for (const field of fields) {
    if (field.kind === "status") continue;
    // A required field left empty is sent too, so that the API's own message says what is missing.
    if (mode === "edit" ? !field.dirty() : !field.present() && !field.required) continue;
    const value = field.value();
    if (value !== undefined) body[field.name] = value;
  }
  return body;
}

export { plainText };

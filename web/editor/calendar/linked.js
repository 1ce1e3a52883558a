// The "Venue and organizers" group: an event's one venue and its
// organizers, picked from the existing ones by searching as you type
// (`GET calendar/events/v1/venues?search=…`, ten at a time, never whole
// lists) or created with the event: the events API takes `venue` as an ID
// or as an object of venue data (a venue is created, or an existing one of
// that name reused), and `organizer` as a list mixing IDs and organizer data
// (lib/calendar/events/linked.ts). The chosen ones are removable chips.
//
// The search box is an ARIA 1.2 combobox: ↓/↑ move through the results,
// Enter picks, Escape closes; focus stays in the box.

import { apiMessage, debounce, describeBy, FieldErrors, h, uid } from "./dom.js";

export const LINKED_FIELDS = ["venue", "organizer"];
const NS = "calendar/events/v1";
const PER_PAGE = 10;

/** Text of an API name that may carry entities (`Rock &amp; Roll`), without running any markup. */
export function plainName(value) {
  const text = typeof value === "string" ? value : "";
  if (!/[<&]/.test(text)) return text;
  return (new DOMParser().parseFromString(text, "text/html").body.textContent || "").trim();
}

const KINDS = {
  venue: {
    route: "venues",
    nameKey: "venue",
    one: "venue",
    many: "venues",
    searchHint: "Type a name, a street or a city",
    describe: (r) => [r.address, r.city, r.stateprovince || r.state || r.province, r.country].map(plainName).filter((s) => s).join(", "),
    newFields: [
      { name: "venue", label: "Name", required: true },
      { name: "address", label: "Address" },
      { name: "city", label: "City" },
      { name: "province", label: "State or province" },
      { name: "zip", label: "Postal code" },
      { name: "country", label: "Country" },
      { name: "phone", label: "Phone", type: "tel" },
      { name: "website", label: "Website", type: "url" },
    ],
  },
  organizer: {
    route: "organizers",
    nameKey: "organizer",
    one: "organizer",
    many: "organizers",
    searchHint: "Type a name, an e-mail address or a phone number",
    describe: (r) => [r.email, r.phone].map(plainName).filter((s) => s).join(", "),
    newFields: [
      { name: "organizer", label: "Name", required: true },
      { name: "email", label: "Email", type: "email" },
      { name: "phone", label: "Phone", type: "tel" },
      { name: "website", label: "Website", type: "url" },
    ],
  },
};

/** An item of the chips: an existing record `{ id, name, meta }` or new data `{ data, name, meta }`. */
function fromRecord(kind, record) {
  return { id: Number(record.id), name: plainName(record[kind.nameKey]) || `#${record.id}`, meta: kind.describe(record) };
}

/** The linked records of an event record: its venue (an object, `[]` or a list) or organizers. */
function initialItems(kindName, record) {
  if (!record) return [];
  const value = record[kindName];
  const list = Array.isArray(value) ? value : value && typeof value === "object" ? [value] : [];
  return list.filter((r) => r && typeof r === "object" && Number(r.id) > 0).map((r) => fromRecord(KINDS[kindName], r));
}

/**
 * One picker: chips, a search combobox, and a "New …" panel. `multiple`:
 * organizers (a list) or the one venue (picking replaces it).
 */
function picker(ctx, kindName, { multiple, label, errors }) {
  const kind = KINDS[kindName];
  let items = initialItems(kindName, ctx.record);
  const initialKey = JSON.stringify(items.map((i) => i.id));
  const id = uid(kindName);
  const listId = `${id}-results`;

  const heading = h("h3", { class: "cal-picker-title", id: `${id}-title` }, label);
  const chips = h("ul", { class: "cal-chips", "aria-labelledby": heading.id });
  const input = h("input", {
    type: "search",
    id: `${id}-search`,
    role: "combobox",
    "aria-autocomplete": "list",
    "aria-expanded": "false",
    "aria-controls": listId,
    autocomplete: "off",
    placeholder: `Search ${kind.many}…`,
  });
  const listbox = h("ul", { id: listId, role: "listbox", class: "cal-results", "aria-label": `Matching ${kind.many}`, hidden: true });
  const status = h("p", { class: "cal-picker-status", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "cal-hint", id: `${id}-hint` }, `${kind.searchHint}; ↓ and Enter pick one${multiple ? " (several allowed)" : ""}.`);
  describeBy(input, hint.id);
  const error = h("p", { class: "cal-error", id: `${id}-error`, hidden: true });
  errors.add(kindName, input, error);

  // ---- the chips ----
  function renderChips() {
    chips.replaceChildren(
      ...items.map((item, index) =>
        h(
          "li",
          { class: `cal-chip${item.data ? " cal-chip-new" : ""}`, dataset: { id: item.id ?? "" } },
          h("span", { class: "cal-chip-name" }, item.name),
          item.data ? h("span", { class: "cal-chip-meta" }, " (new)") : item.meta ? h("span", { class: "cal-chip-meta" }, ` — ${item.meta}`) : null,
          h(
            "button",
            {
              type: "button",
              class: "cal-chip-remove",
              "aria-label": `Remove ${kind.one} ${item.name}`,
              onclick: () => {
                items.splice(index, 1);
                renderChips();
                ctx.changed();
                status.textContent = `${item.name} removed.`;
                const next = chips.querySelectorAll(".cal-chip-remove")[Math.min(index, items.length - 1)];
                (next ?? input).focus();
              },
            },
            h("span", { "aria-hidden": "true" }, "×"),
          ),
        ),
      ),
    );
    chips.hidden = items.length === 0;
    empty.hidden = items.length !== 0;
  }
  const empty = h("p", { class: "cal-empty" }, multiple ? `No ${kind.many}.` : `No ${kind.one}.`);

  function add(item) {
    if (item.id !== undefined && items.some((i) => i.id === item.id)) {
      status.textContent = `${item.name} is already chosen.`;
      return;
    }
    if (multiple) items.push(item);
    else items = [item];
    renderChips();
    ctx.changed();
    errors.clear(kindName);
    status.textContent = `${item.name} chosen.`;
  }

  // ---- the search ----
  let results = [];
  let active = -1;
  let page = 1;
  let totalPages = 0;
  let term = "";
  let sequence = 0;

  function close() {
    listbox.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function renderResults() {
    const options = results.map((record, i) =>
      h(
        "li",
        { role: "option", id: `${id}-opt-${i}`, class: "cal-option", "aria-selected": "false", dataset: { index: i } },
        h("span", { class: "cal-option-name" }, plainName(record[kind.nameKey]) || `#${record.id}`),
        kind.describe(record) ? h("span", { class: "cal-option-meta" }, kind.describe(record)) : null,
      ),
    );
    if (page < totalPages) options.push(h("li", { role: "option", id: `${id}-opt-more`, class: "cal-option cal-option-more", "aria-selected": "false", dataset: { action: "more" } }, "More results…"));
    listbox.replaceChildren(...options);
    listbox.hidden = options.length === 0;
    input.setAttribute("aria-expanded", options.length === 0 ? "false" : "true");
    setActive(Math.min(active, options.length - 1));
  }

  function setActive(index) {
    const options = [...listbox.querySelectorAll('[role="option"]')];
    active = index;
    options.forEach((o, i) => o.setAttribute("aria-selected", i === index ? "true" : "false"));
    if (index >= 0 && options[index]) {
      input.setAttribute("aria-activedescendant", options[index].id);
      options[index].scrollIntoView?.({ block: "nearest" });
    } else input.removeAttribute("aria-activedescendant");
  }

  async function search(more = false) {
    const mine = ++sequence;
    const wanted = more ? page + 1 : 1;
    status.textContent = "Searching…";
    let res;
    try {
      res = await ctx.api("GET", `${NS}/${kind.route}`, { query: { search: term || undefined, per_page: PER_PAGE, page: wanted } });
    } catch {
      res = null;
    }
    if (mine !== sequence) return; // an older answer than the one the user waits for
    if (!res || !res.ok) {
      // A page past the last one is a 404 in this API: nothing more.
      if (res && res.status === 404 && wanted > 1) totalPages = page;
      else {
        status.textContent = res ? apiMessage(res, `The ${kind.many} could not be searched.`) : `The ${kind.many} could not be searched.`;
        results = more ? results : [];
      }
      renderResults();
      return;
    }
    const found = Array.isArray(res.body?.[kind.route]) ? res.body[kind.route] : [];
    totalPages = Number(res.body?.total_pages ?? res.headers.get("X-WP-TotalPages") ?? 1) || 1;
    page = wanted;
    const firstNew = results.length;
    results = more ? [...results, ...found] : found;
    const total = Number(res.body?.total ?? results.length);
    status.textContent = total === 0 ? `No ${kind.one} matches${term ? ` “${term}”` : ""}.` : `${total} ${total === 1 ? kind.one : kind.many} found${page < totalPages ? `, ${results.length} shown` : ""}.`;
    if (more) active = firstNew;
    renderResults();
  }
  const searchSoon = debounce(() => search(false), 250);

  function choose(index) {
    const option = listbox.querySelectorAll('[role="option"]')[index];
    if (!option) return;
    if (option.dataset.action === "more") {
      search(true);
      return;
    }
    const record = results[Number(option.dataset.index)];
    if (!record) return;
    add(fromRecord(kind, record));
    input.value = "";
    term = "";
    close();
  }

  input.addEventListener("input", () => {
    term = input.value.trim();
    // The results shown are for another text: gone until this one's come (Enter must not pick a stale one).
    sequence += 1;
    results = [];
    page = 1;
    totalPages = 0;
    active = -1;
    renderResults();
    status.textContent = "Searching…";
    searchSoon();
  });
  input.addEventListener("focus", () => {
    if (results.length === 0 && !listbox.dataset.loaded) {
      listbox.dataset.loaded = "1";
      search(false);
    }
  });
  input.addEventListener("keydown", (event) => {
    const count = listbox.querySelectorAll('[role="option"]').length;
    if (event.key === "ArrowDown") {
      event.preventDefault();
      if (listbox.hidden) {
        if (results.length === 0) search(false);
        else renderResults();
        setActive(0);
      } else setActive(Math.min(active + 1, count - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      if (!listbox.hidden) setActive(Math.max(active - 1, 0));
    } else if (event.key === "Enter") {
      // Never submits the whole form from a search box.
      event.preventDefault();
      if (!listbox.hidden && active >= 0) choose(active);
      else searchSoon();
    } else if (event.key === "Escape") {
      if (!listbox.hidden) {
        event.preventDefault();
        event.stopPropagation();
        close();
      }
    }
  });
  input.addEventListener("blur", () => setTimeout(() => {
    if (document.activeElement !== input) close();
  }, 150));
  // A click picks without taking focus out of the box.
  listbox.addEventListener("mousedown", (event) => event.preventDefault());
  listbox.addEventListener("click", (event) => {
    const option = event.target.closest('[role="option"]');
    if (!option) return;
    choose([...listbox.querySelectorAll('[role="option"]')].indexOf(option));
  });

  // ---- a new one, created with the event ----
  const panelId = `${id}-new`;
  const toggle = h("button", { type: "button", class: "cal-button cal-new-toggle", "aria-expanded": "false", "aria-controls": panelId }, `New ${kind.one}…`);
  const newErrors = new FieldErrors();
  const newInputs = {};
  const newFields = kind.newFields.map((f) => {
    const control = h("input", { type: f.type ?? "text", id: `${panelId}-${f.name}`, name: `${kindName}-${f.name}`, autocomplete: "off", required: f.required || undefined });
    newInputs[f.name] = control;
    const err = h("p", { class: "cal-error", id: `${control.id}-error`, hidden: true });
    newErrors.add(f.name, control, err);
    return h("div", { class: "cal-field" }, h("label", { for: control.id }, f.label, f.required ? h("span", { class: "cal-required", "aria-hidden": "true" }, " *") : null), control, err);
  });
  const addButton = h("button", { type: "button", class: "cal-button cal-primary" }, `Add ${kind.one}`);
  const cancelButton = h("button", { type: "button", class: "cal-button" }, "Cancel");
  const panel = h(
    "div",
    { class: "cal-new", id: panelId, role: "group", "aria-label": `New ${kind.one}`, hidden: true },
    h("p", { class: "cal-hint" }, `Created when the event is saved (an existing ${kind.one} of the same name is reused).`),
    h("div", { class: "cal-new-fields" }, newFields),
    h("div", { class: "cal-buttons" }, addButton, cancelButton),
  );

  function openPanel(open) {
    panel.hidden = !open;
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) newInputs[kind.nameKey].focus();
  }
  toggle.addEventListener("click", () => openPanel(panel.hidden));
  cancelButton.addEventListener("click", () => {
    openPanel(false);
    toggle.focus();
  });
  addButton.addEventListener("click", () => {
    newErrors.clear();
    const name = newInputs[kind.nameKey].value.trim();
    if (name === "") {
      newErrors.show(kind.nameKey, "A name is needed.");
      newInputs[kind.nameKey].focus();
      return;
    }
    const data = {};
    for (const f of kind.newFields) {
      const v = newInputs[f.name].value.trim();
      if (v !== "") data[f.name] = v;
    }
    const meta = kind.describe(data);
    add({ data, name, meta });
    for (const control of Object.values(newInputs)) control.value = "";
    openPanel(false);
    input.focus();
  });
  // Enter in the panel adds, as a form would, without submitting the event.
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
      event.preventDefault();
      addButton.click();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      openPanel(false);
      toggle.focus();
    }
  });

  const searchLabel = h("label", { for: input.id, class: "cal-sub-label" }, `Find ${kind.one === "organizer" ? "an" : "a"} ${kind.one}`);
  const element = h(
    "div",
    { class: `cal-picker cal-picker-${kindName}`, dataset: { picker: kindName } },
    heading,
    chips,
    empty,
    searchLabel,
    h("div", { class: "cal-combo" }, input, listbox),
    hint,
    status,
    error,
    toggle,
    panel,
  );
  renderChips();

  return {
    element,
    input,
    /** The request value: IDs and data objects; undefined when there is nothing to send. */
    value(mode) {
      const values = items.map((i) => (i.data ? i.data : i.id));
      const changed = JSON.stringify(items.map((i) => i.id ?? i.data)) !== initialKey;
      if (mode === "create") {
        if (values.length === 0) return undefined;
        return multiple ? values : values[0];
      }
      if (!changed) return undefined;
      if (multiple) return values;
      return values.length === 0 ? "" : values[0];
    },
  };
}

export function renderLinked(ctx) {
  const errors = new FieldErrors();
  const venue = picker(ctx, "venue", { multiple: false, label: "Venue", errors });
  const organizer = picker(ctx, "organizer", { multiple: true, label: "Organizers", errors });
  const element = h("div", { class: "cal-group cal-linked" }, venue.element, organizer.element);
  return {
    element,
    value() {
      const out = {};
      const v = venue.value(ctx.mode);
      const o = organizer.value(ctx.mode);
      if (v !== undefined) out.venue = v;
      if (o !== undefined) out.organizer = o;
      return out;
    },
    showErrors(params) {
      for (const name of LINKED_FIELDS) errors.show(name, typeof params?.[name] === "string" ? params[name] : "");
    },
    focus(name) {
      (name === "organizer" ? organizer.input : venue.input).focus();
      return true;
    },
  };
}

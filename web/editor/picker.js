// Pickers that search the server as the user types (a site may have
// thousands of terms or users: lists are never loaded whole):
// - combobox(): one text input with a listbox of results (ARIA 1.2 combobox
//   pattern: arrow keys move, Enter picks, Escape closes);
// - termTokens(): flat taxonomies (tags) as removable tokens plus a combobox;
// - termTree(): hierarchical taxonomies as a checkbox tree of the first
//   pages of terms, with a server-side search and "load more".

import { api } from "./api.js";
import { debounce, h, nextId, plainText } from "./dom.js";
import { listOf, pagingOf } from "./model.js";

/**
 * options: { label, search(text) → Promise<[{ id, label, hint? }]>,
 * onPick(item), placeholder, describedBy, onCreate(text) (optional: an
 * extra "Add “text”" option) }. Answers { element, input, clear() }.
 */
export function combobox(options) {
  const inputId = nextId("cb");
  const listId = nextId("cb-list");
  const input = h("input", {
    id: inputId,
    type: "text",
    role: "combobox",
    autocomplete: "off",
    "aria-autocomplete": "list",
    "aria-expanded": "false",
    "aria-controls": listId,
    placeholder: options.placeholder || "Type to search",
    "aria-describedby": options.describedBy,
  });
  const labelId = `${inputId}-label`;
  const list = h("ul", { id: listId, role: "listbox", class: "combo-list", hidden: true, "aria-labelledby": options.label ? labelId : undefined });
  let items = [];
  let active = -1;
  let seq = 0;

  const close = () => {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };

  const highlight = (index) => {
    const nodes = list.querySelectorAll("[role=option]");
    nodes.forEach((node, i) => node.setAttribute("aria-selected", i === index ? "true" : "false"));
    active = index;
    if (index >= 0 && nodes[index]) {
      input.setAttribute("aria-activedescendant", nodes[index].id);
      nodes[index].scrollIntoView({ block: "nearest" });
    } else input.removeAttribute("aria-activedescendant");
  };

  const pick = (index) => {
    const item = items[index];
    if (!item) return;
    close();
    if (item.create) options.onCreate(item.text);
    else options.onPick(item);
  };

  const show = (found, text) => {
    items = found.slice();
    if (options.onCreate && text.trim() !== "" && !found.some((f) => f.label.toLowerCase() === text.trim().toLowerCase())) {
      items.push({ create: true, text: text.trim(), label: `Add “${text.trim()}”` });
    }
    list.replaceChildren(
      ...(items.length === 0
        ? [h("li", { class: "combo-empty", role: "option", "aria-disabled": "true", id: `${listId}-none` }, "No matches")]
        : items.map((item, i) =>
            h(
              "li",
              { id: `${listId}-${i}`, role: "option", "aria-selected": "false", dataset: { index: String(i) }, class: item.create ? "combo-create" : undefined },
              item.label,
              item.hint ? h("span", { class: "combo-hint" }, ` ${item.hint}`) : null,
            ),
          )),
    );
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
  };

  const run = debounce(async () => {
    const text = input.value;
    const mine = ++seq;
    let found = [];
    try {
      found = await options.search(text);
    } catch {
      found = [];
    }
    // A slower earlier answer must not replace a later one.
    if (mine === seq && document.activeElement === input) show(found, text);
  }, 200);

  input.addEventListener("input", run);
  input.addEventListener("focus", () => {
    if (list.hidden) run();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      if (list.hidden) run();
      else highlight(Math.min(items.length - 1, active + 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      highlight(Math.max(0, active - 1));
    } else if (event.key === "Enter") {
      if (!list.hidden && active >= 0) {
        event.preventDefault();
        pick(active);
      } else if (!list.hidden && items.length === 1) {
        event.preventDefault();
        pick(0);
      } else event.preventDefault(); // never submit the surrounding form from a search box
    } else if (event.key === "Escape") {
      if (!list.hidden) {
        event.preventDefault();
        event.stopPropagation();
        close();
      }
    }
  });
  input.addEventListener("blur", () => setTimeout(close, 150));
  // mousedown, not click: it comes before the input's blur closes the list.
  list.addEventListener("mousedown", (event) => {
    const li = event.target.closest("[data-index]");
    if (!li) return;
    event.preventDefault();
    pick(Number(li.dataset.index));
  });

  const element = h("div", { class: "combo" }, options.label ? h("label", { for: inputId, id: labelId, class: options.labelClass ?? "visually-hidden" }, options.label) : null, input, list);
  return {
    element,
    input,
    clear() {
      input.value = "";
      close();
    },
  };
}

/** Searches a term collection route; answers combobox items. */
export async function searchTerms(path, text, extra = {}) {
  const res = await api("GET", path, { query: { search: text || undefined, per_page: 20, hide_empty: 0, ...extra } });
  if (!res.ok) return [];
  return listOf(res.body).map((t) => ({ id: t.id, label: plainText(t.name), parent: t.parent }));
}

/** Names of terms known only by id (a record that carries ids), in one request. */
export async function termNames(path, ids) {
  const names = new Map();
  if (ids.length === 0) return names;
  const res = await api("GET", path, { query: { include: ids.join(","), per_page: Math.min(100, Math.max(ids.length, 1)), hide_empty: 0 } });
  if (res.ok) for (const t of listOf(res.body)) if (ids.includes(Number(t.id))) names.set(Number(t.id), plainText(t.name));
  // A route without `include` answers some other page: the few still unnamed are read one by one.
  const missing = ids.filter((id) => !names.has(id)).slice(0, 20);
  await Promise.all(
    missing.map(async (id) => {
      const one = await api("GET", `${path}/${id}`);
      if (one.ok && one.body && one.body.name !== undefined) names.set(id, plainText(one.body.name));
    }),
  );
  return names;
}

/** A record's terms, given as ids or as term objects, as [{ id, name }] (names fetched when missing). */
export async function resolveTerms(path, value) {
  const list = Array.isArray(value) ? value : [];
  const known = list.map((v) => (v && typeof v === "object" ? { id: Number(v.id), name: plainText(v.name || "") } : { id: Number(v), name: "" })).filter((t) => Number.isFinite(t.id));
  const missing = known.filter((t) => t.name === "").map((t) => t.id);
  if (missing.length > 0) {
    const names = await termNames(path, missing);
    for (const t of known) if (t.name === "") t.name = names.get(t.id) || `#${t.id}`;
  }
  return known;
}

/**
 * Flat terms as tokens. options: { label, path, selected: [{id,name}],
 * canCreate, onChange() }. Answers { element, value() → ids, focus() }.
 */
export function termTokens(options) {
  const selected = new Map(options.selected.map((t) => [t.id, t.name]));
  const tokens = h("ul", { class: "tokens", "aria-label": `Selected ${options.label}` });
  const render = () => {
    tokens.replaceChildren(
      ...[...selected].map(([id, name]) =>
        h(
          "li",
          { class: "token" },
          h("span", {}, name),
          h(
            "button",
            {
              type: "button",
              class: "token-remove",
              "aria-label": `Remove ${name}`,
              onclick: () => {
                selected.delete(id);
                render();
                options.onChange();
                box.input.focus();
              },
            },
            "×",
          ),
        ),
      ),
    );
  };
  const add = (id, name) => {
    if (!selected.has(id)) {
      selected.set(id, name);
      render();
      options.onChange();
    }
    box.clear();
    box.input.focus();
  };
  const box = combobox({
    label: `Add ${options.label}`,
    labelClass: "visually-hidden",
    placeholder: `Search ${options.label}`,
    search: async (text) => (await searchTerms(options.path, text)).filter((t) => !selected.has(t.id)),
    onPick: (item) => add(item.id, item.label),
    onCreate: options.canCreate
      ? async (text) => {
          const res = await api("POST", options.path, { body: { name: text } });
          if (res.ok && res.body) add(Number(res.body.id), plainText(res.body.name));
          else if (res.body && res.body.code === "term_exists" && res.body.data && res.body.data.term_id) add(Number(res.body.data.term_id), text);
        }
      : undefined,
  });
  render();
  return {
    element: h("div", { class: "term-tokens" }, tokens, box.element),
    value: () => [...selected.keys()],
    focus: () => box.input.focus(),
  };
}

/**
 * Hierarchical terms as a checkbox tree. options: { label, path, selected:
 * [{id,name}], onChange(), perPage }. The first page of terms (by name) is
 * shown as a tree; "Show more" loads the next; a search box asks the server
 * and shows the matches flat. Terms selected but not loaded stay selected
 * (listed above the tree).
 */
export function termTree(options) {
  const selected = new Map(options.selected.map((t) => [t.id, t.name]));
  const loaded = new Map();
  let page = 0;
  let pages = 1;
  const perPage = options.perPage || 50;
  const searchId = nextId("tree-search");
  const search = h("input", { id: searchId, type: "search", placeholder: `Search ${options.label}`, autocomplete: "off" });
  const tree = h("div", { class: "term-tree" });
  const more = h("button", { type: "button", class: "button small", hidden: true }, "Show more");
  const extra = h("p", { class: "term-extra" });
  let matches = null;
  let firstBox = null;

  const checkbox = (term, depth) => {
    const id = nextId("term");
    const box = h("input", {
      type: "checkbox",
      id,
      checked: selected.has(term.id),
      onchange: (event) => {
        if (event.target.checked) selected.set(term.id, term.name);
        else selected.delete(term.id);
        renderExtra();
        options.onChange();
      },
    });
    if (!firstBox) firstBox = box;
    return h("li", { class: `depth-${Math.min(depth, 5)}` }, box, h("label", { for: id }, term.name));
  };

  const renderExtra = () => {
    const shown = matches ? new Set(matches.map((t) => t.id)) : new Set(loaded.keys());
    const hiddenOnes = [...selected].filter(([id]) => !shown.has(id)).map(([, name]) => name);
    extra.textContent = hiddenOnes.length > 0 ? `Also selected: ${hiddenOnes.join(", ")}` : "";
  };

  const render = () => {
    firstBox = null;
    if (matches) {
      tree.replaceChildren(matches.length === 0 ? h("p", { class: "muted" }, "No matches.") : h("ul", { class: "tree-level" }, matches.map((t) => checkbox(t, 0))));
      more.hidden = true;
    } else {
      const children = new Map();
      for (const t of loaded.values()) {
        const parent = loaded.has(t.parent) ? t.parent : 0;
        if (!children.has(parent)) children.set(parent, []);
        children.get(parent).push(t);
      }
      const level = (parent, depth) => {
        const kids = children.get(parent) || [];
        if (kids.length === 0) return null;
        return h("ul", { class: "tree-level" }, kids.map((t) => {
          const li = checkbox(t, depth);
          const sub = level(t.id, depth + 1);
          if (sub) li.append(sub);
          return li;
        }));
      };
      tree.replaceChildren(level(0, 0) || h("p", { class: "muted" }, `No ${options.label} yet.`));
      more.hidden = page >= pages;
    }
    renderExtra();
  };

  const loadPage = async () => {
    const res = await api("GET", options.path, { query: { page: page + 1, per_page: perPage, hide_empty: 0, orderby: "name", order: "asc" } });
    if (!res.ok) return;
    page += 1;
    pages = pagingOf(res, perPage).pages;
    for (const t of listOf(res.body)) loaded.set(Number(t.id), { id: Number(t.id), name: plainText(t.name), parent: Number(t.parent || 0) });
    render();
  };

  more.addEventListener("click", () => void loadPage());
  search.addEventListener(
    "input",
    debounce(async () => {
      const text = search.value.trim();
      if (text === "") matches = null;
      else matches = (await searchTerms(options.path, text)).map((t) => ({ id: t.id, name: t.label, parent: t.parent }));
      render();
    }),
  );
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") event.preventDefault();
  });

  void loadPage();
  return {
    element: h("div", { class: "term-tree-picker" }, h("label", { for: searchId, class: "visually-hidden" }, `Search ${options.label}`), search, extra, tree, more),
    value: () => [...selected.keys()],
    focus: () => (firstBox || search).focus(),
  };
}

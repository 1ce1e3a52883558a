// Small DOM helpers shared by the calendar's widget groups: elements,
// unique ids, labelled fields with an error line each, and the widgets'
// stylesheet (a <link> to a file of this folder: the page's CSP allows
// styles from this server only, and no inline styles).

// The element builder and debounce are the editor's own (../dom.js).
import { debounce, h } from "../dom.js";

export { debounce, h };

let sequence = 0;

/** An id unique in the page: the same widgets may be on the page twice (two forms). */
export function uid(name) {
  sequence += 1;
  return `cal-${name}-${sequence}`;
}

let styled = false;

/** Adds the widgets' stylesheet to the page once. */
export function ensureStylesheet() {
  if (styled || typeof document === "undefined") return;
  styled = true;
  const href = new URL("./calendar-widgets.css", import.meta.url).href;
  if ([...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => l.href === href)) return;
  document.head.append(h("link", { rel: "stylesheet", href }));
}

/**
 * Errors next to fields: each registered field has an error line whose id
 * is in its control's aria-describedby; `show(name, message)` fills it and
 * marks the control invalid, `clear()` empties them all.
 */
export class FieldErrors {
  constructor() {
    this.fields = new Map();
  }

  /** `name`: the API's argument name (or a local one); `control`: what gets aria-invalid and focus. */
  add(name, control, errorLine) {
    this.fields.set(name, { control, errorLine });
    describeBy(control, errorLine.id);
  }

  has(name) {
    return this.fields.has(name);
  }

  show(name, message) {
    const field = this.fields.get(name);
    if (!field) return false;
    field.errorLine.textContent = message;
    field.errorLine.hidden = message === "";
    if (message === "") field.control.removeAttribute("aria-invalid");
    else field.control.setAttribute("aria-invalid", "true");
    return true;
  }

  clear(name) {
    if (name !== undefined) {
      this.show(name, "");
      return;
    }
    for (const key of this.fields.keys()) this.show(key, "");
  }

  control(name) {
    return this.fields.get(name)?.control ?? null;
  }
}

/** Adds an id to an element's aria-describedby. */
export function describeBy(control, id) {
  const ids = (control.getAttribute("aria-describedby") ?? "").split(/\s+/).filter((s) => s !== "");
  if (!ids.includes(id)) ids.push(id);
  control.setAttribute("aria-describedby", ids.join(" "));
}

/** An error line (empty and hidden until a message comes). */
export function errorLine(id) {
  return h("p", { class: "cal-error", id, hidden: true });
}

/**
 * A labelled field: `<div class="cal-field"><label for>…</label>control
 * <p hint/><p error/></div>`; the hint and error lines describe the control.
 */
export function field({ label, control, hint, errors, name, className }) {
  if (!control.id) control.id = uid(name ?? "field");
  const hintLine = hint ? h("p", { class: "cal-hint", id: `${control.id}-hint` }, hint) : null;
  const error = errorLine(`${control.id}-error`);
  if (hintLine) describeBy(control, hintLine.id);
  if (errors && name) errors.add(name, control, error);
  return h("div", { class: `cal-field${className ? ` ${className}` : ""}` }, h("label", { for: control.id }, label), control, hintLine, error);
}

/** Whether the element is shown (not inside a hidden ancestor). */
export function isShown(el) {
  for (let node = el; node; node = node.parentElement) if (node.hidden) return false;
  return true;
}

/** The message of a failed API answer (WordPress's `{code, message}` envelope), or a fallback. */
export function apiMessage(res, fallback = "The request failed.") {
  const body = res?.body;
  if (body && typeof body.message === "string" && body.message !== "") return body.message;
  return res && res.status ? `${fallback} (HTTP ${res.status})` : fallback;
}

/** The first message of a 400's `data.params` for a name, else the answer's message. */
export function paramMessage(res, name) {
  const params = res?.body?.data?.params;
  if (params && typeof params[name] === "string") return params[name];
  return apiMessage(res);
}

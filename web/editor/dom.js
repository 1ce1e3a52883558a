// Small DOM helpers shared by the editor's screens. Everything is built with
// createElement and textContent, never HTML strings, so names and titles from
// the API cannot inject markup.

/** h("p", {class: "x", onclick: fn}, "text", child…): a small element builder. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "value" || name === "checked" || name === "selected") el[name] = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children, skipping null/false/undefined (replaceChildren would write "null"). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Text only screen readers read. */
export function srOnly(text) {
  return h("span", { class: "visually-hidden" }, text);
}

let uid = 0;
/** A page-unique id for label/aria wiring. */
export function nextId(prefix = "f") {
  uid += 1;
  return `${prefix}-${uid}`;
}

// ---- Announcements ------------------------------------------------------
// One polite live region for progress and results, one assertive region for
// errors (index.html holds both, so they exist before anything is said).

export function announce(text) {
  const region = document.getElementById("live");
  if (!region) return;
  // Clearing first makes a repeated message be read again.
  region.textContent = "";
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** Shows (or, with null, clears) the page-level error: a message and optional nodes (links to fields, buttons). */
export function showAlert(message, ...extra) {
  const region = document.getElementById("alert");
  if (!region) return;
  region.replaceChildren();
  if (message === null || message === undefined || message === "") {
    region.hidden = true;
    return;
  }
  region.hidden = false;
  region.append(h("p", {}, message), ...extra.flat().filter(Boolean));
}

/**
 * A message carried to the next screen (`navigate(hash, flash)`): a string
 * (a success) or `{ text, kind: "error" }`. Answers { text, kind }.
 */
export function flashOf(flash) {
  if (flash === null || flash === undefined) return null;
  return typeof flash === "string" ? { text: flash, kind: "success" } : { text: flash.text, kind: flash.kind || "success" };
}

/** "start_date" → "Start date". */
export function humanize(name) {
  const text = String(name).replace(/[_-]+/g, " ").trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The visible text of an HTML fragment from the API (titles may carry entities or tags), without running it. */
export function plainText(html) {
  if (typeof html !== "string") return "";
  if (!/[<&]/.test(html)) return html;
  const doc = new DOMParser().parseFromString(html, "text/html");
  return (doc.body.textContent || "").trim();
}

/**
 * A modal confirmation built on <dialog> (focus is trapped and Escape
 * cancels, natively). Resolves true for the confirming button.
 */
export function confirmDialog({ title, message, confirm = "OK", cancel = "Cancel", danger = false }) {
  return new Promise((resolve) => {
    const titleId = nextId("dlg");
    const ok = h("button", { type: "button", class: danger ? "button danger" : "button primary", value: "ok" }, confirm);
    const no = h("button", { type: "button", class: "button", value: "cancel" }, cancel);
    const dialog = h("dialog", { class: "confirm", "aria-labelledby": titleId }, h("h2", { id: titleId }, title), h("p", {}, message), h("div", { class: "dialog-buttons" }, no, ok));
    let answer = false;
    ok.addEventListener("click", () => {
      answer = true;
      dialog.close();
    });
    no.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    // The safe choice has focus, as in native confirms of destructive actions.
    no.focus();
  });
}

/** Debounce for search-as-you-type (server-side searches, so not on every key). */
export function debounce(fn, ms = 250) {
  let timer;
  const run = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  run.cancel = () => clearTimeout(timer);
  return run;
}

// The editor's shell: login, the navigation generated from the post types
// and taxonomies the user may edit, a hash router
//   #/types/<slug>          list            #/types/<slug>/new   create
//   #/types/<slug>/<id>     edit            #/taxonomies/<slug>  terms
// and the unsaved-changes guard (beforeunload for leaving the page, a
// confirmation for in-app navigation, the Back button included).

// Plugins register their widget groups before any form is built.
import "./calendar/widgets.js";
import { loginMode, logout, setPasswordLogin } from "./api.js";
import { announce, confirmDialog, fill, h, nextId, showAlert } from "./dom.js";
import { editScreen } from "./form.js";
import { listScreen } from "./list.js";
import { LoadError, loadSite, manageableTaxonomies, site, taxonomyBySlug, typeBySlug, typeLabel } from "./model.js";
import { termsScreen } from "./terms.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const account = document.getElementById("account");
const calendarUrl = document.body.dataset.calendarUrl || "";

// ---- Unsaved changes -------------------------------------------------------

const guard = {
  dirty: false,
  setDirty(value) {
    guard.dirty = value;
    document.body.classList.toggle("has-changes", value);
  },
};

window.addEventListener("beforeunload", (event) => {
  if (!guard.dirty) return;
  event.preventDefault();
  // Older browsers need returnValue set to show their prompt.
  event.returnValue = "";
});

/** The fragment the current screen was drawn for. */
let shownHash = null;
let pendingFlash = null;

async function leaveAllowed() {
  if (!guard.dirty) return true;
  const leave = await confirmDialog({
    title: "Leave without saving?",
    message: "You have changes that are not saved. If you leave this page they are lost.",
    confirm: "Leave without saving",
    cancel: "Stay on this page",
    danger: true,
  });
  if (leave) guard.setDirty(false);
  return leave;
}

// Links inside the app ask before they navigate (nothing to undo in the history).
document.addEventListener(
  "click",
  async (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href^="#/"]') : null;
    if (!link || !guard.dirty || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    if (await leaveAllowed()) location.hash = link.getAttribute("href");
  },
  true,
);

// Back, Forward and typed addresses change the fragment first: it is put back while the user decides.
window.addEventListener("hashchange", async () => {
  const target = location.hash;
  if (target === shownHash) return;
  if (guard.dirty) {
    // Put the address back while asking; Back/links already changed it.
    history.replaceState(null, "", shownHash || "#/");
    if (!(await leaveAllowed())) return;
    history.pushState(null, "", target);
  }
  void route();
});

/**
 * Navigation from the screens: `flash` is a message the next screen shows
 * and announces; `replace` redraws in place (after a save) without a new
 * history entry.
 */
function navigate(hash, flash = null, replace = false) {
  pendingFlash = flash;
  if (replace || hash === location.hash) {
    if (hash !== location.hash) history.replaceState(null, "", hash);
    void route();
  } else location.hash = hash;
}

// ---- Login -------------------------------------------------------------------

function loginScreen(message, username = "") {
  nav.hidden = true;
  fill(account);
  document.title = "Log in · Editor";
  const userId = nextId("user");
  const passId = nextId("pass");
  const errorId = nextId("login-error");
  const error = h("p", { class: "notice error", id: errorId, hidden: !message }, message || "");
  const user = h("input", { id: userId, name: "username", value: username, autocomplete: "username", required: true, autocapitalize: "none", spellcheck: "false" });
  const pass = h("input", { id: passId, name: "password", type: "password", autocomplete: "current-password", required: true, "aria-describedby": `${passId}-hint` });
  const submit = h("button", { type: "submit", class: "button primary" }, "Log in");
  const form = h(
    "form",
    { class: "login box", novalidate: true, "aria-describedby": errorId },
    h("div", { class: "field" }, h("label", { for: userId }, "User name"), user),
    h("div", { class: "field" }, h("label", { for: passId }, "Application password"), h("p", { class: "hint", id: `${passId}-hint` }, "An application password of your account (not the password you log in to the site with)."), pass),
    error,
    h("div", { class: "buttons" }, submit),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (user.value.trim() === "" || pass.value === "") {
      error.textContent = "Enter your user name and an application password.";
      error.hidden = false;
      (user.value.trim() === "" ? user : pass).focus();
      return;
    }
    submit.disabled = true;
    setPasswordLogin(user.value.trim(), pass.value);
    try {
      await start();
    } finally {
      submit.disabled = false;
    }
  });
  fill(main, h("h1", { tabindex: "-1" }, "Log in to the editor"), form);
  if (message) {
    announce(message);
    pass.value = "";
  }
  (message && user.value ? pass : user).focus();
}

function accountBar() {
  const me = site.me;
  const roles = (me.roles || []).join(", ");
  const parts = [h("span", { class: "whoami" }, "Signed in as ", h("strong", {}, me.name || me.username || me.slug), roles ? ` (${roles})` : "")];
  if (calendarUrl) parts.push(h("a", { href: calendarUrl }, "View calendar"));
  if (loginMode() === "password") {
    parts.push(
      h(
        "button",
        {
          type: "button",
          class: "button small",
          onclick: async () => {
            if (!(await leaveAllowed())) return;
            logout();
            shownHash = null;
            loginScreen(null);
            announce("Logged out.");
          },
        },
        "Log out",
      ),
    );
  }
  fill(account, ...parts);
}

function navBar() {
  const link = (href, text) => h("li", {}, h("a", { href, dataset: { route: href } }, text));
  const taxes = manageableTaxonomies();
  fill(
    nav,
    h("ul", {}, site.types.map((t) => link(`#/types/${t.slug}`, typeLabel(t)))),
    taxes.length > 0 ? h("ul", { class: "nav-terms", "aria-label": "Terms" }, taxes.map((t) => link(`#/taxonomies/${t.slug}`, (t.labels && t.labels.name) || t.slug))) : null,
  );
  nav.hidden = false;
}

function markCurrent() {
  const base = (location.hash.split("?")[0] || "").split("/").slice(0, 3).join("/");
  for (const a of nav.querySelectorAll("a[data-route]")) {
    if (a.dataset.route === base) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

// ---- Routing -------------------------------------------------------------------

/**
 * Screens are drawn one at a time, in the order asked: a screen still
 * loading when the address changes finishes first, and the newer one is
 * drawn over it (drawn side by side, the slower could win).
 */
let routing = Promise.resolve();
function route() {
  routing = routing.then(drawRoute, drawRoute);
  return routing;
}

async function drawRoute() {
  const hash = location.hash || "#/";
  shownHash = location.hash;
  // `data-route` says which address the drawn screen is for (tests and tools wait on it).
  main.removeAttribute("data-route");
  const [path, qs = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(qs);
  const flash = pendingFlash;
  pendingFlash = null;
  showAlert(null);
  guard.setDirty(false);
  markCurrent();
  const ctx = { main, params, navigate, flash, guard };
  try {
    if (parts.length === 0) return home();
    if (parts[0] === "types" && parts.length >= 2) {
      const type = typeBySlug(parts[1]);
      if (!type) return notFound(`There is no post type “${parts[1]}” you can edit.`);
      if (parts.length === 2) return await screen(() => listScreen({ ...ctx, type }));
      if (parts[2] === "new") return await screen(() => editScreen({ ...ctx, type, id: null }));
      if (/^\d+$/.test(parts[2])) return await screen(() => editScreen({ ...ctx, type, id: Number(parts[2]) }));
    }
    if (parts[0] === "taxonomies" && parts.length === 2) {
      const taxonomy = taxonomyBySlug(parts[1]);
      if (!taxonomy || !manageableTaxonomies().includes(taxonomy)) return notFound(`There are no terms “${parts[1]}” you can manage.`);
      return await screen(() => termsScreen({ ...ctx, taxonomy }));
    }
    notFound("This page does not exist.");
  } catch (err) {
    fill(main, h("h1", { tabindex: "-1" }, "Something went wrong"), h("p", { class: "notice error" }, err instanceof LoadError ? err.message : String(err && err.message ? err.message : err)));
    main.querySelector("h1").focus();
  }
}

/** Draws a screen; focus goes to its heading (a new "page" for screen readers) unless the screen placed it. */
async function screen(draw) {
  main.setAttribute("aria-busy", "true");
  const before = document.activeElement;
  try {
    await draw();
  } finally {
    main.removeAttribute("aria-busy");
    main.dataset.route = location.hash;
  }
  if (document.activeElement === before || document.activeElement === document.body) main.querySelector("h1")?.focus();
}

function home() {
  const first = site.types[0];
  if (first) return navigate(`#/types/${first.slug}`, null, true);
  const tax = manageableTaxonomies()[0];
  if (tax) return navigate(`#/taxonomies/${tax.slug}`, null, true);
  return noAccess();
}

function noAccess() {
  const roles = (site.me.roles || []).join(", ") || "none";
  document.title = "No access · Editor";
  fill(
    main,
    h("h1", { tabindex: "-1" }, "Nothing to edit"),
    h("p", { class: "notice info no-access" }, `Your role (${roles}) cannot edit anything here.`),
    h("p", {}, "Ask an administrator of the site if you need to add or change content."),
  );
  main.querySelector("h1").focus();
}

function notFound(message) {
  document.title = "Not found · Editor";
  fill(main, h("h1", { tabindex: "-1" }, "Not found"), h("p", {}, message), h("p", {}, h("a", { href: "#/" }, "Go to the start")));
  main.querySelector("h1").focus();
}

// ---- Start -----------------------------------------------------------------------

async function start() {
  try {
    await loadSite();
  } catch (err) {
    if (err instanceof LoadError && (err.status === 401 || err.status === 403)) {
      if (loginMode() === "cookie") {
        fill(main, h("h1", { tabindex: "-1" }, "Your login has expired"), h("p", { class: "notice error" }, `${err.message} Reload the page to log in again.`));
        return;
      }
      const tried = loginMode() === "password" ? (document.querySelector("input[name=username]")?.value ?? "") : "";
      logout();
      return loginScreen(err.message, tried);
    }
    fill(main, h("h1", { tabindex: "-1" }, "The editor could not start"), h("p", { class: "notice error" }, err instanceof LoadError ? err.message : String(err)));
    return;
  }
  accountBar();
  if (site.types.length === 0 && manageableTaxonomies().length === 0) {
    nav.hidden = true;
    shownHash = location.hash;
    return noAccess();
  }
  navBar();
  await route();
}

// The skip link targets the main region, not a route.
document.querySelector(".skip-link")?.addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});

if (loginMode() === null) loginScreen(null);
else void start();

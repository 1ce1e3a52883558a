// Renders a namespace's OpenAPI document with Swagger UI (loaded before
// this script from the self-hosted files), with a choice of every namespace
// the REST index links a document for.
"use strict";

(function () {
  var body = document.body;
  var status = document.getElementById("docs-status");
  var errorBox = document.getElementById("docs-error");

  var calendarUrl = body.dataset.calendarUrl;
  if (calendarUrl) {
    document.getElementById("calendar-link").href = calendarUrl;
    document.getElementById("calendar-link-item").hidden = false;
  }

  function fail(message) {
    status.textContent = "";
    errorBox.textContent = message;
  }

  // Operations grouped by resource, in the order a reader looks for them.
  var TAGS = [
    { name: "events", description: "Events: list, read, create, update, trash" },
    { name: "venues", description: "Venues linked to events" },
    { name: "organizers", description: "Organizers linked to events" },
    { name: "categories", description: "Event categories (hierarchical terms)" },
    { name: "tags", description: "Tags (flat terms)" },
    { name: "doc", description: "This OpenAPI document" },
  ];

  /**
   * The calendar's own document has no tags and no security schemes (the
   * generated documents of other namespaces declare both); without them
   * Swagger UI puts every operation under "default" and offers no way to
   * log in for "Try it out" on writes. Both are added here only when the
   * document lacks them, so a document that declares its own wins.
   */
  function augment(spec) {
    var paths = spec.paths || {};
    var used = {};
    Object.keys(paths).forEach(function (path) {
      var tag = path.split("/")[1] || "doc";
      Object.keys(paths[path]).forEach(function (method) {
        var op = paths[path][method];
        if (op && typeof op === "object" && !Array.isArray(op.tags) && /^(get|post|put|patch|delete)$/.test(method)) {
          op.tags = [tag];
          used[tag] = true;
        }
      });
    });
    if (!Array.isArray(spec.tags)) {
      spec.tags = TAGS.filter(function (t) { return used[t.name]; });
    }
    spec.components = spec.components || {};
    if (!spec.components.securitySchemes) {
      spec.components.securitySchemes = {
        applicationPassword: {
          type: "http",
          scheme: "basic",
          description: "A user's login and one of its application passwords. Reading published content needs no login.",
        },
      };
      // The empty requirement keeps every operation usable without logging in.
      if (!spec.security) spec.security = [{}, { applicationPassword: [] }];
    }
    return spec;
  }

  function errorMessage(res, json) {
    var detail = json && typeof json.message === "string" ? json.message : "HTTP " + res.status;
    return "The API description could not be loaded: " + detail;
  }

  function fetchJson(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(
      function (res) {
        return res.json().then(
          function (json) { return { res: res, json: json }; },
          function () { return { res: res, json: null }; }
        );
      },
      function () {
        throw new Error("The API could not be reached to load its description.");
      }
    );
  }

  var restRoot = body.dataset.restRoot;
  var defaultDocUrl = body.dataset.docUrl;
  var select = document.getElementById("namespace-select");
  var docLink = document.getElementById("doc-link");
  var nameBox = document.getElementById("namespace-name");
  // Each choice replaces the one before: an answer for an earlier choice is dropped.
  var loading = 0;

  /**
   * The namespaces with an OpenAPI document, from the REST index's
   * `service-desc` links (named after their namespace). Each document is
   * loaded from this page's own REST root, which may differ from the origin
   * the server writes into its links. Without an index (an older server, an
   * error), the default document alone.
   */
  function listDocuments() {
    return fetchJson(restRoot + "?_fields=namespaces,_links").then(
      function (r) {
        var links = r.res.ok && r.json && r.json._links ? r.json._links["service-desc"] : null;
        if (!Array.isArray(links)) return [];
        return links
          .filter(function (link) { return link && typeof link.name === "string" && link.name !== ""; })
          .map(function (link) { return { namespace: link.name, url: restRoot + link.name + "/doc" }; });
      },
      function () { return []; }
    );
  }

  function render(spec) {
    if (typeof window.SwaggerUIBundle !== "function") throw new Error("Swagger UI did not load.");
    // A fresh container per document: Swagger UI does not render twice into one.
    var old = document.getElementById("swagger-ui");
    var fresh = old.cloneNode(false);
    old.parentNode.replaceChild(fresh, old);
    window.SwaggerUIBundle({
      spec: augment(spec),
      dom_id: "#swagger-ui",
      layout: "BaseLayout",
      presets: [window.SwaggerUIBundle.presets.apis],
      deepLinking: true,
      docExpansion: "list",
      defaultModelsExpandDepth: 1,
      displayRequestDuration: true,
      // Never fetch a document named in the page's URL (a phishing vector).
      queryConfigEnabled: false,
      onComplete: function () {
        status.textContent = "";
      },
    });
  }

  function show(entry) {
    var mine = ++loading;
    errorBox.textContent = "";
    status.textContent = "Loading the API description…";
    docLink.href = entry.url;
    if (entry.namespace) {
      nameBox.textContent = entry.namespace;
      document.title = "API reference · " + entry.namespace;
    }
    return fetchJson(entry.url)
      .then(function (r) {
        if (mine !== loading) return;
        if (!r.res.ok || !r.json || typeof r.json !== "object") throw new Error(errorMessage(r.res, r.json));
        render(r.json);
      })
      .catch(function (err) {
        if (mine === loading) fail(err && err.message ? err.message : String(err));
      });
  }

  listDocuments().then(function (entries) {
    if (entries.length === 0) {
      show({ namespace: "", url: defaultDocUrl });
      return;
    }
    // `?namespace=` picks one of the listed documents (never any other URL); else the default one.
    var asked = new URLSearchParams(window.location.search).get("namespace");
    var chosen =
      entries.filter(function (e) { return e.namespace === asked; })[0] ||
      entries.filter(function (e) { return e.url === defaultDocUrl; })[0] ||
      entries[0];
    entries.forEach(function (entry) {
      var option = document.createElement("option");
      option.value = entry.namespace;
      option.textContent = entry.namespace;
      option.selected = entry === chosen;
      select.appendChild(option);
    });
    document.getElementById("namespace-choice").hidden = false;
    select.addEventListener("change", function () {
      var entry = entries.filter(function (e) { return e.namespace === select.value; })[0];
      if (!entry) return;
      var url = new URL(window.location.href);
      url.searchParams.set("namespace", entry.namespace);
      url.hash = "";
      window.history.replaceState(null, "", url.toString());
      show(entry);
    });
    show(chosen);
  });
})();

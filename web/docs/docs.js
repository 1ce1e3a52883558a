// Renders the namespace's OpenAPI document with Swagger UI (loaded before
// this script from the self-hosted swagger-ui-dist files).
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
   * The served document has no tags and no security schemes; without them
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

  var docUrl = body.dataset.docUrl;
  fetch(docUrl, { headers: { Accept: "application/json" } })
    .then(
      function (res) {
        return res.json().then(
          function (json) { return { res: res, json: json }; },
          function () { return { res: res, json: null }; }
        );
      },
      function () {
        throw new Error("The API could not be reached to load its description.");
      }
    )
    .then(function (r) {
      if (!r.res.ok || !r.json || typeof r.json !== "object") throw new Error(errorMessage(r.res, r.json));
      if (typeof window.SwaggerUIBundle !== "function") throw new Error("Swagger UI did not load.");
      window.SwaggerUIBundle({
        spec: augment(r.json),
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
    })
    .catch(function (err) {
      fail(err && err.message ? err.message : String(err));
    });
})();

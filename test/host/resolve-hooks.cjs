// Preloaded with `--require` into a child process that plays a host app:
// - CALPRESS_HIDE_MODULES (comma-separated package names): those packages
//   cannot be resolved, exactly as Node reports a package that is not
//   installed (a host without the pg or mysql2 driver);
// - CALPRESS_EXPRESS_PACKAGE (e.g. `express4`, the clone's alias of
//   express@4): every `require("express")`, the host's and calpress's own,
//   loads that package instead, as the peer dependency resolves in a host
//   that installed that version.
const Module = require("node:module");
const hidden = new Set((process.env.CALPRESS_HIDE_MODULES || "").split(",").filter(Boolean));
const expressPackage = process.env.CALPRESS_EXPRESS_PACKAGE || "";
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden.has(request)) {
    const err = new Error(`Cannot find module '${request}'`);
    err.code = "MODULE_NOT_FOUND";
    throw err;
  }
  if (expressPackage && (request === "express" || request.startsWith("express/"))) {
    return resolve.call(this, expressPackage + request.slice("express".length), ...rest);
  }
  return resolve.call(this, request, ...rest);
};

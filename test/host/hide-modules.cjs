// Preloaded with `--require`: makes the packages named in CALPRESS_HIDE_MODULES
// (comma-separated) unresolvable, exactly as Node reports a package that is
// not installed, so that a test can run calpress as a host without them.
const Module = require("node:module");
const hidden = new Set((process.env.CALPRESS_HIDE_MODULES || "").split(",").filter(Boolean));
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden.has(request)) {
    const err = new Error(`Cannot find module '${request}'`);
    err.code = "MODULE_NOT_FOUND";
    throw err;
  }
  return resolve.call(this, request, ...rest);
};

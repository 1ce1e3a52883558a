// calpress/testing as an ES module: the CommonJS build's named exports, so
// that `import` and `require` share one module instance (as esm/index.mjs).
export * from "../dist/testing/index.js";

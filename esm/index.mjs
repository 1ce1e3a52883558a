// The ES module entry: the CommonJS build's named exports, so that `import`
// and `require` share one module instance (one site registry, one class
// identity for RestError and friends).
export * from "../dist/index.js";

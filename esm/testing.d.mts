export * from "../dist/testing/index.js";

/**
 * The whole of lib/ read from the sources: no circle of files, through value
 * imports or type imports (a type-only file breaks any such circle).
 */
import { expect } from "chai";
import path from "node:path";
import { circles, sourceGraph } from "./support/import-graph";

const LIB = path.join(__dirname, "../lib");

describe("lib structure", () => {
  it("has no circle of files through value imports", () => {
    expect(circles(sourceGraph(LIB, false))).to.deep.equal([]);
  });

  it("has no circle of files through type imports either", () => {
    expect(circles(sourceGraph(LIB, true))).to.deep.equal([]);
  });
});

/**
 * The layering of lib/routes, read from the sources: no circle of files
 * (value imports, and type imports too), and the route table depends on
 * nothing that serves it (Express, the HTTP adapter, batch, preconditions).
 */
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import { circles } from "../support/import-graph";

const DIR = path.join(__dirname, "../../lib/routes");

interface Imports {
  /** Sibling files, by file name (`http.ts`). */
  local: string[];
  /** Everything else, as written (`express`, `../cache/tag-audit`). */
  other: string[];
}

/** `import … from "x"` and `export … from "x"` of a file; `withTypes` false leaves out `import type` / `export type`. */
function importsOf(file: string, withTypes: boolean): Imports {
  const text = fs.readFileSync(path.join(DIR, file), "utf8");
  const out: Imports = { local: [], other: [] };
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\bfrom\s*"([^"]+)"/gms)) {
    if (m[1] !== undefined && !withTypes) continue;
    const source = m[2] ?? "";
    if (source.startsWith("./")) out.local.push(`${source.slice(2)}.ts`);
    else out.other.push(source);
  }
  return out;
}

function graph(withTypes: boolean): Map<string, string[]> {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".ts"));
  return new Map(files.map((f) => [f, importsOf(f, withTypes).local.filter((dep) => files.includes(dep))]));
}

/** Files reachable from `start` (itself excluded). */
function reachable(edges: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set<string>();
  const todo = [...(edges.get(start) ?? [])];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...(edges.get(file) ?? []));
  }
  return seen;
}

describe("lib/routes structure", () => {
  it("finds the circles it looks for", () => {
    const edges = new Map([["a.ts", ["b.ts"]], ["b.ts", ["a.ts"]], ["c.ts", ["a.ts"]]]);
    expect(circles(edges)).to.deep.equal([["a.ts", "b.ts"]]);
  });

  it("has no circle of files through value imports", () => {
    expect(circles(graph(false))).to.deep.equal([]);
  });

  it("has no circle of files through type imports either", () => {
    expect(circles(graph(true))).to.deep.equal([]);
  });

  it("keeps the route table free of what serves it", () => {
    const fromTable = reachable(graph(true), "table.ts");
    for (const file of ["server.ts", "http.ts", "batch.ts", "preconditions.ts", "pipeline.ts", "compose.ts", "send.ts"]) {
      expect(fromTable.has(file), `table.ts reaches ${file}`).to.equal(false);
    }
    for (const file of ["table.ts", ...fromTable]) {
      expect(importsOf(file, false).other, `${file} imports express`).to.not.include("express");
    }
  });

  it("lets nothing in lib/routes import the server but the index", () => {
    const importers = [...graph(true)].filter(([, deps]) => deps.includes("server.ts")).map(([file]) => file);
    expect(importers).to.deep.equal(["index.ts"]);
  });

  it("keeps every file under 600 lines", () => {
    for (const file of graph(false).keys()) {
      const lines = fs.readFileSync(path.join(DIR, file), "utf8").split("\n").length;
      expect(lines, file).to.be.below(600);
    }
  });
});

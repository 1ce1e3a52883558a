import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";

/**
 * lib/cache sits on lib/db (lib/cache/README.md, "Layering"): nothing in
 * lib/db imports lib/cache, type imports included, so the two never form a
 * circle. What the database code needs of caching (tag numbers, the
 * statement classifier) lives in lib/db.
 */
const LIB = path.resolve(__dirname, "../../lib");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** Where each `import … from` / `export … from` of `file` points, resolved to a path under lib. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?\bfrom\s*"([^"]+)"/gms)) {
    const source = m[1] ?? "";
    if (source.startsWith(".")) out.push(path.relative(LIB, path.resolve(path.dirname(file), source)));
  }
  return out;
}

describe("cache layering", () => {
  it("no file in lib/db imports lib/cache", () => {
    const found: string[] = [];
    for (const file of sources(path.join(LIB, "db"))) {
      for (const target of importsOf(file)) if (target === "cache" || target.startsWith(`cache${path.sep}`)) found.push(`${path.relative(LIB, file)} → ${target}`);
    }
    expect(found).to.deep.equal([]);
  });

  it("finds an import of lib/cache where there is one (lib/site.ts)", () => {
    expect(importsOf(path.join(LIB, "site.ts"))).to.include("cache");
  });
});

import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";

/**
 * Database differences live in lib/db (lib/db/dialects): everywhere else
 * asks `engine.dialect` what the database can do. A comparison of dialect
 * names, or a read of knex's connection settings, outside lib/db is a
 * difference that escaped.
 */
const LIB = path.resolve(__dirname, "../../lib");
const ESCAPES = [
  /\bdialect(\.name)?\s*[!=]==/,
  /[!=]==\s*["'](sqlite|postgres|mysql)["']/,
  /\bdialectOf\(/,
  /\bclient\.config\b/,
  /\bconnectionSettings\b/,
];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === path.join(LIB, "db") ? [] : sources(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

describe("dialect boundary", () => {
  it("no code outside lib/db branches on the database's name or reads knex's connection settings", () => {
    const found: string[] = [];
    for (const file of sources(LIB)) {
      fs.readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (ESCAPES.some((re) => re.test(line))) found.push(`${path.relative(LIB, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).to.deep.equal([]);
  });
});

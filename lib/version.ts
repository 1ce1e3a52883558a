import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** calpress's own version (package.json), read once: it names the code that rendered stored answers. */
export const CALPRESS_VERSION: string = (() => {
  for (const dir of [path.join(__dirname, ".."), path.join(__dirname, "..", "..")]) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "calpress" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // Not here: the next candidate.
    }
  }
  return "unknown";
})();

/**
 * Names the code itself, not just its version: size and modification time
 * of every module beside this one. Stored answers rendered by other code (a
 * rebuild during development, a deploy that kept the version number) are
 * then never reused.
 */
export function codeFingerprint(): string {
  const hash = createHash("sha1");
  const walk = (dir: string): void => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(js|ts)$/.test(entry.name)) {
        const stat = fs.statSync(full);
        hash.update(`${path.relative(__dirname, full)}\u0000${stat.size}\u0000${stat.mtimeMs}\n`);
      }
    }
  };
  walk(__dirname);
  return hash.digest("hex").slice(0, 16);
}

/**
 * Root hook: the kept-record files this run made for server databases
 * (lib/cache/index.ts `defaultRecordFile`: one per database and prefix, in
 * this user's directory under the temporary directory) go when the run
 * ends; every test database is dropped by then. SQLite test databases
 * remove theirs (`<file>.records`) when dropped.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const started = Date.now();
const dir = path.join(os.tmpdir(), `calpress-${process.getuid?.() ?? "user"}`);

export const mochaHooks = {
  afterAll(): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith("records-")) continue;
      const file = path.join(dir, name);
      try {
        if (fs.statSync(file).birthtimeMs >= started - 1000) fs.rmSync(file, { force: true });
      } catch {
        /* gone already */
      }
    }
  },
};

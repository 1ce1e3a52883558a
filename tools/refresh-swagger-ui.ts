/**
 * Refreshes the Swagger UI files the API reference page (`/docs`,
 * lib/pages/docs.ts) serves, kept in web/vendor/swagger-ui/:
 *
 *   npx tsx tools/refresh-swagger-ui.ts [version]     (default: the version there now)
 *
 * They are copied from the `swagger-ui-dist` tarball rather than depended
 * on: that package depends on @scarf/scarf, whose postinstall script reports
 * every install to a telemetry service, and a host installing calpress must
 * get no such script. `npm pack` only downloads the tarball (nothing is
 * installed, no script runs). Source maps are left out (the package ships
 * none), and so is the `sourceMappingURL` comment that would ask for them.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const VENDOR = path.resolve(__dirname, "../web/vendor/swagger-ui");
const VERSION_FILE = path.join(VENDOR, "VERSION");

/** What the page loads (lib/pages/docs.ts serves exactly these), then the licences that go with them. */
const SERVED = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-16x16.png", "favicon-32x32.png"];
const LICENCES = ["LICENSE", "NOTICE", "swagger-ui-bundle.js.LICENSE.txt"];

function main(): void {
  const version = process.argv[2] ?? fs.readFileSync(VERSION_FILE, "utf8").split("\n")[0]?.trim();
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`give a version such as 5.35.0, not "${version ?? ""}"`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "swagger-ui-dist-"));
  try {
    const out = execFileSync("npm", ["pack", `swagger-ui-dist@${version}`, "--json", "--pack-destination", scratch], { cwd: scratch, encoding: "utf8" });
    const [packed] = JSON.parse(out.slice(out.indexOf("["))) as Array<{ filename: string; integrity: string }>;
    if (!packed) throw new Error("npm pack gave nothing");
    execFileSync("tar", ["-xzf", path.join(scratch, packed.filename), "-C", scratch]);
    const from = path.join(scratch, "package");
    fs.rmSync(VENDOR, { recursive: true, force: true });
    fs.mkdirSync(VENDOR, { recursive: true });
    for (const file of [...SERVED, ...LICENCES]) {
      const data = fs.readFileSync(path.join(from, file));
      const text = /\.(js|css)$/.test(file) ? data.toString("utf8").replace(/\n?\/[/*]# sourceMappingURL=\S+?(\*\/)?\s*$/, "\n") : null;
      fs.writeFileSync(path.join(VENDOR, file), text ?? data);
    }
    fs.writeFileSync(VERSION_FILE, `${version}\nswagger-ui-dist@${version} ${packed.integrity}\n`);
    console.log(`web/vendor/swagger-ui: swagger-ui-dist@${version}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main();

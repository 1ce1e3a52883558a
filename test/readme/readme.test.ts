/**
 * The README's TypeScript runs as written (issue 18 item 5), so it cannot
 * drift from the code again.
 *
 * Convention for README.md code blocks:
 *
 * - ```ts — a complete ES module (top-level `await` allowed) that imports the
 *   package as `from "calpress"`. All of them are compiled together, once,
 *   with `tsc --strict`; then each runs with tsx in a fresh temporary working
 *   directory of its own (files it creates, such as SQLite databases, go
 *   there), with `PORT` set to a free port in its environment.
 *   - A block that serves HTTP listens on `Number(process.env.PORT ?? 3000)`
 *     and prints a line containing `listening on http://<host>:<port>…`. The
 *     checks declared above it are then sent to that origin, and it gets
 *     SIGTERM (it must then exit 0, or be ended by the signal).
 *   - Any other block must exit 0 on its own.
 * - ```ts mocha — a mocha test file (`describe`, `it` …), which may also
 *   import `calpress/testing`: compiled with the others, then run by mocha
 *   (no `--exit`) in its own temporary directory; it must pass and end by
 *   itself (a handle left open fails it).
 * - ```ts file=<name>.ts — a module other blocks import (`from "./<name>.js"`):
 *   saved under that name beside them and compiled with them, not run alone.
 * - ```ts fragment — a piece of a larger program (not compiled, not run).
 *   Every other TypeScript fence (```typescript, ```tsx …) is refused, so no
 *   block escapes by its spelling.
 * - Checks: HTML comments (invisible on GitHub) on the lines right above a
 *   block's fence, blank lines allowed between them, one request each:
 *
 *     <!-- readme-check: GET /wp-json/library/v1/books/1 200 "Dune" -->
 *
 *   method, path (from the origin the block printed), expected status, and
 *   optionally a double-quoted text the body must contain.
 *
 * `calpress` (and `calpress/testing`) resolve to this checkout's lib/ (tsconfig `paths`): for tsc to
 * its sources; at run time to a small ES module that re-exports lib/index.ts
 * by name, since Node cannot see the names `export *` re-exports from a
 * module tsx compiles to CommonJS (the published dist/ has no such problem).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "chai";
import { started } from "../support/lanes";

const ROOT = path.resolve(__dirname, "../..");
const README = path.join(ROOT, "README.md");
const TSX_LOADER = pathToFileURL(path.join(path.dirname(require.resolve("tsx/package.json")), "dist/loader.mjs")).href;
const TSC = require.resolve("typescript/bin/tsc");
const MOCHA = require.resolve("mocha/bin/mocha.js");
/** Fence infos of the blocks that run: ES modules, and mocha suites. */
const RUNNABLE = ["ts", "ts mocha"];
/** A module the runnable blocks import, saved as its name. */
const MODULE = /^ts file=([a-z][a-z0-9-]*\.ts)$/;

interface Check {
  method: string;
  path: string;
  status: number;
  /** Text the body must contain. */
  contains?: string;
}

interface Block {
  /** 1-based line of the opening fence in README.md. */
  line: number;
  info: string;
  code: string;
  checks: Check[];
}

const CHECK = /^<!--\s*readme-check:\s*([A-Z]+)\s+(\/\S*)\s+(\d{3})(?:\s+"((?:[^"\\]|\\.)*)")?\s*-->$/;

/** Every fenced block of the README, with the checks declared above it. */
function readmeBlocks(text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i] as string);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] as string); i++) body.push(lines[i] as string);
    if (i >= lines.length) throw new Error(`README.md:${start + 1}: the code block is never closed`);
    const checks: Check[] = [];
    for (let j = start - 1; j >= 0; j--) {
      const above = (lines[j] as string).trim();
      if (above === "") continue;
      if (!above.startsWith("<!-- readme-check")) break;
      const m = CHECK.exec(above);
      if (!m) throw new Error(`README.md:${j + 1}: malformed check (want <!-- readme-check: GET /path 200 "text" -->): ${above}`);
      checks.unshift({ method: m[1] as string, path: m[2] as string, status: Number(m[3]), contains: m[4]?.replace(/\\(.)/g, "$1") });
    }
    blocks.push({ line: start + 1, info: (open[1] as string).trim(), code: body.join("\n"), checks });
  }
  return blocks;
}

const isTypeScript = (info: string): boolean => /^(ts|typescript|tsx|mts|cts)\b/i.test(info);

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A port nobody listens on now. Not 0: a block may print the port it was
 * given rather than the one it got, and the checks need the real one.
 */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Runs one block; serves its checks if it prints a listening line. Resolves to a list of problems (empty: fine). */
async function runBlock(block: Block, file: string, runtimeTsconfig: string): Promise<string[]> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-readme-run-"));
  const program = block.info === "ts mocha" ? [MOCHA, "--no-config", "--timeout", "60000", file] : [file];
  const child = spawn(process.execPath, ["--import", TSX_LOADER, ...program], {
    cwd,
    env: { ...process.env, PORT: String(await freePort()), TSX_TSCONFIG_PATH: runtimeTsconfig },
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const finished = new Promise<Finished>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  const output = (): string => `\n--- stdout ---\n${stdout}--- stderr ---\n${stderr}`;
  try {
    // Either a listening line or the end of the process, whichever comes first.
    const started = await new Promise<{ origin: string } | Finished>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`neither a "listening on http://…" line nor an exit within 90 s${output()}`)), 90_000);
      child.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const m = /listening on (http:\/\/[^\s/]+)/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve({ origin: new URL(m[1] as string).origin });
        }
      });
      void finished.then((f) => {
        clearTimeout(timer);
        resolve(f);
      });
    });
    if (!("origin" in started)) {
      const problems = started.code === 0 ? [] : [`exited with ${started.code ?? started.signal}${output()}`];
      if (block.checks.length > 0) problems.push("has readme-checks but never printed a listening line");
      return problems;
    }
    const problems: string[] = [];
    for (const check of block.checks) {
      const label = `${check.method} ${check.path}`;
      try {
        const res = await fetch(`${started.origin}${check.path}`, { method: check.method, signal: AbortSignal.timeout(30_000) });
        const text = await res.text();
        if (res.status !== check.status) problems.push(`${label}: status ${res.status}, expected ${check.status}: ${text.slice(0, 500)}`);
        else if (check.contains !== undefined && !text.includes(check.contains)) problems.push(`${label}: the body lacks "${check.contains}": ${text.slice(0, 500)}`);
      } catch (err) {
        problems.push(`${label}: ${(err as Error).message}`);
      }
    }
    child.kill("SIGTERM");
    const stopTimer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const stopped = await finished;
    clearTimeout(stopTimer);
    // Stopping is part of the example: it must close what it opened and exit 0, not die of the signal.
    if (stopped.code !== 0) problems.push(`did not stop cleanly on SIGTERM (${stopped.code ?? stopped.signal})${output()}`);
    return problems.length > 0 ? [...problems, `output:${output()}`] : [];
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await finished;
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

/** Runs tsc once over every block; gives its diagnostics with block files named by their README line. */
function typecheck(project: string, files: Map<string, Block>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSC, "-p", path.join(project, "tsconfig.json"), "--pretty", "false"], { cwd: project });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.once("error", reject);
    child.once("close", () => {
      // block-3.ts(5,10): error … → README.md:124 (block at line 120, its line 5): error …
      const mapped = out.replace(/\S*?([a-z][a-z0-9-]*\.ts)\((\d+),\d+\)/g, (whole, name: string, line: string) => {
        const block = files.get(name);
        return block ? `README.md:${block.line + Number(line)}` : whole;
      });
      resolve(mapped.trim());
    });
  });
}

describe("README.md code blocks", function () {
  const blocks = readmeBlocks(fs.readFileSync(README, "utf8"));
  const runnable = blocks.filter((b) => RUNNABLE.includes(b.info));
  let project: string;
  let runtimeTsconfig: string;
  const files = new Map<string, Block>();
  /** tsc over every block: started by `before`, judged after the blocks ran (they do not need it, and it takes a core for seconds). */
  let diagnostics: Promise<string> = Promise.resolve("");

  before(async function () {
    this.timeout(300_000);
    project = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-readme-"));
    // express, @types/… and the rest resolve as they do for the repository.
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ type: "module", private: true }));
    runnable.forEach((block, i) => {
      const name = `block-${i + 1}.ts`;
      files.set(name, block);
      fs.writeFileSync(path.join(project, name), `${block.code}\n`);
    });
    for (const block of blocks) {
      const name = MODULE.exec(block.info)?.[1];
      if (name === undefined) continue;
      if (files.has(name)) throw new Error(`README.md:${block.line}: a second module named ${name}`);
      files.set(name, block);
      fs.writeFileSync(path.join(project, name), `${block.code}\n`);
    }
    const compilerOptions = {
      strict: true,
      target: "ES2022",
      module: "ES2022",
      moduleResolution: "bundler",
      esModuleInterop: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node", "mocha"],
    };
    fs.writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify(
        { compilerOptions: { ...compilerOptions, paths: { calpress: [path.join(ROOT, "lib/index.ts")], "calpress/testing": [path.join(ROOT, "lib/testing/index.ts")] } }, files: [...files.keys()] },
        null,
        2,
      ),
    );
    // The names lib/index.ts (and lib/testing) export, re-exported from ES modules for the blocks (see the comment at the top).
    const entry = (file: string, source: string): void => {
      const names = Object.keys(require(source) as Record<string, unknown>);
      fs.writeFileSync(
        path.join(project, file),
        `import { createRequire } from "node:module";\n` +
          `const lib = createRequire(import.meta.url)(${JSON.stringify(source)});\n` +
          `export const { ${names.join(", ")} } = lib;\n`,
      );
    };
    entry("calpress.mts", path.join(ROOT, "lib/index.ts"));
    entry("calpress-testing.mts", path.join(ROOT, "lib/testing/index.ts"));
    runtimeTsconfig = path.join(project, "tsconfig.run.json");
    fs.writeFileSync(runtimeTsconfig, JSON.stringify({ compilerOptions: { ...compilerOptions, paths: { calpress: ["./calpress.mts"], "calpress/testing": ["./calpress-testing.mts"] } } }, null, 2));
    diagnostics = started(files.size === 0 ? Promise.resolve("") : typecheck(project, files));
  });

  after(async () => {
    // tsc reads the project until it ends.
    await diagnostics.catch(() => undefined);
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it("has runnable blocks, and every TypeScript fence is ```ts, ```ts mocha, ```ts file=<name>.ts or ```ts fragment", () => {
    expect(runnable.length).to.be.greaterThan(0);
    const odd = blocks.filter((b) => isTypeScript(b.info) && !RUNNABLE.includes(b.info) && !MODULE.test(b.info) && b.info !== "ts fragment");
    expect(odd.map((b) => `README.md:${b.line}: \`\`\`${b.info}`)).to.deep.equal([]);
    const stray = blocks.filter((b) => !RUNNABLE.includes(b.info) && b.checks.length > 0);
    expect(stray.map((b) => `README.md:${b.line}: checks above a block that is not run`)).to.deep.equal([]);
  });

  for (const block of runnable) {
    const what = block.checks.length > 0 ? `runs and answers ${block.checks.map((c) => `${c.method} ${c.path} ${c.status}`).join(", ")}` : "runs";
    it(`the block at README.md:${block.line} ${what}`, async function () {
      this.timeout(180_000);
      const name = [...files.entries()].find(([, b]) => b === block)?.[0] as string;
      const problems = await runBlock(block, path.join(project, name), runtimeTsconfig);
      expect(problems, `\n${problems.join("\n")}\n`).to.deep.equal([]);
    });
  }

  it("every ```ts block compiles with tsc --strict", async function () {
    this.timeout(300_000);
    const found = await diagnostics;
    expect(found, `\n${found}\n`).to.equal("");
  });
});

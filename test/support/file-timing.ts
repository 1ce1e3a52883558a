/**
 * Per-file wall time of a mocha run, for finding where the suite's time goes.
 *
 * Loaded by .mocharc.json on every run but inert unless CALPRESS_TEST_TIMING=1,
 * so `npm test` in CI does exactly what it did without it. When on, it times each
 * top-level suite from its "suite" event (before its `before` hooks) to its
 * "suite end" event (after its `after` hooks), adds those up by test file, and
 * prints the slowest 40 files (CALPRESS_TEST_TIMING_TOP changes the count) when
 * the run ends. Setting CALPRESS_TEST_TIMING_FILE also writes every file's time
 * as JSON there, so two runs can be compared.
 */
import fs from "node:fs";
import path from "node:path";
import Mocha from "mocha";

interface FileTime {
  ms: number;
  tests: number;
}

function install(): void {
  const times = new Map<string, FileTime>();
  const started = new Map<Mocha.Suite, number>();
  const fileOf = (suite: Mocha.Suite): string => path.relative(process.cwd(), suite.file ?? "(no file)");
  const entry = (file: string): FileTime => {
    let e = times.get(file);
    if (!e) times.set(file, (e = { ms: 0, tests: 0 }));
    return e;
  };

  // Listening on the runner is the only way to see hooks' time; a root-hook
  // plugin sees tests, not the suites around them. Patching `run` attaches the
  // listeners to whatever runner mocha makes, before any event is emitted.
  const originalRun = Mocha.Runner.prototype.run;
  Mocha.Runner.prototype.run = function (this: Mocha.Runner, ...args: Parameters<Mocha.Runner["run"]>) {
    const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_END, EVENT_RUN_END } = Mocha.Runner.constants;
    this.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.parent?.root) started.set(suite, performance.now());
    });
    this.on(EVENT_SUITE_END, (suite: Mocha.Suite) => {
      const t0 = started.get(suite);
      if (t0 === undefined) return;
      started.delete(suite);
      entry(fileOf(suite)).ms += performance.now() - t0;
    });
    this.on(EVENT_TEST_END, (test: Mocha.Test) => {
      entry(path.relative(process.cwd(), test.file ?? "(no file)")).tests += 1;
    });
    this.once(EVENT_RUN_END, () => report(times));
    return originalRun.apply(this, args);
  };
}

function report(times: Map<string, FileTime>): void {
  const rows = [...times.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((sum, [, t]) => sum + t.ms, 0);
  const top = Number(process.env.CALPRESS_TEST_TIMING_TOP ?? 40);
  const lines = [`\nSlowest test files (wall time incl. hooks; all ${rows.length} files: ${(total / 1000).toFixed(1)} s)`];
  for (const [file, t] of rows.slice(0, top)) {
    lines.push(`${(t.ms / 1000).toFixed(1).padStart(8)} s ${String(t.tests).padStart(5)} tests  ${file}`);
  }
  process.stdout.write(lines.join("\n") + "\n");
  const out = process.env.CALPRESS_TEST_TIMING_FILE;
  if (out) fs.writeFileSync(out, JSON.stringify(Object.fromEntries(rows.map(([f, t]) => [f, Math.round(t.ms)])), null, 2));
}

if (process.env.CALPRESS_TEST_TIMING === "1") install();

export const mochaHooks = {};

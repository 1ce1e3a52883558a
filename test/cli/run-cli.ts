/** The CLI run as users run it, for the command-line tests: a separate process, its own stdout and stderr. */
import { spawn, ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");
export const CLI = path.join(ROOT, "lib/cli.ts");

export interface Run {
  child: ChildProcessWithoutNullStreams;
  /** Complete lines so far. */
  stdout: string[];
  stderr: string;
  exit: Promise<number | null>;
}

export function runCli(args: string[], cwd = ROOT): Run {
  const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), CLI, ...args], { cwd, env: { ...process.env } });
  const run: Run = { child, stdout: [], stderr: "", exit: new Promise((resolve) => child.once("exit", (code) => resolve(code))) };
  let buffer = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    run.stdout.push(...lines);
  });
  child.stderr.on("data", (chunk: Buffer) => (run.stderr += chunk.toString()));
  return run;
}

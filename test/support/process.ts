/** Child processes in tests: waiting for the ready line a server prints first. */
import type { ChildProcessWithoutNullStreams } from "node:child_process";

/**
 * The first line `child` prints on stdout (its ready line); rejected with its
 * stderr when it exits first or prints nothing within 30 s. `stderr()` keeps
 * collecting afterwards.
 */
export function readyLine(child: ChildProcessWithoutNullStreams): { line: Promise<string>; stderr: () => string } {
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const line = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), 30_000);
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes("\n")) {
        clearTimeout(timer);
        resolve(stdout.split("\n")[0] ?? "");
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before its ready line; stderr: ${stderr}`));
    });
  });
  return { line, stderr: () => stderr };
}

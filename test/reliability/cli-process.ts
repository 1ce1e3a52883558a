/**
 * `calpress serve` as a child process, as users run it: its own stdout and
 * stderr, its ready line, signals. For the crash and shutdown tests.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import http from "node:http";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "lib/cli.ts");

export interface Server {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:<port>/wp-json/` */
  root: string;
  port: number;
  stderr: () => string;
  /** Everything it printed on stdout so far. */
  stdout: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startServer(args: string[], timeoutMs = 30_000): Promise<Server> {
  const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), CLI, "serve", "--port", "0", ...args], { cwd: ROOT, env: { ...process.env } });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      const first = stdout.split("\n")[0];
      if (stdout.includes("\n") && first !== undefined) {
        clearTimeout(timer);
        resolve(first);
      }
    });
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before it was ready; stderr: ${stderr}`));
    });
  });
  const m = /^calpress listening on (http:\/\/127\.0\.0\.1:(\d+)\/wp-json\/)$/.exec(line);
  if (!m) throw new Error(`unexpected ready line: ${line}`);
  return { child, root: m[1] as string, port: Number(m[2]), stderr: () => stderr, stdout: () => stdout, exit };
}

export interface Reply {
  status: number;
  body: unknown;
  text: string;
}

/**
 * One request on its own connection (`Connection: close`), so that a
 * refused connection, a reset and an answer can be told apart.
 */
export function call(port: number, method: string, route: string, opts: { auth?: string; json?: unknown; timeoutMs?: number } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = opts.json === undefined ? undefined : Buffer.from(JSON.stringify(opts.json));
    const headers: Record<string, string | number> = { connection: "close" };
    if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    if (body) {
      headers["content-type"] = "application/json";
      headers["content-length"] = body.length;
    }
    const req = http.request({ host: "127.0.0.1", port, method, path: `/wp-json/calendar/events/v1${route}`, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON: kept as text */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, text });
      });
      res.on("error", reject);
    });
    req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(body);
  });
}

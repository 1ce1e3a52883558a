import http from "node:http";
import type { CliIO } from "./io";

/**
 * Requests every path of `source` once from calpress's own listening address, a few at a
 * time, so that the answer store holds their answers before readers come
 * (stored answers are keyed by the REST root, host included: these are
 * the answers for clients of that address). Runs beside normal traffic;
 * reports progress on stderr and the total on stdout.
 */
export async function warmStoredAnswers(
  root: string,
  source: { total(): Promise<number>; pages(): AsyncIterable<string[]> },
  io: CliIO,
  concurrency = 4,
): Promise<void> {
  const started = Date.now();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const total = await source.total();
  let done = 0;
  let failed = 0;
  let reported = started;
  const get = (url: string): Promise<number> =>
    new Promise((resolve) => {
      const req = http.get(url, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      });
      req.on("error", () => resolve(0));
    });
  const worker = async (paths: readonly string[], start: { next: number }): Promise<void> => {
    while (start.next < paths.length) {
      const path = paths[start.next++];
      if ((await get(`${root}${path}`)) !== 200) failed++;
      done++;
      const now = Date.now();
      if (now - reported >= 5000) {
        reported = now;
        io.err(`warming stored answers: ${done} of ${total}`);
      }
    }
  };
  for await (const paths of source.pages()) {
    const position = { next: 0 };
    await Promise.all(Array.from({ length: concurrency }, () => worker(paths, position)));
  }
  agent.destroy();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.out(`calpress warmed ${done - failed} stored answers in ${seconds} s${failed > 0 ? ` (${failed} requests did not answer 200)` : ""}`);
}

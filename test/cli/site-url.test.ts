/**
 * `calpress serve --site-url`: every generated URL comes from it, the site
 * is served under its path, and anything but an absolute http(s) URL is a
 * usage error (exit 2).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { expect } from "chai";
import { upFront } from "../support/lanes";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "lib/cli.ts");

interface Run {
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
  /** When its output is all read, too. */
  closed: Promise<void>;
  stop(): void;
}

function runCli(args: string[]): Run {
  const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), CLI, ...args], { cwd: ROOT, env: { ...process.env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return { stdout: () => stdout, stderr: () => stderr, exit, closed, stop: () => child.kill("SIGTERM") };
}

async function lines(run: Run, count: number, timeoutMs = 30_000): Promise<string[]> {
  const start = Date.now();
  for (;;) {
    const got = run.stdout().split("\n");
    if (got.length > count) return got.slice(0, count);
    if (Date.now() - start > timeoutMs) throw new Error(`no output; stderr: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("calpress serve --site-url", function () {
  this.timeout(60_000);

  const bads = ["calendar.example.org", "ftp://calendar.example.org", "https://calendar.example.org/?a=1", ""];
  // Each ends by itself and shares nothing: started together (two at a time), each judged by its test.
  const refusals = upFront(
    bads.map((bad) => [
      bad,
      async () => {
        const run = runCli(["serve", "--port", "0", "--db", ":memory:", "--site-url", bad]);
        await run.closed;
        return run;
      },
    ] as const),
  );
  before(() => refusals.start());
  after(() => refusals.settled());
  for (const bad of bads) {
    it(`exits 2 with a clear message for ${JSON.stringify(bad)}`, async () => {
      const run = await refusals.get(bad);
      expect(await run.exit).to.equal(2);
      expect(run.stdout()).to.equal("");
      expect(run.stderr()).to.match(/^calpress: --site-url: the site URL must/);
    });
  }

  it("builds every URL from the site URL and serves the site under its path", async () => {
    const run = runCli(["serve", "--port", "0", "--db", ":memory:", "--fixture", "minimal", "--site-url", "https://Cal.Example.org/calendar/"]);
    try {
      const [ready, site, calendar] = await lines(run, 3);
      const m = /^calpress listening on (http:\/\/127\.0\.0\.1:(\d+))\/calendar\/wp-json\/$/.exec(ready ?? "");
      expect(m, ready).to.not.equal(null);
      const origin = m![1]!;
      expect(site).to.match(/^Site URL: +https:\/\/cal\.example\.org\/calendar /);
      expect(calendar).to.match(new RegExp(`^Calendar: +${origin}/calendar/$`));

      const index = await fetch(`${origin}/calendar/wp-json/`);
      expect(index.status).to.equal(200);
      expect(index.headers.get("link")).to.equal('<https://cal.example.org/calendar/wp-json/>; rel="https://api.w.org/"');
      expect(((await index.json()) as { home: string }).home).to.equal("https://cal.example.org/calendar");
      const list = (await (await fetch(`${origin}/calendar/wp-json/calendar/events/v1/events`)).json()) as { events: Array<{ url: string }> };
      expect(list.events.length).to.be.greaterThan(0);
      for (const event of list.events) expect(event.url.startsWith("https://cal.example.org/calendar/event/"), event.url).to.equal(true);
      expect((await fetch(`${origin}/calendar/?rest_route=/`)).status).to.equal(200);
      const page = await (await fetch(`${origin}/calendar/`)).text();
      expect(page).to.contain('data-rest-root="/calendar/wp-json/"');
      expect((await fetch(`${origin}/wp-json/`)).status).to.equal(404);
    } finally {
      run.stop();
    }
    expect(await run.exit).to.equal(0);
  });
});

import { expect } from "chai";
import { registerBookPlugin } from "../../examples/book-plugin";
import { runFuzz, summaryLine, type FuzzReport, type Problem } from "../../lib/fuzz/run";
import { startTestSite, type TestSite } from "../support/site";

/**
 * Bugs the fuzzer found in code its owners are still finishing. A problem
 * matching one of these is listed but does not fail the short pass; each has
 * its own skipped regression test below, which is the one to un-skip when
 * the bug is fixed (and then the entry here goes too).
 */
const KNOWN_BUGS: Array<{ name: string; pattern: RegExp }> = [
  { name: "BUG-1 events list: a date bound before year 0 reaches the database", pattern: /start_local must be YYYY-MM-DD HH:MM:SS|end_local must be YYYY-MM-DD HH:MM:SS/ },
  { name: "BUG-2 events create/update: a non-string start_date crashes the end_date check", pattern: /input\.trim is not a function/ },
  // See storage-limits.test.ts for these two.
  { name: "BUG-11 engine length checks answered 500", pattern: /longer than \d+ characters|may have at most \d+ characters/ },
  { name: "BUG-12 SQLite LIKE pattern too long", pattern: /LIKE or GLOB pattern too complex/ },
];

function knownBug(p: Problem): string | undefined {
  return KNOWN_BUGS.find((b) => b.pattern.test(p.detail))?.name;
}

describe("reliability: fuzzing every route (short seeded pass, SQLite)", function () {
  this.timeout(120_000);
  let report: FuzzReport;

  before(async () => {
    // With the book example's namespace: routes a host adds are found in the index and fuzzed too.
    report = await runFuzz({ requests: 300, seed: 1, setup: registerBookPlugin });
  });

  it("prints one summary line", () => {
    expect(summaryLine(report)).to.match(/^fuzz: 300 requests, \d+ server errors, \d+ unexpected changes$/);
  });

  it("reaches every route of the site index and gets past validation to real writes", () => {
    const patterns = new Set(Object.keys(report.byRoute).map((k) => k.slice(k.indexOf(" ") + 1)));
    expect(report.routes).to.be.greaterThan(10);
    expect([...patterns].some((p) => p.startsWith("/library/v1/books")), "the book example's routes").to.equal(true);
    expect(patterns.size, `routes hit: ${[...patterns].join(", ")}`).to.be.at.least(report.routes);
    expect(Object.values(report.writes).reduce((a, b) => a + b, 0)).to.be.greaterThan(5);
    expect(report.statuses["400"] ?? 0).to.be.greaterThan(20);
  });

  it("never answers 5xx (known bugs aside), always the JSON error envelope for a 4xx, never a secret", () => {
    // Five users' application passwords (two forms each), e-mails and stored hashes.
    expect(report.secretsChecked).to.be.at.least(15);
    const unknown = report.problems.filter((p) => p.kind !== "unexpected-change" && knownBug(p) === undefined);
    const known = report.problems.filter((p) => knownBug(p) !== undefined);
    if (known.length > 0) console.log(`      (known bugs hit: ${[...new Set(known.map((p) => knownBug(p)))].join("; ")})`);
    expect(unknown.map((p) => `#${p.index} ${p.kind} ${p.status ?? ""}: ${p.request}\n${p.detail}`)).to.deep.equal([]);
  });

  it("changes the database only on requests that returned a 2xx write", () => {
    const changes = report.problems.filter((p) => p.kind === "unexpected-change");
    expect(changes.map((p) => `#${p.index}: ${p.request}\n${p.detail}`)).to.deep.equal([]);
  });

  it("generates the same requests from the same seed", async () => {
    const again = await runFuzz({ requests: 40, seed: 7 });
    const once = await runFuzz({ requests: 40, seed: 7 });
    expect(again.byRoute).to.deep.equal(once.byRoute);
  });
});

describe("reliability: bugs the fuzzer found", function () {
  this.timeout(30_000);
  let t: TestSite;
  before(async () => {
    t = await startTestSite({ fixture: "minimal" });
  });
  after(async () => {
    await t?.close();
  });

  // BUG-1 (lib/calendar/events list query / lib/posts/dates): `start_date=-0001-11-30 00:00:00`
  // parses (PHP's "zero date") and the bound reaches the engine as a year -1
  // date, which normaliseSqlDate refuses with an exception → 500.
  it.skip("BUG-1: GET /events with a date bound before year 0 is a 400 or an empty list, not a 500", async () => {
    const res = await t.get("/events", { query: { start_date: "-0001-11-30 00:00:00" } });
    expect(res.status).to.be.oneOf([200, 400]);
  });

  // BUG-2 (lib/calendar/events/args.ts endBeforeStart): the end_date check
  // reads the raw start_date and hands a non-string to parseApiDate, which
  // calls .trim() on it → 500 instead of 400 rest_invalid_param.
  it.skip("BUG-2: POST /events with start_date as a list or number is a 400, not a 500", async () => {
    for (const start of [["2030-01-01"], 5, { a: 1 }]) {
      const res = await t.post("/events", { as: "admin", json: { title: "x", start_date: start, end_date: -1 } });
      expect(res.status, JSON.stringify(start)).to.equal(400);
      expect((res.body as { code: string }).code).to.equal("rest_invalid_param");
    }
  });
});

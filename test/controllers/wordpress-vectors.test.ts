/**
 * The generated controllers against WordPress 6.1's own answers
 * (test/vectors/wordpress): the reference content laid on a calpress site
 * with the same ids (reference.ts), every recorded request replayed in the
 * recorded order, each answer compared with WordPress's after the
 * normalisation replay.ts documents. A difference must be one the
 * controllers make on purpose (known-differences.ts, with its reason), or
 * the test fails; so does a documented difference that no longer happens.
 */
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { REASONS, RULES, type Rule } from "./known-differences";
import { layReference, loadReference, registerReference, type Json } from "./reference";
import { compare, IdMap, kindOfPath, requestOf } from "./replay";

/** The answers' routes the recorder kept of the REST root and namespace indexes (`vector.response.filtered`). */
const KEPT_ROUTES: Record<string, RegExp> = {
  "index-routes": /^\/(batch\/v1|board\/v1|wp\/v2\/(jobs|gigs|departments|skills|types|taxonomies)\b)/,
  "namespace-routes": /^\/wp\/v2\/(jobs|gigs|departments|skills)\b/,
};

function keepRoutes(body: Json, filtered: string | undefined): Json {
  const key = Object.keys(KEPT_ROUTES).find((k) => filtered?.startsWith(`routes: only ${k === "index-routes" ? "/batch/v1" : "those of jobs"}`));
  if (key === undefined || body === null || typeof body !== "object" || Array.isArray(body) || typeof body.routes !== "object" || body.routes === null) return body;
  const keep = KEPT_ROUTES[key];
  return { ...body, routes: Object.fromEntries(Object.entries(body.routes).filter(([route]) => keep.test(route))) };
}

forEachDatabase("generated controllers against WordPress 6.1's recorded answers", (target) => {
  let db: TestDatabase;
  let t: TestSite;
  const reference = loadReference();
  /** Every difference found, by vector: filled by the replay, checked by the tests below. */
  const found = new Map<string, string[]>();

  before(async function () {
    this.timeout(300_000);
    db = await target.create();
    t = await startTestSite({ target: db.target, calendar: false, pages: false, timezone: "Europe/Rome" });
    registerReference(t.site);
    await t.site.migrate();
    const ids = await layReference(t.site);
    for (const [key, id] of Object.entries(reference.fixtures)) expect(ids[key], `fixture ${key}`).to.equal(id);
    const map = new IdMap(reference.fixtures);
    for (const vector of reference.vectors) {
      const { url, init } = requestOf(vector, map, t.home);
      const res = await fetch(url, init);
      const text = await res.text();
      let body: Json = null;
      try {
        body = text === "" ? null : (JSON.parse(text) as Json);
      } catch {
        body = text;
      }
      map.learn(vector, { status: res.status, headers: res.headers, body }, kindOfPath(map.fill(vector.request.path)));
      const ours = { status: res.status, headers: res.headers, body: keepRoutes(body, vector.response.filtered) };
      found.set(vector.name, compare(vector, ours, map, t.home));
    }
  });

  after(async () => {
    await t?.close();
    await db?.drop();
  });

  it("replays every recorded request", () => {
    expect(found.size).to.equal(reference.vectors.length);
  });

  it("answers as WordPress does, but for the documented differences", () => {
    const unexplained: string[] = [];
    for (const [name, diffs] of found) {
      for (const diff of diffs) {
        if (!RULES.some((r) => r.vector.test(name) && r.diff.test(diff))) unexplained.push(`${name}: ${diff}`);
      }
    }
    expect(unexplained, "differences no rule of known-differences.ts explains").to.deep.equal([]);
  });

  it("makes every documented difference (a rule that matches nothing is stale)", () => {
    const used = new Set<Rule>();
    for (const [name, diffs] of found) for (const diff of diffs) for (const r of RULES) if (r.vector.test(name) && r.diff.test(diff)) used.add(r);
    const stale = RULES.filter((r) => !used.has(r)).map((r) => `${r.vector} ${r.diff} (${r.why})`);
    expect(stale).to.deep.equal([]);
    for (const r of RULES) expect(REASONS[r.why], r.why).to.be.a("string");
  });

  it("matches WordPress exactly on most requests", () => {
    // A guard against a normalisation that hides everything: most answers have no difference at all.
    const exact = [...found.values()].filter((d) => d.length === 0).length;
    expect(exact).to.be.greaterThan(reference.vectors.length / 2);
  });
});

/**
 * The generator's cross-check (generate.py runs it; tests never do): npm `rrule`, a JavaScript port of
 * dateutil's algorithm, on the same rules and DTSTART wall clocks (as UTC dates, its way of writing
 * floating times). Reads [{rule, start, walls, stop}] on stdin (walls: dateutil's, DTSTART not added,
 * up to stop), writes one verdict per case: null when rrule gives the same wall clocks, else what
 * differs and, where the cause is known, which of the two RFC 5545 agrees with.
 *
 * The one known cause: rrule 2.8.1's BYSETPOS (buildPoslist in src/iter/poslist.ts) takes a negative
 * position past the start of the period's set as its first instance (JavaScript's
 * `tmp.slice(daypos)[0]` where dateutil's `tmp[daypos]` raises IndexError and selects nothing), and
 * keeps an instance two positions select twice (`includes` compares Date objects by identity). RFC 5545
 * §3.3.10: BYSETPOS=-n is the nth instance from the end of the set, none when the set is shorter, and
 * §3.8.5.3: duplicate instances are ignored. dateutil follows the RFC there; the vectors record it.
 */
"use strict";
const { RRule } = require("rrule");

const iso = (d) => d.toISOString().slice(0, 19);
const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));

/** rrule's wall clocks from `start` up to `stop`. */
function expand(c) {
  const [y, mo, d, h, mi, s] = c.start.split(/[-T:]/).map(Number);
  const options = RRule.parseString(c.rule);
  options.dtstart = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const stop = new Date(c.stop + "Z");
  // Bounded by `stop`; the cap only guards against a runaway (rrule may make more than dateutil).
  return new RRule(options).all((date, i) => date <= stop && i < 100_000).map(iso);
}

function differs(got, want) {
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) return `instance ${i}: rrule ${got[i]}, dateutil ${want[i]}`;
  return got.length === want.length ? null : `rrule makes ${got.length} up to ${want.length > 0 ? "the stop" : "-"}, dateutil ${want.length}`;
}

const out = input.map((c) => {
  let got;
  try {
    got = expand(c);
  } catch (err) {
    return `rrule threw: ${err.message}`;
  }
  const diff = differs(got, c.walls);
  if (diff === null) return null;
  // Is the whole difference the BYSETPOS fault? Then rrule's instances, each once, hold dateutil's, and every
  // extra one is the first instance of its period a too-negative position picked.
  if (/BYSETPOS=/.test(c.rule)) {
    const unique = [...new Set(got)];
    const want = new Set(c.walls);
    const dup = unique.length !== got.length;
    const extra = unique.filter((w) => !want.has(w));
    const missing = c.walls.filter((w) => !unique.includes(w));
    const negative = /BYSETPOS=[^;]*-/.test(c.rule);
    if (missing.length === 0 && (extra.length === 0 ? dup : negative)) {
      const what = [dup ? "repeats an instance two BYSETPOS positions select" : "", extra.length > 0 ? `adds ${extra.length} instance(s) a negative BYSETPOS past the start of the period's set selects (first: ${extra[0]})` : ""].filter(Boolean).join(" and ");
      return `rrule.js BYSETPOS: ${what}; RFC 5545 §3.3.10 (no such position selects nothing) and §3.8.5.3 (duplicates ignored) side with dateutil, recorded. ${diff}`;
    }
  }
  return diff;
});
process.stdout.write(JSON.stringify(out));

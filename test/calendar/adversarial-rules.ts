/**
 * Adversarial recurrences, run as a child process by
 * test/calendar/recurrence-adversarial.test.ts so that an expansion that
 * never returns is a failed test, not a frozen test run.
 *
 * Generates `--rules N` seeded random rule sets (every FREQ, INTERVAL and
 * COUNT up to 2^31 - 1, every BY part with extreme and contradictory values,
 * UNTIL, starts from 1900 to 9990 in several zones, all-day or timed) plus
 * rules known to be sparse or empty, and puts each through every expansion an
 * outside input reaches: the preview, the stored series (write, import and
 * the daily horizon job share it) and the iCal feed's lines. Prints one
 * JSON line: how many of each outcome, the most days one preview tested,
 * and any error that is not a RecurrenceError.
 */
import { feedRecurrence } from "../../lib/calendar/recurrence/ical";
import { occurrencesToStore, previewSeries, type SeriesBase } from "../../lib/calendar/recurrence/expand";
import { parseRecurrence, RecurrenceError } from "../../lib/calendar/recurrence/rules";
import { StepBudget } from "../../lib/calendar/recurrence/rrule";
import { MAX_PREVIEW_DAYS } from "../../lib/calendar/routes/recurrence-preview";

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const args = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const random = mulberry32(arg("seed", 40));
const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)];
const list = (lo: number, hi: number, signed: boolean): string =>
  Array.from({ length: int(1, 4) }, () => (signed && random() < 0.4 ? -1 : 1) * int(lo, hi)).join(",");
const DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
const ZONES = ["UTC", "Europe/Rome", "America/New_York", "Australia/Sydney", "Asia/Kolkata"];

function randomRule(): string {
  const freq = pick(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"]);
  const parts = [`FREQ=${freq}`];
  if (random() < 0.6) parts.push(`INTERVAL=${pick([2, 3, 4, 7, 14, 28, 52, 365, 400, 1461, 4800, 9999, int(1, 9999), 146097, 1_000_000, 2_147_483_647, int(1, 2_147_483_647)])}`);
  if (random() < 0.4) parts.push(`BYMONTH=${list(1, 12, false)}`);
  if (random() < 0.4) parts.push(`BYMONTHDAY=${list(random() < 0.5 ? 28 : 1, 31, true)}`);
  if (random() < 0.5) {
    const ordinal = freq === "MONTHLY" || freq === "YEARLY";
    parts.push(`BYDAY=${Array.from({ length: int(1, 3) }, () => `${ordinal && random() < 0.5 ? (random() < 0.4 ? "-" : "") + int(1, 53) : ""}${pick(DAYS)}`).join(",")}`);
  }
  if (freq === "YEARLY" && random() < 0.3) parts.push(`BYYEARDAY=${list(random() < 0.5 ? 360 : 1, 366, true)}`);
  if (freq === "YEARLY" && random() < 0.3) parts.push(`BYWEEKNO=${list(random() < 0.5 ? 50 : 1, 53, true)}`);
  if (random() < 0.3) parts.push(`BYSETPOS=${list(1, random() < 0.5 ? 366 : 5, true)}`);
  if (random() < 0.2) parts.push(`WKST=${pick(DAYS)}`);
  const end = random();
  if (end < 0.3) parts.push(`COUNT=${pick([1, 2, 10, 500, 5001, 99999, int(1, 99999), 1_000_000, 2_147_483_647, int(1, 2_147_483_647)])}`);
  else if (end < 0.5) parts.push(`UNTIL=${int(1900, 9999)}${String(int(1, 12)).padStart(2, "0")}${String(int(1, 28)).padStart(2, "0")}`);
  return `RRULE:${parts.join(";")}`;
}

/** Rules known to keep no day, or very few: the ones ical.js looped on, and their kin. */
const KNOWN = [
  "RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU",
  "RRULE:FREQ=DAILY;INTERVAL=14;BYDAY=WE",
  "RRULE:FREQ=DAILY;INTERVAL=1461;BYMONTH=2;BYMONTHDAY=29",
  "RRULE:FREQ=DAILY;BYMONTHDAY=-1",
  "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO",
  "RRULE:FREQ=DAILY;INTERVAL=3;BYMONTH=2;BYMONTHDAY=29;BYDAY=SU",
  "RRULE:FREQ=WEEKLY;INTERVAL=9999;BYMONTH=2;BYDAY=MO",
  "RRULE:FREQ=MONTHLY;BYDAY=5MO;BYMONTHDAY=1,2",
  "RRULE:FREQ=MONTHLY;INTERVAL=4800;BYMONTH=2;BYMONTHDAY=29",
  "RRULE:FREQ=YEARLY;BYSETPOS=366;BYYEARDAY=1,366",
  "RRULE:FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO;BYMONTH=1",
  "RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1",
  "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=53MO",
  "RRULE:FREQ=YEARLY;INTERVAL=400;BYMONTH=2;BYMONTHDAY=29;COUNT=99999",
  // The limits (INTERVAL and COUNT up to 2^31 - 1, lib/calendar/recurrence/rules.ts).
  "RRULE:FREQ=DAILY;INTERVAL=2147483647;COUNT=2147483647",
  "RRULE:FREQ=MONTHLY;INTERVAL=2147483647;BYMONTHDAY=-1",
  "RRULE:FREQ=WEEKLY;INTERVAL=146097;BYDAY=MO,TU",
  "RRULE:FREQ=DAILY;BYMONTHDAY=-1;COUNT=2147483647",
];

const now = new Date("2026-11-27T00:00:00Z");
const counts = { rules: 0, refused: 0, previewed: 0, previewRefused: 0, stored: 0, storeRefused: 0, fed: 0 };
let mostPreviewDays = 0;
const unexpected: string[] = [];
const n = arg("rules", 2000);
const rules = [...KNOWN.map((r) => [r]), ...Array.from({ length: n }, () => Array.from({ length: int(1, 3) }, randomRule))];
for (const lines of rules) {
  counts.rules++;
  const year = pick([2030, 2030, int(1900, 2100), int(2100, 9990)]);
  const startLocal = `${year}-${String(int(1, 12)).padStart(2, "0")}-${String(int(1, 28)).padStart(2, "0")} ${pick(["00:00:00", "02:30:00", "10:00:00", "23:30:00"])}`;
  const allDay = random() < 0.2;
  const base: SeriesBase = { startLocal, endLocal: `${startLocal.slice(0, 10)} 23:59:59`, zone: pick(ZONES), allDay };
  const guard = (what: string, work: () => void): boolean => {
    try {
      work();
      return true;
    } catch (err) {
      if (err instanceof RecurrenceError) return false;
      unexpected.push(`${what} ${JSON.stringify(lines)} from ${startLocal}: ${err instanceof Error ? err.stack : String(err)}`);
      return false;
    }
  };
  let parsed: ReturnType<typeof parseRecurrence> | undefined;
  if (!guard("parse", () => (parsed = parseRecurrence(lines))) || parsed === undefined) {
    counts.refused++;
    continue;
  }
  const p = parsed;
  const budget = new StepBudget(MAX_PREVIEW_DAYS);
  if (guard("preview", () => previewSeries(p, base, { count: int(1, 50), budget }))) counts.previewed++;
  else counts.previewRefused++;
  mostPreviewDays = Math.max(mostPreviewDays, budget.used);
  if (guard("store", () => occurrencesToStore(p, base, now, 365))) counts.stored++;
  else counts.storeRefused++;
  if (guard("feed", () => feedRecurrence(p.lines, startLocal, base.zone, allDay, base.zone))) counts.fed++;
}
process.stdout.write(`${JSON.stringify({ counts, mostPreviewDays, unexpected: unexpected.slice(0, 20) })}\n`);

/**
 * The days an RRULE makes (RFC 5545 §3.3.10), computed here rather than by
 * a library so that no rule can make expansion unbounded.
 *
 * calpress repeats events at most daily and refuses BYHOUR, BYMINUTE and
 * BYSECOND (lib/calendar/recurrence/rules.ts), so every instance of a rule
 * has the series' time of day: a rule is a set of days. The algorithm is
 * python-dateutil's (`rrule._iter`), the usual reference: step through the
 * periods of FREQ (years, months, weeks, days) INTERVAL at a time, take the
 * days of each period the BY parts keep, then BYSETPOS within the period.
 * Where dateutil departs from the RFC, the RFC decides: BYDAY with and
 * without ordinals in one rule (`MO,1TU`) keeps the days of either, not of
 * both.
 *
 * Bounds the input cannot escape:
 * - A period is cheap: at most 366 days are looked at (a year).
 * - A rule that keeps no day in `cycleOf(freq, interval)` consecutive
 *   periods keeps none ever after: the Gregorian calendar repeats every 400
 *   years (146,097 days, exactly 20,871 weeks, 4,800 months), so the
 *   periods a rule visits repeat within that many. The iterator then ends:
 *   no call can step more than one cycle (at most ~150,000 day tests)
 *   between two days, however sparse the rule.
 * - Every day tested is charged to a `StepBudget`, so one expansion —
 *   all its rules together — does at most its budget of work; past it the
 *   budget throws `ExpansionBudgetError`.
 * - Periods past year 9999 end the rule.
 */
import { RecurrenceError } from "./errors";

export type Frequency = "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY";

/** A weekday: 0 Monday … 6 Sunday (dateutil's numbering). */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export interface ByDay {
  weekday: Weekday;
  /** The nth such weekday of the month or year (negative: from the end); absent: every one. */
  ordinal?: number;
}

/** A rule's parts as numbers (COUNT and UNTIL are applied by the caller). */
export interface RuleParts {
  freq: Frequency;
  interval: number;
  byMonth: readonly number[];
  byMonthDay: readonly number[];
  byYearDay: readonly number[];
  byWeekNo: readonly number[];
  byDay: readonly ByDay[];
  bySetPos: readonly number[];
  wkst: Weekday;
}

export const WEEKDAYS: readonly string[] = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

/** The parts of a normalised rule text (`FREQ=WEEKLY;BYDAY=TU`), already checked by `parseRecurrence`. */
export function ruleParts(text: string): RuleParts {
  const parts = new Map(text.split(";").map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)] as const));
  const numbers = (name: string): number[] => (parts.get(name) ?? "").split(",").filter((v) => v !== "").map(Number);
  const weekday = (name: string): Weekday => WEEKDAYS.indexOf(name) as Weekday;
  return {
    freq: parts.get("FREQ") as Frequency,
    interval: Number(parts.get("INTERVAL") ?? "1"),
    byMonth: numbers("BYMONTH"),
    byMonthDay: numbers("BYMONTHDAY"),
    byYearDay: numbers("BYYEARDAY"),
    byWeekNo: numbers("BYWEEKNO"),
    byDay: (parts.get("BYDAY") ?? "")
      .split(",")
      .filter((v) => v !== "")
      .map((v) => {
        const ordinal = v.length > 2 ? Number(v.slice(0, -2)) : undefined;
        return ordinal === undefined ? { weekday: weekday(v.slice(-2)) } : { weekday: weekday(v.slice(-2)), ordinal };
      }),
    bySetPos: numbers("BYSETPOS"),
    wkst: parts.has("WKST") ? weekday(parts.get("WKST") ?? "MO") : 0,
  };
}

/** Thrown when an expansion has used up its budget of day tests. */
export class ExpansionBudgetError extends RecurrenceError {}

/** The work one expansion may do, in days tested, shared by all its rules. */
export class StepBudget {
  used = 0;
  constructor(
    readonly limit: number,
    private readonly message = `the recurrence is too sparse to expand (more than ${limit} days tested)`,
  ) {}

  spend(days: number): void {
    this.used += days;
    if (this.used > this.limit) throw new ExpansionBudgetError(this.message);
  }
}

// ---- The proleptic Gregorian calendar on day numbers (days since 1970-01-01; H. Hinnant's algorithms).

export function dayNumber(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

export function civil(n: number): { year: number; month: number; day: number } {
  const z = n + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** `YYYY-MM-DD` of a day number. */
export function dayText(n: number): string {
  const { year, month, day } = civil(n);
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The day number of `YYYY-MM-DD…`. */
export function dayOf(text: string): number {
  return dayNumber(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)));
}

export function weekdayOf(n: number): Weekday {
  // 1970-01-01 was a Thursday (3).
  return (((n % 7) + 7 + 3) % 7) as Weekday;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** First day (0-based day of the year) of each month, and the year's length last. */
const MONTH_STARTS = {
  365: [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365],
  366: [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366],
} as const;

/** Per day of a 365- or 366-day year: its month, its day of the month, and that day counted from the month's end (negative). */
function dayTables(len: 365 | 366): { month: Int8Array; monthDay: Int8Array; negMonthDay: Int8Array } {
  const starts = MONTH_STARTS[len];
  const month = new Int8Array(len);
  const monthDay = new Int8Array(len);
  const negMonthDay = new Int8Array(len);
  for (let m = 0; m < 12; m++) {
    for (let i = starts[m]; i < starts[m + 1]; i++) {
      month[i] = m + 1;
      monthDay[i] = i - starts[m] + 1;
      negMonthDay[i] = i - starts[m + 1];
    }
  }
  return { month, monthDay, negMonthDay };
}
const TABLES = { 365: dayTables(365), 366: dayTables(366) } as const;

/** A year's facts, and the masks of a rule that depend on the year (dateutil's `_iterinfo.rebuild`). */
class Year {
  readonly start: number;
  readonly len: 365 | 366;
  readonly firstWeekday: Weekday;
  readonly tables: { month: Int8Array; monthDay: Int8Array; negMonthDay: Int8Array };
  /** BYWEEKNO: which days of the year (and up to 7 of the next) are in a listed week; null without BYWEEKNO. */
  readonly weekNoMask: Uint8Array | null;

  constructor(
    readonly year: number,
    rule: RuleParts,
  ) {
    this.start = dayNumber(year, 1, 1);
    this.len = isLeap(year) ? 366 : 365;
    this.firstWeekday = weekdayOf(this.start);
    this.tables = TABLES[this.len];
    this.weekNoMask = rule.byWeekNo.length === 0 ? null : weekNoMask(this, rule);
  }

  /** The first day (0-based) of `month` (1–13: 13 is the year's end). */
  monthStart(month: number): number {
    return MONTH_STARTS[this.len][month - 1];
  }
}

/**
 * Where week 1 starts in a year (0-based day, 0 when the year starts in it),
 * where the first week start falls, and how many weeks the year has.
 * (dateutil computes the previous year's count from this year's length, which
 * can make it 53 where the year had 52 weeks; here each year counts its own.)
 */
function weekLayout(year: number, wkst: Weekday): { no1wkst: number; firstwkst: number; numweeks: number } {
  const firstWeekday = weekdayOf(dayNumber(year, 1, 1));
  const len = isLeap(year) ? 366 : 365;
  const firstwkst = (7 - firstWeekday + wkst) % 7;
  // Week 1 is the first with at least four days of the year: the days before a late first week start are in it.
  const no1wkst = firstwkst >= 4 ? 0 : firstwkst;
  const wyearlen = firstwkst >= 4 ? len + ((firstWeekday - wkst + 7) % 7) : len - firstwkst;
  return { no1wkst, firstwkst, numweeks: Math.floor(wyearlen / 7) + Math.floor((wyearlen % 7) / 4) };
}

/** Week numbers as RFC 5545 (ISO 8601 with WKST) counts them: week 1 is the first with at least four days of the year. */
function weekNoMask(y: Year, rule: RuleParts): Uint8Array {
  const mask = new Uint8Array(y.len + 7);
  const wkst = rule.wkst;
  const weekdayAt = (i: number): number => (y.firstWeekday + i) % 7;
  const { no1wkst, firstwkst, numweeks } = weekLayout(y.year, wkst);
  const markWeekFrom = (from: number): void => {
    let i = from;
    for (let j = 0; j < 7; j++) {
      mask[i] = 1;
      i++;
      if (weekdayAt(i) === wkst) break;
    }
  };
  for (const listed of rule.byWeekNo) {
    const n = listed < 0 ? listed + numweeks + 1 : listed;
    if (!(n > 0 && n <= numweeks)) continue;
    let i: number;
    if (n > 1) {
      i = no1wkst + (n - 1) * 7;
      if (no1wkst !== firstwkst) i -= 7 - firstwkst;
    } else {
      i = no1wkst;
    }
    markWeekFrom(i);
  }
  if (rule.byWeekNo.includes(1)) {
    // Week 1 of the next year may start in this one.
    let i = no1wkst + numweeks * 7;
    if (no1wkst !== firstwkst) i -= 7 - firstwkst;
    if (i < y.len) markWeekFrom(i);
  }
  if (no1wkst !== 0) {
    // The days before week 1 belong to the last week of the year before.
    const lnumweeks = rule.byWeekNo.includes(-1) ? -1 : weekLayout(y.year - 1, wkst).numweeks;
    if (rule.byWeekNo.includes(lnumweeks)) for (let i = 0; i < no1wkst; i++) mask[i] = 1;
  }
  return mask;
}

/**
 * How many consecutive periods without a day prove that a rule keeps no day
 * ever again: the periods it visits repeat within the calendar's 400-year
 * cycle (in periods of `freq`), and one more covers a first, partial week.
 */
export function cycleOf(freq: Frequency, interval: number): number {
  const cycle = { YEARLY: 400, MONTHLY: 4800, WEEKLY: 20871, DAILY: 146097 }[freq];
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  return cycle / gcd(cycle, interval) + 1;
}

/** A rule's BY parts as lookup tables: whether they keep a day. */
class DayMatcher {
  private readonly months = new Uint8Array(13);
  private readonly monthDays = new Uint8Array(32);
  /** By -day: BYMONTHDAY=-1 sets index 1. */
  private readonly negMonthDays = new Uint8Array(32);
  private readonly yearDays = new Uint8Array(367);
  private readonly negYearDays = new Uint8Array(367);
  private readonly weekdays = new Uint8Array(7);
  private readonly hasMonths: boolean;
  private readonly hasMonthDays: boolean;
  private readonly hasYearDays: boolean;
  private readonly hasWeekdays: boolean;
  private readonly ordinals: ReadonlyArray<Required<ByDay>>;
  /** Days of the period's year (from its start) marked by ordinal BYDAY parts (dateutil's nwdaymask). */
  private readonly ordinalMarks = new Uint8Array(366 + 7);
  private readonly marked: number[] = [];

  constructor(rule: RuleParts) {
    for (const m of rule.byMonth) this.months[m] = 1;
    for (const d of rule.byMonthDay) (d > 0 ? this.monthDays : this.negMonthDays)[Math.abs(d)] = 1;
    for (const d of rule.byYearDay) (d > 0 ? this.yearDays : this.negYearDays)[Math.abs(d)] = 1;
    this.ordinals = rule.byDay.filter((d): d is Required<ByDay> => d.ordinal !== undefined);
    for (const d of rule.byDay) if (d.ordinal === undefined) this.weekdays[d.weekday] = 1;
    this.hasMonths = rule.byMonth.length > 0;
    this.hasMonthDays = rule.byMonthDay.length > 0;
    this.hasYearDays = rule.byYearDay.length > 0;
    this.hasWeekdays = rule.byDay.length > 0;
  }

  /** Marks the days ordinal BYDAY parts name in `y`, counted within each of `months` (null: within the whole year). */
  markOrdinals(y: Year, months: readonly number[] | null): void {
    if (this.ordinals.length === 0) return;
    for (const i of this.marked) this.ordinalMarks[i] = 0;
    this.marked.length = 0;
    const ranges = months === null ? [[0, y.len] as const] : months.map((m) => [y.monthStart(m), y.monthStart(m + 1)] as const);
    for (const [first, end] of ranges) {
      const last = end - 1;
      for (const { weekday, ordinal } of this.ordinals) {
        let i: number;
        if (ordinal < 0) {
          i = last + (ordinal + 1) * 7;
          i -= (((weekdayOf(y.start + i) - weekday) % 7) + 7) % 7;
        } else {
          i = first + (ordinal - 1) * 7;
          i += (7 - weekdayOf(y.start + i) + weekday) % 7;
        }
        if (i >= first && i <= last) {
          this.ordinalMarks[i] = 1;
          this.marked.push(i);
        }
      }
    }
  }

  /** Whether day `n` of year `y` is kept, in a period of year `period` (BYWEEKNO and ordinals count in it). */
  keeps(n: number, y: Year, period: Year): boolean {
    const i = n - y.start;
    const t = y.tables;
    if (this.hasMonths && this.months[t.month[i]] === 0) return false;
    if (period.weekNoMask !== null && period.weekNoMask[n - period.start] !== 1) return false;
    // RFC 5545: BYDAY lists weekdays, each with or without an ordinal; a day matching any of them is kept.
    if (this.hasWeekdays && this.weekdays[weekdayOf(n)] === 0 && !(this.ordinals.length > 0 && this.ordinalMarks[n - period.start] === 1)) return false;
    if (this.hasMonthDays && this.monthDays[t.monthDay[i]] === 0 && this.negMonthDays[-t.negMonthDay[i]] === 0) return false;
    if (this.hasYearDays && this.yearDays[i + 1] === 0 && this.negYearDays[y.len - i] === 0) return false;
    return true;
  }
}

/** The last day a rule may reach: 9999-12-31. */
const LAST_DAY = dayNumber(9999, 12, 31);

export interface RuleDaysOptions {
  budget: StepBudget;
  /** Stop once a period starts after this day number (inclusive bound on the days needed). */
  lastDay?: number;
}

/**
 * The days (day numbers, ascending) a rule keeps from `startDay` on (the
 * day of DTSTART; earlier days of its period are left out, as dateutil
 * does). DTSTART itself is among them only when the rule keeps it.
 */
export function* ruleDays(input: RuleParts, startDay: number, opts: RuleDaysOptions): Generator<number, void> {
  const start = civil(startDay);
  const rule = withDefaults(input, start, weekdayOf(startDay));
  const { freq, interval } = rule;
  const budget = opts.budget;
  const lastDay = Math.min(opts.lastDay ?? LAST_DAY, LAST_DAY);
  const match = new DayMatcher(rule);
  const months = [...new Set(rule.byMonth)].sort((x, y) => x - y);
  const limit = cycleOf(freq, interval);

  let year = new Year(start.year, rule);
  /** The year of day `n` (the current one, or the next or previous for a week across New Year). */
  const yearOf = (n: number): Year => (n >= year.start && n < year.start + year.len ? year : new Year(civil(n).year, rule));

  // The period: [from, to) day numbers; the anchor moves by INTERVAL periods.
  let periodYear = start.year;
  let periodMonth = start.month;
  let anchor = startDay;
  let empty = 0;
  /** The days a period keeps (at most a year's), from `kept[0]`. */
  const kept = new Int32Array(366);
  /** Tests the days [from, to) of a period of year `period`, adding those kept after the first `count`; returns the new count. */
  const scan = (from: number, to: number, period: Year, count: number): number => {
    budget.spend(to - from);
    let y = period;
    let c = count;
    for (let n = from; n < to; n++) {
      if (n >= y.start + y.len) y = yearOf(n);
      if (match.keeps(n, y, period)) kept[c++] = n;
    }
    return c;
  };
  for (;;) {
    let from: number;
    let to: number;
    if (freq === "YEARLY" || freq === "MONTHLY") {
      if (year.year !== periodYear) year = new Year(periodYear, rule);
      from = year.start + (freq === "YEARLY" ? 0 : year.monthStart(periodMonth));
      to = year.start + (freq === "YEARLY" ? year.len : year.monthStart(periodMonth + 1));
      match.markOrdinals(year, freq === "YEARLY" ? (months.length > 0 ? months : null) : [periodMonth]);
    } else {
      from = anchor;
      to = anchor + 1;
      // A week runs to the day before the next week start (the first period may be a partial week).
      if (freq === "WEEKLY") while (weekdayOf(to) !== rule.wkst) to++;
      year = yearOf(from);
    }
    if (from > lastDay) return;

    // Allocation-free: a sparse rule may test ~150,000 days between two it keeps.
    let count = 0;
    const period = year;
    if (freq === "YEARLY" && months.length > 0) {
      // A yearly rule with BYMONTH looks only at those months' days (the others could not be kept), in order.
      for (const m of months) count = scan(period.start + period.monthStart(m), period.start + period.monthStart(m + 1), period, count);
    } else {
      count = scan(from, to, period, count);
    }
    if (rule.bySetPos.length > 0) count = setPositions(kept, count, rule.bySetPos);
    if (count === 0) {
      empty++;
      if (empty >= limit) return;
    } else {
      empty = 0;
      for (let k = 0; k < count; k++) {
        const n = kept[k];
        if (n > lastDay) return;
        if (n >= startDay) yield n;
      }
    }

    // The next period.
    if (freq === "YEARLY") {
      periodYear += interval;
    } else if (freq === "MONTHLY") {
      const m = periodMonth - 1 + interval;
      periodYear += Math.floor(m / 12);
      periodMonth = (m % 12) + 1;
    } else if (freq === "WEEKLY") {
      anchor = anchor - ((weekdayOf(anchor) - rule.wkst + 7) % 7) + interval * 7;
    } else {
      anchor += interval;
    }
    if (periodYear > 9999 || anchor > LAST_DAY) return;
  }
}

/** BYSETPOS: keeps the listed positions of a period's `count` kept days (negative from the end), in order, each once; returns how many. */
function setPositions(kept: Int32Array, count: number, positions: readonly number[]): number {
  // Indexes into `kept` (ascending days), sorted and deduplicated: the chosen days in order.
  const at = positions.map((pos) => (pos > 0 ? pos - 1 : count + pos)).filter((i) => i >= 0 && i < count);
  if (at.length === 0) return 0;
  at.sort((x, y) => x - y);
  let n = 0;
  for (let i = 0; i < at.length; i++) if (i === 0 || at[i] !== at[i - 1]) kept[n++] = kept[at[i]];
  return n;
}

/** RFC 5545: parts a rule leaves out are taken from DTSTART (a yearly rule repeats its month and day, …). */
function withDefaults(rule: RuleParts, start: { month: number; day: number }, weekday: Weekday): RuleParts {
  if (rule.byWeekNo.length > 0 || rule.byYearDay.length > 0 || rule.byMonthDay.length > 0 || rule.byDay.length > 0) return rule;
  if (rule.freq === "YEARLY") return { ...rule, byMonth: rule.byMonth.length > 0 ? rule.byMonth : [start.month], byMonthDay: [start.day] };
  if (rule.freq === "MONTHLY") return { ...rule, byMonthDay: [start.day] };
  if (rule.freq === "WEEKLY") return { ...rule, byDay: [{ weekday }] };
  return rule;
}

/**
 * Whether a rule keeps no day after `startDay`, ever (whatever its COUNT or
 * UNTIL): its periods run through a whole cycle without one. At most one
 * cycle of work (`cycleOf`), charged to `budget`.
 */
export function neverRepeats(rule: RuleParts, startDay: number, budget: StepBudget): boolean {
  for (const n of ruleDays(rule, startDay, { budget })) if (n > startDay) return false;
  return true;
}

/**
 * A re-implementation of PHP 8.2's `strtotime()` (timelib's scanner and its
 * `timelib_fill_holes` / `timelib_update_ts` arithmetic) on top of luxon.
 *
 * The original API validated and interpreted every date argument with
 * `strtotime`, so calpress has to accept, reject and place instants exactly as
 * PHP does (see `test/vectors/dates.json`, the repository's copy of the reference's vectors). Rather than a hand-written list of
 * accepted phrases, the scanner mirrors timelib's token grammar: at each
 * position the longest matching token wins, ties going to the earlier rule,
 * and each token updates the same fields timelib's actions update. The
 * resulting oddities (`2030-02-30` → 2 March, `monday next week` meaning the
 * Monday of next week, `saturday` including today) therefore come out the same.
 */
import { DateTime, FixedOffsetZone, IANAZone, Info, type Zone } from "luxon";

/** timelib's marker for a field the text did not set. */
const UNSET = -9999999;

const ZONE_NONE = 0;
const ZONE_OFFSET = 1;
const ZONE_ABBR = 2;
const ZONE_ID = 3;

const SPECIAL_WEEKDAY = 1;
const SPECIAL_DAY_OF_WEEK_IN_MONTH = 2;
const SPECIAL_LAST_DAY_OF_WEEK_IN_MONTH = 3;

const FIRST_DAY_OF_MONTH = 1;
const LAST_DAY_OF_MONTH = 2;

const TIME_PART_KEEP = 0;
const TIME_PART_DONT_KEEP = 1;

interface Relative {
  y: number;
  m: number;
  d: number;
  h: number;
  i: number;
  s: number;
  us: number;
  weekday: number;
  weekdayBehavior: number;
  haveWeekdayRelative: boolean;
  haveSpecialRelative: boolean;
  specialType: number;
  specialAmount: number;
  firstLastDayOf: number;
}

interface Parsed {
  y: number;
  m: number;
  d: number;
  h: number;
  i: number;
  s: number;
  us: number;
  /** UTC offset in seconds (offset and abbreviation zones). */
  z: number;
  dst: number;
  haveTime: number;
  haveDate: boolean;
  haveZone: number;
  haveRelative: boolean;
  zoneType: number;
  /** Zone named in the text (zoneType ZONE_ID). */
  zone: Zone | null;
  rel: Relative;
  errors: number;
}

function newParsed(): Parsed {
  return {
    y: UNSET,
    m: UNSET,
    d: UNSET,
    h: UNSET,
    i: UNSET,
    s: UNSET,
    us: UNSET,
    z: UNSET,
    dst: UNSET,
    haveTime: 0,
    haveDate: false,
    haveZone: 0,
    haveRelative: false,
    zoneType: ZONE_NONE,
    zone: null,
    rel: {
      y: 0,
      m: 0,
      d: 0,
      h: 0,
      i: 0,
      s: 0,
      us: 0,
      weekday: 0,
      weekdayBehavior: 0,
      haveWeekdayRelative: false,
      haveSpecialRelative: false,
      specialType: 0,
      specialAmount: 0,
      firstLastDayOf: 0,
    },
    errors: 0,
  };
}

// ---------------------------------------------------------------------------
// Lookup tables

type UnitKind = "us" | "s" | "i" | "h" | "d" | "m" | "y" | "weekday" | "special";

interface RelUnit {
  kind: UnitKind;
  mult: number;
}

function relUnits(): Map<string, RelUnit> {
  const units = new Map<string, RelUnit>();
  const add = (names: string[], kind: UnitKind, mult: number): void => {
    for (const n of names) units.set(n, { kind, mult });
  };
  add(["ms", "msec", "msecs", "millisecond", "milliseconds"], "us", 1000);
  add(["µs", "usec", "usecs", "µsec", "µsecs", "microsecond", "microseconds"], "us", 1);
  add(["sec", "secs", "second", "seconds"], "s", 1);
  add(["min", "mins", "minute", "minutes"], "i", 1);
  add(["hour", "hours"], "h", 1);
  add(["day", "days"], "d", 1);
  add(["week", "weeks"], "d", 7);
  add(["fortnight", "fortnights", "forthnight", "forthnights"], "d", 14);
  add(["month", "months"], "m", 1);
  add(["year", "years"], "y", 1);
  DAY_WORDS.forEach((n, dow) => add([n, `${n}s`, n.slice(0, 3)], "weekday", dow));
  // A business-day unit; as a bare day word PHP reads it as weekday 1.
  add(["weekday", "weekdays"], "special", SPECIAL_WEEKDAY);
  return units;
}

const DAY_WORDS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const RELUNITS: ReadonlyMap<string, RelUnit> = relUnits();

/** Relative words: value and weekday behaviour ("this" counts today). */
const RELTEXT: ReadonlyMap<string, { value: number; behavior: number }> = new Map([
  ["first", { value: 1, behavior: 0 }],
  ["next", { value: 1, behavior: 0 }],
  ["second", { value: 2, behavior: 0 }],
  ["third", { value: 3, behavior: 0 }],
  ["fourth", { value: 4, behavior: 0 }],
  ["fifth", { value: 5, behavior: 0 }],
  ["sixth", { value: 6, behavior: 0 }],
  ["seventh", { value: 7, behavior: 0 }],
  ["eight", { value: 8, behavior: 0 }],
  ["eighth", { value: 8, behavior: 0 }],
  ["ninth", { value: 9, behavior: 0 }],
  ["tenth", { value: 10, behavior: 0 }],
  ["eleventh", { value: 11, behavior: 0 }],
  ["twelfth", { value: 12, behavior: 0 }],
  ["last", { value: -1, behavior: 0 }],
  ["previous", { value: -1, behavior: 0 }],
  ["this", { value: 0, behavior: 1 }],
]);

const MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"];
const MONTHS: ReadonlyMap<string, number> = new Map<string, number>([
  ...MONTH_NAMES.map((n, k) => [n, k + 1] as const),
  ...MONTH_NAMES.map((n, k) => [n.slice(0, 3), k + 1] as const),
  ["sept", 9],
  ...ROMAN.map((n, k) => [n, k + 1] as const),
]);

/**
 * Zone abbreviations accepted inside the text, with their full UTC offset in
 * hours and DST flag. PHP knows many more; these are the common ones plus the
 * military letters (so `…T10:00:00Z` works). Unknown words are then tried as
 * zone identifiers and rejected when that fails too, as in PHP.
 */
const ABBREVIATIONS: ReadonlyMap<string, { hours: number; dst: number }> = new Map<string, { hours: number; dst: number }>([
  ["acdt", { hours: 10.5, dst: 1 }],
  ["acst", { hours: 9.5, dst: 0 }],
  ["adt", { hours: -3, dst: 1 }],
  ["aedt", { hours: 11, dst: 1 }],
  ["aest", { hours: 10, dst: 0 }],
  ["akdt", { hours: -8, dst: 1 }],
  ["akst", { hours: -9, dst: 0 }],
  ["ast", { hours: -4, dst: 0 }],
  ["awst", { hours: 8, dst: 0 }],
  ["bst", { hours: 1, dst: 1 }],
  ["cat", { hours: 2, dst: 0 }],
  ["cdt", { hours: -5, dst: 1 }],
  ["cest", { hours: 2, dst: 1 }],
  ["cet", { hours: 1, dst: 0 }],
  ["cst", { hours: -6, dst: 0 }],
  ["eat", { hours: 3, dst: 0 }],
  ["edt", { hours: -4, dst: 1 }],
  ["eest", { hours: 3, dst: 1 }],
  ["eet", { hours: 2, dst: 0 }],
  ["est", { hours: -5, dst: 0 }],
  ["hdt", { hours: -9, dst: 1 }],
  ["hkt", { hours: 8, dst: 0 }],
  ["hst", { hours: -10, dst: 0 }],
  ["idt", { hours: 3, dst: 1 }],
  ["ist", { hours: 5.5, dst: 0 }],
  ["jst", { hours: 9, dst: 0 }],
  ["kst", { hours: 9, dst: 0 }],
  ["mdt", { hours: -6, dst: 1 }],
  ["mest", { hours: 2, dst: 1 }],
  ["met", { hours: 1, dst: 0 }],
  ["msk", { hours: 3, dst: 0 }],
  ["mst", { hours: -7, dst: 0 }],
  ["ndt", { hours: -2.5, dst: 1 }],
  ["nst", { hours: -3.5, dst: 0 }],
  ["nzdt", { hours: 13, dst: 1 }],
  ["nzst", { hours: 12, dst: 0 }],
  ["pdt", { hours: -7, dst: 1 }],
  ["pkt", { hours: 5, dst: 0 }],
  ["pst", { hours: -8, dst: 0 }],
  ["sast", { hours: 2, dst: 0 }],
  ["wat", { hours: 1, dst: 0 }],
  ["west", { hours: 1, dst: 1 }],
  ["wet", { hours: 0, dst: 0 }],
  ["wib", { hours: 7, dst: 0 }],
  // Military zones: A–I = +1…+9, K–M = +10…+12, N–Y = −1…−12, Z = UTC.
  ..."abcdefghi".split("").map((c, k) => [c, { hours: k + 1, dst: 0 }] as const),
  ..."klm".split("").map((c, k) => [c, { hours: k + 10, dst: 0 }] as const),
  ..."nopqrstuvwxy".split("").map((c, k) => [c, { hours: -(k + 1), dst: 0 }] as const),
  ["z", { hours: 0, dst: 0 }],
]);

/** PHP compares words with ASCII-only case folding. */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

// ---------------------------------------------------------------------------
// Token grammar (timelib's re2c definitions, as JavaScript regular expressions)

const alt = (...xs: string[]): string => `(?:${xs.join("|")})`;
/** Case-insensitive literal (re2c's single-quoted strings fold ASCII only). */
const ci = (w: string): string =>
  w
    .split("")
    .map((c) => (/[A-Za-z]/.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")))
    .join("");

const space = alt("[ \\t]+", "\\u00a0+", "\\u202f+");
const frac = "\\.[0-9]+";
const hour24 = alt("[01]?[0-9]", "2[0-4]");
const hour24lz = alt("[01][0-9]", "2[0-4]");
const hour12 = alt("0?[1-9]", "1[0-2]");
const minute = "[0-5]?[0-9]";
const minutelz = "[0-5][0-9]";
const second = alt(minute, "60");
const secondlz = alt(minutelz, "60");
const meridianRe = "[AaPp]\\.?[Mm]\\.?[\\0\\t ]";
const tz = alt("\\(?[A-Za-z]{1,6}\\)?", "[A-Z][a-z]+(?:[_/-][A-Za-z]+)+");
const tzcorrection = `(?:GMT)?[+-]${alt(`${hour24}(?::?${minute})?`, `${hour24lz}${minutelz}${secondlz}`, `${hour24lz}:${minutelz}:${secondlz}`)}`;
const daysuf = alt("st", "nd", "rd", "th");
const month = alt("0?[0-9]", "1[0-2]");
const day = `${alt("[0-2]?[0-9]", "3[01]")}${daysuf}?`;
const year = "[0-9]{1,4}";
const year2 = "[0-9]{2}";
const year4 = "[0-9]{4}";
const year4withsign = "[+-]?[0-9]{4}";
const yearx = "[+-][0-9]{5,19}";
const dayofyear = alt("00[1-9]", "0[1-9][0-9]", "[1-2][0-9][0-9]", "3[0-5][0-9]", "36[0-6]");
const weekofyear = alt("0[1-9]", "[1-4][0-9]", "5[0-3]");
const monthlz = alt("0[0-9]", "1[0-2]");
const daylz = alt("0[0-9]", "[1-2][0-9]", "3[01]");
const dayfulls = alt(...DAY_WORDS.map((d) => ci(`${d}s`)));
const dayfull = alt(...DAY_WORDS.map(ci));
const dayabbr = alt(...DAY_WORDS.map((d) => ci(d.slice(0, 3))));
const dayspecial = alt(ci("weekday"), ci("weekdays"));
const daytext = alt(dayfulls, dayfull, dayabbr, dayspecial);
const monthfull = alt(...MONTH_NAMES.map(ci));
const monthabbr = alt(...[...MONTH_NAMES.map((n) => n.slice(0, 3)), "sept"].map(ci));
const monthroman = alt(...ROMAN.map((r) => r.toUpperCase()));
const monthtext = alt(monthfull, monthabbr, monthroman);
const T = "[tT]";

const timetiny12 = `${hour12}${space}?${meridianRe}`;
const timeshort12 = `${hour12}[:.]${minutelz}${space}?${meridianRe}`;
const timelong12 = `${hour12}[:.]${minute}[:.]${secondlz}${space}?${meridianRe}`;
const timetiny24 = `${T}${hour24}`;
const timeshort24 = `${T}?${hour24}[:.]${minute}`;
const timelong24 = `${T}?${hour24}[:.]${minute}[:.]${second}`;
const iso8601long = `${T}?${hour24}[:.]${minute}[:.]${second}${frac}`;
const iso8601normtz = `${T}?${hour24}[:.]${minute}[:.]${secondlz}${space}?${alt(tzcorrection, tz)}`;
const gnunocolon = `${T}?${hour24lz}${minutelz}`;
const iso8601nocolon = `${T}?${hour24lz}${minutelz}${secondlz}`;
const americanshort = `${month}/${day}`;
const american = `${month}/${day}/${year}`;
const iso8601dateslash = `${year4}/${monthlz}/${daylz}/?`;
const dateslash = `${year4}/${month}/${day}`;
const iso8601date4 = `${year4withsign}-${monthlz}-${daylz}`;
const iso8601date2 = `${year2}-${monthlz}-${daylz}`;
const iso8601datex = `${yearx}-${monthlz}-${daylz}`;
const gnudateshorter = `${year4}-${month}`;
const gnudateshort = `${year}-${month}-${day}`;
const pointeddate4 = `${day}[.\\t-]${month}[.-]${year4}`;
const pointeddate2 = `${day}[.\\t]${month}\\.${year2}`;
const datefull = `${day}[ \\t.-]*${monthtext}[ \\t.-]*${year}`;
const datenoday = `${monthtext}[ .\\t-]*${year4}`;
const datenodayrev = `${year4}[ .\\t-]*${monthtext}`;
const datetextual = `${monthtext}[ .\\t-]*${day}[,.stndrh\\t ]+${year}`;
const datenoyear = `${monthtext}[ .\\t-]*${day}(?:[,.stndrh\\t ]+|\\0)`;
const datenoyearrev = `${day}[ .\\t-]*${monthtext}`;
const datenocolon = `${year4}${monthlz}${daylz}`;
const soap = `${year4}-${monthlz}-${daylz}T${hour24lz}:${minutelz}:${secondlz}${frac}(?:${tzcorrection})?`;
const xmlrpc = `${year4}${monthlz}${daylz}T${hour24}:${minutelz}:${secondlz}`;
const xmlrpcnocolon = `${year4}${monthlz}${daylz}${T}${hour24}${minutelz}${secondlz}`;
const wddx = `${year4}-${month}-${day}T${hour24}:${minute}:${second}`;
const pgydotd = `${year4}[.-]?${dayofyear}`;
const pgtextshort = `${monthabbr}-${daylz}-${year}`;
const pgtextreverse = `${year}-${monthabbr}-${daylz}`;
const mssqltime = `${hour12}:${minutelz}:${secondlz}[:.][0-9]+${meridianRe}`;
const isoweekday = `${year4}-?W${weekofyear}-?[0-7]`;
const isoweek = `${year4}-?W${weekofyear}`;
const exif = `${year4}:${monthlz}:${daylz} ${hour24lz}:${minutelz}:${secondlz}`;
const firstdayof = ci("first day of");
const lastdayof = ci("last day of");
const backof = `${ci("back of ")}${hour24}(?:${space}?${meridianRe})?`;
const frontof = `${ci("front of ")}${hour24}(?:${space}?${meridianRe})?`;
const clf = `${day}/${monthabbr}/${year4}:${hour24lz}:${minutelz}:${secondlz}${space}${tzcorrection}`;
const timestamp = "@-?[0-9]+";
const timestampms = "@-?[0-9]+\\.[0-9]{0,6}";
const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eight", "eighth", "ninth", "tenth", "eleventh", "twelfth"];
const reltextnumber = alt(...ORDINALS.map(ci));
const reltexttext = alt(...["next", "last", "previous", "this"].map(ci));
const PLURALISABLE_UNITS = ["msec", "millisecond", "µsec", "microsecond", "usec", "sec", "second", "min", "minute", "hour", "day", "fortnight", "forthnight", "month", "year"];
const reltextunit = alt(
  ci("ms"),
  ci("µs"),
  `${alt(...PLURALISABLE_UNITS.map(ci))}[sS]?`,
  ci("weeks"),
  daytext,
);
const relnumber = "[+-]*[ \\t]*[0-9]{1,13}";
const relative = `${relnumber}${space}?${alt(reltextunit, ci("week"))}`;
const relativetext = `${alt(reltextnumber, reltexttext)}${space}${reltextunit}`;
const relativetextweek = `${reltexttext}${space}${ci("week")}`;
const weekdayof = `${alt(reltextnumber, reltexttext)}${space}${alt(dayfulls, dayfull, dayabbr)}${space}${ci("of")}`;

type RuleName =
  | "yesterday"
  | "now"
  | "noon"
  | "midnight"
  | "tomorrow"
  | "timestamp"
  | "timestampms"
  | "firstlastdayof"
  | "backfrontof"
  | "weekdayof"
  | "time12"
  | "mssqltime"
  | "time24"
  | "gnunocolon"
  | "iso8601nocolon"
  | "american"
  | "iso8601date4"
  | "iso8601date2"
  | "iso8601datex"
  | "gnudateshorter"
  | "gnudateshort"
  | "datefull"
  | "pointeddate4"
  | "pointeddate2"
  | "datenoday"
  | "datenodayrev"
  | "datetextual"
  | "datenoyearrev"
  | "datenocolon"
  | "xmlrpc"
  | "pgydotd"
  | "isoweekday"
  | "isoweek"
  | "pgtextshort"
  | "pgtextreverse"
  | "clf"
  | "year4"
  | "ago"
  | "daytext"
  | "relativetextweek"
  | "relativetext"
  | "monthtext"
  | "tz"
  | "dateshortwithtime12"
  | "dateshortwithtime24"
  | "relative"
  | "skip"
  | "any";

interface Rule {
  name: RuleName;
  /** Matches some prefix at the position (sticky). */
  start: RegExp;
  /** Matches exactly a whole candidate token. */
  whole: RegExp;
}

/** In timelib's order: an equally long match goes to the earlier rule. */
const RULES: readonly Rule[] = (
  [
    ["yesterday", ci("yesterday")],
    ["now", ci("now")],
    ["noon", ci("noon")],
    ["midnight", alt(ci("midnight"), ci("today"))],
    ["tomorrow", ci("tomorrow")],
    ["timestamp", timestamp],
    ["timestampms", timestampms],
    ["firstlastdayof", alt(firstdayof, lastdayof)],
    ["backfrontof", alt(backof, frontof)],
    ["weekdayof", weekdayof],
    ["time12", alt(timetiny12, timeshort12, timelong12)],
    ["mssqltime", mssqltime],
    ["time24", alt(timetiny24, timeshort24, timelong24, iso8601long)],
    ["gnunocolon", gnunocolon],
    ["iso8601nocolon", iso8601nocolon],
    ["american", alt(americanshort, american)],
    ["iso8601date4", alt(iso8601date4, iso8601dateslash, dateslash)],
    ["iso8601date2", iso8601date2],
    ["iso8601datex", iso8601datex],
    ["gnudateshorter", gnudateshorter],
    ["gnudateshort", gnudateshort],
    ["datefull", datefull],
    ["pointeddate4", pointeddate4],
    ["pointeddate2", pointeddate2],
    ["datenoday", datenoday],
    ["datenodayrev", datenodayrev],
    ["datetextual", alt(datetextual, datenoyear)],
    ["datenoyearrev", datenoyearrev],
    ["datenocolon", datenocolon],
    ["xmlrpc", alt(xmlrpc, xmlrpcnocolon, soap, wddx, exif)],
    ["pgydotd", pgydotd],
    ["isoweekday", isoweekday],
    ["isoweek", isoweek],
    ["pgtextshort", pgtextshort],
    ["pgtextreverse", pgtextreverse],
    ["clf", clf],
    ["year4", year4],
    ["ago", ci("ago")],
    ["daytext", daytext],
    ["relativetextweek", relativetextweek],
    ["relativetext", relativetext],
    ["monthtext", alt(monthfull, monthabbr)],
    ["tz", alt(tzcorrection, tz)],
    ["dateshortwithtime12", alt(datenoyear + timeshort12, datenoyear + timelong12)],
    ["dateshortwithtime24", alt(datenoyear + timeshort24, datenoyear + timelong24, datenoyear + iso8601normtz)],
    ["relative", relative],
    ["skip", alt("[.,]", space, "\\0", "\\n")],
    ["any", "[\\s\\S]"],
  ] as const
).map(([name, src]) => ({ name, start: new RegExp(src, "y"), whole: new RegExp(`^(?:${src})$`) }));

/**
 * Longest token the grammar can produce: the fixed parts of the longest
 * rules stay well under this, only runs of blanks could stretch a token
 * further. Bounding it keeps the scan linear in the input length.
 */
const MAX_TOKEN = 160;
/** Longer date arguments are refused outright rather than scanned. */
const MAX_INPUT = 1024;

/**
 * Length of the longest token rule `r` matches at `pos`, or -1. JavaScript
 * alternation is first-match, not longest-match, so a quick sticky test finds
 * whether (and some length at which) the rule matches, and longer candidates
 * are then tried whole.
 */
function longestMatch(r: Rule, text: string, pos: number): number {
  r.start.lastIndex = pos;
  const m = r.start.exec(text);
  if (!m) return -1;
  const shortest = m[0].length;
  for (let end = Math.min(text.length, pos + MAX_TOKEN); end > pos + shortest; end--) {
    if (r.whole.test(text.slice(pos, end))) return end - pos;
  }
  return shortest;
}

// ---------------------------------------------------------------------------
// Reading inside a token (timelib's pointer helpers)

class Cursor {
  p = 0;
  constructor(readonly s: string) {}
  /** Character at the cursor; "\0" past the end, like a C string. */
  ch(): string {
    return this.p < this.s.length ? this.s[this.p]! : "\0";
  }
  at(k: number): string {
    return this.p + k < this.s.length ? this.s[this.p + k]! : "\0";
  }
}

const isDigit = (c: string): boolean => c >= "0" && c <= "9";
const isAsciiLetter = (c: string): boolean => (c >= "A" && c <= "Z") || (c >= "a" && c <= "z");
const isCSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\v" || c === "\f" || c === "\r";

function getNrEx(cur: Cursor, maxLength: number): { value: number; length: number } {
  while (!isDigit(cur.ch())) {
    if (cur.ch() === "\0") return { value: UNSET, length: 0 };
    cur.p++;
  }
  const begin = cur.p;
  while (isDigit(cur.ch()) && cur.p - begin < maxLength) cur.p++;
  return { value: Number(cur.s.slice(begin, cur.p)), length: cur.p - begin };
}

function getNr(cur: Cursor, maxLength: number): number {
  return getNrEx(cur, maxLength).value;
}

function skipDaySuffix(cur: Cursor): void {
  if (isCSpace(cur.ch())) return;
  const two = asciiLower(cur.s.slice(cur.p, cur.p + 2));
  if (two === "nd" || two === "rd" || two === "st" || two === "th") cur.p += 2;
}

/** Fraction of a second as microseconds, from text like `.123456`. */
function getFracNr(cur: Cursor): number {
  while (cur.ch() !== "." && cur.ch() !== ":" && !isDigit(cur.ch())) {
    if (cur.ch() === "\0") return UNSET;
    cur.p++;
  }
  const begin = cur.p;
  while (cur.ch() === "." || cur.ch() === ":" || isDigit(cur.ch())) cur.p++;
  const value = parseFloat(cur.s.slice(begin + 1, cur.p));
  return Math.trunc((Number.isNaN(value) ? 0 : value) * Math.pow(10, 7 - (cur.p - begin)));
}

function getSignedNr(cur: Cursor, t: Parsed, maxLength: number): number {
  while (!isDigit(cur.ch()) && cur.ch() !== "+" && cur.ch() !== "-") {
    if (cur.ch() === "\0") {
      t.errors++;
      return 0;
    }
    cur.p++;
  }
  let sign = 1;
  if (cur.ch() === "+" || cur.ch() === "-") {
    if (cur.ch() === "-") sign = -1;
    cur.p++;
  }
  while (!isDigit(cur.ch())) {
    if (cur.ch() === "\0") {
      t.errors++;
      return 0;
    }
    cur.p++;
  }
  const begin = cur.p;
  while (isDigit(cur.ch()) && cur.p - begin < maxLength) cur.p++;
  return sign * Number(cur.s.slice(begin, cur.p));
}

function readLetters(cur: Cursor): string {
  const begin = cur.p;
  while (isAsciiLetter(cur.ch())) cur.p++;
  return asciiLower(cur.s.slice(begin, cur.p));
}

function getRelativeText(cur: Cursor): { value: number; behavior: number | null } {
  while (cur.ch() === " " || cur.ch() === "\t" || cur.ch() === "-" || cur.ch() === "/") cur.p++;
  const found = RELTEXT.get(readLetters(cur));
  return found ? { value: found.value, behavior: found.behavior } : { value: 0, behavior: null };
}

function lookupMonth(cur: Cursor): number {
  return MONTHS.get(readLetters(cur)) ?? 0;
}

function getMonth(cur: Cursor): number {
  while (cur.ch() === " " || cur.ch() === "\t" || cur.ch() === "-" || cur.ch() === "." || cur.ch() === "/") cur.p++;
  return lookupMonth(cur);
}

function eatSpaces(cur: Cursor): void {
  while (cur.ch() === " " || cur.ch() === "\t" || cur.ch() === "\u00a0" || cur.ch() === "\u202f") cur.p++;
}

function lookupRelunit(cur: Cursor): RelUnit | undefined {
  const begin = cur.p;
  while (!"\0 ,\t;:/.-()".includes(cur.ch())) cur.p++;
  return RELUNITS.get(asciiLower(cur.s.slice(begin, cur.p)));
}

/** Hours to add for am/pm after hour `h` (12am is midnight, 12pm noon). */
function meridian(cur: Cursor, h: number): number {
  while (!"AaPp".includes(cur.ch())) {
    if (cur.ch() === "\0") return 0;
    cur.p++;
  }
  let delta = 0;
  if (cur.ch() === "a" || cur.ch() === "A") {
    if (h === 12) delta = -12;
  } else if (h !== 12) {
    delta = 12;
  }
  cur.p++;
  if (cur.ch() === ".") cur.p++;
  if (cur.ch() === "M" || cur.ch() === "m") cur.p++;
  if (cur.ch() === ".") cur.p++;
  return delta;
}

// ---------------------------------------------------------------------------
// Token actions

function unhaveTime(t: Parsed): void {
  t.haveTime = 0;
  t.h = 0;
  t.i = 0;
  t.s = 0;
  t.us = 0;
}

/** False (and an error) when the text already gave a time. */
function haveTime(t: Parsed): boolean {
  if (t.haveTime) {
    t.errors++;
    return false;
  }
  t.haveTime = 1;
  t.h = 0;
  t.i = 0;
  t.s = 0;
  t.us = 0;
  return true;
}

function haveDate(t: Parsed): boolean {
  if (t.haveDate) {
    t.errors++;
    return false;
  }
  t.haveDate = true;
  return true;
}

/** A second zone is only a warning in PHP (and ignored); a third is an error. */
function haveTz(t: Parsed): boolean {
  if (t.haveZone) {
    if (t.haveZone > 1) t.errors++;
    t.haveZone++;
    return false;
  }
  t.haveZone++;
  return true;
}

/** Two-digit years: 00–69 → 2000s, 70–99 → 1900s. */
function processYear(y: number, length: number): number {
  if (y === UNSET || length >= 4) return y;
  if (y < 100) return y < 70 ? y + 2000 : y + 1900;
  return y;
}

function setRelative(cur: Cursor, t: Parsed, amount: number, behavior: number, timePart: number): void {
  const unit = lookupRelunit(cur);
  if (!unit) return;
  const r = t.rel;
  switch (unit.kind) {
    case "us":
    case "s":
    case "i":
    case "h":
    case "d":
    case "m":
    case "y":
      r[unit.kind] += amount * unit.mult;
      break;
    case "weekday":
      t.haveRelative = true;
      r.haveWeekdayRelative = true;
      if (timePart !== TIME_PART_KEEP) unhaveTime(t);
      r.d += (amount > 0 ? amount - 1 : amount) * 7;
      r.weekday = unit.mult;
      r.weekdayBehavior = behavior;
      break;
    case "special":
      t.haveRelative = true;
      r.haveSpecialRelative = true;
      if (timePart !== TIME_PART_KEEP) unhaveTime(t);
      r.specialType = unit.mult;
      r.specialAmount = amount;
      break;
  }
}

/** Parses a `[+-]H`, `HH:MM`, `HHMM`, … offset body into seconds. */
function parseTzCor(cur: Cursor): { seconds: number; found: boolean } {
  const begin = cur.p;
  while (isDigit(cur.ch()) || cur.ch() === ":") cur.p++;
  const text = cur.s.slice(begin, cur.p);
  const num = (from: number): number => {
    const m = /^\d*/.exec(text.slice(from))![0];
    return m === "" ? 0 : Number(m);
  };
  switch (text.length) {
    case 1:
    case 2:
      return { seconds: num(0) * 3600, found: true };
    case 3:
    case 4:
      if (text[1] === ":") return { seconds: num(0) * 3600 + num(2) * 60, found: true };
      if (text[2] === ":") return { seconds: num(0) * 3600 + num(3) * 60, found: true };
      return { seconds: Math.trunc(num(0) / 100) * 3600 + (num(0) % 100) * 60, found: true };
    case 5:
      if (text[2] !== ":") break;
      return { seconds: num(0) * 3600 + num(3) * 60, found: true };
    case 6: {
      const n = num(0);
      return { seconds: Math.trunc(n / 10000) * 3600 + (Math.trunc(n / 100) % 100) * 60 + (n % 100), found: true };
    }
    case 8:
      if (text[2] !== ":" || text[5] !== ":") break;
      return { seconds: num(0) * 3600 + num(3) * 60 + num(6), found: true };
  }
  return { seconds: 0, found: false };
}

/** A zone identifier as PHP's time-zone database would accept it. */
function zoneByName(name: string): Zone | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  if (/^(utc|gmt)$/i.test(name)) return FixedOffsetZone.utcInstance;
  return IANAZone.isValidZone(name) ? IANAZone.create(name) : null;
}

/** Reads a zone (offset, abbreviation or identifier) into `t`; false if unknown. */
function parseZone(cur: Cursor, t: Parsed): boolean {
  while (cur.ch() === " " || cur.ch() === "\t" || cur.ch() === "(") cur.p++;
  if (cur.s.startsWith("GMT", cur.p) && (cur.at(3) === "+" || cur.at(3) === "-")) cur.p += 3;
  let found: boolean;
  if (cur.ch() === "+" || cur.ch() === "-") {
    const sign = cur.ch() === "-" ? -1 : 1;
    cur.p++;
    t.zoneType = ZONE_OFFSET;
    t.dst = 0;
    const cor = parseTzCor(cur);
    t.z = sign * cor.seconds;
    found = cor.found;
  } else {
    const begin = cur.p;
    while (isAsciiLetter(cur.ch()) || isDigit(cur.ch()) || "/_-+".includes(cur.ch())) cur.p++;
    const word = cur.s.slice(begin, cur.p);
    const lower = asciiLower(word);
    found = false;
    let offset = 0;
    const abbr = word.length < 6 ? (lower === "utc" || lower === "gmt" ? { hours: 0, dst: 0 } : ABBREVIATIONS.get(lower)) : undefined;
    if (abbr) {
      offset = Math.round(abbr.hours * 3600) - abbr.dst * 3600;
      t.dst = abbr.dst;
      t.zoneType = ZONE_ABBR;
      found = true;
    }
    if (!found || word === "UTC") {
      const zone = zoneByName(word);
      if (zone) {
        t.zone = zone;
        t.zoneType = ZONE_ID;
        found = true;
      }
    }
    t.z = offset;
  }
  while (cur.ch() === ")") cur.p++;
  return found;
}

/** Zone text trailing a time inside the same token (`10:00:00 +02:00`). */
function trailingZone(cur: Cursor, t: Parsed): void {
  if (cur.ch() !== "\0" && !parseZone(cur, t)) t.errors++;
}

function act(rule: RuleName, text: string, t: Parsed): void {
  const cur = new Cursor(text);
  const r = t.rel;
  switch (rule) {
    case "yesterday":
      t.haveRelative = true;
      unhaveTime(t);
      r.d = -1;
      return;
    case "now":
      return;
    case "noon":
      unhaveTime(t);
      haveTime(t);
      t.h = 12;
      return;
    case "midnight":
      unhaveTime(t);
      return;
    case "tomorrow":
      t.haveRelative = true;
      unhaveTime(t);
      r.d = 1;
      return;
    case "timestamp":
    case "timestampms": {
      t.haveRelative = true;
      t.haveDate = false;
      t.y = t.m = t.d = 0;
      unhaveTime(t);
      if (!haveTz(t)) return;
      const negative = text[1] === "-";
      const secs = getSignedNr(cur, t, 24);
      let us = 0;
      if (rule === "timestampms") {
        const before = cur.p;
        us = getSignedNr(cur, t, 6);
        us = us * Math.pow(10, 7 - (cur.p - before));
        if (negative) us = -us;
      }
      t.y = 1970;
      t.m = 1;
      t.d = 1;
      t.h = t.i = t.s = 0;
      t.us = 0;
      r.s += secs;
      if (rule === "timestampms") r.us = us;
      t.zoneType = ZONE_OFFSET;
      t.z = 0;
      t.dst = 0;
      return;
    }
    case "firstlastdayof":
      t.haveRelative = true;
      r.firstLastDayOf = text[0] === "l" || text[0] === "L" ? LAST_DAY_OF_MONTH : FIRST_DAY_OF_MONTH;
      return;
    case "backfrontof":
      unhaveTime(t);
      haveTime(t);
      // PHP tests only for a lower-case "b"; "Back of" reads as "front of".
      if (text[0] === "b") {
        t.h = getNr(cur, 2);
        t.i = 15;
      } else {
        t.h = getNr(cur, 2) - 1;
        t.i = 45;
      }
      if (cur.ch() !== "\0") {
        eatSpaces(cur);
        t.h += meridian(cur, t.h);
      }
      return;
    case "weekdayof": {
      t.haveRelative = true;
      r.haveSpecialRelative = true;
      const rel = getRelativeText(cur);
      eatSpaces(cur);
      if (rel.value > 0) {
        r.specialType = SPECIAL_DAY_OF_WEEK_IN_MONTH;
        setRelative(cur, t, rel.value, 1, TIME_PART_DONT_KEEP);
      } else {
        r.specialType = SPECIAL_LAST_DAY_OF_WEEK_IN_MONTH;
        setRelative(cur, t, rel.value, rel.behavior ?? 0, TIME_PART_DONT_KEEP);
      }
      return;
    }
    case "time12":
      if (!haveTime(t)) return;
      t.h = getNr(cur, 2);
      if (cur.ch() === ":" || cur.ch() === ".") {
        t.i = getNr(cur, 2);
        if (cur.ch() === ":" || cur.ch() === ".") t.s = getNr(cur, 2);
      }
      eatSpaces(cur);
      t.h += meridian(cur, t.h);
      return;
    case "mssqltime":
      if (!haveTime(t)) return;
      t.h = getNr(cur, 2);
      t.i = getNr(cur, 2);
      if (cur.ch() === ":" || cur.ch() === ".") {
        t.s = getNr(cur, 2);
        if (cur.ch() === ":" || cur.ch() === ".") t.us = getFracNr(cur);
      }
      eatSpaces(cur);
      t.h += meridian(cur, t.h);
      return;
    case "time24":
      if (!haveTime(t)) return;
      t.h = getNr(cur, 2);
      if (cur.ch() === ":" || cur.ch() === ".") {
        t.i = getNr(cur, 2);
        if (cur.ch() === ":" || cur.ch() === ".") {
          t.s = getNr(cur, 2);
          if (cur.ch() === ".") t.us = getFracNr(cur);
        }
      }
      trailingZone(cur, t);
      return;
    case "gnunocolon":
      // Four digits are a time first; a second group of four is the year.
      if (t.haveTime === 0) {
        t.h = getNr(cur, 2);
        t.i = getNr(cur, 2);
        t.s = 0;
      } else if (t.haveTime === 1) {
        t.y = getNr(cur, 4);
      } else {
        t.errors++;
        return;
      }
      t.haveTime++;
      return;
    case "iso8601nocolon":
      if (!haveTime(t)) return;
      t.h = getNr(cur, 2);
      t.i = getNr(cur, 2);
      t.s = getNr(cur, 2);
      trailingZone(cur, t);
      return;
    case "american": {
      if (!haveDate(t)) return;
      t.m = getNr(cur, 2);
      t.d = getNr(cur, 2);
      if (cur.ch() === "/") {
        const y = getNrEx(cur, 4);
        t.y = processYear(y.value, y.length);
      }
      return;
    }
    case "iso8601date4":
      if (!haveDate(t)) return;
      t.y = getSignedNr(cur, t, 4);
      t.m = getNr(cur, 2);
      t.d = getNr(cur, 2);
      return;
    case "iso8601date2":
    case "gnudateshort": {
      if (!haveDate(t)) return;
      const y = getNrEx(cur, 4);
      t.m = getNr(cur, 2);
      t.d = getNr(cur, 2);
      t.y = processYear(y.value, y.length);
      return;
    }
    case "iso8601datex":
      if (!haveDate(t)) return;
      t.y = getSignedNr(cur, t, 19);
      t.m = getNr(cur, 2);
      t.d = getNr(cur, 2);
      return;
    case "gnudateshorter": {
      if (!haveDate(t)) return;
      const y = getNrEx(cur, 4);
      t.m = getNr(cur, 2);
      t.d = 1;
      t.y = processYear(y.value, y.length);
      return;
    }
    case "datefull": {
      if (!haveDate(t)) return;
      t.d = getNr(cur, 2);
      skipDaySuffix(cur);
      t.m = getMonth(cur);
      const y = getNrEx(cur, 4);
      t.y = processYear(y.value, y.length);
      return;
    }
    case "pointeddate4":
      if (!haveDate(t)) return;
      t.d = getNr(cur, 2);
      t.m = getNr(cur, 2);
      t.y = getNr(cur, 4);
      return;
    case "pointeddate2": {
      if (!haveDate(t)) return;
      t.d = getNr(cur, 2);
      t.m = getNr(cur, 2);
      const y = getNrEx(cur, 2);
      t.y = processYear(y.value, y.length);
      return;
    }
    case "datenoday": {
      if (!haveDate(t)) return;
      t.m = getMonth(cur);
      const y = getNrEx(cur, 4);
      t.d = 1;
      t.y = processYear(y.value, y.length);
      return;
    }
    case "datenodayrev": {
      if (!haveDate(t)) return;
      const y = getNrEx(cur, 4);
      t.m = getMonth(cur);
      t.d = 1;
      t.y = processYear(y.value, y.length);
      return;
    }
    case "datetextual":
    case "pgtextshort": {
      if (!haveDate(t)) return;
      t.m = getMonth(cur);
      t.d = getNr(cur, 2);
      const y = getNrEx(cur, 4);
      t.y = processYear(y.value, y.length);
      return;
    }
    case "datenoyearrev":
      if (!haveDate(t)) return;
      t.d = getNr(cur, 2);
      skipDaySuffix(cur);
      t.m = getMonth(cur);
      return;
    case "datenocolon":
      if (!haveDate(t)) return;
      t.y = getNr(cur, 4);
      t.m = getNr(cur, 2);
      t.d = getNr(cur, 2);
      return;
    case "xmlrpc":
      if (!haveTime(t) || !haveDate(t)) return;
      t.y = getNr(cur, 4);
      t.m = getNr(cur, 2);
      t.d = getNr(cur, 2);
      t.h = getNr(cur, 2);
      t.i = getNr(cur, 2);
      t.s = getNr(cur, 2);
      if (cur.ch() === ".") {
        t.us = getFracNr(cur);
        trailingZone(cur, t);
      }
      return;
    case "pgydotd": {
      if (!haveDate(t)) return;
      const y = getNrEx(cur, 4);
      t.d = getNr(cur, 3);
      t.m = 1;
      t.y = processYear(y.value, y.length);
      return;
    }
    case "isoweekday":
    case "isoweek": {
      if (!haveDate(t)) return;
      t.haveRelative = true;
      t.y = getNr(cur, 4);
      const w = getNr(cur, 2);
      const d = rule === "isoweekday" ? getNr(cur, 1) : 1;
      t.m = 1;
      t.d = 1;
      r.d = dayNrFromWeekNr(t.y, w, d);
      return;
    }
    case "pgtextreverse": {
      if (!haveDate(t)) return;
      const y = getNrEx(cur, 4);
      t.m = getMonth(cur);
      t.d = getNr(cur, 2);
      t.y = processYear(y.value, y.length);
      return;
    }
    case "clf":
      if (!haveTime(t) || !haveDate(t)) return;
      t.d = getNr(cur, 2);
      t.m = getMonth(cur);
      t.y = getNr(cur, 4);
      t.h = getNr(cur, 2);
      t.i = getNr(cur, 2);
      t.s = getNr(cur, 2);
      eatSpaces(cur);
      if (!parseZone(cur, t)) t.errors++;
      return;
    case "year4":
      t.y = getNr(cur, 4);
      return;
    case "ago":
      r.y = -r.y;
      r.m = -r.m;
      r.d = -r.d;
      r.h = -r.h;
      r.i = -r.i;
      r.s = -r.s;
      r.weekday = -r.weekday;
      if (r.weekday === 0) r.weekday = -7;
      if (r.haveSpecialRelative && r.specialType === SPECIAL_WEEKDAY) r.specialAmount = -r.specialAmount;
      return;
    case "daytext": {
      t.haveRelative = true;
      r.haveWeekdayRelative = true;
      unhaveTime(t);
      const unit = lookupRelunit(cur);
      r.weekday = unit ? unit.mult : 0;
      if (r.weekdayBehavior !== 2) r.weekdayBehavior = 1;
      return;
    }
    case "relativetextweek":
    case "relativetext":
      t.haveRelative = true;
      while (cur.ch() !== "\0") {
        const before = cur.p;
        const rel = getRelativeText(cur);
        eatSpaces(cur);
        setRelative(cur, t, rel.value, rel.behavior ?? 0, TIME_PART_DONT_KEEP);
        if (rule === "relativetextweek") {
          r.weekdayBehavior = 2;
          // "next week" alone means Monday-based weeks: Monday of that week.
          if (!r.haveWeekdayRelative) {
            r.haveWeekdayRelative = true;
            r.weekday = 1;
          }
        }
        if (cur.p === before) break;
      }
      return;
    case "monthtext":
      if (!haveDate(t)) return;
      t.m = lookupMonth(cur);
      return;
    case "tz":
      if (!haveTz(t)) return;
      eatSpaces(cur);
      if (!parseZone(cur, t)) t.errors++;
      return;
    case "dateshortwithtime12":
      if (!haveDate(t)) return;
      t.m = getMonth(cur);
      t.d = getNr(cur, 2);
      if (!haveTime(t)) return;
      t.h = getNr(cur, 2);
      t.i = getNr(cur, 2);
      if (cur.ch() === ":" || cur.ch() === ".") {
        t.s = getNr(cur, 2);
        if (cur.ch() === ".") t.us = getFracNr(cur);
      }
      t.h += meridian(cur, t.h);
      return;
    case "dateshortwithtime24":
      if (!haveDate(t)) return;
      t.m = getMonth(cur);
      t.d = getNr(cur, 2);
      if (!haveTime(t)) return;
      t.h = getNr(cur, 2);
      t.i = getNr(cur, 2);
      if (cur.ch() === ":") {
        t.s = getNr(cur, 2);
        if (cur.ch() === ".") t.us = getFracNr(cur);
      }
      trailingZone(cur, t);
      return;
    case "relative":
      t.haveRelative = true;
      while (cur.ch() !== "\0") {
        const before = cur.p;
        const amount = getSignedNr(cur, t, 24);
        eatSpaces(cur);
        setRelative(cur, t, amount, 1, TIME_PART_KEEP);
        if (cur.p === before || t.errors) break;
      }
      return;
    case "skip":
      return;
    case "any":
      t.errors++;
      return;
  }
}

/** Scans kept by text (at most SCANS_KEPT): list URLs repeat the same few date strings, and scanning is most of a parse. */
const scansKept = new Map<string, Parsed>();
const SCANS_KEPT = 512;

/**
 * `scan(input)`, from the kept scans when the same text was scanned before.
 * `scan` depends on the text alone; the caller fills and changes the result,
 * so it gets a copy (`zone` is an immutable luxon Zone, shared).
 */
function scanKept(input: string): Parsed {
  let kept = scansKept.get(input);
  if (kept === undefined) {
    kept = scan(input);
    if (scansKept.size >= SCANS_KEPT) scansKept.delete(scansKept.keys().next().value as string);
    scansKept.set(input, kept);
  }
  return { ...kept, rel: { ...kept.rel } };
}

/** Runs timelib's scanner over `input`; the result carries an error count. */
function scan(input: string): Parsed {
  const t = newParsed();
  let start = 0;
  let end = input.length;
  while (start < end - 1 && isCSpace(input[start]!)) start++;
  while (end - 1 > start && isCSpace(input[end - 1]!)) end--;
  const text = input.slice(start, end);
  if (text.length === 0 || text.length > MAX_INPUT) {
    t.errors++;
    return t;
  }
  // A terminating NUL, which some tokens (`9am`, `Dec 31`) consume.
  const padded = `${text}\0`;
  let pos = 0;
  while (pos < text.length) {
    let best: Rule = RULES[RULES.length - 1]!;
    let bestLength = 0;
    for (const rule of RULES) {
      const length = longestMatch(rule, padded, pos);
      if (length > bestLength) {
        best = rule;
        bestLength = length;
      }
    }
    const token = padded.slice(pos, pos + bestLength).split("\0")[0]!;
    pos += bestLength;
    act(best.name, token, t);
  }
  return t;
}

// ---------------------------------------------------------------------------
// Calendar arithmetic (timelib's normalisation, on proleptic Gregorian days)

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/** Days since 1970-01-01 of a valid y-m-d (Howard Hinnant's algorithm). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 400);
  const yoe = yy - era * 400;
  const doy = floorDiv(153 * (m + (m > 2 ? -3 : 9)) + 2, 5) + d - 1;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): { y: number; m: number; d: number } {
  const zz = z + 719468;
  const era = floorDiv(zz, 146097);
  const doe = zz - era * 146097;
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365);
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100));
  const mp = floorDiv(5 * doy + 2, 153);
  const d = doy - floorDiv(153 * mp + 2, 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: era * 400 + yoe + (m <= 2 ? 1 : 0), m, d };
}

/** 0 = Sunday. */
function dayOfWeek(y: number, m: number, d: number): number {
  return (((daysFromCivil(y, m, d) + 4) % 7) + 7) % 7;
}

function dayNrFromWeekNr(y: number, week: number, dow: number): number {
  const jan1 = dayOfWeek(y, 1, 1);
  const first = 0 - (jan1 > 4 ? jan1 - 7 : jan1);
  return first + (week - 1) * 7 + dow;
}

/** Carries overflowing fields upwards, days through real month lengths. */
function normalize(t: Parsed): void {
  let carry = floorDiv(t.us, 1000000);
  t.us -= carry * 1000000;
  t.s += carry;
  carry = floorDiv(t.s, 60);
  t.s -= carry * 60;
  t.i += carry;
  carry = floorDiv(t.i, 60);
  t.i -= carry * 60;
  t.h += carry;
  carry = floorDiv(t.h, 24);
  t.h -= carry * 24;
  t.d += carry;
  const months = t.y * 12 + (t.m - 1);
  const y = floorDiv(months, 12);
  const m = months - y * 12 + 1;
  const date = civilFromDays(daysFromCivil(y, m, 1) + t.d - 1);
  t.y = date.y;
  t.m = date.m;
  t.d = date.d;
}

function adjustForWeekday(t: Parsed): void {
  const r = t.rel;
  const currentDow = dayOfWeek(t.y, t.m, t.d);
  if (r.weekdayBehavior === 2) {
    // Weeks run Monday–Sunday: "sunday this week" is the coming Sunday.
    if (currentDow === 0 && r.weekday !== 0) r.weekday -= 7;
    if (r.weekday === 0 && currentDow !== 0) r.weekday = 7;
    t.d += r.weekday - currentDow;
    return;
  }
  let difference = r.weekday - currentDow;
  if ((r.d < 0 && difference < 0) || (r.d >= 0 && difference <= -r.weekdayBehavior)) difference += 7;
  if (r.weekday >= 0) {
    t.d += difference;
  } else {
    t.d -= 7 - (Math.abs(r.weekday) - currentDow);
  }
  r.haveWeekdayRelative = false;
}

function adjustSpecialWeekday(t: Parsed): void {
  const count = t.rel.specialAmount;
  const dow = dayOfWeek(t.y, t.m, t.d);
  t.d += Math.trunc(count / 5) * 7;
  const rem = count % 5;
  if (count > 0) {
    if (rem === 0) {
      if (dow === 0) t.d -= 2;
      else if (dow === 6) t.d -= 1;
    } else if (dow === 6) {
      t.d += 1;
    } else if (dow + rem > 5) {
      t.d += 2;
    }
  } else {
    if (rem === 0) {
      if (dow === 6) t.d += 2;
      else if (dow === 0) t.d += 1;
    } else if (dow === 0) {
      t.d -= 1;
    } else if (dow + rem < 1) {
      t.d -= 2;
    }
  }
  t.d += rem;
}

function applyFirstLastDayOf(t: Parsed): void {
  if (t.rel.firstLastDayOf === FIRST_DAY_OF_MONTH) {
    t.d = 1;
  } else if (t.rel.firstLastDayOf === LAST_DAY_OF_MONTH) {
    t.d = 0;
    t.m++;
  }
}

/** Applies relative parts in timelib's order, leaving a normalised wall clock. */
function applyRelative(t: Parsed): void {
  const r = t.rel;
  if (r.haveSpecialRelative) {
    if (r.specialType === SPECIAL_DAY_OF_WEEK_IN_MONTH) {
      t.d = 1;
      t.m += r.m;
      r.m = 0;
    } else if (r.specialType === SPECIAL_LAST_DAY_OF_WEEK_IN_MONTH) {
      t.d = 1;
      t.m += r.m + 1;
      r.m = 0;
    }
  }
  applyFirstLastDayOf(t);
  normalize(t);

  if (r.haveWeekdayRelative) adjustForWeekday(t);
  normalize(t);
  if (t.haveRelative) {
    t.us += r.us;
    t.s += r.s;
    t.i += r.i;
    t.h += r.h;
    t.d += r.d;
    t.m += r.m;
    t.y += r.y;
  }
  applyFirstLastDayOf(t);
  normalize(t);

  if (r.haveSpecialRelative && r.specialType === SPECIAL_WEEKDAY) adjustSpecialWeekday(t);
  normalize(t);
}

// ---------------------------------------------------------------------------
// Zones

/** Offset of `zone` at the Unix instant `seconds`, in seconds. */
function offsetAt(zone: Zone, seconds: number): number {
  return Math.round(zone.offset(seconds * 1000) * 60);
}

/**
 * Unix seconds of a wall-clock time (`localSeconds`: the wall clock read as if
 * it were UTC) in `zone`, resolved as PHP does: a time skipped by a DST gap
 * moves forward by the gap; an ambiguous time takes the offset in force at
 * the wall clock read as UTC (the earlier, summer-time instant in zones west
 * of Greenwich, the later one east of it).
 */
function localToUnix(localSeconds: number, zone: Zone): number {
  const current = offsetAt(zone, localSeconds);
  const after = offsetAt(zone, localSeconds - current);
  if (current === after) return localSeconds - current;
  const inTransition = after > current && offsetAt(zone, localSeconds - after) !== after;
  return inTransition ? localSeconds - current : localSeconds - after;
}

const OFFSET_LABEL = /^UTC([+-])(\d{1,2})(?:(?::(\d{2}))|(?:\.(\d+)))?$/i;

/**
 * Minutes east of UTC for a WordPress offset label (`UTC+2`, `UTC-5:30`,
 * `UTC+5.5`), or null when `name` is not one.
 */
export function offsetLabelMinutes(name: string): number | null {
  const m = OFFSET_LABEL.exec(name.trim());
  if (!m) return null;
  const hours = Number(m[2]);
  let minutes = 0;
  if (m[3] !== undefined) minutes = Number(m[3]);
  else if (m[4] !== undefined) minutes = Math.round(Number(`0.${m[4]}`) * 60);
  if (minutes >= 60) return null;
  const total = (m[1] === "-" ? -1 : 1) * (hours * 60 + minutes);
  return total < -12 * 60 || total > 14 * 60 ? null : total;
}

/** The luxon zone for an IANA name, `UTC`, a luxon `UTC+2` or a WordPress label. */
export function resolveZone(name: string): Zone {
  const minutes = offsetLabelMinutes(name);
  if (minutes !== null) return FixedOffsetZone.instance(minutes);
  const zone = Info.normalizeZone(name.trim() === "" ? "UTC" : name.trim());
  if (!zone.isValid) throw new RangeError(`Unknown time zone: ${name}`);
  return zone;
}

/**
 * The instant of a wall-clock time in `zone`, with DST gaps and overlaps
 * resolved as PHP resolves them. Fields may overflow (`day` 30 of February,
 * hour 24); they carry over as in PHP.
 */
export function wallClockToInstant(
  fields: { year: number; month: number; day: number; hour?: number; minute?: number; second?: number; millisecond?: number },
  zone: string | Zone,
): DateTime {
  const z = typeof zone === "string" ? resolveZone(zone) : zone;
  const t = newParsed();
  t.y = fields.year;
  t.m = fields.month;
  t.d = fields.day;
  t.h = fields.hour ?? 0;
  t.i = fields.minute ?? 0;
  t.s = fields.second ?? 0;
  t.us = (fields.millisecond ?? 0) * 1000;
  normalize(t);
  const local = daysFromCivil(t.y, t.m, t.d) * 86400 + t.h * 3600 + t.i * 60 + t.s;
  return DateTime.fromMillis(localToUnix(local, z) * 1000 + Math.floor(t.us / 1000), { zone: z });
}

// ---------------------------------------------------------------------------
// Public API

function toMillis(now: DateTime | Date | number): number {
  const ms = DateTime.isDateTime(now) ? now.toMillis() : now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(ms)) throw new RangeError("Invalid base time");
  return ms;
}

/**
 * Interprets `input` like PHP 8.2's `strtotime($input, $now)` with
 * `date_default_timezone_set($zone)`. Returns the instant as a DateTime in
 * `zone`, or null where PHP returns false.
 *
 * `now` is the base instant; a number is Unix time in milliseconds (as
 * `Date.now()`). `zone` is an IANA name, `UTC`, or a fixed offset (`UTC+2`,
 * WordPress `UTC-5:30`). Throws RangeError for an unknown zone or base.
 */
export function strtotime(input: string, opts: { zone: string; now: DateTime | Date | number }): DateTime | null {
  const zone = resolveZone(opts.zone);
  const nowMs = toMillis(opts.now);
  const t = scanKept(input);
  if (t.errors > 0) return null;

  const now = DateTime.fromMillis(nowMs, { zone });
  // timelib_fill_holes: a date without a time means midnight; everything the
  // text left unset comes from "now".
  if (t.haveDate && !t.haveTime) {
    t.h = t.i = t.s = t.us = 0;
  }
  const anyField = [t.y, t.m, t.d, t.h, t.i, t.s].some((v) => v !== UNSET);
  if (t.us === UNSET) t.us = anyField ? 0 : now.millisecond * 1000;
  if (t.y === UNSET) t.y = now.year;
  if (t.m === UNSET) t.m = now.month;
  if (t.d === UNSET) t.d = now.day;
  if (t.h === UNSET) t.h = now.hour;
  if (t.i === UNSET) t.i = now.minute;
  if (t.s === UNSET) t.s = now.second;
  if (t.z === UNSET) t.z = now.offset * 60;
  if (t.dst === UNSET) t.dst = now.isInDST ? 1 : 0;

  applyRelative(t);
  if (![t.y, t.m, t.d, t.h, t.i, t.s, t.us].every(Number.isFinite)) return null;
  const local = daysFromCivil(t.y, t.m, t.d) * 86400 + t.h * 3600 + t.i * 60 + t.s;
  let unix: number;
  switch (t.zoneType) {
    case ZONE_OFFSET:
      unix = local - t.z;
      break;
    case ZONE_ABBR:
      unix = local - t.z - t.dst * 3600;
      break;
    default:
      unix = localToUnix(local, t.zone ?? zone);
  }
  const result = DateTime.fromMillis(unix * 1000 + Math.floor(t.us / 1000), { zone });
  return result.isValid ? result : null;
}

/**
 * A date argument of the API: a Unix timestamp (a number, or a string of
 * digits) is that instant; anything else is read by `strtotime` in `zone`
 * against `now` (default: the current time). Null when it does not parse.
 */
export function parseApiDate(input: string | number, opts: { zone: string; now?: DateTime }): DateTime | null {
  const zone = resolveZone(opts.zone);
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return null;
    const dt = DateTime.fromMillis(Math.round(input * 1000), { zone });
    return dt.isValid ? dt : null;
  }
  const trimmed = input.trim();
  if (/^\d+$/.test(trimmed)) {
    const dt = DateTime.fromSeconds(Number(trimmed), { zone });
    return dt.isValid ? dt : null;
  }
  return strtotime(input, { zone: opts.zone, now: opts.now ?? DateTime.now() });
}

/**
 * Whether `input` fixes its own instant regardless of the zone it is read in:
 * a Unix timestamp (digits, `@…`), or text carrying an offset, abbreviation
 * or zone name (`Z`, `+02:00`, `EST`, `Europe/Rome`). False for text that
 * does not parse.
 */
export function hasExplicitOffset(input: string): boolean {
  if (/^\d+$/.test(input.trim())) return true;
  const t = scanKept(input);
  return t.errors === 0 && t.zoneType !== ZONE_NONE;
}

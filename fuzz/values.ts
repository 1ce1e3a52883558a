/**
 * The values the fuzzer sends: plausible ones (so that requests get past
 * validation and reach the handlers and the database) and hostile ones
 * (wrong types, huge strings, deep and cyclic-looking JSON, prototype keys,
 * awkward unicode, SQL and HTML metacharacters, impossible dates, extreme
 * numbers and integers past 2^53 as strings, arrays of 10,000 ids, long
 * lists of names no term has yet, URLs with malformed percent-escapes and
 * URLs of internal hosts, recurrence rules that never or rarely repeat).
 *
 * Values are plain JSON data, except `Ref`, a placeholder for "some id or
 * slug that exists right now", resolved when the request is sent: the set
 * of existing records changes as the fuzz run creates and deletes them, and
 * resolving late keeps the generated sequence independent of that state (so
 * a seed always generates the same plan).
 */
import fc from "fast-check";

/** Pools of existing things a `Ref` can point at. */
export type PoolName =
  | "event"
  | "venue"
  | "organizer"
  | "post"
  | "category"
  | "tag"
  | "term"
  | "user"
  | "eventSlug"
  | "venueSlug"
  | "organizerSlug"
  | "anySlug"
  /** A URL on the fuzz site's image host (lib/fuzz/site.ts). */
  | "imageUrl";

export class Ref {
  constructor(
    readonly pool: PoolName,
    /** Which member: taken modulo the pool size when resolved. */
    readonly pick: number,
  ) {}
}

export type FuzzValue = string | number | boolean | null | Ref | ListString | DeepValue | FuzzValue[] | { [key: string]: FuzzValue };

/** An own enumerable property, even for `__proto__` (plain assignment would set the prototype instead). */
export function setOwn(target: Record<string, FuzzValue>, key: string, value: FuzzValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function objectOf(entries: ReadonlyArray<readonly [string, FuzzValue]>): Record<string, FuzzValue> {
  const out: Record<string, FuzzValue> = {};
  for (const [k, v] of entries) setOwn(out, k, v);
  return out;
}

/** The subset of an index `args` entry the generators read. */
export interface ArgInfo {
  name: string;
  required: boolean;
  type?: string | string[];
  enum?: unknown[];
  items?: { type?: string | string[]; enum?: unknown[] };
  minimum?: number;
  maximum?: number;
  format?: string;
}

/**
 * Paths on the fuzz site's image host (lib/fuzz/site.ts) that `image` URLs
 * point at: images whose names hold percent-escapes good and malformed,
 * then the failures. The `imageUrl` pool lists them in this order.
 */
export const IMAGE_HOST_IMAGES: readonly string[] = [
  "/img/plain.png",
  "/img/with%20space.png",
  "/img/caf%C3%A9.jpg",
  "/img/bad%zz.png",
  "/img/cut%E0%A4%A.png",
  "/img/100%.png",
  "/img/%.png",
  "/img/%FF%FE.gif",
  "/img/nul%00.png",
  "/img/?q=%",
];
export const IMAGE_HOST_PATHS: readonly string[] = [...IMAGE_HOST_IMAGES, "/page.html", "/missing.png", "/redirect-internal", `/img/${"long".repeat(520)}.png`];

// ------------------------------------------------------------ building blocks

const ref = (pool: PoolName): fc.Arbitrary<FuzzValue> => fc.nat(1000).map((n) => new Ref(pool, n));

/** Strings that have broken parsers, escapers and databases before. */
export const NASTY_STRINGS: readonly string[] = [
  "",
  " ",
  "\t\n\r",
  "0",
  "-1",
  "null",
  "undefined",
  "true",
  "NaN",
  "Infinity",
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "toString",
  "valueOf",
  // SQL
  "' OR '1'='1",
  "1; DROP TABLE posts; --",
  "\" OR \"\"=\"",
  "' UNION SELECT login, email FROM users --",
  "%",
  "_",
  "%_%",
  "\\",
  "\\'",
  "\\\\%",
  "`",
  "$1",
  "?",
  ":name",
  "'); DELETE FROM terms; --",
  // HTML and templates
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "\"><svg/onload=alert(1)>",
  "]]><!--",
  "&amp;&#0;&#x0;&lt;",
  "{{7*7}}${7*7}<%= 7*7 %>",
  "javascript:alert(1)",
  // unicode
  "👩‍👩‍👧‍👦🎉🏳️‍🌈",
  "\u202Egnp.exe",
  "مرحبا بالعالم",
  "שלום",
  "e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301",
  "Z\u0351\u036B\u0343\u036A\u0302\u036B\u033D\u034F\u0334\u0319\u0324\u031E\u0349\u035A\u032F\u031E\u0320\u034D",
  "nul\u0000byte",
  "\u0000",
  "lone\uD800surrogate",
  "\uDFFF",
  "\uFEFFbom",
  "zero\u200Bwidth",
  "İstanbul ß ﬃ",
  "ＡＢＣ１２３",
  "\u0085\u2028\u2029",
  "𝕳𝖊𝖑𝖑𝖔",
  // paths and urls
  "../../../../etc/passwd",
  "a/b",
  "%2e%2e%2f",
  "http://127.0.0.1:1/x.jpg",
  "https://example.com/ü?a=1#b",
  "mailto:x@example.org",
  "file:///etc/passwd",
  "foo__trashed",
  "--",
  "-",
];

const nasty = fc.constantFrom(...NASTY_STRINGS);

/** Arbitrary strings of several alphabets, short to medium. */
const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: "grapheme-composite", maxLength: 20 }),
);

const words = fc.constantFrom("jazz", "concert", "music", "town hall", "Festival", "\"jazz concert\"", "amsterdam", "lecture", "park", "free");

/** A 1 MB string (or a 100 KB one), of a few kinds: ASCII, 4-byte emoji, combining marks, NUL bytes. */
const hugeString: fc.Arbitrary<string> = fc
  .record({ kind: fc.constantFrom("ascii", "emoji", "combining", "nul", "words"), big: fc.boolean() })
  .map(({ kind, big }) => {
    const bytes = big ? 1_000_000 : 100_000;
    switch (kind) {
      case "emoji":
        return "😀".repeat(bytes / 4);
      case "combining":
        return `a${"\u0301".repeat(bytes / 2 - 1)}`;
      case "nul":
        // JSON writes each NUL as six bytes: a megabyte of them would only ever meet the body limit.
        return "\u0000".repeat(bytes / 10);
      case "words":
        return "jazz concert ".repeat(Math.floor(bytes / 13));
      default:
        return "A".repeat(bytes);
    }
  });

/**
 * A value nested `depth` levels deep, kept as a description and written out
 * by the encoders without recursion (JSON.stringify itself overflows the
 * stack on a few thousand levels).
 */
export class DeepValue {
  constructor(
    readonly depth: number,
    readonly kind: "array" | "object",
  ) {}

  json(): string {
    return this.kind === "array" ? `${"[".repeat(this.depth)}"bottom"${"]".repeat(this.depth)}` : `${'{"a":'.repeat(this.depth)}"bottom"${"}".repeat(this.depth)}`;
  }
}

/** Nesting deep enough to hurt recursion; past 512 levels the server must answer `rest_invalid_json`. */
const deepValue: fc.Arbitrary<FuzzValue> = fc
  .record({ depth: fc.constantFrom(20, 100, 400, 600, 3000), kind: fc.constantFrom<"array" | "object">("array", "object") })
  .map(({ depth, kind }) => new DeepValue(depth, kind));

/** JSON cannot be cyclic, but it can look like a reference to itself, or repeat one object many times. */
const cyclicLooking: fc.Arbitrary<FuzzValue> = fc.constantFrom<() => FuzzValue>(
  () => objectOf([["$ref", "$"]]),
  () => objectOf([["$ref", "#"], ["id", objectOf([["$ref", "#/id"]])]]),
  () => objectOf([["id", objectOf([["id", objectOf([["id", objectOf([["id", 1]])]])]])]]),
  () => objectOf([["venue", objectOf([["venue", objectOf([["venue", "Hall"]])]])]]),
  () => {
    const shared = objectOf([["id", 1], ["name", "x"]]);
    return Array.from({ length: 1000 }, () => shared);
  },
  () => objectOf([["self", "[Circular]"], ["parent", objectOf([["self", "[Circular]"]])]]),
).map((make) => make());

/** Keys that pollute prototypes when code copies objects carelessly. */
export const PROTO_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

const protoObject: fc.Arbitrary<FuzzValue> = fc
  .record({ key: fc.constantFrom(...PROTO_KEYS), inner: fc.constantFrom("status", "isAdmin", "can", "role", "polluted", "length") })
  .map(({ key, inner }) =>
    key === "constructor"
      ? objectOf([["constructor", objectOf([["prototype", objectOf([[inner, "publish"]])]])]])
      : objectOf([[key, objectOf([[inner, true], ["id", 1]])]]),
  );

/** Numbers every integer parser should refuse or clamp without falling over. */
const extremeNumber: fc.Arbitrary<FuzzValue> = fc.constantFrom<FuzzValue>(
  -1,
  0,
  -0,
  1.5,
  2147483647,
  2147483648,
  -2147483649,
  4294967296,
  9007199254740993,
  1e20,
  1e308,
  -1e308,
  5e-324,
  "1e3",
  "1e400",
  "0x10",
  "0b11",
  "0o7",
  "  5  ",
  "5abc",
  "+5",
  "-0",
  "1,000",
  "٣",
  "NaN",
  "Infinity",
  "9223372036854775808",
  "99999999999999999999999999999999",
  "00000000000000000001",
);

/** Integers just past 2^53 and far past it, as strings (as a query or form sends them) and as JSON numbers. */
const hugeInteger: fc.Arbitrary<FuzzValue> = fc.constantFrom<FuzzValue>(
  "99999999999999999999",
  "9007199254740992",
  "9007199254740993",
  "-9007199254740993",
  "18446744073709551616",
  "99999999999999999999.0",
  "1e20",
  " 99999999999999999999 ",
  9007199254740993,
  -99999999999999999999,
);

/**
 * URLs a URL field should refuse or store without falling over: malformed
 * percent-escapes in every part, and internal hosts in the forms an SSRF
 * tries (decimal, octal, hex, IPv4-mapped IPv6, cloud metadata, DNS names
 * of loopback).
 */
export const HOSTILE_URLS: readonly string[] = [
  "https://example.com/%",
  "https://example.com/%zz.png",
  "https://example.com/a%E0%A4%A.png",
  "https://example.com/%FF%FE.png",
  "https://example.com/100%.jpg?x=%",
  "https://example.com/a.png#%zz",
  "http://%zz/",
  "http://exa%mple.com/",
  "http://ex%41mple.com/a.png",
  "http://user:p%zz@example.com/a.png",
  "http://[::1",
  "http://127.0.0.1/a.png",
  "http://2130706433/a.png",
  "http://0x7f.1/a.png",
  "http://0177.0.0.1/a.png",
  "http://[::ffff:127.0.0.1]/a.png",
  "http://[::ffff:7f00:1]/a.png",
  "http://[::1]:8080/a.png",
  "http://169.254.169.254/latest/meta-data/",
  "http://100.64.0.1/a.png",
  "http://[fe80::1]/a.png",
  "http://0.0.0.0/a.png",
  "http://localhost/a.png",
  "http://localhost:22/a.png",
  "https://example.com:6379/a.png",
  "gopher://127.0.0.1:25/x",
];

const hostileUrl = fc.constantFrom<FuzzValue>(...HOSTILE_URLS);

/**
 * Lists of names that no term (or organizer) has yet: around the limits of
 * one write (50 new terms, 100 items) and far past them, as a JSON list or
 * a comma string. The prefix makes each list new.
 */
const newNames: fc.Arbitrary<FuzzValue> = fc
  .record({ count: fc.constantFrom(2, 49, 50, 51, 100, 101, 600, 600), prefix: fc.nat(1_000_000), asString: fc.boolean() })
  .map(({ count, prefix, asString }) => {
    const names = Array.from({ length: count }, (_, i) => `fuzz ${prefix} term ${i}`);
    return asString ? names.join(",") : names;
  });

/** As many new inline organizers (organizer data), around the 100-item limit. */
const newOrganizers: fc.Arbitrary<FuzzValue> = fc
  .record({ count: fc.constantFrom(2, 100, 101, 300), prefix: fc.nat(1_000_000) })
  .map(({ count, prefix }) => Array.from({ length: count }, (_, i) => objectOf([["organizer", `fuzz ${prefix} organizer ${i}`]])));

/** Ten thousand ids, as a list or a comma string. */
const manyIds: fc.Arbitrary<FuzzValue> = fc
  .record({ asString: fc.boolean(), start: fc.nat(50) })
  .map(({ asString, start }) => {
    const ids = Array.from({ length: 10_000 }, (_, i) => start + i);
    return asString ? ids.join(",") : ids;
  });

/** Dates that parse, dates that cannot exist, and text that only looks like a date. */
const DATES: readonly string[] = [
  "2030-01-15 20:00:00",
  "2030-01-15",
  "2030-07-01 4pm",
  "tomorrow 9am",
  "next wednesday 4pm",
  "+5 days 11am",
  "-1 month",
  "yesterday 23:59",
  "now",
  "1893456000",
  "0",
  "-1",
  "2024-02-30 10:00:00",
  "2023-02-29",
  "2023-13-01",
  "2023-00-00 00:00:00",
  "0000-00-00 00:00:00",
  "-0001-11-30 00:00:00",
  "9999-12-31 23:59:59",
  "10000-01-01",
  "2024-05-10 25:61:61",
  "2024-05-10T10:00:00+99:00",
  "1970-01-01 00:00:00",
  "2038-01-19 03:14:08",
  "@99999999999999",
  "99999999999999999999",
  "+1000000 years",
  "-1000000 years",
  "next blursday",
  "before my birthday",
  "'tomorrow'",
  "2024-05-10\u0000",
  "",
];
const dateString = fc.constantFrom(...DATES);

const TIMEZONES: readonly string[] = ["UTC", "Europe/Rome", "America/New_York", "Asia/Kathmandu", "UTC+5", "UTC-12", "UTC+99", "Mars/Olympus", "", "utc", "../../etc/localtime"];
const STATUSES: readonly string[] = ["publish", "draft", "pending", "private", "future", "trash", "auto-draft", "inherit", "publish,draft", "publish, draft", "foo", "PUBLISH"];
const BOOLEANS: readonly FuzzValue[] = [true, false, "true", "false", "1", "0", 1, 0, "yes", "no", "on", "FALSE", "", 2, "maybe"];

const venueData: fc.Arbitrary<FuzzValue> = fc
  .record({ name: fc.oneof(words, nasty, anyString), city: fc.option(fc.oneof(words, nasty), { nil: undefined }), phone: fc.option(nasty, { nil: undefined }) })
  .map(({ name, city, phone }) => {
    const entries: [string, FuzzValue][] = [["venue", name]];
    if (city !== undefined) entries.push(["city", city]);
    if (phone !== undefined) entries.push(["phone", phone]);
    return objectOf(entries);
  });

const organizerData: fc.Arbitrary<FuzzValue> = fc
  .record({ name: fc.oneof(words, nasty, anyString), email: fc.option(fc.constantFrom("x@example.org", "not an email", "<a@b>"), { nil: undefined }) })
  .map(({ name, email }) => {
    const entries: [string, FuzzValue][] = [["organizer", name]];
    if (email !== undefined) entries.push(["email", email]);
    return objectOf(entries);
  });

const idOf = (pool: PoolName): fc.Arbitrary<FuzzValue> => fc.oneof({ arbitrary: ref(pool), weight: 4 }, { arbitrary: extremeNumber, weight: 1 }, { arbitrary: hugeInteger, weight: 1 });

/**
 * RFC 5545 recurrence lines (events' `recurrence`, the preview's): rules of
 * every FREQ with extreme INTERVALs and BY parts that contradict each other
 * (most never repeat, or very rarely: what made an expansion run without
 * bound), RDATE/EXDATE with far dates, and malformed lines.
 */
const WEEKDAY_NAMES = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
const signedList = (lo: number, hi: number): fc.Arbitrary<string> =>
  fc.array(fc.tuple(fc.boolean(), fc.integer({ min: lo, max: hi })), { minLength: 1, maxLength: 4 }).map((items) => items.map(([neg, v]) => `${neg ? "-" : ""}${v}`).join(","));
const rulePart: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(2, 3, 7, 14, 365, 400, 1461, 4800, 9999, 10000).map((n) => `INTERVAL=${n}`),
  signedList(1, 12).map((v) => `BYMONTH=${v.replace(/-/g, "")}`),
  signedList(1, 31).map((v) => `BYMONTHDAY=${v}`),
  signedList(1, 366).map((v) => `BYYEARDAY=${v}`),
  signedList(1, 53).map((v) => `BYWEEKNO=${v}`),
  signedList(1, 366).map((v) => `BYSETPOS=${v}`),
  fc.array(fc.tuple(fc.option(fc.integer({ min: -53, max: 53 }), { nil: undefined }), fc.constantFrom(...WEEKDAY_NAMES)), { minLength: 1, maxLength: 3 }).map((days) => `BYDAY=${days.map(([n, d]) => `${n ?? ""}${d}`).join(",")}`),
  fc.constantFrom(...WEEKDAY_NAMES).map((d) => `WKST=${d}`),
  fc.constantFrom(1, 2, 10, 5001, 99999, 100000).map((n) => `COUNT=${n}`),
  fc.constantFrom("20270101", "20301231T235959Z", "99991231", "19000101T000000").map((d) => `UNTIL=${d}`),
  fc.constantFrom("BYHOUR=9", "FREQ=DAILY", "X-FOO=1", "BYMONTHDAY=0", "INTERVAL=0"),
);
const recurrenceRule: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom("DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY"), fc.array(rulePart, { maxLength: 5 }))
  .map(([freq, parts]) => `RRULE:FREQ=${freq}${parts.map((p) => `;${p}`).join("")}`);
const recurrenceLines: fc.Arbitrary<FuzzValue> = fc.array(
  fc.oneof(
    { arbitrary: recurrenceRule, weight: 6 },
    { arbitrary: fc.constantFrom("RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU", "RRULE:FREQ=DAILY;INTERVAL=1461;BYMONTH=2;BYMONTHDAY=29", "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "RRULE:FREQ=YEARLY;BYSETPOS=366;BYYEARDAY=1,366"), weight: 2 },
    { arbitrary: fc.constantFrom("RDATE:99991231T100000", "RDATE;VALUE=DATE:19000101", "EXDATE;TZID=Europe/Rome:20310301T190000", "RDATE;VALUE=PERIOD:20310301T100000Z/PT1H", "EXRULE:FREQ=DAILY", "RRULE", ""), weight: 2 },
  ),
  { minLength: 1, maxLength: 4 },
);
/** Lines meant to be valid: everyday rules, with a sparse or never-repeating one now and then (a 400 then). */
const saneRecurrence: fc.Arbitrary<FuzzValue> = fc.oneof(
  { arbitrary: fc.constantFrom<FuzzValue>(["RRULE:FREQ=WEEKLY;COUNT=4"], ["RRULE:FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20321231"], ["RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20310302T190000"], ["RRULE:FREQ=YEARLY"], []), weight: 6 },
  { arbitrary: recurrenceLines, weight: 2 },
);

/** List-valued args: a real list, a comma string, or a single item. *//** List-valued args: a real list, a comma string, or a single item. */
function listOf(item: fc.Arbitrary<FuzzValue>): fc.Arbitrary<FuzzValue> {
  return fc.oneof(
    fc.array(item, { minLength: 0, maxLength: 4 }),
    item,
    fc.array(item, { minLength: 1, maxLength: 3 }).map((items) => new ListString(items)),
  );
}

/** A list sent as a comma-separated string, resolved (Refs included) when the request is sent. */
export class ListString {
  constructor(readonly items: FuzzValue[]) {}
}

// ------------------------------------------------------------ per-arg generators

/** Plausible values by argument name: the names of this API's arguments say what they hold. */
function byName(name: string, typed?: string): fc.Arbitrary<FuzzValue> | undefined {
  const n = name.toLowerCase();
  // `venue` / `organizer` are a name on their own routes (typed string) and linked data on events (untyped).
  if ((n === "venue" || n === "organizer") && typed === "string") return fc.oneof(words, nasty, anyString);
  if (n === "page") return fc.oneof(fc.constantFrom<FuzzValue>(1, 1, 2, "2", 3), extremeNumber, hugeInteger);
  if (n === "per_page") return fc.oneof(fc.constantFrom<FuzzValue>(1, 5, 10, 50, 51, 100, "10"), extremeNumber, hugeInteger);
  if (n.includes("date") || /^(starts|ends)_(before|after)$/.test(n)) return dateString;
  if (n === "timezone") return fc.constantFrom(...TIMEZONES);
  if (n === "status") return fc.oneof(fc.constantFrom(...STATUSES), listOf(fc.constantFrom(...STATUSES)));
  if (n === "author") return fc.oneof(ref("user"), fc.constantFrom<FuzzValue>(0, 999, "1", ""));
  if (n === "event" || n === "post" || n === "post_parent") return idOf("event");
  if (n === "venue") return fc.oneof(ref("venue"), venueData, ref("venue").map((r) => objectOf([["id", r]])), fc.constantFrom<FuzzValue>("", 0, [], "foo"), listOf(ref("venue")));
  if (n === "organizer") return fc.oneof(listOf(fc.oneof(ref("organizer"), organizerData, ref("organizer").map((r) => objectOf([["id", r]])))), fc.constantFrom<FuzzValue>("", []), newOrganizers);
  if (n === "categories") return fc.oneof({ arbitrary: listOf(fc.oneof(ref("category"), words, nasty, hugeInteger)), weight: 3 }, { arbitrary: newNames, weight: 1 });
  if (n === "tags") return fc.oneof({ arbitrary: listOf(fc.oneof(ref("tag"), words, nasty, hugeInteger)), weight: 3 }, { arbitrary: newNames, weight: 1 });
  if (n === "include" || n === "exclude") return fc.oneof(listOf(ref("post")), listOf(ref("term")), manyIds, listOf(hugeInteger));
  if (n === "parent") return idOf("category");
  if (n === "id") return idOf("post");
  if (n === "slug") return fc.oneof(ref("anySlug"), words, nasty, anyString);
  if (n === "search") return fc.oneof(words, nasty, anyString);
  if (n === "cost") return fc.oneof(fc.constantFrom<FuzzValue>("20$", "$ 10", "0", "Free", "10-20", "€5", "-5", "1e9"), fc.array(fc.constantFrom("0$", "20$", "30$", "abc"), { maxLength: 4 }));
  if (n === "website" || n === "image" || n === "url")
    return fc.oneof(fc.constantFrom("https://example.com", "http://127.0.0.1:1/a.png", "foo", "javascript:alert(1)", "", "http://[::1"), ref("post"), hostileUrl, ref("imageUrl"));
  if (n === "order") return fc.constantFrom("asc", "ASC", "desc", "", "random");
  if (n === "orderby") return fc.constantFrom("id", "term_id", "name", "slug", "count", "description", "parent", "term_group", "include", "slug__in", "none", "date; DROP TABLE terms", "");
  if (n === "has_events" || n === "only_with_upcoming" || n === "strict_dates" || n === "hide_empty" || n === "featured" || n === "all_day" || n.startsWith("show_map") || n === "hide_from_listings" || n === "sticky" || n === "geoloc" || n === "ticketed")
    return fc.constantFrom(...BOOLEANS);
  if (n === "i18n_language") return fc.constantFrom("nl", "en", "fi", "fr", "de", "it", "no", "xx", "EN", "");
  if (n === "context") return fc.constantFrom("view", "edit", "embed", "", "admin");
  if (n === "password") return fc.constantFrom("secret", "wrong", "", "' OR 1=1 --");
  if (n === "email") return fc.constantFrom("x@example.org", "not an email", "");
  if (n === "namespace") return fc.constantFrom("calendar/events/v1", "library/v1", "nope", "", "../");
  if (n === "recurrence") return recurrenceLines;
  return undefined;
}

function typeOf(arg: ArgInfo): string | undefined {
  return Array.isArray(arg.type) ? arg.type[0] : arg.type;
}

function byType(arg: ArgInfo): fc.Arbitrary<FuzzValue> {
  if (arg.enum && arg.enum.length > 0) {
    const options = arg.enum.filter((v): v is string | number | boolean => ["string", "number", "boolean"].includes(typeof v));
    if (options.length > 0) return fc.constantFrom<FuzzValue>(...options);
  }
  const type = Array.isArray(arg.type) ? arg.type[0] : arg.type;
  switch (type) {
    case "integer":
      return fc.oneof({ arbitrary: fc.integer({ min: arg.minimum ?? 0, max: Math.min(arg.maximum ?? 100, 100) }), weight: 4 }, { arbitrary: ref("post"), weight: 4 }, { arbitrary: hugeInteger, weight: 1 });
    case "number":
      return fc.oneof(fc.double({ min: -1000, max: 1000, noNaN: true }), fc.integer());
    case "boolean":
      return fc.constantFrom(...BOOLEANS);
    case "array":
      return fc.array(arg.items?.type === "integer" ? ref("post") : fc.oneof(words, nasty), { maxLength: 5 });
    case "object":
      return fc.oneof(venueData, organizerData);
    default:
      return fc.oneof(words, nasty, anyString);
  }
}

/** Anything an argument should not be: other types, huge, deep, prototype-polluting, extreme. */
export const hostileValue: fc.Arbitrary<FuzzValue> = fc.oneof(
  { arbitrary: fc.constantFrom<FuzzValue>({}, [], [[[]]], true, false, null, 0, -1, 1.5, "", [null], [""], ["1", ["2"]]), weight: 4 },
  { arbitrary: nasty, weight: 6 },
  { arbitrary: anyString, weight: 3 },
  { arbitrary: extremeNumber, weight: 3 },
  { arbitrary: hugeInteger, weight: 1 },
  { arbitrary: hostileUrl, weight: 1 },
  { arbitrary: newNames, weight: 1 },
  { arbitrary: dateString, weight: 1 },
  { arbitrary: hugeString, weight: 1 },
  { arbitrary: deepValue, weight: 1 },
  { arbitrary: cyclicLooking, weight: 1 },
  { arbitrary: protoObject, weight: 2 },
  { arbitrary: manyIds, weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<FuzzValue>, weight: 2 },
);

/** A value for one declared argument: mostly plausible, often hostile. */
export function argValue(arg: ArgInfo): fc.Arbitrary<FuzzValue> {
  const plausible = byName(arg.name, typeOf(arg)) ?? byType(arg);
  return fc.oneof({ arbitrary: plausible, weight: 6 }, { arbitrary: hostileValue, weight: 4 });
}

// ------------------------------------------------------------ sane values

/** Strings a validator should accept, that still stress storage and rendering: unicode, NUL, metacharacters, 1 MB. */
const saneText: fc.Arbitrary<FuzzValue> = fc.oneof(
  { arbitrary: words, weight: 5 },
  { arbitrary: fc.constantFrom(...NASTY_STRINGS.filter((s) => s.trim() !== "")), weight: 4 },
  { arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }), weight: 2 },
  { arbitrary: hugeString, weight: 1 },
);

const SANE_STARTS: readonly string[] = ["2030-01-15 20:00:00", "tomorrow 9am", "now", "2030-07-01", "1893456000", "+5 days 11am", "2031-02-28 23:59:59"];
const SANE_ENDS: readonly string[] = ["2032-01-15 22:00:00", "+3 years", "2032-07-03", "2035-01-01 00:00:00"];

/**
 * Values meant to pass validation, so that requests reach the handlers and
 * the database (a fuzzer whose every request is refused tests only the
 * validator). `undefined`: leave the argument out.
 */
function saneByName(name: string, pattern: string, typed?: string): fc.Arbitrary<FuzzValue> | undefined | "omit" {
  const n = name.toLowerCase();
  if ((n === "venue" || n === "organizer") && typed === "string") return saneText;
  const termRoute = /\/(categories|tags)/.test(pattern);
  if (n === "page") return fc.constant(1);
  if (n === "per_page") return fc.integer({ min: 1, max: 50 });
  if (n === "start_date" || n === "date" || n === "date_utc" || /^starts_/.test(n)) return fc.constantFrom(...SANE_STARTS);
  if (n === "end_date" || /^ends_/.test(n)) return fc.constantFrom(...SANE_ENDS);
  if (n === "timezone") return fc.constantFrom("UTC", "Europe/Rome", "America/New_York", "Asia/Kathmandu", "UTC+5");
  if (n === "status") return fc.constantFrom("publish", "publish", "draft", "pending", "private", "future");
  if (n === "author") return ref("user");
  if (n === "event" || n === "post" || n === "post_parent") return ref("event");
  if (n === "venue") return fc.oneof(ref("venue"), venueData, ref("venue").map((r) => objectOf([["id", r]])), fc.constantFrom<FuzzValue>("", 0));
  if (n === "organizer") return fc.oneof(fc.array(fc.oneof(ref("organizer"), organizerData, ref("organizer").map((r) => objectOf([["id", r]]))), { maxLength: 3 }), ref("organizer"));
  // Now and then as many new names as one write may create (25 categories and 25 tags), so that
  // writes at the limit reach the database; sometimes a long list in an otherwise valid write.
  const saneNewNames = fc.nat(1_000_000).map((prefix): FuzzValue => Array.from({ length: 25 }, (_, i) => `fuzz ${prefix} new ${i}`));
  if (n === "categories" || n === "tags") {
    const existing = fc.array(fc.oneof(ref(n === "tags" ? "tag" : "category"), words), { maxLength: 3 });
    return fc.oneof({ arbitrary: existing, weight: 14 }, { arbitrary: fc.constant(""), weight: 3 }, { arbitrary: saneNewNames, weight: 3 }, { arbitrary: newNames, weight: 4 });
  }
  if (n === "include" || n === "exclude") return fc.array(ref(termRoute ? (pattern.includes("/tags") ? "tag" : "category") : "event"), { minLength: 1, maxLength: 4 });
  if (n === "parent") return ref("category");
  if (n === "slug") return fc.oneof(words.map((w) => w.replace(/\W+/g, "-")), fc.constantFrom("caf\u00e9-\u00fcber", "\u6f22\u5b57", "emoji-\ud83c\udf89"));
  if (n === "search") return fc.oneof(words, fc.constantFrom("%", "_", "' OR 1=1 --", "\u00e9t\u00e9", "\"jazz concert\""));
  if (n === "cost") return fc.oneof(fc.constantFrom<FuzzValue>("20$", "$ 10", "0", "Free", "10-20", "\u20ac5"), fc.constant<FuzzValue>(["0$", "20$", "30$"]));
  if (n === "website" || n === "url") return fc.constantFrom("https://example.com", "http://example.org/a?b=c", "");
  // Image URLs on the fuzz site's image host that answer with an image: the write imports it.
  if (n === "image") return fc.nat(IMAGE_HOST_IMAGES.length - 1).map((pick) => new Ref("imageUrl", pick));
  if (n === "password" || n === "namespace" || n === "ticketed" || n === "geoloc") return "omit";
  if (n === "order") return fc.constantFrom("asc", "desc");
  if (n === "orderby") return fc.constantFrom("id", "name", "slug", "count");
  if (n === "has_events" || n === "only_with_upcoming" || n === "strict_dates" || n === "hide_empty" || n === "featured" || n === "all_day" || n === "hide_from_listings" || n === "sticky")
    return fc.constantFrom<FuzzValue>(true, false, "1", "0");
  if (n.startsWith("show_map")) return fc.constantFrom<FuzzValue>("true", "1", "false", "0");
  if (n === "i18n_language") return fc.constantFrom("en", "fr", "nl");
  if (n === "context") return fc.constantFrom("view", "edit");
  if (n === "email") return fc.constantFrom("x@example.org", "info@example.net");
  if (n === "recurrence") return saneRecurrence;
  return undefined;
}

/** A value meant to be valid for the argument; `undefined` when it is better left out. */
export function saneValue(arg: ArgInfo, pattern: string): fc.Arbitrary<FuzzValue> | undefined {
  const byArgName = saneByName(arg.name, pattern, typeOf(arg));
  if (byArgName === "omit") return undefined;
  if (byArgName) return byArgName;
  if (arg.enum && arg.enum.length > 0) return byType(arg);
  const type = Array.isArray(arg.type) ? arg.type[0] : arg.type;
  if (type === "integer") return fc.integer({ min: Math.max(arg.minimum ?? 1, 1), max: Math.min(arg.maximum ?? 50, 50) });
  if (type === "number") return fc.integer({ min: -90, max: 90 });
  if (type === "boolean") return fc.boolean();
  if (type === "array") return fc.array(arg.items?.type === "integer" ? ref("post") : words, { maxLength: 3 });
  return saneText;
}

// ------------------------------------------------------------ documents

const ics = (...lines: string[]): string => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpress fuzz//EN", ...lines, "END:VCALENDAR", ""].join("\r\n");
const icsEvent = (uid: string, ...lines: string[]): string =>
  ["BEGIN:VEVENT", `UID:${uid}`, "DTSTAMP:20260101T000000Z", "DTSTART:20310301T190000Z", "DTEND:20310301T200000Z", ...lines, "END:VEVENT"].join("\r\n");
const customZone = (rule: string): string =>
  ["BEGIN:VTIMEZONE", "TZID:Fuzz Zone", "BEGIN:STANDARD", "DTSTART:20270101T000000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", rule, "END:STANDARD", "END:VTIMEZONE"].join("\r\n");

/**
 * iCalendar bodies for routes that take a document (`Content-Type:
 * text/calendar`): a plausible file, then files written to hurt an importer
 * (HTML in every text, components nested past any stack, VTIMEZONE rules
 * that expand without end or year by year from 0001, floods of open-ended
 * series and of events, unclosed components). Built when sent: some are
 * close to a megabyte.
 */
export const HOSTILE_ICS: ReadonlyArray<() => string> = [
  () => ics(icsEvent("fuzz-plain", "SUMMARY:Fuzz concert", "RRULE:FREQ=WEEKLY;COUNT=3")),
  () =>
    ics(
      icsEvent(
        "fuzz-html",
        "SUMMARY:<script>alert(1)</script><img src=x onerror=alert(2)>Party",
        "LOCATION:<svg onload=alert(3)>Hall",
        'ORGANIZER;CN="<b onmouseover=alert(4)>Ann":mailto:ann@example.org',
        "CATEGORIES:<script>x</script>Fun",
        "URL:javascript:alert(5)",
        "X-ALT-DESC;FMTTYPE=text/html:<p onclick=alert(6)>Hi</p>",
      ),
    ),
  () => ics(`BEGIN:VEVENT\r\nUID:fuzz-deep\r\nSUMMARY:Deep\r\n${"BEGIN:X\r\n".repeat(60_000)}${"END:X\r\n".repeat(60_000)}END:VEVENT`),
  () => ics(customZone("RRULE:FREQ=SECONDLY"), icsEvent("fuzz-zone", "SUMMARY:Zone", "DTSTART;TZID=Fuzz Zone:20310301T190000")),
  () => ics(customZone("RRULE:FREQ=YEARLY;BYMONTH=1,2,3;BYHOUR=1,2,3;BYMINUTE=1,2,3"), icsEvent("fuzz-zone-parts", "SUMMARY:Zone", "DTSTART;TZID=Fuzz Zone:20310301T190000")),
  () => ics(...Array.from({ length: 80 }, (_, i) => icsEvent(`fuzz-flood-${i}`, `SUMMARY:Flood ${i}`, "RRULE:FREQ=DAILY"))),
  () => ics(...Array.from({ length: 5_001 }, (_, i) => `BEGIN:VEVENT\r\nUID:fuzz-many-${i}\r\nEND:VEVENT`)),
  () => "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:fuzz-open\r\nSUMMARY:Never closed\r\n",
];

/** Names of parameters no route declares, that careless code might still read or copy. */
export const EXTRA_FIELDS: readonly string[] = [
  "__proto__",
  "constructor",
  "prototype",
  "id",
  "ID",
  "count",
  "term_id",
  "taxonomy",
  "slug_lock",
  "type",
  "post_type",
  "password",
  "post_password",
  "previous_status",
  "translation_group",
  "menu_order",
  "guid",
  "modified",
  "modified_utc",
  "global_id",
  "role",
  "capabilities",
  "user_id",
  "hash",
  "_fields",
  "_envelope",
  "_embed",
  "_jsonp",
  "_pretty",
  "_method",
  "rest_route",
  "context",
  "status",
  "author",
  "date_gmt",
  "",
  " ",
  "a[b]",
  "💥",
];

/** A value for an undeclared field; `_fields`, `_envelope` and friends get values that mean something. */
export function extraValue(name: string): fc.Arbitrary<FuzzValue> {
  if (name === "_fields") return fc.constantFrom<FuzzValue>("id", "id,title", "events,total", "venue.city", "", "a.b.c.d.e", ",,,");
  if (name === "_envelope" || name === "_pretty" || name === "_embed") return fc.constantFrom<FuzzValue>("1", "", "true");
  if (name === "_jsonp") return fc.constantFrom<FuzzValue>("cb", "alert(1)//", "");
  if (name === "_method") return fc.constantFrom<FuzzValue>("DELETE", "PUT", "GET", "patch", "TRACE");
  if (name === "rest_route") return fc.constantFrom<FuzzValue>("/calendar/events/v1/events", "/", "../../");
  return fc.oneof(hostileValue, byName(name) ?? anyString);
}

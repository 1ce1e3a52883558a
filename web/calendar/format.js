// Dates and text as the API sends them, turned into what a visitor reads.
//
// The API gives an event's start and end twice: as the wall clock in the
// event's own time zone ("2030-05-10 19:30:00", start_date) and as UTC
// (utc_start_date). The event's wall clock is shown as written (no time zone
// database needed, and it is exactly what the organizer entered); the
// viewer's time is the UTC instant shown in the browser's zone.

/** "2030-05-10 19:30:00" → {year, month, day, hour, minute, second} (month 1-12). */
export function parseWallClock(value) {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?/.exec(value ?? "");
  if (!m) return null;
  return { year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5], second: +(m[6] ?? 0) };
}

/** A wall clock as a Date whose UTC fields are that wall clock (formatted with timeZone UTC). */
function floating(wall) {
  return new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second));
}

/** "YYYY-MM-DD" of a {year, month, day}. */
export function isoDate({ year, month, day }) {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The event's offset from UTC at an instant, from its local and UTC wall clocks: "+02:00". */
export function offsetOf(local, utc) {
  const minutes = Math.round((floating(local).getTime() - floating(utc).getTime()) / 60000);
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** ISO 8601 with the event's offset, for <time datetime>: "2030-05-10T19:30:00+02:00". */
export function isoLocal(localText, utcText) {
  const local = parseWallClock(localText);
  const utc = parseWallClock(utcText);
  if (!local || !utc) return "";
  return `${localText.replace(" ", "T").slice(0, 19)}${offsetOf(local, utc)}`;
}

/** ISO 8601 of the UTC instant: "2030-05-10T17:30:00Z". */
export function isoUtc(utcText) {
  return parseWallClock(utcText) ? `${utcText.replace(" ", "T").slice(0, 19)}Z` : "";
}

export function utcInstant(utcText) {
  const wall = parseWallClock(utcText);
  return wall ? floating(wall) : null;
}

// Formatters in the viewer's language (navigator.language), built once.
const formatters = {
  monthTitle: new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric", timeZone: "UTC" }),
  dayLong: new Intl.DateTimeFormat(undefined, { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }),
  dayMedium: new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }),
  weekdayShort: new Intl.DateTimeFormat(undefined, { weekday: "short", timeZone: "UTC" }),
  weekdayLong: new Intl.DateTimeFormat(undefined, { weekday: "long", timeZone: "UTC" }),
  time: new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: "UTC" }),
  viewerDateTime: new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" }),
  viewerTime: new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }),
  viewerZoneName: new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }),
};

/** The viewer's IANA time zone, as the browser reports it. */
export function viewerTimeZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
}

export function monthTitle(year, month) {
  return formatters.monthTitle.format(new Date(Date.UTC(year, month - 1, 1)));
}

/** A calendar day {year, month, day}, long: "Friday, 10 May 2030". */
export function dayLong(d) {
  return formatters.dayLong.format(new Date(Date.UTC(d.year, d.month - 1, d.day)));
}

export function dayMedium(d) {
  return formatters.dayMedium.format(new Date(Date.UTC(d.year, d.month - 1, d.day)));
}

/** Weekday names starting at `firstDay` (1 = Monday … 7 = Sunday): [{short, long}]. */
export function weekdays(firstDay) {
  // 2024-01-01 was a Monday.
  return Array.from({ length: 7 }, (_, i) => {
    const date = new Date(Date.UTC(2024, 0, ((firstDay - 1 + i) % 7) + 1));
    return { short: formatters.weekdayShort.format(date), long: formatters.weekdayLong.format(date) };
  });
}

/** The viewer's first day of the week (1 = Monday … 7 = Sunday), Monday when the browser cannot tell. */
export function firstDayOfWeek() {
  try {
    const locale = new Intl.Locale(navigator.language || "en");
    const info = typeof locale.getWeekInfo === "function" ? locale.getWeekInfo() : locale.weekInfo;
    if (info && info.firstDay >= 1 && info.firstDay <= 7) return info.firstDay;
  } catch {
    // An odd navigator.language: fall back below.
  }
  return 1;
}

/** "19:30" of an event-local wall clock text. */
export function wallTime(text) {
  const wall = parseWallClock(text);
  return wall ? formatters.time.format(floating(wall)) : "";
}

/**
 * The start–end range of an event in its own time zone:
 * {start, end, sameDay} as display strings.
 */
export function eventRange(event) {
  const start = parseWallClock(event.start_date);
  const end = parseWallClock(event.end_date);
  if (!start || !end) return { start: event.start_date ?? "", end: event.end_date ?? "", sameDay: false };
  const sameDay = isoDate(start) === isoDate(end);
  if (event.all_day) return { start: dayMedium(start), end: sameDay ? "" : dayMedium(end), sameDay };
  return {
    start: `${dayMedium(start)}, ${wallTime(event.start_date)}`,
    end: sameDay ? wallTime(event.end_date) : `${dayMedium(end)}, ${wallTime(event.end_date)}`,
    sameDay,
  };
}

/** The same range in the viewer's time zone, from the UTC instants. */
export function viewerRange(event) {
  const start = utcInstant(event.utc_start_date);
  const end = utcInstant(event.utc_end_date);
  if (!start || !end) return null;
  const sameDay = start.toDateString() === end.toDateString();
  const zone = formatters.viewerZoneName.formatToParts(start).find((p) => p.type === "timeZoneName")?.value ?? "";
  return {
    start: formatters.viewerDateTime.format(start),
    end: sameDay ? formatters.viewerTime.format(end) : formatters.viewerDateTime.format(end),
    zone,
  };
}

/**
 * Titles and names come HTML-encoded ("Rock &#038; Roll", curly quotes as
 * entities); decoding through an inert document gives the plain text
 * without running anything.
 */
const inert = document.implementation.createHTMLDocument("");
export function decodeText(html) {
  if (typeof html !== "string" || html === "") return "";
  if (!/[<&]/.test(html)) return html;
  const holder = inert.createElement("div");
  holder.innerHTML = html;
  return holder.textContent ?? "";
}

const ALLOWED = new Set(["P", "BR", "STRONG", "B", "EM", "I", "U", "A", "UL", "OL", "LI", "BLOCKQUOTE", "CODE", "PRE", "H3", "H4", "H5", "H6", "SPAN", "SMALL", "SUB", "SUP", "HR"]);
const DROP_WITH_CONTENT = new Set(["SCRIPT", "STYLE", "TEMPLATE", "IFRAME", "OBJECT", "EMBED", "NOSCRIPT", "svg", "math"]);

/**
 * An event description (rendered HTML from the API) as a fragment of safe
 * elements: a short allow-list, links only to http(s)/mailto/tel, no other
 * attributes. The API is trusted to send clean HTML, but this page must not
 * become a way to run script if it ever does not.
 */
export function safeFragment(html) {
  const holder = inert.createElement("div");
  holder.innerHTML = typeof html === "string" ? html : "";
  const out = document.createDocumentFragment();
  const copy = (from, to) => {
    for (const node of from.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) {
        to.append(document.createTextNode(node.textContent ?? ""));
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        const name = node.tagName;
        if (DROP_WITH_CONTENT.has(name) || DROP_WITH_CONTENT.has(name.toUpperCase())) continue;
        if (!ALLOWED.has(name)) {
          copy(node, to); // unknown wrapper: keep its text
          continue;
        }
        const el = document.createElement(name.toLowerCase());
        if (name === "A") {
          const href = node.getAttribute("href") ?? "";
          if (/^(https?:|mailto:|tel:)/i.test(href.trim())) {
            el.setAttribute("href", href.trim());
            el.setAttribute("rel", "noopener noreferrer nofollow");
          }
        }
        copy(node, el);
        to.append(el);
      }
    }
  };
  copy(holder, out);
  return out;
}

const FREQ_WORDS = { DAILY: ["day", "days"], WEEKLY: ["week", "weeks"], MONTHLY: ["month", "months"], YEARLY: ["year", "years"] };

/**
 * A series' rule in words ("Every week, 12 times", "Every 2 months until
 * 31 Dec 2027"), from its first RRULE; "Repeats" when there is none to read.
 * Null for a single event.
 */
export function describeRecurrence(lines) {
  if (!Array.isArray(lines) || lines.length === 0) return null;
  const rule = lines.find((l) => typeof l === "string" && l.startsWith("RRULE:"));
  if (!rule) return "Repeats";
  const parts = Object.fromEntries(rule.slice(6).split(";").map((p) => p.split("=")));
  const words = FREQ_WORDS[parts.FREQ];
  if (!words) return "Repeats";
  const n = Number(parts.INTERVAL ?? 1);
  let text = n === 1 ? `Every ${words[0]}` : `Every ${n} ${words[1]}`;
  if (parts.COUNT) text += `, ${parts.COUNT} times`;
  else if (parts.UNTIL) {
    const u = parts.UNTIL;
    text += ` until ${dayMedium({ year: Number(u.slice(0, 4)), month: Number(u.slice(4, 6)), day: Number(u.slice(6, 8)) })}`;
  }
  return text;
}

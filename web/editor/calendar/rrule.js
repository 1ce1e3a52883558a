// An event's `recurrence` (RFC 5545 lines: RRULE, RDATE, EXDATE) as the
// recurrence editor's form model, and back. Pure: no DOM, so node's tests
// import it too.
//
// The form edits one rule of the common shapes (daily, weekly on some
// weekdays, monthly on a day of the month or on "the 2nd Tuesday", yearly;
// an interval; ending never, on a date or after N times), dates to skip
// (EXDATE) and extra dates (RDATE). Whatever else the lines say (a second
// rule, parts the form has no control for, other properties) stays as raw
// lines in `advanced`, sent back as they were: nothing is dropped.

export const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
export const FREQUENCIES = ["DAILY", "WEEKLY", "MONTHLY", "YEARLY"];

/**
 * The form model:
 * - freq: "" (does not repeat) or a FREQUENCIES item; interval ≥ 1
 * - byday: weekdays of a weekly rule (MO…SU)
 * - monthly: "monthday" (BYMONTHDAY=monthday) or "weekday" (BYDAY=<nth><nthDay>, nth 1–4 or −1)
 * - end: "never" | "until" (until: "YYYY-MM-DD", the last day) | "count" (count ≥ 1)
 * - untilRaw: the UNTIL value as read when it had a time, kept while `until` is its day
 * - wkst: a WKST value read, written back
 * - exdates / rdates: [{ day: "YYYY-MM-DD", raw?: { prefix, value } }]: a date, or a
 *   date-time read from a line, written back as it was (`prefix` its name and parameters)
 * - advanced: raw lines the form does not represent
 */
export function emptyModel(startDate = "") {
  const day = /^\d{4}-\d{2}-(\d{2})/.exec(startDate);
  return {
    freq: "",
    interval: 1,
    byday: [],
    monthly: "monthday",
    monthday: day ? Number(day[1]) : 1,
    nth: day ? nthOfMonth(startDate) : 1,
    nthDay: day ? weekdayOf(startDate) : "MO",
    end: "never",
    until: "",
    untilRaw: null,
    count: 10,
    wkst: null,
    exdates: [],
    rdates: [],
    advanced: [],
  };
}

function weekdayOf(date) {
  const [y, m, d] = date.slice(0, 10).split("-").map(Number);
  return ["SU", "MO", "TU", "WE", "TH", "FR", "SA"][new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
}

/** Which of its weekday in the month a date is: 1–4, or −1 for a 5th (always the last). */
export function nthOfMonth(date) {
  const d = Number(date.slice(8, 10));
  return d > 28 ? -1 : Math.ceil(d / 7);
}

/** `20270420` → `2027-04-20`; null when not a date. */
function icalDay(value) {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  if (!m) return null;
  const check = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return check.getUTCMonth() === +m[2] - 1 && check.getUTCDate() === +m[3] ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

const icalDate = (day) => day.replaceAll("-", "");

/** A line's name, parameters (upper-case names) and value: `EXDATE;TZID=Europe/Rome:20270420T190000`. */
export function splitLine(line) {
  const text = String(line).trim();
  const colon = text.indexOf(":");
  if (colon <= 0) return null;
  const head = text.slice(0, colon);
  const [name, ...params] = head.split(";");
  const map = new Map();
  for (const p of params) {
    const eq = p.indexOf("=");
    if (eq <= 0) return null;
    map.set(p.slice(0, eq).toUpperCase(), p.slice(eq + 1));
  }
  return { name: name.toUpperCase(), params: map, head, value: text.slice(colon + 1) };
}

/** The parts of an RRULE value, or null when a part repeats or is not NAME=VALUE. */
function ruleParts(value) {
  const parts = new Map();
  for (const item of value.split(";")) {
    if (item === "") continue;
    const eq = item.indexOf("=");
    if (eq <= 0) return null;
    const key = item.slice(0, eq).toUpperCase();
    if (parts.has(key)) return null;
    parts.set(key, item.slice(eq + 1).toUpperCase());
  }
  return parts;
}

/** Fills `model` from one RRULE value when the form can show all of it; false otherwise. */
function readRule(value, model, startDate) {
  const parts = ruleParts(value);
  if (parts === null) return false;
  const known = new Set(["FREQ", "INTERVAL", "COUNT", "UNTIL", "BYDAY", "BYMONTHDAY", "WKST"]);
  for (const key of parts.keys()) if (!known.has(key)) return false;
  const freq = parts.get("FREQ");
  if (!FREQUENCIES.includes(freq)) return false;
  if (parts.has("COUNT") && parts.has("UNTIL")) return false;
  const next = { ...model, freq };
  if (parts.has("INTERVAL")) {
    if (!/^[1-9]\d{0,3}$/.test(parts.get("INTERVAL"))) return false;
    next.interval = Number(parts.get("INTERVAL"));
  }
  if (parts.has("COUNT")) {
    if (!/^[1-9]\d{0,4}$/.test(parts.get("COUNT"))) return false;
    next.end = "count";
    next.count = Number(parts.get("COUNT"));
  }
  if (parts.has("UNTIL")) {
    const until = parts.get("UNTIL");
    const m = /^(\d{8})(T\d{6}Z?)?$/.exec(until);
    const day = m ? icalDay(m[1]) : null;
    if (day === null) return false;
    next.end = "until";
    next.until = day;
    next.untilRaw = m[2] ? until : null;
  }
  if (parts.has("WKST")) {
    if (!WEEKDAYS.includes(parts.get("WKST"))) return false;
    next.wkst = parts.get("WKST");
  }
  const byday = parts.get("BYDAY");
  const bymonthday = parts.get("BYMONTHDAY");
  if (freq === "DAILY" || freq === "YEARLY") {
    if (byday !== undefined || bymonthday !== undefined) return false;
  } else if (freq === "WEEKLY") {
    if (bymonthday !== undefined) return false;
    if (byday !== undefined) {
      const days = byday.split(",");
      if (!days.every((d) => WEEKDAYS.includes(d)) || new Set(days).size !== days.length) return false;
      next.byday = WEEKDAYS.filter((d) => days.includes(d));
    }
  } else {
    // MONTHLY: one day of the month, or one weekday with its ordinal.
    if (byday !== undefined && bymonthday !== undefined) return false;
    if (bymonthday !== undefined) {
      if (!/^(-1|[1-9]|[12]\d|3[01])$/.test(bymonthday)) return false;
      next.monthly = "monthday";
      next.monthday = Number(bymonthday);
    } else if (byday !== undefined) {
      const m = /^([+]?[1-4]|-1)(MO|TU|WE|TH|FR|SA|SU)$/.exec(byday);
      if (!m) return false;
      next.monthly = "weekday";
      next.nth = Number(m[1]);
      next.nthDay = m[2];
    } else if (/^\d{4}-\d{2}-\d{2}/.test(startDate)) {
      // No BY part: the start's day of the month, which the form writes out.
      next.monthly = "monthday";
      next.monthday = Number(startDate.slice(8, 10));
    }
  }
  Object.assign(model, next);
  return true;
}

/** The dates of an RDATE/EXDATE line, or null when the form cannot show them (periods, bad values). */
function readDates(parsed) {
  const valueType = (parsed.params.get("VALUE") ?? "").toUpperCase();
  const values = parsed.value.split(",").map((v) => v.trim());
  if (values.some((v) => v === "")) return null;
  if (valueType === "PERIOD") return null;
  if (valueType === "DATE") {
    if (parsed.params.size !== 1) return null;
    const days = values.map(icalDay);
    return days.includes(null) ? null : days.map((day) => ({ day }));
  }
  if (valueType !== "" && valueType !== "DATE-TIME") return null;
  const out = [];
  for (const v of values) {
    const m = /^(\d{8})T\d{6}Z?$/.exec(v);
    if (!m) {
      // A bare date without VALUE=DATE: read as a date, as the API does.
      const day = icalDay(v);
      if (day === null || parsed.params.size > 0) return null;
      out.push({ day });
      continue;
    }
    const day = icalDay(m[1]);
    if (day === null) return null;
    out.push({ day, raw: { prefix: parsed.head, value: v } });
  }
  return out;
}

/**
 * The form model of an event's `recurrence` lines. `startDate`
 * ("YYYY-MM-DD…") fills the monthly choices' defaults.
 */
export function parseRecurrence(lines, startDate = "") {
  const model = emptyModel(startDate);
  for (const raw of Array.isArray(lines) ? lines : []) {
    const line = String(raw).trim();
    if (line === "") continue;
    const parsed = splitLine(line);
    let shown = false;
    if (parsed !== null && parsed.name === "RRULE" && parsed.params.size === 0 && model.freq === "") {
      shown = readRule(parsed.value, model, startDate);
    } else if (parsed !== null && (parsed.name === "EXDATE" || parsed.name === "RDATE")) {
      const dates = readDates(parsed);
      if (dates !== null) {
        (parsed.name === "EXDATE" ? model.exdates : model.rdates).push(...dates);
        shown = true;
      }
    }
    if (!shown) model.advanced.push(line);
  }
  return model;
}

/** The RRULE line of the model's rule, or null when it does not repeat by a rule. */
export function ruleLine(model) {
  if (!FREQUENCIES.includes(model.freq)) return null;
  const parts = [`FREQ=${model.freq}`];
  const interval = Math.max(1, Math.floor(Number(model.interval) || 1));
  if (interval > 1) parts.push(`INTERVAL=${interval}`);
  if (model.freq === "WEEKLY" && model.byday.length > 0) parts.push(`BYDAY=${WEEKDAYS.filter((d) => model.byday.includes(d)).join(",")}`);
  if (model.freq === "MONTHLY") {
    if (model.monthly === "weekday") parts.push(`BYDAY=${Number(model.nth)}${model.nthDay}`);
    else parts.push(`BYMONTHDAY=${Number(model.monthday)}`);
  }
  if (model.end === "until" && /^\d{4}-\d{2}-\d{2}$/.test(model.until)) {
    const raw = model.untilRaw;
    parts.push(`UNTIL=${raw && raw.startsWith(icalDate(model.until)) ? raw : icalDate(model.until)}`);
  } else if (model.end === "count") {
    parts.push(`COUNT=${Math.max(1, Math.floor(Number(model.count) || 1))}`);
  }
  if (model.wkst) parts.push(`WKST=${model.wkst}`);
  return `RRULE:${parts.join(";")}`;
}

/** RDATE/EXDATE lines: plain dates in one VALUE=DATE line, date-times read from lines back in their own. */
function dateLines(name, dates) {
  const lines = [];
  const days = [...new Set(dates.filter((d) => !d.raw).map((d) => d.day))].sort();
  if (days.length > 0) lines.push(`${name};VALUE=DATE:${days.map(icalDate).join(",")}`);
  const byPrefix = new Map();
  for (const d of dates) {
    if (!d.raw) continue;
    if (!byPrefix.has(d.raw.prefix)) byPrefix.set(d.raw.prefix, []);
    const values = byPrefix.get(d.raw.prefix);
    if (!values.includes(d.raw.value)) values.push(d.raw.value);
  }
  for (const [prefix, values] of byPrefix) lines.push(`${prefix}:${values.join(",")}`);
  return lines;
}

/** The `recurrence` lines of a form model (`[]`: a single event). */
export function buildRecurrence(model) {
  const lines = [];
  const rule = ruleLine(model);
  if (rule !== null) lines.push(rule);
  lines.push(...dateLines("RDATE", model.rdates));
  lines.push(...dateLines("EXDATE", model.exdates));
  for (const line of model.advanced) if (String(line).trim() !== "") lines.push(String(line).trim());
  return lines;
}

/** Whether two lists of lines say the same (order and letter case of names aside). */
export function sameLines(a, b) {
  const norm = (lines) => (Array.isArray(lines) ? lines : []).map((l) => String(l).trim()).filter((l) => l !== "").sort();
  const x = norm(a);
  const y = norm(b);
  return x.length === y.length && x.every((line, i) => line === y[i]);
}

const DAY_NAMES = { MO: "Monday", TU: "Tuesday", WE: "Wednesday", TH: "Thursday", FR: "Friday", SA: "Saturday", SU: "Sunday" };
const ORDINALS = { 1: "first", 2: "second", 3: "third", 4: "fourth", "-1": "last" };
const UNITS = { DAILY: "day", WEEKLY: "week", MONTHLY: "month", YEARLY: "year" };

export function dayName(code) {
  return DAY_NAMES[code] ?? code;
}

export function ordinalName(n) {
  return ORDINALS[String(n)] ?? `${n}th`;
}

/** A sentence saying what the form's rule does: "Every 2 weeks on Tuesday and Thursday, 10 times". */
export function describeRule(model, startDate = "") {
  if (!FREQUENCIES.includes(model.freq)) return "Does not repeat.";
  const interval = Math.max(1, Math.floor(Number(model.interval) || 1));
  const unit = UNITS[model.freq];
  let text = interval === 1 ? `Every ${unit}` : `Every ${interval} ${unit}s`;
  if (model.freq === "WEEKLY") {
    const days = model.byday.length > 0 ? WEEKDAYS.filter((d) => model.byday.includes(d)) : startDate ? [weekdayOf(startDate)] : [];
    if (days.length > 0) text += ` on ${listText(days.map(dayName))}`;
  } else if (model.freq === "MONTHLY") {
    text += model.monthly === "weekday" ? ` on the ${ordinalName(model.nth)} ${dayName(model.nthDay)}` : Number(model.monthday) === -1 ? " on the last day" : ` on day ${model.monthday}`;
  }
  if (model.end === "until") text += model.until ? `, until ${model.until}` : ", until… (pick the last date: without one it never ends)";
  else if (model.end === "count") text += `, ${Math.max(1, Math.floor(Number(model.count) || 1))} times`;
  return `${text}.`;
}

function listText(items) {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** "YYYY-MM-DD" of a date-time read from an RDATE/EXDATE value, for showing a raw item. */
export function rawItemText(item) {
  if (!item.raw) return item.day;
  const m = /^\d{8}T(\d{2})(\d{2})\d{2}(Z?)$/.exec(item.raw.value);
  if (!m) return item.day;
  const zone = /TZID=([^;:]+)/i.exec(item.raw.prefix)?.[1];
  return `${item.day} ${m[1]}:${m[2]}${m[3] ? " UTC" : zone ? ` (${zone})` : ""}`;
}

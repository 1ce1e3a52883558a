/**
 * What one iCalendar import may cost. A file comes from a third party
 * whoever imports it, and a few kilobytes of it can ask for millions of
 * rows or a zone rule expanded second by second; so the file is measured
 * before anything is written, and refused whole (IcsFormatError, a 400)
 * when it is past a budget. Only time is spent while writing: it is checked
 * between events, and the events it did not reach are reported as skipped.
 *
 * The numbers (README, Security) leave room for the large files real
 * calendars export: a few thousand events, a few weekly or daily series
 * each, Outlook zones whose rules start in 1601.
 */

export interface ImportBudgets {
  /** Bytes of the file (UTF-8). */
  bytes: number;
  /** Components nested deeper than this are refused (VCALENDAR › VEVENT › VALARM is 3): parsing and hashing recurse. */
  depth: number;
  /** Content lines of the file (folded lines count once). */
  lines: number;
  /** VEVENTs of the file, changed occurrences (RECURRENCE-ID) included. */
  events: number;
  /** Occurrences all the file's series would have, together, up to the site's recurrence horizon. */
  occurrences: number;
  /** Reading the VTIMEZONEs the file defines itself: each onset, and each year of a rule followed, is a step. */
  timezoneSteps: number;
  /** Seconds spent writing (0: no limit). The first event is always written, so that importing again goes on from there. */
  seconds: number;
}

export const IMPORT_BUDGETS: Readonly<ImportBudgets> = {
  bytes: 10 * 1024 * 1024,
  depth: 10,
  lines: 200_000,
  events: 5_000,
  occurrences: 50_000,
  timezoneSteps: 20_000,
  seconds: 60,
};

/** A file that cannot be imported: not iCalendar, or past a budget. Nothing of it is written. */
export class IcsFormatError extends Error {}

/**
 * A file past one of the budgets (or, `timezoneRules`, with a VTIMEZONE
 * rule that repeats other than yearly): `budget` names which.
 */
export class ImportBudgetError extends IcsFormatError {
  constructor(
    readonly budget: keyof ImportBudgets | "timezoneRules",
    message: string,
  ) {
    super(message);
  }
}

/** The head of a content line kept while scanning: enough for `BEGIN:VEVENT`, and to tell a longer line from it. */
const HEAD = 16;

/**
 * Measures a file's text against the budgets of its size, before it is
 * parsed: bytes, content lines, nesting depth and VEVENTs, counted on the
 * lines as ical.js reads them (a line starting with a space or tab
 * continues the one before; `BEGIN:`/`END:` with no parameters open and
 * close a component). Throws ImportBudgetError for the first budget passed.
 */
export function measureIcs(text: string, budgets: ImportBudgets): void {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > budgets.bytes) throw new ImportBudgetError("bytes", `The file is larger than ${budgets.bytes} bytes.`);
  let lines = 0;
  let depth = 0;
  let events = 0;
  const line = (head: string): void => {
    if (head === "") return;
    if (++lines > budgets.lines) throw new ImportBudgetError("lines", `The file has more than ${budgets.lines} lines.`);
    const upper = head.toUpperCase();
    if (upper.startsWith("BEGIN:")) {
      if (++depth > budgets.depth) throw new ImportBudgetError("depth", `The file nests components more than ${budgets.depth} deep.`);
      if (upper === "BEGIN:VEVENT" && ++events > budgets.events) throw new ImportBudgetError("events", `The file has more than ${budgets.events} events (VEVENTs).`);
    } else if (upper.startsWith("END:")) {
      depth = Math.max(0, depth - 1);
    }
  };
  // As ical.js: the text starts at its first character that is not a space or a tab.
  let pos = text.search(/[^ \t]/);
  if (pos < 0) return;
  let head = "";
  while (pos < text.length) {
    let next = text.indexOf("\n", pos);
    if (next < 0) next = text.length;
    const end = next > pos && text[next - 1] === "\r" ? next - 1 : next;
    const first = text[pos];
    if (first === " " || first === "\t") {
      // A continuation: its text after the space joins the line (only the head matters here).
      if (head.length < HEAD) head += text.slice(pos + 1, Math.min(end, pos + 1 + HEAD));
    } else {
      line(head.slice(0, HEAD));
      head = text.slice(pos, Math.min(end, pos + HEAD));
    }
    pos = next + 1;
  }
  // ical.js trims the last line.
  line(head.trim().slice(0, HEAD));
}

import type { ArgSpec } from "../../routes/types";
import type { RestRequest } from "../../routes/types";
import type { EngineApi } from "../../engine-api";
import { parseApiDate } from "../../dates/strtotime";
import type { FieldCondition } from "../../posts/types";
import { zoneForLuxon } from "../../dates/format";
import { LANGUAGES } from "./languages";

export const NAMESPACE = "calendar/events/v1";
/** calendar-api.md §3.2: larger values are clamped, not rejected. */
export const MAX_PER_PAGE = 50;

/** Added to every endpoint of the namespace (languages.md §1). */
export const languageArg: ArgSpec = {
  type: "string",
  enum: [...LANGUAGES],
  description: "Language code of the content.",
};

export function pageArgs(engine: EngineApi, what: string): Record<string, ArgSpec> {
  return {
    page: { type: "integer", minimum: 1, default: 1, description: "The archive page to return." },
    per_page: {
      type: "integer",
      minimum: 1,
      // The site option drives the default (observed in the original's tests).
      default: async () => engine.options.postsPerPage(),
      description: `The number of ${what} to return on each page (at most ${MAX_PER_PAGE}).`,
    },
  };
}

export function perPage(req: RestRequest): number {
  return Math.min(Number(req.params.per_page), MAX_PER_PAGE);
}

/**
 * List arguments of this namespace are not core-typed: a real array or a
 * comma-separated string, items trimmed, numeric items as numbers
 * (rest-conventions.md §4.3).
 */
export function parseList(value: unknown): Array<string | number> {
  const raw: unknown[] = Array.isArray(value)
    ? value
    : typeof value === "string"
      ? value.split(",")
      : typeof value === "number"
        ? [value]
        : value && typeof value === "object"
          ? Object.values(value)
          : [];
  const out: Array<string | number> = [];
  for (const item of raw) {
    if (typeof item === "number" && Number.isFinite(item)) out.push(item);
    else if (typeof item === "string") {
      const t = item.trim();
      if (t === "") continue;
      out.push(/^-?\d+$/.test(t) ? Number(t) : t);
    }
  }
  return out;
}

/** A non-empty string (`""` → 400), as the original's validators want. */
export function nonEmptyString(value: unknown): boolean {
  return typeof value === "string" && value.trim() !== "";
}

/**
 * calpress decision: the `search` of every list route is at most this many
 * characters (longer → 400 `rest_invalid_param`). The original sets no
 * limit, but each word becomes a LIKE pattern, and SQLite refuses patterns
 * over 50,000 bytes; a bound well under that (4 bytes a character, plus
 * escapes) also keeps one request from building thousands of conditions.
 */
export const MAX_SEARCH_LENGTH = 1000;

/** The `search` rule of the list routes: a non-empty string within MAX_SEARCH_LENGTH; null when valid. */
export function searchProblem(value: unknown): string | null {
  if (!nonEmptyString(value)) return "The search must be a non-empty string.";
  return [...(value as string)].length > MAX_SEARCH_LENGTH ? `The search must be at most ${MAX_SEARCH_LENGTH} characters long.` : null;
}

export function isTruthyFlag(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  return typeof value === "string" && ["true", "yes", "1", "on"].includes(value.trim().toLowerCase());
}

/** The effective language of a request (languages.md §2.2). */
export async function requestLanguage(req: RestRequest, engine: EngineApi): Promise<string> {
  const sent = req.params.i18n_language;
  return typeof sent === "string" ? sent : engine.options.defaultLanguage();
}

/** A date argument: a Unix timestamp or anything PHP's strtotime reads, in the site zone. */
export function dateArg(engine: EngineApi, description: string): ArgSpec {
  return {
    docType: "string",
    description,
    validate: async (value) => {
      if (typeof value !== "string" && typeof value !== "number") return false;
      if (typeof value === "string" && value.trim() === "") return false;
      const zone = zoneForLuxon(await engine.options.timezone());
      return parseApiDate(value, { zone }) !== null;
    },
  };
}

/** WordPress 5.7's `modified_after` / `modified_before`, on every post list of the namespace. */
export const MODIFIED_ARGS = ["modified_after", "modified_before"] as const;
export type ModifiedArg = (typeof MODIFIED_ARGS)[number];

export function modifiedArgs(engine: EngineApi, what: string): Record<ModifiedArg, ArgSpec> {
  return {
    modified_after: dateArg(engine, `Only ${what} last modified after this date (a Unix timestamp, or a date the date parser understands, read in the site time zone).`),
    modified_before: dateArg(engine, `Only ${what} last modified before this date (a Unix timestamp, or a date the date parser understands, read in the site time zone).`),
  };
}

/**
 * The condition of one of MODIFIED_ARGS on a value its argument check
 * accepted: compared with the stored UTC modification time (seconds), so
 * a site zone's DST change cannot shift it. Null for a value that does not
 * parse (an in-process caller's, unchecked).
 */
export function modifiedCondition(name: ModifiedArg, value: string | number, siteZone: string): FieldCondition | null {
  const at = parseApiDate(value, { zone: zoneForLuxon(siteZone) });
  if (at === null) return null;
  return { field: "modified_utc", op: name === "modified_after" ? ">" : "<", value: at.toUTC().toFormat("yyyy-MM-dd HH:mm:ss") };
}

/**
 * Linked data of an event write (calendar-api.md §4.6): categories and tags
 * by ID, slug or name (creating missing terms), one venue and any number of
 * organizers by ID, `{id}` or inline data (created through the venue and
 * organizer operations, with their validation and duplicate rule).
 *
 * Parsing and checking run before anything is written (the routes' argument
 * validation calls the same functions), so a bad part of a write is a 400
 * with nothing stored; resolving runs inside the event's transaction.
 */
import type { EngineApi } from "../../engine-api";
import { isEngineError } from "../../engine-errors";
import { sanitizeTitle } from "../../format/slug";
import { isWpInteger } from "../../routes/coerce";
import { isPlainObject } from "../../routes/json";
import type { Term } from "../../taxonomy/types";
import { createOrReuseLinkedPost, validateLinkedPostData, type LinkedPostContext, type LinkedPostKind } from "../linked-posts";
import { ORGANIZER, TAG, VENUE } from "../post-types";
import { cleanTermField } from "../terms/kinds";
import { parseList } from "../common/args";
import { invalidParam } from "./errors";

// ---------------------------------------------------------------- terms

/** The items of a `categories` / `tags` value: IDs (numbers) and slugs or names (strings), in order. */
export type TermItems = Array<string | number>;

/** The engine's limit on a term name (lib/taxonomy/terms.ts), which slugs (≤ 200 bytes) also stay within. */
export const MAX_TERM_NAME_LENGTH = 200;

/**
 * calpress limits (the original has none): one write names at most this
 * many items in `categories`, in `tags` and in `organizer`, and creates at
 * most `MAX_NEW_TERMS_PER_WRITE` terms by name in all. Each new term is a
 * lookup and an insert inside the write's transaction, so an unbounded list
 * holds the database for as long as the client likes. Past a limit the
 * write is a 400 and stores nothing.
 */
export const MAX_LIST_ITEMS_PER_WRITE = 100;
export const MAX_NEW_TERMS_PER_WRITE = 50;

/** How many more terms this write may create by name (shared by its taxonomies). */
export interface NewTermBudget {
  left: number;
}

export function newTermBudget(): NewTermBudget {
  return { left: MAX_NEW_TERMS_PER_WRITE };
}

/** A list argument's value: a real list (JSON or bracket notation) or a comma-separated string. */
export function isListValue(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number" || Array.isArray(value) || isPlainObject(value);
}

/** `"cat1,cat2"`, `["cat1", 5]`, `cats[]=…`: numeric items are IDs (rest-conventions.md §4.3). */
export function termItems(value: unknown): TermItems {
  return parseList(value);
}

/**
 * The term of `taxonomy` a slug or name stands for, looking in language L
 * first and then in any language (languages.md §2.5): slug in L, name in L,
 * then slug or name in any language.
 */
async function existingTerm(engine: EngineApi, taxonomy: string, item: string, language: string): Promise<Term | undefined> {
  const bySlug = await engine.terms.bySlug(taxonomy, item, language);
  if (bySlug && bySlug.language === language) return bySlug;
  const byName = await engine.terms.byName(taxonomy, item, undefined, language);
  if (byName && byName.language === language) return byName;
  return bySlug ?? byName;
}

/**
 * Term IDs for an event write (the original's `Tribe__Terms::translate_terms_to_ids`):
 * numeric items are IDs, unknown ones silently skipped; other items match a
 * term by slug or name or create a term with that name in language L.
 * Creating terms this way needs no term capability (quirk, matched). Order
 * is kept, duplicates dropped.
 */
export async function resolveTermIds(engine: EngineApi, taxonomy: string, items: TermItems, language: string, budget: NewTermBudget): Promise<number[]> {
  const out: number[] = [];
  const numeric = items.filter((i): i is number => typeof i === "number");
  const known = numeric.length > 0 ? await engine.terms.getMany(numeric) : new Map<number, Term>();
  for (const item of items) {
    let id: number | undefined;
    if (typeof item === "number") {
      const term = known.get(item);
      id = term && term.taxonomy === taxonomy ? term.id : undefined;
    } else {
      // A new term's name as the term routes store it (cleaned for everyone), and looked up the same way.
      const name = cleanTermField("name", item, false);
      if (name === "") continue;
      const found = await existingTerm(engine, taxonomy, name, language);
      if (found) id = found.id;
      else {
        if (budget.left <= 0) {
          throw invalidParam(
            taxonomy === TAG ? "tags" : "categories",
            `A write may create at most ${MAX_NEW_TERMS_PER_WRITE} new categories and tags; give existing ones by ID or slug.`,
          );
        }
        budget.left -= 1;
        id = await createTerm(engine, taxonomy, name, language);
      }
    }
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * Lock keys (lib/db/name-lock.ts) for the terms a write may create by name:
 * one per taxonomy, language and slug the item gives (a name and the slug of
 * that name are one key, as they are one term). Taken at the start of the
 * write's transaction, they make "look up, else create" atomic: a parallel
 * write naming the same new term waits, then finds the term instead of
 * creating `name-2`. On MariaDB this also has to come before the
 * transaction's first plain read, whose snapshot would otherwise hide the
 * term the other write committed.
 */
export function termLockParts(terms: Readonly<Record<string, TermItems | undefined>>, language: string): string[][] {
  const parts: string[][] = [];
  for (const [taxonomy, items] of Object.entries(terms)) {
    for (const item of items ?? []) {
      if (typeof item !== "string") continue;
      const name = cleanTermField("name", item, false);
      if (name !== "") parts.push(["term", taxonomy, language, sanitizeTitle(name) || name.toLowerCase()]);
    }
  }
  return parts;
}

async function createTerm(engine: EngineApi, taxonomy: string, name: string, language: string): Promise<number> {
  try {
    return (await engine.terms.create({ taxonomy, name, language })).id;
  } catch (err) {
    // A same-named term at the top level that the lookup did not see (another
    // language's fallback order, or a concurrent create): use it.
    const existing = isEngineError(err, "term_exists") ? Number(err.data?.term_id) : NaN;
    if (Number.isSafeInteger(existing) && existing > 0) return existing;
    // A name the engine will not store (the argument rule catches the known
    // limits first) is still the client's input: a 400 on the list it came in.
    if (isEngineError(err, "invalid_input")) throw invalidParam(taxonomy === TAG ? "tags" : "categories", err.message);
    throw err;
  }
}

// ---------------------------------------------------------------- venue and organizers

/** One linked item: an existing post by ID, or data for a new (or reused) one. */
export type LinkedRef = { id: number } | { data: Record<string, unknown> };

/** Parsed `venue` / `organizer` value: the refs to link, in order (`[]` unlinks all), or why it is invalid. */
export type LinkedParse = { refs: LinkedRef[] } | { error: string };

function isEmptyLinkValue(value: unknown): boolean {
  return value === "" || value === 0 || value === "0" || value === false || (Array.isArray(value) && value.length === 0);
}

/** An object whose keys are all list indexes: what `venue[0][venue]=…` decodes to; read as a list. */
function isIndexedObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => /^\d+$/.test(k));
}

function asList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isIndexedObject(value)) return Object.keys(value).sort((a, b) => Number(a) - Number(b)).map((k) => value[k]);
  return undefined;
}

function positiveId(value: unknown): number | undefined {
  if (!isWpInteger(value)) return undefined;
  const n = Number(value);
  return n > 0 && Number.isSafeInteger(n) ? n : undefined;
}

/** One item of a venue/organizer value: an ID, `{id: N}`, or data (an object without an `id`). */
function parseItem(kind: LinkedPostKind, item: unknown): LinkedRef | string {
  if (typeof item === "number" || typeof item === "string") {
    const id = positiveId(typeof item === "string" ? item.trim() : item);
    return id !== undefined ? { id } : `${String(item)} is not the ID of a ${kind}.`;
  }
  if (isPlainObject(item)) {
    const rawId = item.id;
    if (rawId !== undefined && rawId !== null && rawId !== "") {
      const id = positiveId(rawId);
      return id !== undefined ? { id } : `${String(rawId)} is not the ID of a ${kind}.`;
    }
    return { data: item };
  }
  return `A ${kind} must be given as an ID, {"id": ID} or ${kind} data.`;
}

/**
 * `venue` (calendar-api.md §4.6): an ID, `{id}`, or venue data; an explicit
 * empty value (`""`, `0`, `[]`) unlinks. The original treats a JSON list as
 * data and fails; calpress accepts a one-element list as its item (harmless
 * extension) and refuses longer lists.
 */
export function parseVenueValue(value: unknown): LinkedParse {
  if (isEmptyLinkValue(value)) return { refs: [] };
  const list = asList(value);
  if (list !== undefined) {
    if (list.length > 1) return { error: "An event has at most one venue." };
    if (list.length === 0 || isEmptyLinkValue(list[0])) return { refs: [] };
    value = list[0];
  }
  const item = parseItem("venue", value);
  return typeof item === "string" ? { error: item } : { refs: [item] };
}

/**
 * `organizer`: a single ID, an object, or a list mixing IDs, `{id}` objects
 * and data; an explicit empty value unlinks all. A comma-separated string of
 * IDs fails in the original with `could-not-create-organizer`; calpress reads
 * it as a list of IDs (harmless).
 */
export function parseOrganizerValue(value: unknown): LinkedParse {
  if (isEmptyLinkValue(value)) return { refs: [] };
  let items: unknown[];
  const list = asList(value);
  if (list !== undefined) items = list;
  else if (typeof value === "string" && value.includes(",")) items = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  else items = [value];
  if (items.length > MAX_LIST_ITEMS_PER_WRITE) return { error: `An event may have at most ${MAX_LIST_ITEMS_PER_WRITE} organizers.` };
  const refs: LinkedRef[] = [];
  for (const raw of items) {
    const item = parseItem("organizer", raw);
    if (typeof item === "string") return { error: item };
    refs.push(item);
  }
  return { refs };
}

export function parseLinkedValue(kind: LinkedPostKind, value: unknown): LinkedParse {
  return kind === "venue" ? parseVenueValue(value) : parseOrganizerValue(value);
}

/**
 * Checks parsed refs against the database: every ID a post of the kind (any
 * status: a trashed venue is still a venue), every data item valid create
 * data for the kind. Returns the first problem, or null.
 */
export async function checkLinkedRefs(engine: EngineApi, kind: LinkedPostKind, refs: LinkedRef[]): Promise<string | null> {
  const type = kind === "venue" ? VENUE : ORGANIZER;
  const ids = refs.filter((r): r is { id: number } => "id" in r).map((r) => r.id);
  if (ids.length > 0) {
    const found = await engine.posts.find({ type, ids: [...new Set(ids)], perPage: 0, noTotal: true });
    const have = new Set(found.posts.map((p) => p.id));
    const missing = ids.find((id) => !have.has(id));
    if (missing !== undefined) return `${missing} is not the ID of a ${kind}.`;
  }
  for (const ref of refs) {
    if (!("data" in ref)) continue;
    const problem = await validateLinkedPostData(kind, ref.data, engine);
    if (problem !== null) return problem;
  }
  return null;
}

/** Parse and check in one step: the refs, or the message of the first problem. */
export async function validateLinkedValue(engine: EngineApi, kind: LinkedPostKind, value: unknown): Promise<LinkedParse> {
  const parsed = parseLinkedValue(kind, value);
  if ("error" in parsed) return parsed;
  const problem = await checkLinkedRefs(engine, kind, parsed.refs);
  return problem === null ? parsed : { error: problem };
}

/**
 * The post IDs to link, inside the event's transaction: IDs as they are,
 * data through the venue/organizer create operation (duplicate rule, status
 * scaling, language L, nested image). Order kept, duplicates dropped.
 */
export async function resolveLinkedRefs(
  tx: EngineApi,
  kind: LinkedPostKind,
  refs: LinkedRef[],
  ctx: LinkedPostContext,
): Promise<number[]> {
  const out: number[] = [];
  for (const ref of refs) {
    const id = "id" in ref ? ref.id : (await createOrReuseLinkedPost(tx, kind, ref.data, ctx)).id;
    if (!out.includes(id)) out.push(id);
  }
  return out;
}

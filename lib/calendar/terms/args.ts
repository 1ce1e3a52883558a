import type { EngineApi } from "../../engine-api";
import { isWpInteger } from "../../routes/coerce";
import type { ArgSpec, ArgsMap } from "../../routes/types";
import type { Term, TermQuery } from "../../taxonomy/types";
import type { CurrentUser } from "../../users/types";
import { EVENT } from "../post-types";
import { isFilterableBy } from "../records/access";
import { MAX_SEARCH_LENGTH, nonEmptyString, pageArgs, parseList, searchProblem } from "../common/args";
import { termKind, type TermCollection } from "./kinds";

/**
 * Argument tables of the category and tag routes (interface.md §4.5, §4.6;
 * calendar-api.md §6), with the original's validation: IDs must name
 * existing terms of the taxonomy, events existing events, strings must not
 * be empty.
 */

/** A term of the collection's taxonomy by ID, or undefined. */
export async function termOf(engine: EngineApi, collection: TermCollection, id: unknown): Promise<Term | undefined> {
  if (!isWpInteger(id) || Number(id) <= 0) return undefined;
  const term = await engine.terms.get(Number(id));
  return term && term.taxonomy === termKind(collection).taxonomy ? term : undefined;
}

/** An event this user may read (records/access.ts): any other ID, hidden or missing, is no event to them. */
async function isEvent(engine: EngineApi, value: unknown, user: CurrentUser | null): Promise<boolean> {
  if (!isWpInteger(value) || Number(value) <= 0) return false;
  const post = await engine.posts.get(Number(value));
  return post?.type === EVENT && isFilterableBy(post, user, true);
}

/** `include` / `exclude`: a list (array or comma string) of IDs of existing terms of the taxonomy. */
function termIdList(engine: EngineApi, collection: TermCollection, description: string): ArgSpec {
  const taxonomy = termKind(collection).taxonomy;
  return {
    type: "array",
    items: { type: "integer" },
    description,
    validate: async (value) => {
      const items = parseList(value);
      if (items.some((i) => typeof i !== "number" || i <= 0)) return "Every item must be a term ID.";
      const ids = items as number[];
      if (ids.length === 0) return true;
      const found = await engine.terms.getMany(ids);
      const missing = ids.filter((id) => found.get(id)?.taxonomy !== taxonomy);
      return missing.length === 0 ? true : `No ${termKind(collection).label} has the ID(s) ${missing.join(", ")}.`;
    },
    // A custom sanitiser (so the core array rule does not run again): the IDs as numbers.
    sanitize: (value) => parseList(value).map(Number),
  };
}

function eventIdArg(engine: EngineApi, description: string): ArgSpec {
  return {
    type: "integer",
    description,
    validate: async (value, req) => ((await isEvent(engine, value, req.user)) ? true : "No event has this ID."),
  };
}

export function termListArgs(engine: EngineApi, collection: TermCollection): ArgsMap {
  const k = termKind(collection);
  const args: Record<string, ArgSpec> = {
    ...pageArgs(engine, collection),
    search: {
      type: "string",
      description: `Only ${collection} whose name or slug contains the string (at most ${MAX_SEARCH_LENGTH} characters).`,
      validate: (value) => searchProblem(value) ?? true,
    },
    exclude: termIdList(engine, collection, `${k.label} IDs to leave out.`),
    include: termIdList(engine, collection, `Only these ${k.label} IDs.`),
    order: {
      type: "string",
      description: "asc (any case) for ascending order, anything else for descending; default ascending.",
      validate: (value) => nonEmptyString(value) || "The order must be a non-empty string.",
    },
    orderby: {
      type: "string",
      description: "Sort by id, name (default), slug, count, description, parent, term_group, include, slug__in or none.",
      validate: (value) => nonEmptyString(value) || "The orderby value must be a non-empty string.",
    },
    hide_empty: {
      type: "boolean",
      // interface.md §4.5 shows the default as `1`.
      default: 1,
      description: "Leave out terms no published event carries.",
    },
  };
  if (k.hierarchical) {
    args.parent = {
      type: "integer",
      description: "Only the direct children of this category.",
      // calendar-api.md §6.1: an existing category; `0` and `""` are rejected.
      validate: async (value) => ((await termOf(engine, collection, value)) ? true : "No category has this ID."),
    };
  }
  args.post = eventIdArg(engine, `Only ${collection} of this event.`);
  args.event = eventIdArg(engine, "Alias of post; wins when both are given.");
  args.slug = {
    type: "string",
    description: `Only the ${k.label} with this slug.`,
    validate: (value) => nonEmptyString(value) || "The slug must be a non-empty string.",
  };
  return args;
}

/** get_terms' `orderby` values (lower-cased as WP_Term_Query does); unknown ones sort by name. */
const ORDERBY: Readonly<Record<string, NonNullable<TermQuery["orderBy"]>>> = {
  id: "id",
  term_id: "id",
  name: "name",
  slug: "slug",
  count: "count",
  description: "description",
  parent: "parent",
  term_group: "term_group",
  include: "include",
  slug__in: "slug__in",
  none: "none",
};

export function termOrderBy(value: unknown): NonNullable<TermQuery["orderBy"]> {
  return typeof value === "string" ? (ORDERBY[value.trim().toLowerCase()] ?? "name") : "name";
}

export function termOrder(value: unknown): "asc" | "desc" {
  return typeof value !== "string" || value.trim().toLowerCase() === "asc" ? "asc" : "desc";
}

function nonEmptyField(what: string): ArgSpec["validate"] {
  return (value) => nonEmptyString(value) || `The ${what} must be a non-empty string.`;
}

/** Create/update fields (interface.md §2.5, §2.6). */
export function termWriteArgs(engine: EngineApi, collection: TermCollection, mode: "create" | "update"): ArgsMap {
  const k = termKind(collection);
  const args: Record<string, ArgSpec> = {};
  if (mode === "update") {
    args.id = {
      type: "integer",
      description: `The ${k.label} ID.`,
      validate: async (value) => ((await termOf(engine, collection, value)) ? true : `No ${k.label} has this ID.`),
    };
  }
  args.name = {
    type: "string",
    required: mode === "create",
    description: `The ${k.label} name.`,
    validate: (value) => {
      if (!nonEmptyString(value)) return "The name must be a non-empty string.";
      return [...(value as string).trim()].length <= 200 || "The name must be at most 200 characters long.";
    },
  };
  args.description = { type: "string", description: `The ${k.label} description.`, validate: nonEmptyField("description") };
  args.slug = {
    type: "string",
    description: `The ${k.label} slug (default: from the name).`,
    validate: nonEmptyField("slug"),
  };
  if (k.hierarchical) {
    args.parent = {
      type: "integer",
      description: "The parent category ID (0: top level).",
      // An existing category (calendar-api.md §6.3). calpress also takes `0`
      // on writes, so that a category can be moved back to the top level.
      validate: async (value) =>
        (isWpInteger(value) && Number(value) === 0) || (await termOf(engine, collection, value)) ? true : "No category has this ID.",
    };
  }
  return args;
}

export function termItemArgs(engine: EngineApi, collection: TermCollection): ArgsMap {
  const k = termKind(collection);
  return {
    id: {
      type: "integer",
      description: `The ${k.label} ID.`,
      // calendar-api.md §6.2: an ID that is no term of the taxonomy is a 400.
      validate: async (value) => ((await termOf(engine, collection, value)) ? true : `No ${k.label} has this ID.`),
    },
  };
}

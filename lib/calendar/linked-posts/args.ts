import type { EngineApi } from "../../engine-api";
import { sanitizeTitle } from "../../format/slug";
import type { LoadedPost, PostStatus } from "../../posts/types";
import { isWpInteger } from "../../routes/coerce";
import type { RestRequest } from "../../routes/types";
import type { ArgSpec, ArgsMap, ValidateResult } from "../../routes/types";
import { EVENT } from "../post-types";
import { isFilterableBy } from "../records/access";
import { MAX_SEARCH_LENGTH, modifiedArgs, pageArgs, parseList, requestLanguage, searchProblem } from "../common/args";
import { linkedKind, type LinkedPostKind } from "./kinds";
import { kindCaps } from "./operations";
import { coordinateRule, fieldRules, geoPairProblem, nameRule, requestableStatuses, type FieldRule } from "./validate";

/**
 * Argument tables of the venue and organizer routes (interface.md §4.3,
 * §4.4; calendar-api.md §5). Types are those of the interface document (so
 * the index and the OpenAPI document show them); the checks are the rules
 * of validate.ts, run as `validate` callbacks before the type rules, as
 * WordPress runs `validate_callback`s.
 */

const WITH_ALL = { meta: true, terms: true, links: true } as const;

/** A FieldRule as a `validate` callback: `true`, or the rule's message. */
function validateWith(engine: EngineApi, rule: FieldRule): ArgSpec["validate"] {
  return async (value): Promise<ValidateResult> => (await rule(value, engine)) ?? true;
}

/** A record of the kind by ID, any status (a trashed venue is still a venue, §5.2). */
export async function linkedPostById(engine: EngineApi, kind: LinkedPostKind, id: unknown): Promise<LoadedPost | undefined> {
  if (!isWpInteger(id) || Number(id) <= 0) return undefined;
  const post = await engine.posts.get(Number(id), WITH_ALL);
  return post && post.type === linkedKind(kind).postType ? post : undefined;
}

/**
 * A record of the kind by slug: the slug normalised like a new one (so case
 * does not matter), any status but trash (a trashed slug carries
 * `__trashed`), the record of language L first, then the lowest ID of any
 * language (languages.md §2.4).
 */
export async function linkedPostBySlug(engine: EngineApi, kind: LinkedPostKind, slug: unknown, language: string): Promise<LoadedPost | undefined> {
  if (typeof slug !== "string" || slug.trim() === "") return undefined;
  const normalised = sanitizeTitle(slug);
  if (normalised === "") return undefined;
  return engine.posts.getBySlug(linkedKind(kind).postType, normalised, { language, withRel: WITH_ALL });
}

/** The record an item route addresses (by `id` or by `slug`). */
export async function addressedPost(engine: EngineApi, kind: LinkedPostKind, req: RestRequest, by: "id" | "slug"): Promise<LoadedPost | undefined> {
  return by === "id"
    ? linkedPostById(engine, kind, req.params.id)
    : linkedPostBySlug(engine, kind, req.params.slug, await requestLanguage(req, engine));
}

const ADDRESS_CHECKS = Symbol("linked post address checks");

/**
 * Whether the request's address names a record, asked once per request and
 * address: the item endpoints' `id` / `slug` rules (each endpoint has its
 * own) all run on the path, the other endpoints' for `Allow` too.
 */
function namesRecord(req: RestRequest, address: string, find: () => Promise<LoadedPost | undefined>): Promise<boolean> {
  const checks = req.memo(ADDRESS_CHECKS, () => new Map<string, Promise<boolean>>());
  let found = checks.get(address);
  if (!found) checks.set(address, (found = find().then((post) => post !== undefined)));
  return found;
}

function idArg(engine: EngineApi, kind: LinkedPostKind): ArgSpec {
  return {
    type: "integer",
    description: `The ${kind} ID.`,
    // calendar-api.md §5.2: an ID that is no venue is a 400 (not a 404).
    validate: async (value, req) =>
      (await namesRecord(req, `${kind}\u0000id\u0000${String(value)}`, () => linkedPostById(engine, kind, value))) || `No ${kind} has this ID.`,
  };
}

function slugArg(engine: EngineApi, kind: LinkedPostKind): ArgSpec {
  return {
    type: "string",
    description: `The ${kind} slug.`,
    validate: async (value, req) => {
      const language = await requestLanguage(req, engine);
      return (await namesRecord(req, `${kind}\u0000slug\u0000${language}\u0000${String(value)}`, () => linkedPostBySlug(engine, kind, value, language))) || `No ${kind} has this slug.`;
    },
  };
}

/** Every status a user who can edit the type may ask for; others may ask only for `publish` (same rule as events). */
export function statusListArg(engine: EngineApi, kind: LinkedPostKind): ArgSpec {
  const k = linkedKind(kind);
  return {
    type: "string",
    description: `Only ${k.plural} with one of these statuses (a list or comma-separated).`,
    validate: (value, req) => {
      const items = parseList(value).map(String);
      if (items.length === 0) return "The status list must not be empty.";
      const canEdit = req.user?.can(kindCaps(engine, kind).edit_posts) === true;
      if (!canEdit) return items.every((s) => s === "publish") ? true : "Only published records may be listed.";
      const allowed: string[] = requestableStatuses(engine, k.postType);
      const bad = items.filter((s) => !allowed.includes(s));
      return bad.length === 0 ? true : `Unknown status: ${bad.join(", ")}.`;
    },
    // A custom sanitiser replaces the core string rule, so real arrays pass too.
    sanitize: (value) => [...new Set(parseList(value).map(String))] as PostStatus[],
  };
}

export function listArgs(engine: EngineApi, kind: LinkedPostKind): ArgsMap {
  const k = linkedKind(kind);
  return {
    ...pageArgs(engine, k.plural),
    search: {
      type: "string",
      description: `Only ${k.plural} with one field (name, description or another text field) containing all the words (at most ${MAX_SEARCH_LENGTH} characters).`,
      validate: (value) => searchProblem(value) ?? true,
    },
    event: {
      type: "integer",
      description: `Only ${k.plural} linked to this event ID.`,
      validate: async (value, req) => {
        if (!isWpInteger(value) || Number(value) <= 0) return "The event must be an event ID.";
        const post = await engine.posts.get(Number(value));
        // An event this user may not read is no event to them (records/access.ts).
        return post?.type === EVENT && isFilterableBy(post, req.user, true) ? true : "No event has this ID.";
      },
    },
    has_events: {
      docType: "string",
      description: `Truthy (true, yes, 1, on): only ${k.plural} with events that are not drafts; any other value: only those without.`,
    },
    only_with_upcoming: {
      default: false,
      docType: "boolean",
      description: `Only ${k.plural} with an upcoming event the user may list.`,
    },
    status: statusListArg(engine, kind),
    // calpress additions, after the original's arguments.
    ...modifiedArgs(engine, k.plural),
  };
}

/** The optional create/update fields, typed as interface.md §2.3 / §2.4 declares them. */
function fieldArgs(engine: EngineApi, kind: LinkedPostKind): Record<string, ArgSpec> {
  const k = linkedKind(kind);
  const rules = new Map(fieldRules(kind));
  const docs: Record<string, string> = {
    author: "The author user ID (default: the requesting user).",
    date: "The publication date, site time.",
    date_utc: "The publication date, UTC.",
    description: `The ${kind} description.`,
    status: "The post status.",
    show_map: "Whether to show a map (true, 1, yes or a falsy string).",
    show_map_link: "Whether to show a map link (true, 1, yes or a falsy string).",
    website: "The website URL.",
    email: "The e-mail address.",
    image: "The featured image: an attachment ID or an image URL (users who may upload files; a public host unless the site allows it, at most 2048 characters).",
    geo_lat: "Latitude (with geo_lng).",
    geo_lng: "Longitude (with geo_lat).",
  };
  const out: Record<string, ArgSpec> = {};
  for (const [name, rule] of rules) {
    const base: ArgSpec = {
      type: name === "author" ? "integer" : "string",
      description: docs[name] ?? `The ${name.replace(/_/g, " ")}.`,
      validate: validateWith(engine, rule),
    };
    // interface.md lists "none" as the default of the venue's author, dates,
    // name and status, and null for everything else (organizers: null throughout).
    const noDefault = kind === "venue" && ["author", "date", "date_utc", "status"].includes(name);
    out[name] = noDefault ? base : { ...base, default: null };
  }
  // The image may be a JSON number (an ID) as well as a string: the custom
  // sanitiser skips the core string rule (a harmless extension).
  out.image = { ...out.image, sanitize: (value) => value };
  if (k.geo) {
    // A calpress extension: coordinates, both or neither; "" clears them.
    for (const axis of ["lat", "lng"] as const) {
      const other = axis === "lat" ? "geo_lng" : "geo_lat";
      out[`geo_${axis}`] = {
        type: "number",
        description: docs[`geo_${axis}`],
        validate: async (value, req) => {
          const own = await coordinateRule(axis)(value, engine);
          if (own !== null) return own;
          return geoPairProblem(axis === "lat" ? value : req.param(other), axis === "lat" ? req.param(other) : value) ?? true;
        },
        sanitize: (value) => value,
      };
    }
  }
  return out;
}

export function createArgs(engine: EngineApi, kind: LinkedPostKind): ArgsMap {
  const k = linkedKind(kind);
  const name: ArgSpec = {
    type: "string",
    required: true,
    ...(kind === "organizer" ? { default: null } : {}),
    description: `The ${kind} name.`,
    validate: validateWith(engine, nameRule(kind)),
  };
  const fields = fieldArgs(engine, kind);
  // Declaration order of interface.md: author, date, date_utc, name, the rest.
  const { author, date, date_utc, ...rest } = fields;
  return { author, date, date_utc, [k.nameField]: name, ...rest };
}

export function updateArgs(engine: EngineApi, kind: LinkedPostKind, by: "id" | "slug"): ArgsMap {
  const create = createArgs(engine, kind);
  const k = linkedKind(kind);
  const out: Record<string, ArgSpec> = {};
  out[by] = by === "id" ? idArg(engine, kind) : { ...slugArg(engine, kind), required: true };
  for (const [name, spec] of Object.entries(create)) {
    out[name] = name === k.nameField ? { ...spec, required: false } : spec;
  }
  return out;
}

export function itemArgs(engine: EngineApi, kind: LinkedPostKind, by: "id" | "slug"): ArgsMap {
  return { [by]: by === "id" ? idArg(engine, kind) : slugArg(engine, kind) };
}

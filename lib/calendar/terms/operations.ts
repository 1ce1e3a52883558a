import type { EngineApi } from "../../engine-api";
import { isEngineError } from "../../engine-errors";
import { RestError } from "../../routes/errors";
import type { Term, TermPage, TermPatch, TermQuery } from "../../taxonomy/types";
import type { CurrentUser } from "../../users/types";
import type { JsonObject } from "../records/context";
import { termRecord } from "../records/term";
import { cleanTermField, termKind, type TermCollection } from "./kinds";

/**
 * Category and tag operations (calendar-api.md §6): create, update and
 * delete with the engine's WordPress term rules, errors in the original's
 * codes, and the records of §1.2 with their parents' slugs in the URL.
 */

export interface TermWriteData {
  name?: string;
  description?: string;
  slug?: string;
  parent?: number;
}

export interface TermContext {
  user: CurrentUser | null;
  language: string;
}

function invalidParam(param: string, message: string): RestError {
  return new RestError("rest_invalid_param", `Invalid parameter(s): ${param}`, 400, { params: { [param]: message }, details: [] });
}

/** Engine refusals → the errors a client of the original sees. */
function termError(err: unknown, label: string, action: "create" | "update"): unknown {
  if (isEngineError(err, "term_exists")) {
    // wp_insert_term's own error, passed through by the original with data.term_id.
    return new RestError("term_exists", "A term with the name provided already exists with this parent.", 400, {
      term_id: Number(err.data?.term_id),
    });
  }
  if (isEngineError(err, "duplicate_term_slug")) {
    // Unclear in the original (a core error passed through); calpress: wp_update_term's code, as a 400.
    return new RestError("duplicate_term_slug", err.message, 400);
  }
  if (isEngineError(err, "invalid_parent")) return invalidParam("parent", err.message);
  if (isEngineError(err, "invalid_input")) return invalidParam(String(err.data?.field ?? "name"), err.message);
  if (isEngineError(err)) return new RestError(`could-not-${action}-${label}`, `The ${label} could not be ${action}d.`, 400);
  return err;
}

/**
 * What the write stores: names as WordPress's `pre_term_name` filters leave
 * them (tags stripped, whitespace collapsed, trimmed); descriptions through
 * kses for users without `unfiltered_html` (`pre_term_description`). The
 * engine cleans them again by the taxonomy's kinds (the same, so nothing
 * changes); cleaned here first because an empty name is this route's 400.
 */
function cleanData(data: TermWriteData, user: CurrentUser | null): TermWriteData {
  const out: TermWriteData = {};
  const unfiltered = user?.can("unfiltered_html") === true;
  if (data.name !== undefined) out.name = cleanTermField("name", data.name, unfiltered);
  if (data.description !== undefined) out.description = cleanTermField("description", data.description, unfiltered);
  if (data.slug !== undefined) out.slug = data.slug;
  if (data.parent !== undefined) out.parent = data.parent;
  return out;
}

export async function createTerm(engine: EngineApi, collection: TermCollection, data: TermWriteData, ctx: TermContext): Promise<Term> {
  const k = termKind(collection);
  const clean = cleanData(data, ctx.user);
  if (clean.name === undefined || clean.name === "") throw invalidParam("name", "The name must be a non-empty string.");
  try {
    return await engine.write((tx) =>
      tx.terms.create({
        taxonomy: k.taxonomy,
        name: clean.name!,
        ...(clean.slug !== undefined ? { slug: clean.slug } : {}),
        ...(clean.description !== undefined ? { description: clean.description } : {}),
        ...(k.hierarchical && clean.parent !== undefined ? { parent: clean.parent } : {}),
        language: ctx.language,
      }, ctx.user),
    );
  } catch (err) {
    throw termError(err, k.label, "create");
  }
}

export async function updateTerm(engine: EngineApi, collection: TermCollection, id: number, data: TermWriteData, ctx: TermContext): Promise<Term> {
  const k = termKind(collection);
  const clean = cleanData(data, ctx.user);
  if (clean.name === "") throw invalidParam("name", "The name must be a non-empty string.");
  const patch: TermPatch = {};
  if (clean.name !== undefined) patch.name = clean.name;
  if (clean.slug !== undefined) patch.slug = clean.slug;
  if (clean.description !== undefined) patch.description = clean.description;
  if (k.hierarchical && clean.parent !== undefined) patch.parent = clean.parent;
  try {
    return await engine.write((tx) => tx.terms.update(id, patch, ctx.user));
  } catch (err) {
    throw termError(err, k.label, "update");
  }
}

/**
 * Permanent delete (§6.5): children move up to the parent, the term leaves
 * every event. Answers the term as it was before, as the original does.
 */
export async function deleteTerm(engine: EngineApi, collection: TermCollection, id: number): Promise<Term> {
  const k = termKind(collection);
  try {
    return await engine.write(async (tx) => {
      const before = await tx.terms.get(id);
      if (!before) throw invalidParam("id", `No ${k.label} has this ID.`);
      await tx.terms.delete(id);
      return before;
    });
  } catch (err) {
    if (err instanceof RestError) throw err;
    if (isEngineError(err)) throw new RestError(`could-not-delete-${k.label}`, `The ${k.label} could not be deleted.`, 500);
    throw err;
  }
}

export function findTerms(engine: EngineApi, query: TermQuery): Promise<TermPage> {
  return engine.terms.find(query);
}

/**
 * The ancestors (root first, without the term) of each term, for category
 * URLs: parents are loaded level by level for the whole page, not per term.
 */
export async function ancestorsOf(engine: EngineApi, terms: Term[]): Promise<Map<number, Term[]>> {
  const known = new Map<number, Term>(terms.map((t) => [t.id, t]));
  let wanted = [...new Set(terms.map((t) => t.parent).filter((p) => p !== 0 && !known.has(p)))];
  for (let depth = 0; wanted.length > 0 && depth < 100; depth++) {
    const found = await engine.terms.getMany(wanted);
    for (const t of found.values()) known.set(t.id, t);
    wanted = [...new Set([...found.values()].map((t) => t.parent).filter((p) => p !== 0 && !known.has(p)))];
  }
  const out = new Map<number, Term[]>();
  for (const term of terms) {
    const chain: Term[] = [];
    const seen = new Set<number>([term.id]);
    let parent = known.get(term.parent);
    while (parent && !seen.has(parent.id)) {
      chain.unshift(parent);
      seen.add(parent.id);
      parent = parent.parent !== 0 ? known.get(parent.parent) : undefined;
    }
    out.set(term.id, chain);
  }
  return out;
}

/** `ctx.urls: false`: the answer does not show `url` (`_fields`), so the ancestors its path needs are not read. */
export async function termRecords(engine: EngineApi, terms: Term[], ctx: { ns: string; home: string; urls?: boolean }): Promise<JsonObject[]> {
  const ancestors = ctx.urls === false ? new Map<number, Term[]>() : await ancestorsOf(engine, terms);
  return terms.map((t) => termRecord(t, ancestors.get(t.id) ?? [], ctx));
}

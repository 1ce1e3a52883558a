/**
 * `GET /<namespace>/<base>` as a parameter table (DESIGN §6): each row is a
 * public argument of WordPress 6.1's `get_collection_params()` for the type
 * (in its order), or one of calpress's typed-field filters after them, with
 * how it narrows the engine query (WordPress's `$parameter_mappings`,
 * `prepare_tax_query()` and date query). The route's args, the namespace
 * index, the OpenAPI document and the query all read this one table.
 */
import type { EngineApi } from "../engine-api";
import { sanitizeTitle } from "../format/slug";
import { POST_STATUSES, type FieldCondition, type PostQuery, type PostStatus, type TaxCondition } from "../posts/types";
import { coerceValue, isWpArray, isWpObject, toWpList } from "../routes/coerce";
import { RestError } from "../routes/errors";
import type { ArgSpec, RestRequest } from "../routes/types";
import { refused } from "../core-routes/host";
import { siteWallClock } from "./dates";
import type { PostTypeView, ShownTaxonomy } from "./post-schema";
import { contextArg } from "./schema";

/** The query being built from the arguments. */
export interface PostListDraft {
  query: PostQuery & { where: FieldCondition[]; tax: TaxCondition[] };
  /** `orderby` and `order` as asked; turned into `query.orderBy` once every row has run. */
  orderby: string;
  order: "asc" | "desc";
  /** `include_slugs`: the slugs in the order asked. */
  slugs?: string[];
}

export interface PostParamContext {
  engine: EngineApi;
  req: RestRequest;
  view: PostTypeView;
  timezone: string;
}

export interface PostListParam {
  readonly name: string;
  readonly arg: ArgSpec;
  /** Narrows the query for a value that was given (or defaulted). */
  readonly apply?: (value: unknown, draft: PostListDraft, ctx: PostParamContext) => void;
}

const idList = (description: string, withDefault = true): ArgSpec => ({
  description,
  type: "array",
  items: { type: "integer" },
  ...(withDefault ? { default: [] } : {}),
});

const ids = (value: unknown): number[] => (Array.isArray(value) ? value.filter((v): v is number => typeof v === "number") : []);

/** The engine's order keys of WordPress's `orderby` values. */
const ORDER_FIELDS: Record<string, string> = {
  author: "author",
  date: "date_local",
  id: "id",
  include: "include",
  modified: "modified_local",
  parent: "parent",
  relevance: "relevance",
  slug: "slug",
  include_slugs: "include",
  title: "title",
  menu_order: "menu_order",
};

/** `sanitize_post_statuses()`: a status other than the default needs edit_posts (private: read_private_posts too). */
function statusParam(view: PostTypeView): PostListParam {
  const known = [...POST_STATUSES, "any"];
  return {
    name: "status",
    arg: {
      default: "publish",
      description: "Limit result set to posts assigned one or more statuses.",
      type: "array",
      items: { enum: known, type: "string" },
      sanitize: (value, req) => {
        const list = toWpList(value).map(String);
        for (const status of list) {
          if (status === "publish") continue;
          const user = req.user;
          if (user?.can(view.caps.edit_posts) === true || (status === "private" && user?.can(view.caps.read_private_posts) === true)) {
            if (!known.includes(status)) return new RestError("rest_not_in_enum", `status[${list.indexOf(status)}] is not one of ${known.join(", ")}.`, 400, { param: "status" });
          } else {
            return refused(user, "rest_forbidden_status", "Status is forbidden.");
          }
        }
        return list;
      },
    },
    apply: (value, draft) => {
      const list = Array.isArray(value) ? value.map(String) : ["publish"];
      // `any`: every status but trash and auto-draft (WordPress's statuses that show in searches).
      const statuses = list.includes("any") ? POST_STATUSES.filter((s) => s !== "trash" && s !== "auto-draft") : (list.filter((s) => (POST_STATUSES as readonly string[]).includes(s)) as PostStatus[]);
      draft.query.status = [...new Set(statuses)];
    },
  };
}

/** A term filter's value: a list of ids, or `{ terms, include_children, operator }`. */
interface TermFilter {
  terms: number[];
  includeChildren: boolean;
  operator: "AND" | "OR";
}

/** `prepare_taxonomy_limit_schema()`: the include (or exclude) argument of one taxonomy. */
function termFilterArg(tax: ShownTaxonomy, exclude: boolean): ArgSpec {
  const base = tax.rest.base;
  const objectProperties: Record<string, unknown> = {
    terms: { description: "Term IDs.", type: "array", items: { type: "integer" }, default: [] },
  };
  if (tax.config.hierarchical) objectProperties.include_children = { description: "Whether to include child terms in the terms limiting the result set.", type: "boolean", default: false };
  if (!exclude) objectProperties.operator = { description: "Whether items must be assigned all or any of the specified terms.", type: "string", enum: ["AND", "OR"], default: "OR" };
  const spec = {
    description: exclude
      ? `Limit result set to items except those with specific terms assigned in the ${base} taxonomy.`
      : `Limit result set to items with specific terms assigned in the ${base} taxonomy.`,
    type: ["object", "array"],
    oneOf: [
      { title: "Term ID List", description: "Match terms with the listed IDs.", type: "array", items: { type: "integer" } },
      { title: "Term ID Taxonomy Query", description: "Perform an advanced term query.", type: "object", properties: objectProperties, additionalProperties: false },
    ],
    // WordPress validates the value against one of the two forms; calpress reads it here (the type rules cannot pick a `oneOf`).
    sanitize: (value: unknown) => parseTermFilter(value, base, tax.config.hierarchical === true, exclude),
  };
  return spec as ArgSpec;
}

function parseTermFilter(value: unknown, param: string, hierarchical: boolean, exclude: boolean): TermFilter | RestError {
  // WordPress's `oneOf` errors: which form was meant, and why it does not fit.
  const noMatch = (form: "List" | "Taxonomy Query", reason: string): RestError =>
    new RestError("rest_no_matching_schema", `${param} is not a valid Term ID ${form}. Reason: ${reason}`, undefined, { position: form === "List" ? 0 : 1 });
  const isObjectForm = typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).some((k) => !/^\d+$/.test(k));
  if (isWpArray(value) && !isObjectForm) {
    const list = coerceValue(value, { type: "array", items: { type: "integer" } }, param);
    if (!list.ok) return noMatch("List", list.error.message);
    return { terms: list.value as number[], includeChildren: false, operator: "OR" };
  }
  if (!isWpObject(value) || typeof value === "string") return new RestError("rest_invalid_type", `${param} is not of type object,array.`, undefined, { param });
  const obj = value as Record<string, unknown>;
  const allowed = ["terms", ...(hierarchical ? ["include_children"] : []), ...(exclude ? [] : ["operator"])];
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  if (extra !== undefined) return noMatch("Taxonomy Query", `${extra} is not a valid property of Object.`);
  const terms = obj.terms === undefined ? { ok: true as const, value: [] } : coerceValue(obj.terms, { type: "array", items: { type: "integer" } }, `${param}[terms]`);
  if (!terms.ok) return noMatch("Taxonomy Query", terms.error.message);
  const children = obj.include_children === undefined ? { ok: true as const, value: false } : coerceValue(obj.include_children, { type: "boolean" }, `${param}[include_children]`);
  if (!children.ok) return noMatch("Taxonomy Query", children.error.message);
  const operator = obj.operator === undefined ? "OR" : obj.operator;
  if (operator !== "AND" && operator !== "OR") return noMatch("Taxonomy Query", `${param}[operator] is not one of AND and OR.`);
  return { terms: terms.value as number[], includeChildren: children.value === true, operator };
}

function isTermFilter(value: unknown): value is TermFilter {
  return typeof value === "object" && value !== null && Array.isArray((value as TermFilter).terms);
}

/** One include and one exclude argument per taxonomy (WordPress's `prepare_tax_query()`). */
function taxonomyParams(tax: ShownTaxonomy): PostListParam[] {
  const base = tax.rest.base;
  return [
    {
      name: base,
      arg: termFilterArg(tax, false),
      apply: (value, draft) => {
        if (!isTermFilter(value) || value.terms.length === 0) return;
        draft.query.tax.push({ taxonomy: tax.name, terms: value.terms, includeChildren: value.includeChildren, operator: value.operator === "AND" ? "AND" : "IN" });
      },
    },
    {
      name: `${base}_exclude`,
      arg: termFilterArg(tax, true),
      apply: (value, draft) => {
        if (!isTermFilter(value) || value.terms.length === 0) return;
        draft.query.tax.push({ taxonomy: tax.name, terms: value.terms, includeChildren: value.includeChildren, operator: "NOT IN" });
      },
    },
  ];
}

/** A date bound on a date column (WordPress's date query: exclusive, compared as site time). */
function dateParam(name: string, description: string, field: "date_local" | "modified_local", op: "<" | ">"): PostListParam {
  return {
    name,
    arg: { description, type: "string", format: "date-time" },
    apply: (value, draft, ctx) => {
      const bound = typeof value === "string" ? siteWallClock(value, ctx.timezone) : null;
      if (bound !== null) draft.query.where.push({ field, op, value: bound });
    },
  };
}

/**
 * calpress's filters on typed fields (an addition): `<field>` matches the
 * value exactly; numbers and dates also take `<field>_min` and `<field>_max`
 * (inclusive). A boolean `false` also matches a field never set (which
 * records show as false). Long text is not filtered. A name that is
 * already an argument of the route is left to that argument.
 */
function fieldParams(view: PostTypeView, taken: ReadonlySet<string>): PostListParam[] {
  const rows: PostListParam[] = [];
  for (const [name, def] of Object.entries(view.fields)) {
    if (def.type === "text") continue;
    const type = def.type === "datetime" ? "string" : def.type;
    const format = def.type === "datetime" ? { format: "date-time" } : {};
    const exact: PostListParam = {
      name,
      arg: { description: `Limit result set to posts whose ${name} is this value.`, type, ...format },
      apply: (value, draft, ctx) => {
        if (def.type === "boolean" && value === false) draft.query.where.push({ field: name, op: "!=", value: true });
        else if (def.type === "datetime") {
          const at = typeof value === "string" ? siteWallClock(value, ctx.timezone) : null;
          if (at !== null) draft.query.where.push({ field: name, op: "=", value: at });
        } else draft.query.where.push({ field: name, op: "=", value: value as string | number | boolean });
      },
    };
    if (!taken.has(name)) rows.push(exact);
    if (def.type !== "integer" && def.type !== "number" && def.type !== "datetime") continue;
    for (const [suffix, op, words] of [["_min", ">=", "at least"], ["_max", "<=", "at most"]] as const) {
      if (taken.has(`${name}${suffix}`)) continue;
      rows.push({
        name: `${name}${suffix}`,
        arg: { description: `Limit result set to posts whose ${name} is ${words} this value.`, type, ...format },
        apply: (value, draft, ctx) => {
          const bound = def.type === "datetime" ? (typeof value === "string" ? siteWallClock(value, ctx.timezone) : null) : (value as number);
          if (bound !== null) draft.query.where.push({ field: name, op, value: bound });
        },
      });
    }
  }
  return rows;
}

/** The rows of the type's collection, in WordPress's order, calpress's additions last. */
export function postListParams(view: PostTypeView): PostListParam[] {
  const supports = view.supports;
  const hierarchical = view.config.hierarchical === true;
  const pageAttributes = supports.has("page-attributes");
  const orderby = ["author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title", ...(pageAttributes ? ["menu_order"] : [])];
  const rows: PostListParam[] = [
    { name: "context", arg: contextArg(view.schema) },
    { name: "page", arg: { description: "Current page of the collection.", type: "integer", default: 1, minimum: 1 }, apply: (v, d) => void (d.query.page = Number(v)) },
    {
      name: "per_page",
      arg: { description: "Maximum number of items to be returned in result set.", type: "integer", default: 10, minimum: 1, maximum: 100 },
      apply: (v, d) => void (d.query.perPage = Number(v)),
    },
    {
      name: "search",
      arg: { description: "Limit results to those matching a string.", type: "string" },
      apply: (v, d, ctx) => {
        if (typeof v !== "string" || v.trim() === "") return;
        d.query.search = v;
        // The status argument, not a visibility rule, may decide what is listed: say who searches.
        d.query.searchAs = ctx.req.user;
      },
    },
    dateParam("after", "Limit response to posts published after a given ISO8601 compliant date.", "date_local", ">"),
    dateParam("modified_after", "Limit response to posts modified after a given ISO8601 compliant date.", "modified_local", ">"),
  ];
  if (supports.has("author")) {
    rows.push(
      { name: "author", arg: idList("Limit result set to posts assigned to specific authors."), apply: (v, d) => void (ids(v).length > 0 && (d.query.author = ids(v))) },
      {
        name: "author_exclude",
        arg: idList("Ensure result set excludes posts assigned to specific authors."),
        apply: (v, d) => void (ids(v).length > 0 && d.query.where.push({ field: "author", op: "not in", value: ids(v) })),
      },
    );
  }
  rows.push(
    dateParam("before", "Limit response to posts published before a given ISO8601 compliant date.", "date_local", "<"),
    dateParam("modified_before", "Limit response to posts modified before a given ISO8601 compliant date.", "modified_local", "<"),
    { name: "exclude", arg: idList("Ensure result set excludes specific IDs."), apply: (v, d) => void (ids(v).length > 0 && (d.query.excludeIds = ids(v))) },
    { name: "include", arg: idList("Limit result set to specific IDs."), apply: (v, d) => void (ids(v).length > 0 && (d.query.ids = ids(v))) },
  );
  if (pageAttributes) {
    rows.push({
      name: "menu_order",
      arg: { description: "Limit result set to posts with a specific menu_order value.", type: "integer" },
      apply: (v, d) => void d.query.where.push({ field: "menu_order", op: "=", value: Number(v) }),
    });
  }
  rows.push(
    { name: "offset", arg: { description: "Offset the result set by a specific number of items.", type: "integer" }, apply: (v, d) => void (d.query.offset = Math.max(0, Number(v))) },
    {
      name: "order",
      arg: { description: "Order sort attribute ascending or descending.", type: "string", default: "desc", enum: ["asc", "desc"] },
      apply: (v, d) => void (d.order = v === "asc" ? "asc" : "desc"),
    },
    {
      name: "orderby",
      arg: { description: "Sort collection by post attribute.", type: "string", default: "date", enum: [...orderby, ...orderableFields(view)] },
      apply: (v, d) => void (d.orderby = String(v)),
    },
  );
  if (hierarchical) {
    rows.push(
      { name: "parent", arg: idList("Limit result set to items with particular parent IDs."), apply: (v, d) => void (ids(v).length > 0 && (d.query.parent = ids(v))) },
      {
        name: "parent_exclude",
        arg: idList("Limit result set to all items except those of a particular parent ID."),
        apply: (v, d) => void (ids(v).length > 0 && d.query.where.push({ field: "parent", op: "not in", value: ids(v) })),
      },
    );
  }
  rows.push(
    {
      name: "slug",
      arg: { description: "Limit result set to posts with one or more specific slugs.", type: "array", items: { type: "string" } },
      apply: (v, d) => {
        const slugs = (Array.isArray(v) ? v : []).map((s) => sanitizeTitle(String(s))).filter((s) => s !== "");
        if (slugs.length === 0) return;
        d.query.where.push({ field: "slug", op: "in", value: slugs });
        d.slugs = slugs;
      },
    },
    statusParam(view),
  );
  if (view.taxonomies.length > 0) {
    rows.push({
      name: "tax_relation",
      arg: { description: "Limit result set based on relationship between multiple taxonomies.", type: "string", enum: ["AND", "OR"] },
      apply: (v, d) => void (d.query.taxRelation = v === "OR" ? "OR" : "AND"),
    });
    for (const tax of view.taxonomies) rows.push(...taxonomyParams(tax));
  }
  rows.push(...fieldParams(view, new Set(rows.map((r) => r.name))));
  return rows;
}

/** Typed fields a list may be sorted by (a calpress addition): all but long text, unless the name is WordPress's already. */
export function orderableFields(view: PostTypeView): string[] {
  return Object.entries(view.fields)
    .filter(([name, def]) => def.type !== "text" && !(name in ORDER_FIELDS))
    .map(([name]) => name);
}

/** The engine order of the draft's `orderby` (`prepare_items_query()`'s mapping). */
export function orderOf(draft: PostListDraft, view: PostTypeView): Array<{ field: string; dir: "asc" | "desc" }> {
  // The position in a list has no direction (MySQL's FIELD()); relevance ranks, then dates in the asked direction.
  if (draft.orderby === "include" || draft.orderby === "include_slugs") return [{ field: "include", dir: "asc" }];
  if (draft.orderby === "relevance") return [{ field: "relevance", dir: "asc" }, { field: "date_local", dir: draft.order }];
  const field = ORDER_FIELDS[draft.orderby] ?? (view.fields[draft.orderby] !== undefined ? draft.orderby : "date_local");
  return [{ field, dir: draft.order }];
}

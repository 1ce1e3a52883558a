import { CREATABLE, DELETABLE, EDITABLE, READABLE, type JsonObject as RouteJsonObject, type RestEndpoint } from "../../routes";
import { paginate } from "../../routes/pagination";
import type { RestRequest } from "../../routes/types";
import { RestResponse } from "../../routes/response";
import type { QueryValue } from "../../routes/urls";
import type { TermQuery } from "../../taxonomy/types";
import type { CalendarHost } from "../host";
import type { JsonObject } from "../records/context";
import { NAMESPACE, perPage, requestLanguage } from "../common/args";
import { termItemArgs, termListArgs, termOf, termOrder, termOrderBy, termWriteArgs } from "../terms/args";
import { canManageTerms, termKind, type TermCollection } from "../terms/kinds";
import { createTerm, deleteTerm, findTerms, termRecords, updateTerm, type TermWriteData } from "../terms/operations";

/**
 * `/categories` and `/tags` (calendar-api.md §6): one parameterised table.
 * Reads are public; writes need the taxonomy's term capability.
 */
export function registerTermRoutes(host: CalendarHost, collection: TermCollection): void {
  const { engine, rest } = host;
  const k = termKind(collection);
  const recordCtx = (req: RestRequest) => ({ ns: `${req.urls.root}${NAMESPACE}`, home: req.urls.home });
  const one = async (req: RestRequest, termId: number, urls = true): Promise<JsonObject> => {
    const term = await termOf(engine, collection, termId);
    // The write just succeeded, so the term exists.
    if (!term) throw new Error(`term ${termId} vanished`);
    return (await termRecords(engine, [term], { ...recordCtx(req), urls }))[0];
  };

  function writeData(req: RestRequest): TermWriteData {
    const data: TermWriteData = {};
    const p = req.params;
    if (typeof p.name === "string") data.name = p.name;
    if (typeof p.description === "string") data.description = p.description;
    if (typeof p.slug === "string") data.slug = p.slug;
    if (k.hierarchical && req.isSent("parent")) data.parent = Number(p.parent);
    return data;
  }

  async function list(req: RestRequest): Promise<RestResponse> {
    const p = req.params;
    const page = Number(p.page);
    const per = perPage(req);
    const language = await requestLanguage(req, engine);
    const query: TermQuery = {
      taxonomy: k.taxonomy,
      language,
      page,
      perPage: per,
      hideEmpty: p.hide_empty === true,
      order: termOrder(p.order),
      orderBy: termOrderBy(p.orderby),
    };
    if (typeof p.search === "string") query.search = p.search;
    if (Array.isArray(p.include) && p.include.length > 0) query.include = p.include as number[];
    if (Array.isArray(p.exclude) && p.exclude.length > 0) query.exclude = p.exclude as number[];
    if (k.hierarchical && req.isSent("parent")) query.parent = Number(p.parent);
    // `event` is an alias of `post` and wins when both are given (§6.1).
    if (req.isSent("event")) query.post = Number(p.event);
    else if (req.isSent("post")) query.post = Number(p.post);
    if (typeof p.slug === "string") query.slug = [p.slug];
    // With no explicit order, get_terms orders `include` lists by name too.
    if (query.orderBy === "include" && !query.include) query.orderBy = "name";

    const result = await findTerms(engine, query);
    // The next/previous links carry the effective query; `rest_url` is the bare collection URL (§3.1).
    const echo: Record<string, QueryValue> = { page, per_page: per };
    for (const name of ["search", "include", "exclude", "order", "orderby", "hide_empty", "parent", "post", "event", "slug", "i18n_language"]) {
      if (!req.isSent(name)) continue;
      const value = p[name];
      echo[name] = Array.isArray(value) ? (value as Array<string | number>) : typeof value === "boolean" ? (value ? 1 : 0) : String(value);
    }
    const collectionUrl = `/${NAMESPACE}/${collection}/`;
    const pages = paginate(req, { total: result.total, page, perPage: per, collectionUrl, query: echo });
    const body: JsonObject = {
      rest_url: req.urls.route(collectionUrl),
      total: pages.total,
      total_pages: pages.total_pages,
      [collection]: await termRecords(engine, result.terms, { ...recordCtx(req), urls: req.wantsField(`${collection}.url`) }),
    };
    if (pages.next_rest_url !== undefined) body.next_rest_url = pages.next_rest_url;
    if (pages.previous_rest_url !== undefined) body.previous_rest_url = pages.previous_rest_url;
    // Never a 404: a page past the end is an empty list (§3.1).
    return new RestResponse(body, 200, pages.headers);
  }

  async function read(req: RestRequest): Promise<JsonObject> {
    return one(req, Number(req.params.id), req.wantsField("url"));
  }

  async function create(req: RestRequest): Promise<RestResponse> {
    const term = await createTerm(engine, collection, writeData(req), { user: req.user, language: await requestLanguage(req, engine) });
    // The original's Location points at the core term route; calpress at its own item route (§6.3).
    return new RestResponse(await one(req, term.id), 201, { Location: req.urls.route(`/${NAMESPACE}/${collection}/${term.id}`) });
  }

  async function update(req: RestRequest): Promise<JsonObject> {
    const term = await updateTerm(engine, collection, Number(req.params.id), writeData(req), {
      user: req.user,
      language: await requestLanguage(req, engine),
    });
    return one(req, term.id);
  }

  async function remove(req: RestRequest): Promise<JsonObject> {
    const id = Number(req.params.id);
    const term = await termOf(engine, collection, id);
    // The record as it was before deletion (count and parent included, §6.5).
    const [record] = term ? await termRecords(engine, [term], recordCtx(req)) : [];
    await deleteTerm(engine, collection, id);
    return record;
  }

  const mayManage = (req: RestRequest): boolean => canManageTerms(req.user, collection);
  const schema: RouteJsonObject = { $ref: "#/components/schemas/Term" };
  const listSchema: RouteJsonObject = {
    type: "object",
    properties: {
      rest_url: { type: "string" },
      total: { type: "integer" },
      total_pages: { type: "integer" },
      [collection]: { type: "array", items: schema },
      next_rest_url: { type: "string" },
      previous_rest_url: { type: "string" },
    },
  };
  const invalid = { description: "Invalid parameter(s)." };
  const forbidden = { description: "Not allowed." };

  const collectionEndpoints: RestEndpoint[] = [
    {
      methods: READABLE,
      args: termListArgs(engine, collection),
      permission: "public",
      cache: true,
      handler: list,
      summary: `Lists event ${collection}.`,
      responses: { "200": { description: `A page of ${collection}.`, schema: listSchema }, "400": invalid },
    },
    {
      methods: CREATABLE,
      args: termWriteArgs(engine, collection, "create"),
      permission: mayManage,
      allowBatch: true,
      handler: create,
      summary: `Creates an event ${k.label}.`,
      responses: {
        "201": { description: `The ${k.label}.`, schema: "Term" },
        "400": { description: "Invalid parameter(s), or a term of that name exists (term_exists)." },
        "401": { description: "Authentication required." },
        "403": forbidden,
      },
    },
  ];
  rest.registerRoute(NAMESPACE, `/${collection}`, collectionEndpoints);

  const itemEndpoints: RestEndpoint[] = [
    {
      methods: READABLE,
      args: termItemArgs(engine, collection),
      permission: "public",
      cache: true,
      handler: read,
      summary: `Reads one event ${k.label}.`,
      responses: { "200": { description: `The ${k.label}.`, schema: "Term" }, "400": { description: `Not a ${k.label}.` } },
    },
    {
      methods: DELETABLE,
      args: termItemArgs(engine, collection),
      permission: mayManage,
      allowBatch: true,
      handler: remove,
      summary: `Deletes an event ${k.label} for good.`,
      responses: { "200": { description: `The ${k.label} as it was.`, schema: "Term" }, "400": { description: `Not a ${k.label}.` }, "403": forbidden },
    },
    {
      methods: EDITABLE,
      args: termWriteArgs(engine, collection, "update"),
      permission: mayManage,
      allowBatch: true,
      handler: update,
      summary: `Updates an event ${k.label}.`,
      responses: {
        "200": { description: `The updated ${k.label}.`, schema: "Term" },
        "201": { description: `A created ${k.label} (POST on the collection).`, schema: "Term" },
        "400": invalid,
        "403": forbidden,
      },
    },
  ];
  rest.registerRoute(NAMESPACE, `/${collection}/(?P<id>\\d+)`, itemEndpoints);
}

import type { Knex } from "knex";
import { storedIds } from "../db/ids";
import { ReadKey, sqlKey, type ReadCache } from "../cache/revision";
import { trigramMatch } from "../db/search-index";
import type { EngineContext } from "../engine-context";
import { EngineError, hasNul } from "../engine-errors";
import { toDbValue } from "./fields";
import { addFieldJoins, fieldJoin, MAX_LOAD_JOINS, PostLoader, selectJoinColumns, type FieldJoin, type JoinedRow, type Remember } from "./load";
import type { RegisteredPostType } from "./registry";
import { parseSearch } from "./search";
import { countOf, likeContains, listPosition, textOrderKeys } from "./sql";
import { FieldCondition, FieldDef, FieldValue, OccurrenceFields, PostPage, PostQuery, POST_STATUSES } from "./types";
import { isNotComparable, type PublishedIndex } from "./published-index";
import { getManyAt, repeatingTypes } from "./occurrences";
import { OCCURRENCE_ID_BASE } from "./occurrence-ids";
import { applyVisibility } from "./visibility";

/** Resolves a typed field of the queried type to its joined column (null when the name is no typed field). */
type FieldColumn = (name: string) => { column: string; def: FieldDef } | null;

interface BuiltQuery {
  qb: Knex.QueryBuilder;
  fieldColumn: FieldColumn;
  /** Typed-field columns the conditions require to be non-NULL (so the field row exists). */
  nonNull: Set<string>;
  /** Adds the search-index narrowing to a statement, when the search can use it. */
  narrow?: (b: Knex.QueryBuilder) => void;
  /** Joins and selects the typed fields of the queried type(s) on the rows statement; returns how to read them back. */
  selectFields: (rowsQb: Knex.QueryBuilder) => FieldJoin[];
  /** What a row is listed under: the post's id, or with `occurrences` the instance's (`f.list_id`) where it has one. */
  rowId: string | Knex.Raw;
  /** Rows are instances (PostQuery.occurrences on a type that repeats): `f` is `instanceRows`, or one part of it (`InstancePart`). */
  instances: boolean;
}

/** Above this many matches a search page is read along the order index rather than from the search index's candidates. */
const NARROW_ROWS_MAX = 500;
/** How many rows of a page of ids weigh one row of posts in the read cache's bound. */
const ID_ROWS_PER_ROW = 25;
/** At most this many linked posts are named in a statement (bound parameters) in place of a linkedBy subquery. */
const MAX_NAMED_TARGETS = 5000;
/** Ids whose translation groups are held per revision (`translationsUnder`). */
const TRANSLATION_IDS_HELD = 20_000;

/** Whether a condition on a nullable column can only hold for a non-NULL value. */
function rejectsNull(cond: FieldCondition): boolean {
  const first = Array.isArray(cond.value) ? cond.value[0] : cond.value;
  switch (cond.op) {
    case "=":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return first !== null && first !== undefined;
    case "in":
    case "not null":
      return true;
    default:
      return false;
  }
}

/** Core columns usable in `where` and `orderBy`, with camelCase aliases; `nullable` ones need NULL-aware handling. */
/** `text`: free text, ordered by code point on every database (dates are fixed-width and sort alike anyway). */
const CORE_COLUMNS: Record<string, { column: string; kind: "int" | "string"; nullable?: boolean; text?: boolean }> = {
  id: { column: "id", kind: "int" },
  type: { column: "type", kind: "string", text: true },
  status: { column: "status", kind: "string", text: true },
  slug: { column: "slug", kind: "string", text: true },
  title: { column: "title", kind: "string", text: true },
  author: { column: "author", kind: "int" },
  parent: { column: "parent", kind: "int" },
  password: { column: "password", kind: "string", text: true },
  menu_order: { column: "menu_order", kind: "int" },
  menuOrder: { column: "menu_order", kind: "int" },
  date_local: { column: "date_local", kind: "string" },
  dateLocal: { column: "date_local", kind: "string" },
  date: { column: "date_local", kind: "string" },
  date_utc: { column: "date_utc", kind: "string" },
  dateUtc: { column: "date_utc", kind: "string" },
  modified_local: { column: "modified_local", kind: "string" },
  modifiedLocal: { column: "modified_local", kind: "string" },
  modified: { column: "modified_local", kind: "string" },
  modified_utc: { column: "modified_utc", kind: "string" },
  modifiedUtc: { column: "modified_utc", kind: "string" },
  language: { column: "language", kind: "string", text: true },
  translation_group: { column: "translation_group", kind: "int", nullable: true },
  translationGroup: { column: "translation_group", kind: "int", nullable: true },
};

/** Positive integer ids of a list, each once, in order; anything else is refused. */
export function uniqueInts(values: readonly number[] | undefined, what: string): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const v of values ?? []) {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n <= 0) throw new EngineError("invalid_input", `${what}: ${String(v)} is not an id`);
    if (!seen.has(n)) {
      seen.add(n);
      out.push(n);
    }
  }
  return out;
}

/**
 * `find` and `count`: the one query builder behind lists, counts and
 * searches, turning a PostQuery into a statement on `posts as p`.
 */
export class PostQueries {
  private readonly loader: PostLoader;
  /** Each id's translation group (itself where it has none), as read under `token` (`translationsUnder`). */
  private translationGroups: { token: string; members: Map<number, readonly number[]> } | null = null;

  constructor(private readonly e: EngineContext) {
    this.loader = new PostLoader(e);
  }

  private get k(): Knex {
    return this.e.knex;
  }

  async find(query: PostQuery): Promise<PostPage> {
    if ((await this.instanceFields(query)) !== undefined) {
      // Rows may be instances: the page's ids, then each post as seen at its instance.
      const { ids, total } = await this.findIds(query);
      const types = Array.isArray(query.type) ? query.type : [query.type];
      const loaded = await getManyAt(this.e, this.loader, ids, query.with, types);
      return { posts: ids.map((id) => loaded.get(id)).filter((p): p is NonNullable<typeof p> => p !== undefined), total };
    }
    const indexed = await this.fromIndex(query);
    if (indexed !== null) {
      const types = Array.isArray(query.type) ? query.type : [query.type];
      const loaded = await this.loader.getMany(indexed.ids, query.with, types);
      // A post deleted since the index was read is left out, as a page read before its delete would not show it either.
      return { posts: indexed.ids.map((id) => loaded.get(id)).filter((p): p is NonNullable<typeof p> => p !== undefined), total: indexed.total };
    }
    const { rows, joins, total, remember } = await this.page(query, false);
    return { posts: await this.loader.hydrate(rows, query.with, joins, remember), total };
  }

  /** `find` without loading the posts: the page's ids in order, and the total (`with` is not read). */
  async findIds(query: PostQuery): Promise<{ ids: number[]; total: number }> {
    const indexed = await this.fromIndex(query);
    if (indexed !== null) return indexed;
    const { rows, total } = await this.page(query, true);
    return { ids: rows.map((r) => Number(r.id)), total };
  }

  /**
   * The page and total from the type's published index (published-index.ts),
   * when it has one that answers this query; null: ask the database. The
   * index is brought up to the revision read here, before anything else.
   */
  private async fromIndex(query: PostQuery): Promise<{ ids: number[]; total: number } | null> {
    const type = Array.isArray(query.type) ? (query.type.length === 1 ? query.type[0] : null) : query.type;
    const synced = type === null ? null : await this.syncedIndex(type, query);
    if (synced === null) return null;
    const { index, cache, token } = synced;
    const tax: number[][][] = [];
    for (const cond of query.tax ?? []) {
      this.e.registry.taxonomy(cond.taxonomy);
      const operator = cond.operator ?? "IN";
      if (operator !== "IN" && operator !== "AND" && operator !== "NOT IN") throw new EngineError("invalid_input", `unknown tax operator: ${String(operator)}`);
      const ids = uniqueInts(cond.terms, "tax terms");
      const opts = { translations: cond.translations === true, children: cond.includeChildren === true };
      // The whole expansion under one name: no statement is built (or run) while the revision is unchanged. Read only, like every cached value.
      const key = new ReadKey("expandTermIds", [cond.taxonomy, ids, opts.translations, opts.children]);
      tax.push(await cache.get(token, key, () => this.e.terms.expandTermIds(cond.taxonomy, ids, opts), (groups) => groups.reduce((n, g) => n + g.length, 1)));
    }
    const links: number[][] = [];
    const linkedBy: Array<readonly number[] | undefined> = [];
    for (const cond of query.links ?? []) {
      if (cond.linkedBy !== undefined) {
        // From the linking type's index, or the whole list from SQL.
        const targets = await this.linkTargetsFromIndex(cond.relation, cond.linkedBy, Infinity);
        if (targets === null) return null;
        linkedBy.push(targets);
      } else linkedBy.push(undefined);
      const to = cond.to === undefined ? [] : uniqueInts(cond.to, "link to");
      // Like the term expansion: one cached value per revision, no statement while it is unchanged (`venue=12` on every request).
      links.push(cond.translations ? await this.translationsUnder(token, to) : storedIds(to));
    }
    const search = await this.searchIds(query, index);
    const perPage = query.perPage ?? (await this.e.options.postsPerPage());
    if (query.status) for (const s of query.status) if (!POST_STATUSES.includes(s)) throw new EngineError("invalid_status", `unknown status: ${s}`);
    try {
      return index.page(query, perPage, { tax, links, linkedBy, search });
    } catch (err) {
      if (isNotComparable(err)) return null;
      throw err;
    }
  }

  /**
   * The type's published index, brought up to the revision read here, when
   * it has one that answers `query`; null: ask the database.
   */
  private async syncedIndex(type: string, query: PostQuery): Promise<{ index: PublishedIndex; cache: ReadCache; token: string } | null> {
    const cache = this.e.readCache;
    // The index pages by page number only, ANDs term conditions and knows no relevance.
    const index = cache === null || query.offset !== undefined || query.taxRelation === "OR" || query.orderBy?.some((o) => o.field === "relevance") ? null : this.e.publishedIndex(type);
    if (index === null || cache === null || !index.answers(query)) return null;
    const token = await cache.token();
    try {
      await index.syncedFor(token);
    } catch {
      // The index starts over on its next use; this read asks the database.
      return null;
    }
    return { index, cache, token };
  }

  /**
   * A `linkedBy` condition from the linking type's published index: the
   * posts that its matching posts link to, when the index answers for them
   * (published posts only); null: the EXISTS subquery decides. A statement
   * names them only when they are few enough (`MAX_NAMED_TARGETS`); the
   * linked type's own index takes any number.
   */
  private async linkTargetsFromIndex(relation: string, by: NonNullable<NonNullable<PostQuery["links"]>[number]["linkedBy"]>, most = MAX_NAMED_TARGETS): Promise<readonly number[] | null> {
    const linking: PostQuery = { type: by.type, status: by.status, visibility: by.visibility, where: by.where, occurrences: by.occurrences };
    const synced = await this.syncedIndex(by.type, linking);
    if (synced === null) return null;
    let targets: number[];
    try {
      targets = synced.index.linkTargets(linking, relation);
    } catch (err) {
      if (isNotComparable(err)) return null;
      throw err;
    }
    return targets.length <= most ? targets : null;
  }

  /**
   * For the published index: the ids of every post the query's search finds
   * among those its type, status and visibility allow. The index answers a
   * search of plain words from memory; otherwise, or for the posts it cannot
   * decide, it runs the statement made here: one statement (no order, no
   * page, no count, no join but the search's own), whole or narrowed to
   * some ids; the index applies the rest. Undefined without a search.
   *
   * The result is kept by the index across writes: a later request asks the
   * database again only about the posts changed since (the index's change
   * log), with the same statement narrowed to their ids, so a write to one
   * event costs a search a lookup of that event, not every match again.
   */
  private async searchIds(query: PostQuery, index: PublishedIndex): Promise<Int32Array | undefined> {
    if (query.search === undefined || query.search.trim() === "") return undefined;
    return index.searchIds(query, async () => {
      const searchOnly: PostQuery = { type: query.type, status: query.status, visibility: query.visibility, search: query.search, searchAs: query.searchAs, searchMode: query.searchMode };
      const built = await this.buildQuery(searchOnly, (_q, compute) => compute());
      built.narrow?.(built.qb);
      const qb = built.qb.select("p.id");
      return {
        key: sqlKey(qb),
        read: async (only) => ((await (only === undefined ? qb : qb.clone().whereIn("p.id", only))) as JoinedRow[]).map((r) => Number(r.id)),
      };
    });
  }

  /** The rows of one page (whole posts with their typed fields, or `p.id` alone) and the total. */
  private async page(query: PostQuery, idsOnly: boolean): Promise<{ rows: JoinedRow[]; joins: FieldJoin[]; total: number; remember: Remember }> {
    const k = this.k;
    const remember = await this.rememberer();
    const builds = await this.buildParts(query, remember);
    const built = builds[0];
    const { qb } = built;
    const page = Math.max(1, Math.trunc(query.page ?? 1));
    const perPage = query.perPage ?? (await this.e.options.postsPerPage());
    const skipped = query.offset !== undefined ? Math.max(0, Math.trunc(query.offset)) : (page - 1) * perPage;
    // Ordering may join the typed-field table, which the count needs too.
    const orders = builds.map((b) => this.orderKeys(query, b));
    const { indexOrder } = orders[0];
    if (builds.length === 1) orderBy(qb, orders[0].keys);
    const unlimited = perPage <= 0;
    const counted = (): Promise<number> => {
      const c = this.countStatement(builds);
      return remember(c, async () => countOf(await c), () => 1);
    };
    let total: number | undefined;
    // Narrowing by the search index pays for itself when few rows match; when
    // many do, walking the order index and checking each row finds a page
    // sooner than collecting every match first. The total (needed anyway,
    // and cached) tells which case this is.
    let narrowRows = built.narrow !== undefined;
    if (built.narrow && !query.noTotal && !unlimited) {
      total = await counted();
      narrowRows = total <= NARROW_ROWS_MAX;
    }
    if (built.instances && !idsOnly) throw new EngineError("invalid_input", "instance rows are read as ids (findIds)");
    let rowsQb: Knex.QueryBuilder;
    let joins: FieldJoin[] = [];
    if (builds.length > 1) {
      // Each member reads its first rows in the page's order; the union orders those by the same keys, selected as k0, k1…
      const members = builds.map((b, i) => {
        const { keys } = orders[i];
        const m = b.qb.clone().select(k.raw("? as ??", [typeof b.rowId === "string" ? k.ref(b.rowId) : b.rowId, "id"]), ...keys.map((key, n) => k.raw("? as ??", [key.expr, `k${n}`])));
        if (narrowRows) b.narrow?.(m);
        orderBy(m, keys);
        if (!unlimited) m.limit(skipped + perPage);
        return m;
      });
      rowsQb = unionOf(k, members).select("u.id");
      orders[0].keys.forEach((key, n) => rowsQb.orderBy(`u.k${n}`, key.dir));
    } else {
      rowsQb = qb.clone().select(built.instances ? k.raw("? as id", [built.rowId]) : idsOnly ? "p.id" : "p.*");
      if (narrowRows) built.narrow?.(rowsQb);
      // SQLite plans a page ordered by an indexed typed field (the upcoming
      // events by start) from `posts (type, status, language)` and sorts every
      // match before taking the page: ~20 ms at 100,000 events. NOT INDEXED
      // leaves it only rowid lookups into posts, so it walks the field's index
      // in order and stops after the page (~0.2 ms; ~1 ms where one event in
      // forty matches). Not for id lists and search-narrowed pages, which are
      // small sets best read by id.
      if (this.e.dialect.prefersIndexOrderedPages && indexOrder && !unlimited && !narrowRows && query.ids === undefined && !built.instances) {
        rowsQb.from(k.raw("?? as ?? not indexed", [this.e.tables.posts, "p"]));
      }
      joins = idsOnly ? [] : built.selectFields(rowsQb);
    }
    if (!unlimited) rowsQb.limit(perPage).offset(skipped);
    // A page of ids holds a few numbers per row, a page of posts whole rows: weighed accordingly against the read cache's bound.
    const rows = await remember(rowsQb, async (): Promise<JoinedRow[]> => rowsQb, (r) => (idsOnly ? Math.ceil(r.length / ID_ROWS_PER_ROW) : r.length));
    if (total === undefined) {
      if (query.noTotal) total = -1;
      else if (unlimited) total = rows.length;
      // A partly filled page (that is not past the end) already tells the total.
      else if (rows.length > 0 && rows.length < perPage) total = skipped + rows.length;
      else total = await counted();
    }
    return { rows, joins, total, remember };
  }

  async count(query: PostQuery): Promise<number> {
    const indexed = await this.fromIndex({ ...query, perPage: 0, page: 1, noTotal: false });
    if (indexed !== null) return indexed.total;
    const remember = await this.rememberer();
    const c = this.countStatement(await this.buildParts(query, remember));
    return remember(c, async () => countOf(await c), () => 1);
  }

  /**
   * The statements of a query: one, or where a database reads a joined union
   * whole (Dialect.readsJoinedUnionsByKey) and the rows are instances, two
   * whose union they are: the posts listed as themselves, and the
   * occurrences of those that repeat. Each then has its conditions where
   * the database uses them, rather than above a union of every instance.
   */
  private async buildParts(query: PostQuery, remember: Remember): Promise<BuiltQuery[]> {
    const fields = await this.instanceFields(query);
    const split = !this.e.dialect.readsJoinedUnionsByKey && fields !== undefined;
    const parts: Array<InstancePart | undefined> = split ? ["posts", "occurrences"] : [undefined];
    const builds: BuiltQuery[] = [];
    for (const part of parts) builds.push(await this.buildQuery(query, remember, { part, fields }));
    return builds;
  }

  /** COUNT(*) of the rows of `buildParts`' statements (their order is left out). */
  private countStatement(builds: readonly BuiltQuery[]): Knex.QueryBuilder {
    const members = builds.map((b) => {
      const c = b.qb.clone().clearOrder();
      b.narrow?.(c);
      return c;
    });
    if (members.length === 1) return members[0].count({ n: "*" }).first();
    return unionOf(this.k, members.map((m) => m.select(this.k.raw("1 as ??", ["one"])))).count({ n: "*" }).first();
  }

  /**
   * How this call reads: through the read cache under the revision of now
   * (one `data_version` statement for the whole call, whatever it reads
   * then), or straight from the database inside a transaction and on the
   * databases without cache (lib/cache/revision.ts).
   */
  private async rememberer(): Promise<Remember> {
    const cache = this.e.readCache;
    if (!cache) return (_q, compute) => compute();
    const token = await cache.token();
    return (q, compute, size) => cache.get(token, q, compute, size);
  }

  /** Every constraint of a PostQuery on `<prefix>posts as p` (and `<prefix>fields_<type> as f` when a typed field is used). */
  /** `given`: the query's `instanceFields` when the caller has them, and which part of the instances to read (`buildParts`). */
  private async buildQuery(query: PostQuery, remember: Remember, given?: { part?: InstancePart; fields: OccurrenceFields | undefined }): Promise<BuiltQuery> {
    const k = this.k;
    const typeNames = [...new Set(Array.isArray(query.type) ? query.type : [query.type])];
    const types = typeNames.map((t) => this.e.registry.postType(t));
    const single = types.length === 1 ? types[0] : null;
    const qb = k(`${this.e.tables.posts} as p`).whereIn("p.type", typeNames);
    let joined = false;
    const part = given?.part;
    const instanceFields = given !== undefined ? given.fields : await this.instanceFields(query);
    const instances = single !== null && single.fieldsTable !== null && instanceFields !== undefined;
    if (instances && single?.fieldsTable && instanceFields !== undefined) {
      if (part === "posts") qb.leftJoin(`${single.fieldsTable} as f`, "f.post_id", "p.id").where("p.repeats", false);
      else if (part === "occurrences") qb.join(this.occurrenceRows(single, single.fieldsTable, instanceFields).as("f"), "f.post_id", "p.id").where("p.repeats", true);
      else {
        qb.leftJoin(this.instanceRows(single, single.fieldsTable, instanceFields).as("f"), "f.post_id", "p.id");
        listedAsInstances(qb, "f", "p");
      }
      joined = true;
    }
    // Typed fields are columns of the single queried type's own table, joined only when used.
    const fieldColumn: FieldColumn = (name) => {
      const def = single?.fields[name];
      if (!single || !def || !single.fieldsTable) return null;
      if (!joined) {
        qb.leftJoin(`${single.fieldsTable} as f`, "f.post_id", "p.id");
        joined = true;
      }
      return { column: `f.${name}`, def };
    };

    if (query.status) {
      for (const s of query.status) if (!POST_STATUSES.includes(s)) throw new EngineError("invalid_status", `unknown status: ${s}`);
      qb.whereIn("p.status", query.status);
    }
    if (query.visibility) applyVisibility(qb, types, query.visibility, "p");
    // Ids past the column range can match nothing (db/ids.ts): left out, so an
    // `ids` list of only such ids is `IN ()`, which knex writes as 1 = 0.
    if (query.ids) qb.whereIn("p.id", storedIds(query.ids));
    const excluded = storedIds(query.excludeIds ?? []);
    if (excluded.length > 0) qb.whereNotIn("p.id", excluded);
    if (query.author) qb.whereIn("p.author", storedIds(query.author));
    if (query.parent) qb.whereIn("p.parent", storedIds(query.parent));
    if (query.language !== undefined) qb.where("p.language", query.language);
    if (query.hasPassword === true) qb.whereNot("p.password", "");
    if (query.hasPassword === false) qb.where("p.password", "");
    const nonNull = new Set<string>();
    for (const cond of query.where ?? []) {
      this.applyCondition(qb, cond, fieldColumn);
      if (!CORE_COLUMNS[cond.field] && rejectsNull(cond)) {
        const typed = fieldColumn(cond.field);
        if (typed) nonNull.add(typed.column);
      }
    }
    let narrow: ((b: Knex.QueryBuilder) => void) | undefined;
    if (query.search !== undefined && hasNul(query.search)) {
      // No stored text holds U+0000 and PostgreSQL cannot compare with it (engine-errors hasNul).
      qb.whereRaw("1 = 0");
    } else if (query.search !== undefined && query.search.trim() !== "") {
      const words = this.applySearch(qb, query, single, fieldColumn);
      const match = words && (await this.e.hasSearchIndex()) ? trigramMatch(words) : null;
      // Only ever an extra condition next to the exact one, which alone decides what matches.
      if (match !== null) narrow = (b) => b.whereIn("p.id", k(this.e.tables.postsSearch).select("rowid").whereRaw("?? MATCH ?", [this.e.tables.postsSearch, match]));
    }
    if (query.taxRelation === "OR" && (query.tax ?? []).length > 1) {
      // Each condition's statement is built first (they are awaited), then put in one OR group.
      const groups: Array<(b: Knex.QueryBuilder) => void> = [];
      for (const cond of query.tax ?? []) groups.push(await this.taxClause(cond, remember));
      qb.where((any) => {
        for (const group of groups) any.orWhere((b) => group(b));
      });
    } else {
      for (const cond of query.tax ?? []) (await this.taxClause(cond, remember))(qb);
    }
    for (const cond of query.links ?? []) await this.applyLink(qb, cond);

    const selectFields = (rowsQb: Knex.QueryBuilder): FieldJoin[] => {
      if (single) {
        if (!single.fieldsTable) return [];
        // The where clause may already have joined the table as `f`.
        if (!joined) rowsQb.leftJoin(`${single.fieldsTable} as f`, "f.post_id", "p.id");
        const join = fieldJoin(single, "f");
        selectJoinColumns(rowsQb, [join]);
        return [join];
      }
      const typed = types.filter((t) => t.fieldsTable !== null);
      if (typed.length > MAX_LOAD_JOINS) return [];
      const joins = typed.map((t, i) => fieldJoin(t, `f${i}`));
      addFieldJoins(rowsQb, joins);
      return joins;
    };
    // A post without a field row has no instances either: listed under its own id.
    const rowId = !instances || part === "posts" ? "p.id" : part === "occurrences" ? "f.list_id" : k.raw("coalesce(??, ??)", ["f.list_id", "p.id"]);
    return { qb, fieldColumn, nonNull, narrow, selectFields, rowId, instances };
  }

  /**
   * The type's `occurrenceFields` when `query` asks for instance rows of one
   * type that has them and has had instances (REPEATING_TYPES_OPTION): until
   * then its rows are its posts, and the plain statement, which the order
   * index can serve, answers.
   */
  private async instanceFields(query: PostQuery): Promise<OccurrenceFields | undefined> {
    if (query.occurrences !== true) return undefined;
    const type = Array.isArray(query.type) ? (query.type.length === 1 ? query.type[0] : undefined) : query.type;
    const fields = type === undefined ? undefined : this.e.registry.postType(type).config.occurrenceFields;
    return fields !== undefined && type !== undefined && (await repeatingTypes(this.e.options)).includes(type) ? fields : undefined;
  }

  /**
   * The typed-field rows of a type that repeats, one per listed row: the
   * field row of each post without instances (`list_id` its id), and for
   * each instance the post's field row with the instance's times in the
   * mapped fields (`list_id` the instance's id). Joined as `f`, so every
   * condition and order on typed fields applies to instances as written.
   */
  private instanceRows(type: RegisteredPostType, fieldsTable: string, names: OccurrenceFields): Knex.QueryBuilder {
    const k = this.k;
    const fields = Object.keys(type.fields);
    // A post that repeats is listed only as its instances, also when it has none (posts.repeats, kept by Occurrences.replace).
    const single = k(`${fieldsTable} as fs`)
      .select("fs.post_id", ...fields.map((f) => `fs.${f}`), k.raw("?? as ??", ["fs.post_id", "list_id"]))
      .whereNotExists(k(`${this.e.tables.posts} as ps`).select(k.raw("1")).where("ps.id", k.ref("fs.post_id")).where("ps.repeats", true));
    // Not wrapped: SQLite takes no parentheses around a compound's members.
    return single.unionAll(this.occurrenceRows(type, fieldsTable, names));
  }

  /** The rows of `instanceRows` for each instance: a plain join, which every database merges into a statement joining it. */
  private occurrenceRows(type: RegisteredPostType, fieldsTable: string, names: OccurrenceFields): Knex.QueryBuilder {
    const k = this.k;
    const timeOf = new Map(Object.entries(names).map(([time, field]) => [field, time]));
    return k(`${fieldsTable} as fr`)
      .join(`${this.e.tables.occurrences} as o`, "o.post_id", "fr.post_id")
      .select(
        "fr.post_id",
        ...Object.keys(type.fields).map((f) => {
          const time = timeOf.get(f);
          return time === undefined ? `fr.${f}` : k.raw("?? as ??", [`o.${time}`, f]);
        }),
        k.raw("?? + ? as ??", ["o.id", OCCURRENCE_ID_BASE, "list_id"]),
      );
  }

  private applyCondition(
    qb: Knex.QueryBuilder,
    cond: FieldCondition,
    fieldColumn: FieldColumn,
    alias = "p",
  ): void {
    const core = CORE_COLUMNS[cond.field];
    const typed = core ? null : fieldColumn(cond.field);
    if (!core && !typed) throw new EngineError("invalid_field", `unknown field in query: ${cond.field}`, { field: cond.field });
    const column = core ? `${alias}.${core.column}` : typed!.column;
    const nullable = core ? core.nullable === true : true;
    const coerce = (v: FieldValue): FieldValue => {
      if (v === null) return null;
      if (typed) return toDbValue("query", cond.field, typed.def, v);
      if (core!.kind === "int") {
        const n = Number(v);
        if (!Number.isFinite(n)) throw new EngineError("invalid_field", `${cond.field} expects a number`, { field: cond.field });
        return n;
      }
      return String(v);
    };
    const list = (): Array<string | number | boolean> => {
      const raw = Array.isArray(cond.value) ? cond.value : cond.value === undefined ? [] : [cond.value];
      return raw.map(coerce).filter((v): v is string | number | boolean => v !== null);
    };
    const one = (): FieldValue => coerce((Array.isArray(cond.value) ? cond.value[0] : cond.value) ?? null);
    switch (cond.op) {
      case "=": {
        const v = one();
        if (v === null) qb.whereNull(column);
        else qb.where(column, v);
        break;
      }
      case "!=": {
        const v = one();
        if (v === null) qb.whereNotNull(column);
        // "not equal" includes rows without a value (SQL's <> alone would drop NULLs).
        else if (nullable) qb.where((w) => w.whereNot(column, v).orWhereNull(column));
        else qb.whereNot(column, v);
        break;
      }
      case "<":
      case "<=":
      case ">":
      case ">=": {
        const v = one();
        if (v === null) qb.whereRaw("1 = 0");
        else qb.where(column, cond.op, v);
        break;
      }
      case "in":
        qb.whereIn(column, list());
        break;
      case "not in": {
        const values = list();
        if (values.length === 0) break;
        if (nullable) qb.where((w) => w.whereNotIn(column, values).orWhereNull(column));
        else qb.whereNotIn(column, values);
        break;
      }
      case "is null":
        qb.whereNull(column);
        break;
      case "not null":
        qb.whereNotNull(column);
        break;
      default:
        throw new EngineError("invalid_input", `unknown comparison: ${String(cond.op)}`);
    }
  }

  /**
   * WordPress search (WP_Query::parse_search): every word must appear in
   * title, excerpt, content or a search field (`words-any-field`: words may
   * match different fields), or one field must hold all words
   * (`all-words-one-field`). `-word` excludes posts containing it.
   *
   * Returns the words every match holds somewhere in title, excerpt or
   * content, for the search index to narrow the candidates with; null when
   * a match may hold a word only elsewhere (a search field), where the index
   * cannot help.
   */
  private applySearch(
    qb: Knex.QueryBuilder,
    query: PostQuery,
    single: RegisteredPostType | null,
    fieldColumn: FieldColumn,
  ): string[] | null {
    const k = this.k;
    const terms = parseSearch(query.search ?? "");
    if (terms.length === 0) return null;
    type Target = (word: string, negate: boolean) => Knex.Raw | ((b: Knex.QueryBuilder) => void);
    const targets: Target[] = [
      (w, neg) => likeContains(k, "p.title", w, neg),
      (w, neg) => likeContains(k, "p.excerpt", w, neg),
      (w, neg) => likeContains(k, "p.content", w, neg),
    ];
    for (const name of single?.config.searchFields ?? []) {
      const typed = fieldColumn(name);
      if (typed) {
        targets.push((w, neg) => likeContains(k, typed.column, w, neg, true));
      } else {
        // Not a typed field: a post meta key.
        targets.push((w, neg) => (b: Knex.QueryBuilder) => {
          const sub = k(`${this.e.tables.postmeta} as sm`).select(k.raw("1")).where("sm.post_id", k.ref("p.id")).where("sm.meta_key", name).where(likeContains(k, "sm.meta_value", w));
          if (neg) b.whereNotExists(sub);
          else b.whereExists(sub);
        });
      }
    }
    const add = (b: Knex.QueryBuilder, clause: Knex.Raw | ((b: Knex.QueryBuilder) => void), or: boolean): void => {
      if (typeof clause === "function") {
        if (or) b.orWhere(clause);
        else b.where(clause);
      } else if (or) b.orWhere(clause);
      else b.where(clause);
    };
    // An anonymous searcher (PostQuery.searchAs) reaches a password-protected
    // post through its title only: every other field counts as empty for it,
    // so it neither matches a word nor is excluded by one.
    const searcher = query.searchAs !== undefined ? query.searchAs : query.visibility?.user;
    if (searcher === null) {
      for (let i = 1; i < targets.length; i++) {
        const inner = targets[i];
        targets[i] = (w, neg) => (b: Knex.QueryBuilder) => {
          if (neg) b.whereNot("p.password", "");
          else b.where("p.password", "");
          add(b, inner(w, neg), neg);
        };
      }
    }
    const include = terms.filter((t) => !t.exclude);
    const exclude = terms.filter((t) => t.exclude);
    if (query.searchMode === "all-words-one-field") {
      if (include.length > 0) {
        qb.where((anyField) => {
          for (const target of targets) {
            anyField.orWhere((field) => {
              for (const t of include) add(field, target(t.text, false), false);
            });
          }
        });
      }
    } else {
      for (const t of include) {
        qb.where((anyField) => {
          for (const target of targets) add(anyField, target(t.text, false), true);
        });
      }
    }
    for (const t of exclude) {
      qb.where((all) => {
        for (const target of targets) add(all, target(t.text, true), false);
      });
    }
    return targets.length === 3 && include.length > 0 ? include.map((t) => t.text) : null;
  }

  /** Term ids of a condition, each given id expanded to its translations and (optionally) descendants; the clause adds it to a statement. */
  private async taxClause(cond: NonNullable<PostQuery["tax"]>[number], remember: Remember): Promise<(qb: Knex.QueryBuilder) => void> {
    const k = this.k;
    this.e.registry.taxonomy(cond.taxonomy);
    const operator = cond.operator ?? "IN";
    const given = uniqueInts(cond.terms, "tax terms");
    const groups = await this.e.terms.expandTermIds(cond.taxonomy, given, {
      translations: cond.translations === true,
      children: cond.includeChildren === true,
      remember,
    });
    // `p.id IN (posts with the terms)` rather than a correlated EXISTS: the
    // same rows, but the planner may start from the term's posts (a category
    // of 1,000 events among 100,000) instead of testing every post in turn.
    const carrying = (termIds: number[]): Knex.QueryBuilder => k(`${this.e.tables.termRelationships} as tr`).select("tr.object_id").whereIn("tr.term_id", termIds);
    const all = [...new Set(groups.flat())];
    if (operator === "IN") {
      // Unknown terms match nothing (WordPress turns the query into 0 = 1).
      return (qb) => (all.length === 0 ? qb.whereRaw("1 = 0") : qb.whereIn("p.id", carrying(all)));
    } else if (operator === "NOT IN") {
      // Nothing to exclude: every post passes (`1 = 1`, so that the clause is never empty inside an OR group).
      return (qb) =>
        all.length > 0 ? qb.whereNotExists(k(`${this.e.tables.termRelationships} as tr`).select(k.raw("1")).where("tr.object_id", k.ref("p.id")).whereIn("tr.term_id", all)) : qb.whereRaw("1 = 1");
    } else if (operator === "AND") {
      return (qb) => {
        if (groups.length === 0) qb.whereRaw("1 = 1");
        if (groups.some((g) => g.length === 0)) qb.whereRaw("1 = 0");
        for (const g of groups) qb.whereIn("p.id", carrying(g));
      };
    }
    throw new EngineError("invalid_input", `unknown tax operator: ${String(operator)}`);
  }

  private async applyLink(qb: Knex.QueryBuilder, cond: NonNullable<PostQuery["links"]>[number]): Promise<void> {
    const k = this.k;
    const expand = async (ids: number[]): Promise<number[]> => (cond.translations ? this.translationsOf(ids) : storedIds(ids));
    // IN (subquery) for the same reason as in applyTax: a venue's events are found from the venue.
    if (cond.to !== undefined) {
      const to = await expand(uniqueInts(cond.to, "link to"));
      qb.whereIn("p.id", k(`${this.e.tables.postLinks} as pl`).select("pl.from_id").where("pl.relation", cond.relation).whereIn("pl.to_id", to));
    }
    if (cond.from !== undefined) {
      const from = await expand(uniqueInts(cond.from, "link from"));
      qb.whereIn("p.id", k(`${this.e.tables.postLinks} as pl`).select("pl.to_id").where("pl.relation", cond.relation).whereIn("pl.from_id", from));
    }
    if (cond.exists !== undefined) {
      const sub = k(`${this.e.tables.postLinks} as pl`).select(k.raw("1")).where("pl.from_id", k.ref("p.id")).where("pl.relation", cond.relation);
      if (cond.exists) qb.whereExists(sub);
      else qb.whereNotExists(sub);
    }
    if (cond.linkedBy !== undefined) {
      const by = cond.linkedBy;
      const byType = this.e.registry.postType(by.type);
      const targets = await this.linkTargetsFromIndex(cond.relation, by);
      if (targets !== null) {
        if (by.exists) qb.whereIn("p.id", targets);
        else if (targets.length > 0) qb.whereNotIn("p.id", targets);
        return;
      }
      // For each candidate post, its incoming links first, then the linking
      // post and its fields by primary key. SQLite's CROSS JOIN keeps that
      // order even without planner statistics, which otherwise may walk
      // every published event for each venue (seconds at 100k events).
      const sub = k(`${this.e.tables.postLinks} as pl`);
      if (this.e.dialect.needsJoinOrderHints) sub.crossJoin(`${this.e.tables.posts} as lp`, "lp.id", "pl.from_id");
      else sub.join(`${this.e.tables.posts} as lp`, "lp.id", "pl.from_id");
      sub.select(k.raw("1")).where("pl.to_id", k.ref("p.id")).where("pl.relation", cond.relation).where("lp.type", byType.name);
      if (by.status) sub.whereIn("lp.status", by.status);
      if (by.visibility) applyVisibility(sub, [byType], by.visibility, "lp");
      let joined = false;
      const byInstances = await this.instanceFields({ type: by.type, occurrences: by.occurrences });
      if (byInstances !== undefined && byType.fieldsTable) {
        sub.leftJoin(this.instanceRows(byType, byType.fieldsTable, byInstances).as("lf"), "lf.post_id", "lp.id");
        listedAsInstances(sub, "lf", "lp");
        joined = true;
      }
      const byField: FieldColumn = (name) => {
        const def = byType.fields[name];
        if (!def || !byType.fieldsTable) return null;
        if (!joined) {
          sub.leftJoin(`${byType.fieldsTable} as lf`, "lf.post_id", "lp.id");
          joined = true;
        }
        return { column: `lf.${name}`, def };
      };
      for (const c of by.where ?? []) this.applyCondition(sub, c, byField, "lp");
      if (by.exists) qb.whereExists(sub);
      else qb.whereNotExists(sub);
    }
  }

  /**
   * WordPress's search relevance (`WP_Query::parse_search_order()`): one word
   * ranks posts whose title holds it first; several rank the whole search in
   * the title, then every word in the title, then any (up to six words),
   * then the whole search in the excerpt, then in the content. Ties are left
   * to the order keys after it. No search: no rank.
   */
  private relevanceKey(search: string): OrderKey | null {
    const k = this.k;
    const terms = parseSearch(search);
    const words = terms.filter((t) => !t.exclude).map((t) => t.text);
    if (words.length === 0) return null;
    if (terms.length === 1) return { expr: k.raw("CASE WHEN ? THEN 1 ELSE 0 END", [likeContains(k, "p.title", words[0])]), dir: "desc" };
    // A search with an excluded word is not ranked as a sentence.
    const sentence = /(?:\s|^)-/.test(search) ? null : search;
    const cases: Knex.Raw[] = [];
    const ranks: number[] = [];
    if (sentence !== null) {
      cases.push(likeContains(k, "p.title", sentence));
      ranks.push(1);
    }
    if (words.length < 7) {
      cases.push(k.raw(words.map(() => "?").join(" AND "), words.map((w) => likeContains(k, "p.title", w))));
      ranks.push(2);
      if (words.length > 1) {
        cases.push(k.raw(words.map(() => "?").join(" OR "), words.map((w) => likeContains(k, "p.title", w))));
        ranks.push(3);
      }
    }
    if (sentence !== null) {
      cases.push(likeContains(k, "p.excerpt", sentence), likeContains(k, "p.content", sentence));
      ranks.push(4, 5);
    }
    const sql = `CASE ${cases.map((_c, i) => `WHEN (?) THEN ${ranks[i]}`).join(" ")} ELSE 6 END`;
    return { expr: k.raw(sql, cases), dir: "asc" };
  }

  /**
   * `translationsOf` under a revision, from each id's group as read under
   * it (`translationGroups`): a list filtered by one of 2,000 venues then
   * runs no statement once its venue was asked for, where a read-cache
   * value per list of ids was pushed out by the others' (and by every other
   * list's pages and totals). Ids are looked up in one statement the first
   * time, all of a list's missing ones at once.
   */
  private async translationsUnder(token: string, ids: number[]): Promise<number[]> {
    ids = storedIds(ids);
    if (this.translationGroups?.token !== token) this.translationGroups = { token, members: new Map() };
    const memo = this.translationGroups;
    const held = ids.map((id) => memo.members.get(id));
    const missing = ids.filter((_id, i) => held[i] === undefined);
    const found = missing.length > 0 ? await this.groupsOf(missing) : new Map<number, readonly number[]>();
    // Bounded by ids: past it the memo starts again (2,000 venues and as many organizers fit).
    if (memo.members.size + missing.length > TRANSLATION_IDS_HELD) memo.members.clear();
    for (const id of missing) memo.members.set(id, found.get(id) ?? [id]);
    const out = new Set(ids);
    ids.forEach((id, i) => {
      for (const member of held[i] ?? found.get(id) ?? []) out.add(member);
    });
    return [...out];
  }

  /** The posts of each id's translation group (ids in no group are absent). */
  private async groupsOf(ids: number[]): Promise<Map<number, readonly number[]>> {
    const posts = this.e.tables.posts;
    const rows: Array<{ asked: number | string; member: number | string }> = await this.k(`${posts} as p`)
      .join(`${posts} as m`, "m.translation_group", "p.translation_group")
      .whereIn("p.id", ids)
      .select("p.id as asked", "m.id as member");
    const out = new Map<number, number[]>();
    for (const row of rows) {
      const asked = Number(row.asked);
      const members = out.get(asked);
      if (members === undefined) out.set(asked, [Number(row.member)]);
      else members.push(Number(row.member));
    }
    return out;
  }

  /** The ids plus every post in their translation groups. */
  async translationsOf(ids: number[]): Promise<number[]> {
    ids = storedIds(ids);
    if (ids.length === 0) return [];
    const groups = await this.groupsOf(ids);
    return [...new Set([...ids, ...[...groups.values()].flat()])];
  }

  /**
   * ORDER BY the asked fields, then `id` (same direction as the last field):
   * without a unique last key SQLite, PostgreSQL and MariaDB return ties in
   * different orders. Typed fields may be NULL, which PostgreSQL sorts last
   * and the others first; NULL is made the smallest value everywhere.
   *
   * Where the conditions already rule out NULL in a typed field (a date
   * bound), the NULL rank is left out, and a list ending on a typed field
   * breaks ties with `f.post_id` (equal to `p.id`, since the conditions need
   * the field row): the order is then the field's own index order, so the
   * database can read a page from that index and stop, instead of sorting
   * every matching row.
   */
  private orderKeys(query: PostQuery, built: Pick<BuiltQuery, "fieldColumn" | "nonNull" | "rowId" | "instances">): { keys: OrderKey[]; indexOrder: boolean } {
    const k = this.k;
    const order = query.orderBy && query.orderBy.length > 0 ? query.orderBy : [{ field: "date_local", dir: "desc" as const }];
    const keys: OrderKey[] = [];
    const text = (column: string, dir: "asc" | "desc", caseInsensitive: boolean): void => {
      for (const key of textOrderKeys(this.e.dialect, caseInsensitive)) keys.push({ expr: k.raw(key, [column]), dir });
    };
    let hasId = false;
    let lastDir: "asc" | "desc" = "asc";
    let lastTyped = false;
    /** The first key is an indexed typed field the conditions make non-null: its index gives the order. */
    let indexOrder = false;
    for (const [position, o] of order.entries()) {
      const dir = o.dir === "desc" ? "desc" : "asc";
      lastDir = dir;
      lastTyped = false;
      if (o.field === "include") {
        const [sql, bindings] = listPosition("p.id", query.ids ?? []);
        keys.push({ expr: k.raw(sql, bindings), dir });
        continue;
      }
      if (o.field === "relevance") {
        const relevance = this.relevanceKey(query.search ?? "");
        if (relevance !== null) keys.push(relevance);
        continue;
      }
      const core = CORE_COLUMNS[o.field];
      if (core) {
        const column = `p.${core.column}`;
        if (core.column === "id") hasId = true;
        if (core.nullable) keys.push({ expr: k.raw("CASE WHEN ?? IS NULL THEN 0 ELSE 1 END", [column]), dir });
        if (core.text) text(column, dir, core.column === "title");
        else keys.push({ expr: k.raw("??", [column]), dir });
        continue;
      }
      const typed = built.fieldColumn(o.field);
      if (!typed) throw new EngineError("invalid_field", `cannot order by ${o.field}`, { field: o.field });
      if (!built.nonNull.has(typed.column)) keys.push({ expr: k.raw("CASE WHEN ?? IS NULL THEN 0 ELSE 1 END", [typed.column]), dir });
      else if (position === 0 && typed.def.index === true && typed.def.type !== "string" && typed.def.type !== "text") indexOrder = true;
      if (typed.def.type === "string" || typed.def.type === "text") text(typed.column, dir, true);
      else keys.push({ expr: k.raw("??", [typed.column]), dir });
      lastTyped = true;
    }
    // Instance rows share their post's id: the listed id is the unique key.
    if (built.instances) keys.push({ expr: typeof built.rowId === "string" ? k.raw("??", [built.rowId]) : built.rowId, dir: lastDir });
    else if (!hasId) keys.push({ expr: k.raw("??", [lastTyped && built.nonNull.size > 0 ? "f.post_id" : "p.id"]), dir: lastDir });
    return { keys, indexOrder };
  }
}

/** Which rows of a list of instances a statement reads, when they are read apart (PostQueries.page). */
type InstancePart = "posts" | "occurrences";

/** One ORDER BY key. */
interface OrderKey {
  expr: Knex.Raw;
  dir: "asc" | "desc";
}

/** `select … from (a union all b …) as u`: each member parenthesised, as MariaDB and PostgreSQL allow with its own ORDER BY and LIMIT. */
function unionOf(k: Knex, members: readonly Knex.QueryBuilder[]): Knex.QueryBuilder {
  return k.from(k.raw(`(${members.map(() => "?").join(" union all ")}) as ??`, [...members, "u"]));
}

function orderBy(qb: Knex.QueryBuilder, keys: readonly OrderKey[]): void {
  for (const key of keys) qb.orderByRaw(`? ${key.dir}`, [key.expr]);
}

/**
 * A list of instances left-joins `instanceRows` as `f`: a post without a
 * row there is listed under its own id, unless it repeats, when it has no
 * instance to list (every one cancelled or detached) and is not listed.
 */
function listedAsInstances(qb: Knex.QueryBuilder, f: string, p: string): void {
  qb.where((w) => w.whereNotNull(`${f}.post_id`).orWhere(`${p}.repeats`, false));
}

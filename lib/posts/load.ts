import type { Knex } from "knex";
import { postTag, termTag } from "../db/cache-tags";
import { selectByShape } from "../db/compiled";
import { storedIds } from "../db/ids";
import { noteTagsRead } from "../cache/tag-audit";
import type { EngineContext } from "../engine-context";
import { hasNul } from "../engine-errors";
import { rowToTerm, type TermRow } from "../taxonomy/terms";
import type { Term } from "../taxonomy/types";
import { fromDbValue } from "./fields";
import type { RegisteredPostType } from "./registry";
import type { FieldDef, FieldValue, LoadedPost, PostQuery, PostStatus } from "./types";

/** A row of the posts table as stored. */
export interface PostRow {
  id: number;
  type: string;
  status: string;
  slug: string;
  slug_lock: string | null;
  title: string;
  content: string;
  excerpt: string;
  author: number;
  parent: number;
  password: string;
  menu_order: number;
  date_local: string;
  date_utc: string;
  modified_local: string;
  modified_utc: string;
  language: string;
  translation_group: number | null;
  previous_status: string | null;
}

/** Reads a statement through the read cache (or straight, see PostQueries.rememberer); `size` counts what a result holds. */
export type Remember = <T>(query: Knex.QueryBuilder, compute: () => Promise<T>, size: (value: T) => number) => Promise<T>;

/** A post row as read with the joined typed-field columns (under the aliases of its FieldJoin). */
export type JoinedRow = PostRow & Record<string, unknown>;

/** A typed-field table joined to `posts as p` for reading, and the aliases its columns come back under. */
export interface FieldJoin {
  type: RegisteredPostType;
  alias: string;
  /** Alias of the joined `post_id`: NULL when the post has no field row. */
  marker: string;
  columns: Array<{ name: string; def: FieldDef; as: string }>;
}

/** One row of the relations statement (see loadRelations). */
type RelationRow = { kind: string; owner: unknown; ref: unknown; name: unknown; ord: unknown; val: unknown } & Record<string, unknown>;

/** Field tables joined when loading posts of unknown types by id; more are read with one query per type. */
export const MAX_LOAD_JOINS = 8;
/** The term columns the relations statement carries (besides id and taxonomy). */
const TERM_COLUMNS = ["name", "slug", "description", "parent", "count", "term_group", "language", "translation_group"] as const;

export function fieldJoin(type: RegisteredPostType, alias: string): FieldJoin {
  // Short positional aliases: field names may be long, and PostgreSQL cuts identifiers at 63 bytes.
  const columns = Object.entries(type.fields).map(([name, def], i) => ({ name, def, as: `${alias}__${i}` }));
  return { type, alias, marker: `${alias}__id`, columns };
}

export function selectJoinColumns(qb: Knex.QueryBuilder, joins: readonly FieldJoin[]): void {
  for (const j of joins) {
    qb.select(`${j.alias}.post_id as ${j.marker}`);
    for (const c of j.columns) qb.select(`${j.alias}.${c.name} as ${c.as}`);
  }
}

/** LEFT JOINs (a primary-key lookup each) and the selected columns of each field table. */
export function addFieldJoins(qb: Knex.QueryBuilder, joins: readonly FieldJoin[]): void {
  for (const j of joins) {
    if (j.type.fieldsTable) qb.leftJoin(`${j.type.fieldsTable} as ${j.alias}`, `${j.alias}.post_id`, "p.id");
  }
  selectJoinColumns(qb, joins);
}

/** What the text of a statement with these joins depends on (see selectByShape). */
export function joinSignature(joins: readonly FieldJoin[]): string {
  return joins.map((j) => `${j.alias}=${j.type.fieldsTable ?? ""}(${j.columns.map((c) => c.name).join(",")})`).join(";");
}

function joinedFields(join: FieldJoin, row: JoinedRow): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const c of join.columns) values[c.name] = fromDbValue(c.def, row[c.as]);
  return values;
}

function termOfRelation(r: RelationRow): Term {
  const tg = r.t_translation_group;
  const row: TermRow = {
    id: Number(r.ref),
    taxonomy: String(r.name),
    name: String(r.t_name),
    slug: String(r.t_slug),
    description: String(r.t_description ?? ""),
    parent: Number(r.t_parent),
    count: Number(r.t_count),
    term_group: Number(r.t_term_group),
    language: String(r.t_language),
    translation_group: tg === null || tg === undefined ? null : Number(tg),
  };
  return rowToTerm(row);
}

/** Binary string order (as SQLite, MariaDB's utf8mb4_bin and the "C" collation sort). */
function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Full term rows read together with a post's term relationships (see `termsLoadedWith`). */
const loadedTerms = new WeakMap<LoadedPost, Map<number, Term>>();

/**
 * The terms of a post loaded with `with.terms`, read in the same statement
 * as its term ids: whoever renders the post (the calendar's records) needs
 * no further query for them. Undefined for a post loaded without terms.
 */
export function termsLoadedWith(post: LoadedPost): ReadonlyMap<number, Term> | undefined {
  return loadedTerms.get(post);
}

/** Posts handed out by `getShared`: the same objects serve many requests while the database is unchanged. */
const sharedPosts = new WeakSet<LoadedPost>();

/**
 * Whether this post object came from `getShared`, so that it stays unchanged
 * and is replaced by a new object once the database changes: what is derived
 * from it alone may be kept with it (see the calendar's embedded records).
 */
export function isSharedPost(post: LoadedPost): boolean {
  return sharedPosts.has(post);
}

export function rowToPost(r: PostRow, fields: Record<string, FieldValue>): LoadedPost {
  return {
    id: Number(r.id),
    type: r.type,
    status: r.status as PostStatus,
    slug: r.slug,
    title: r.title,
    content: r.content,
    excerpt: r.excerpt,
    author: Number(r.author),
    parent: Number(r.parent),
    password: r.password,
    menuOrder: Number(r.menu_order),
    dateLocal: r.date_local,
    dateUtc: r.date_utc,
    modifiedLocal: r.modified_local,
    modifiedUtc: r.modified_utc,
    language: r.language,
    translationGroup: r.translation_group === null ? null : Number(r.translation_group),
    previousStatus: (r.previous_status as PostStatus | null) ?? null,
    fields,
  };
}

/**
 * Reading posts: by id (typed fields joined in the same statement, relations
 * batch-loaded), by slug, and rows of a list into posts (`hydrate`).
 */
export class PostLoader {
  constructor(private readonly e: EngineContext) {}

  private get k(): Knex {
    return this.e.knex;
  }

  async getShared(ids: number[], likelyTypes?: readonly string[]): Promise<Map<number, LoadedPost>> {
    const cache = this.e.readCache;
    if (cache === null) return this.getMany(ids, undefined, likelyTypes);
    const share = (post: LoadedPost): LoadedPost => {
      sharedPosts.add(post);
      return post;
    };
    const known = await cache.shared<LoadedPost>(
      "posts",
      [...new Set(storedIds(ids))],
      postTag,
      async (missing) => new Map((await this.load(missing, undefined, likelyTypes)).map((p) => [p.id, share(p)])),
      // A post proved unchanged under a new token is another object: embedded records kept by it last one token (lib/calendar/records/embedded.ts).
      (post) => share({ ...post }),
    );
    const out = new Map<number, LoadedPost>();
    for (const id of ids) {
      const post = known.get(id);
      if (post) out.set(id, post);
    }
    noteTagsRead([...out.keys()].map(postTag));
    return out;
  }

  async getMany(ids: number[], withRel?: PostQuery["with"], likelyTypes?: readonly string[]): Promise<Map<number, LoadedPost>> {
    const posts = await this.load(ids, withRel, likelyTypes);
    return new Map(posts.map((p) => [p.id, p]));
  }

  async getBySlug(type: string, slug: string, opts: { language?: string; withRel?: PostQuery["with"] } = {}): Promise<LoadedPost | undefined> {
    // No stored slug holds U+0000 (engine-errors hasNul): nothing to look up.
    if (hasNul(slug)) return undefined;
    const registered = this.e.registry.postTypes.get(type);
    const joins = registered?.fieldsTable ? [fieldJoin(registered, "f")] : [];
    // The whole row (typed fields joined) in one statement: the lowest id of the language, else of any language.
    const lookup = async (language: string | undefined): Promise<JoinedRow | undefined> => {
      const bindings: Knex.Value[] = language === undefined ? [type, slug, "trash", 1] : [type, slug, "trash", language, 1];
      const rows = await selectByShape<JoinedRow>(this.k, this.e.tables, `bySlug\u0000${joinSignature(joins)}\u0000${language === undefined ? 0 : 1}`, bindings, () => {
        const q = this.k(`${this.e.tables.posts} as p`).where("p.type", type).where("p.slug", slug).whereNot("p.status", "trash").select("p.*");
        if (language !== undefined) q.where("p.language", language);
        addFieldJoins(q, joins);
        return q.orderBy("p.id").limit(1);
      });
      return rows[0];
    };
    let row: JoinedRow | undefined;
    if (opts.language !== undefined) row = await lookup(opts.language);
    if (!row) row = await lookup(undefined);
    return row ? (await this.hydrate([row], opts.withRel, joins))[0] : undefined;
  }

  async getMeta(id: number): Promise<Record<string, string>> {
    const rows = await this.k(this.e.tables.postmeta).where({ post_id: id }).orderBy("id").select<Array<{ meta_key: string; meta_value: string }>>("meta_key", "meta_value");
    const out: Record<string, string> = {};
    for (const r of rows) out[r.meta_key] = r.meta_value;
    return out;
  }

  async linkedFrom(relation: string, toIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    for (const id of toIds) out.set(id, []);
    const wanted = storedIds(toIds);
    if (wanted.length === 0) return out;
    const rows = await this.k(this.e.tables.postLinks)
      .where({ relation })
      .whereIn("to_id", wanted)
      .orderBy([{ column: "to_id" }, { column: "from_id" }])
      .select<Array<{ from_id: number; to_id: number }>>("from_id", "to_id");
    for (const r of rows) out.get(Number(r.to_id))?.push(Number(r.from_id));
    return out;
  }

  /**
   * Posts by id (in the order asked), with their typed fields joined in the
   * same statement and relations batch-loaded: a fixed number of queries
   * per call, not per post.
   */
  async load(ids: number[], withRel?: PostQuery["with"], likelyTypes?: readonly string[]): Promise<LoadedPost[]> {
    const wanted = storedIds(ids);
    if (wanted.length === 0) return [];
    // The type is not known before the row is read: every registered field
    // table is joined (each a primary-key lookup), up to a few of them.
    // `likelyTypes` (a caller that knows what it asks for) narrows the joins to
    // those types' tables: fewer columns per row to read and convert. A post
    // of another type still gets its fields, by a query of its own (hydrate).
    const typed = [...this.e.registry.postTypes.values()].filter((t) => t.fieldsTable !== null && (likelyTypes === undefined || likelyTypes.includes(t.name)));
    const joins = typed.length <= MAX_LOAD_JOINS ? typed.map((t, i) => fieldJoin(t, `f${i}`)) : [];
    const unique = [...new Set(wanted)];
    const shape = `load\u0000${joinSignature(joins)}\u0000${unique.length}`;
    // The relations statement needs only the ids: it runs beside the rows'
    // (another pooled connection where there is one) instead of after them.
    const [rows, relationRows] = await Promise.all([
      selectByShape<JoinedRow>(this.k, this.e.tables, shape, unique, () => {
        const q = this.k(`${this.e.tables.posts} as p`).whereIn("p.id", unique).select("p.*");
        addFieldJoins(q, joins);
        return q;
      }),
      withRel ? this.relationRows(unique, withRel, (_q, compute) => compute()) : Promise.resolve(null),
    ]);
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const ordered: JoinedRow[] = [];
    const seen = new Set<number>();
    for (const id of wanted) {
      const r = byId.get(id);
      if (r && !seen.has(id)) {
        ordered.push(r);
        seen.add(id);
      }
    }
    return this.hydrate(ordered, withRel, joins, undefined, relationRows);
  }

  /** Rows → posts: typed fields from the joined columns (or one query per type not joined), then the relations asked for. */
  async hydrate(
    rows: JoinedRow[],
    withRel: PostQuery["with"] | undefined,
    joins: readonly FieldJoin[] = [],
    remember: Remember = (_q, compute) => compute(),
    /** Relation rows already read for (at least) these posts; null: nothing was asked for. */
    relationRows?: RelationRow[] | null,
  ): Promise<LoadedPost[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => Number(r.id));
    noteTagsRead(ids.map(postTag));
    const joinOf = new Map(joins.map((j) => [j.type.name, j]));
    const fieldsByPost = new Map<number, Record<string, FieldValue>>();
    const idsByType = new Map<string, number[]>();
    for (const r of rows) {
      const join = joinOf.get(r.type);
      if (join) {
        // No field row (a post made before its type declared fields) reads as all null, as a separate query would.
        if (r[join.marker] !== null && r[join.marker] !== undefined) fieldsByPost.set(Number(r.id), joinedFields(join, r));
        continue;
      }
      const list = idsByType.get(r.type) ?? [];
      list.push(Number(r.id));
      idsByType.set(r.type, list);
    }
    for (const [typeName, typeIds] of idsByType) {
      const type = this.e.registry.postTypes.get(typeName);
      if (!type?.fieldsTable) continue;
      const frows: Array<Record<string, unknown>> = await this.k(type.fieldsTable).whereIn("post_id", typeIds).select("*");
      for (const fr of frows) {
        const values: Record<string, FieldValue> = {};
        for (const [name, def] of Object.entries(type.fields)) values[name] = fromDbValue(def, fr[name]);
        fieldsByPost.set(Number(fr.post_id), values);
      }
    }
    const posts = rows.map((r) => {
      let fields = fieldsByPost.get(Number(r.id));
      if (!fields) {
        const type = this.e.registry.postTypes.get(r.type);
        fields = {};
        for (const name of Object.keys(type?.fields ?? {})) fields[name] = null;
      }
      return rowToPost(r, fields);
    });
    if (relationRows === undefined) await this.loadRelations(posts, ids, withRel ?? {}, remember);
    else if (relationRows !== null) this.attachRelations(posts, relationRows, withRel ?? {});
    return posts;
  }

  /**
   * Meta, terms and links of a page of posts. When more than one kind is
   * asked for they come in one UNION ALL statement (one round trip instead
   * of up to three), ordered here as each query used to order them. The
   * terms come with their whole rows, kept beside the posts for whoever
   * renders them (`termsLoadedWith`).
   */
  private async loadRelations(posts: LoadedPost[], ids: number[], w: NonNullable<PostQuery["with"]>, remember: Remember): Promise<void> {
    const rows = await this.relationRows(ids, w, remember);
    if (rows !== null) this.attachRelations(posts, rows, w);
  }

  /** The relation rows of `loadRelations` (null when nothing is asked for): the statement needs only the ids, so a load by id starts it beside the post rows. */
  private async relationRows(ids: number[], w: NonNullable<PostQuery["with"]>, remember: Remember): Promise<RelationRow[] | null> {
    const k = this.k;
    const onlyLinks = Array.isArray(w.links) ? w.links : null;
    // Named in every member: a compound statement takes its column names from whichever member comes first.
    const noTerm = (): Knex.Raw[] => TERM_COLUMNS.map((c) => k.raw(`NULL as t_${c}`));
    const branches: Knex.QueryBuilder[] = [];
    // Columns: kind, owner post, referenced id, name (taxonomy / relation / meta key), order, meta value, then the term's own columns.
    if (w.meta) {
      branches.push(
        k(`${this.e.tables.postmeta} as m`).whereIn("m.post_id", ids).select(k.raw("'m' as kind"), "m.post_id as owner", "m.id as ref", "m.meta_key as name", k.raw("0 as ord"), "m.meta_value as val", ...noTerm()),
      );
    }
    if (w.terms) {
      const q = k(`${this.e.tables.termRelationships} as tr`)
        .join(`${this.e.tables.terms} as t`, "t.id", "tr.term_id")
        .whereIn("tr.object_id", ids)
        .select(k.raw("'t' as kind"), "tr.object_id as owner", "tr.term_id as ref", "t.taxonomy as name", "tr.term_order as ord", k.raw("NULL as val"), ...TERM_COLUMNS.map((c) => `t.${c} as t_${c}`));
      // The taxonomies asked for are picked in attachRelations, not here: with a taxonomy condition SQLite's planner walks
      // every term of those taxonomies and probes the relationships of each (~85 µs per post at 100k events), where
      // starting from the post's few relationships takes ~45 µs. A post's other terms are a few rows more at most.
      branches.push(q);
    }
    if (w.links) {
      const q = k(`${this.e.tables.postLinks} as pl`)
        .whereIn("pl.from_id", ids)
        .select(k.raw("'l' as kind"), "pl.from_id as owner", "pl.to_id as ref", "pl.relation as name", "pl.position as ord", k.raw("NULL as val"), ...noTerm());
      if (onlyLinks) q.whereIn("pl.relation", onlyLinks);
      branches.push(q);
    }
    if (branches.length === 0) return null;
    // Unwrapped members: SQLite does not accept parentheses around the SELECTs of a compound statement.
    const [first, ...rest] = branches;
    const statement = rest.length === 0 ? first : first.unionAll(rest);
    const shape = `relations\u0000${w.meta ? 1 : 0}${w.terms ? 1 : 0}${w.links ? 1 : 0}\u0000${onlyLinks?.join(",") ?? "*"}\u0000${ids.length}`;
    const bindings: Knex.Value[] = [...(w.meta ? ids : []), ...(w.terms ? ids : []), ...(w.links ? [...ids, ...(onlyLinks ?? [])] : [])];
    return remember(statement, () => selectByShape<RelationRow>(k, this.e.tables, shape, bindings, () => statement), (r) => r.length);
  }

  private attachRelations(posts: LoadedPost[], rows: RelationRow[], w: NonNullable<PostQuery["with"]>): void {
    const onlyTerms = Array.isArray(w.terms) ? w.terms : null;
    const onlyLinks = Array.isArray(w.links) ? w.links : null;
    const meta: RelationRow[] = [];
    const terms: RelationRow[] = [];
    const links: RelationRow[] = [];
    for (const r of rows) (r.kind === "m" ? meta : r.kind === "t" ? terms : links).push(r);
    const byId = new Map(posts.map((p) => [p.id, p]));

    if (w.meta) {
      meta.sort((a, b) => Number(a.ref) - Number(b.ref));
      for (const p of posts) p.meta = {};
      for (const m of meta) {
        const rec = byId.get(Number(m.owner))?.meta;
        if (rec) rec[String(m.name)] = String(m.val ?? "");
      }
    }
    if (w.terms) {
      terms.sort((a, b) => Number(a.owner) - Number(b.owner) || Number(a.ord) - Number(b.ord) || Number(a.ref) - Number(b.ref));
      const records = new Map<number, Map<number, Term>>();
      for (const p of posts) {
        const rec: Record<string, number[]> = {};
        // Every taxonomy asked for (or of the type) is present, empty when unassigned.
        const taxes = onlyTerms ?? [...this.e.registry.taxonomies.values()].filter((t) => t.config.objectTypes.includes(p.type)).map((t) => t.name);
        for (const t of taxes) rec[t] = [];
        p.termIds = rec;
        records.set(p.id, new Map());
      }
      for (const r of terms) {
        const owner = Number(r.owner);
        const rec = byId.get(owner)?.termIds;
        if (!rec || (onlyTerms !== null && !onlyTerms.includes(String(r.name)))) continue;
        (rec[String(r.name)] ??= []).push(Number(r.ref));
        noteTagsRead([termTag(Number(r.ref))]);
        records.get(owner)?.set(Number(r.ref), termOfRelation(r));
      }
      for (const p of posts) loadedTerms.set(p, records.get(p.id) ?? new Map());
    }
    if (w.links) {
      links.sort(
        (a, b) =>
          Number(a.owner) - Number(b.owner) ||
          compareCodePoints(String(a.name), String(b.name)) ||
          Number(a.ord) - Number(b.ord) ||
          Number(a.ref) - Number(b.ref),
      );
      for (const p of posts) {
        const rec: Record<string, number[]> = {};
        for (const rel of onlyLinks ?? []) rec[rel] = [];
        p.links = rec;
      }
      for (const r of links) {
        const rec = byId.get(Number(r.owner))?.links;
        if (rec) (rec[String(r.name)] ??= []).push(Number(r.ref));
      }
    }
  }
}

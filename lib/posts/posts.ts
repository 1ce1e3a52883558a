import { deletedPostChange, postChange } from "../hooks/journal";
import type { Knex } from "knex";
import { isStoredId, storedIds } from "../db/ids";
import { insertChunked } from "../db/insert-rows";
import { trigramMatch } from "../db/search-index";
import type { Engine } from "../engine";
import type { PostsApi } from "../engine-api";
import { assertNoNul, EngineError, hasNul } from "../engine-errors";
import { sanitizeTitle, uniqueSlugCandidate } from "../format/slug";
import { rowToTerm, type TermRow } from "../taxonomy/terms";
import type { Term } from "../taxonomy/types";
import type { CurrentUser } from "../users/types";
import { derivePostDates, formatLocal, formatUtc, siteZone, utcMillis, ZERO_DATE } from "./dates";
import { defaultFieldValues, fromDbValue, toDbValue } from "./fields";
import type { RegisteredPostType } from "./registry";
import { parseSearch } from "./search";
import { attemptUnique, countOf, insertReturningId, likeContains, orderByList, orderByText } from "./sql";
import {
  FieldCondition,
  FieldDef,
  FieldValue,
  LoadedPost,
  Post,
  PostInput,
  PostPage,
  PostPatch,
  PostQuery,
  PostStatus,
  POST_STATUSES,
  SLUG_FREE_STATUSES,
} from "./types";
import { applyVisibility, canReadPost } from "./visibility";
import { selectByShape } from "../db/compiled";
import { postTag, termTag } from "../db/cache-tags";
import { noteTagsRead } from "../db/tag-audit";

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

type With = NonNullable<PostQuery["with"]>;
/** Resolves a typed field of the queried type to its joined column (null when the name is no typed field). */
type FieldColumn = (name: string) => { column: string; def: FieldDef } | null;
const WITH_ALL: With = { meta: true, terms: true, links: true };

/** Reads a statement through the read cache (or straight, see Posts.rememberer); `size` counts what a result holds. */
type Remember = <T>(query: Knex.QueryBuilder, compute: () => Promise<T>, size: (value: T) => number) => Promise<T>;

/** A post row as read with the joined typed-field columns (under the aliases of its FieldJoin). */
type JoinedRow = PostRow & Record<string, unknown>;

/** A typed-field table joined to `posts as p` for reading, and the aliases its columns come back under. */
interface FieldJoin {
  type: RegisteredPostType;
  alias: string;
  /** Alias of the joined `post_id`: NULL when the post has no field row. */
  marker: string;
  columns: Array<{ name: string; def: FieldDef; as: string }>;
}

interface BuiltQuery {
  qb: Knex.QueryBuilder;
  fieldColumn: FieldColumn;
  /** Typed-field columns the conditions require to be non-NULL (so the field row exists). */
  nonNull: Set<string>;
  /** Adds the search-index narrowing to a statement, when the search can use it. */
  narrow?: (b: Knex.QueryBuilder) => void;
  /** Joins and selects the typed fields of the queried type(s) on the rows statement; returns how to read them back. */
  selectFields: (rowsQb: Knex.QueryBuilder) => FieldJoin[];
}

/** One row of the relations statement (see loadRelations). */
type RelationRow = { kind: string; owner: unknown; ref: unknown; name: unknown; ord: unknown; val: unknown } & Record<string, unknown>;

/** Field tables joined when loading posts of unknown types by id; more are read with one query per type. */
const MAX_LOAD_JOINS = 8;
/** Above this many matches a search page is read along the order index rather than from the search index's candidates. */
const NARROW_ROWS_MAX = 500;
/** The term columns the relations statement carries (besides id and taxonomy). */
const TERM_COLUMNS = ["name", "slug", "description", "parent", "count", "term_group", "language", "translation_group"] as const;

function fieldJoin(type: RegisteredPostType, alias: string): FieldJoin {
  // Short positional aliases: field names may be long, and PostgreSQL cuts identifiers at 63 bytes.
  const columns = Object.entries(type.fields).map(([name, def], i) => ({ name, def, as: `${alias}__${i}` }));
  return { type, alias, marker: `${alias}__id`, columns };
}

function selectJoinColumns(qb: Knex.QueryBuilder, joins: readonly FieldJoin[]): void {
  for (const j of joins) {
    qb.select(`${j.alias}.post_id as ${j.marker}`);
    for (const c of j.columns) qb.select(`${j.alias}.${c.name} as ${c.as}`);
  }
}

/** LEFT JOINs (a primary-key lookup each) and the selected columns of each field table. */
function addFieldJoins(qb: Knex.QueryBuilder, joins: readonly FieldJoin[]): void {
  for (const j of joins) {
    if (j.type.fieldsTable) qb.leftJoin(`${j.type.fieldsTable} as ${j.alias}`, `${j.alias}.post_id`, "p.id");
  }
  selectJoinColumns(qb, joins);
}

/** What the text of a statement with these joins depends on (see selectByShape). */
function joinSignature(joins: readonly FieldJoin[]): string {
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

/** WordPress's suffix for the slug of a trashed post (wp_add_trashed_suffix_to_post_name_for_post). */
const TRASHED_SUFFIX = "__trashed";
/** WordPress truncates the slug to 191 bytes before adding the suffix. */
const TRASHED_SLUG_BYTES = 191;
/** Candidates checked per query while looking for a free slug. */
const SLUG_BATCH = 20;
/** Unique-index collisions tolerated before giving up (only reachable under extreme concurrency). */
const MAX_SLUG_ATTEMPTS = 200;
/** wp_insert_post: a `publish` post dated at least this far ahead is scheduled (`future`). */
const SCHEDULE_THRESHOLD_MS = 60_000;

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

function isSlugFree(status: string): boolean {
  return (SLUG_FREE_STATUSES as readonly string[]).includes(status);
}

/** Statuses whose slug must be unique (and so holds `slug_lock`). */
function needsUniqueSlug(status: string): boolean {
  return !isSlugFree(status) && status !== "trash";
}

/**
 * `<slug>__trashed` with the slug cut to 191 bytes first, as WordPress does.
 * The byte-safe truncation of lib/format/slug.ts is reached through
 * uniqueSlugCandidate: with an 8-digit suffix it keeps 200 - 9 = 191 bytes of
 * the base, and the suffix is then taken off again.
 */
export function trashedSlug(slug: string): string {
  if (slug.endsWith(TRASHED_SUFFIX)) return slug;
  let base = slug;
  if (Buffer.byteLength(slug) > TRASHED_SLUG_BYTES) {
    const n = 10_000_000; // eight digits: 1 + 8 = 9 bytes of suffix
    base = uniqueSlugCandidate(slug, n).slice(0, -(String(n).length + 1));
  }
  return base + TRASHED_SUFFIX;
}

export function untrashedSlug(slug: string): string {
  return slug.endsWith(TRASHED_SUFFIX) ? slug.slice(0, -TRASHED_SUFFIX.length) : slug;
}

function uniqueInts(values: readonly number[] | undefined, what: string): number[] {
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

function rowToPost(r: PostRow, fields: Record<string, FieldValue>): LoadedPost {
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
 * Posts: the write operations (create, update, trash, untrash, delete) with
 * WordPress's status, date and slug rules, and `find`, the one query builder
 * behind lists, counts and searches.
 *
 * Public methods open a transaction (or join the current one) through
 * `engine.write`; the `*In` methods are the same operations already inside
 * it, called on the transaction-bound engine.
 */
export class Posts implements PostsApi {
  constructor(private readonly e: Engine) {}

  private get k(): Knex {
    return this.e.knex;
  }

  // ------------------------------------------------------------------ writes

  create(input: PostInput, actor?: CurrentUser | null): Promise<LoadedPost> {
    return this.e.write((tx) => tx.posts.createIn(input, actor ?? null));
  }

  update(id: number, patch: PostPatch, actor?: CurrentUser | null): Promise<LoadedPost> {
    return this.e.write((tx) => tx.posts.updateIn(id, patch, actor ?? null));
  }

  trash(id: number): Promise<LoadedPost> {
    return this.e.write(async (tx) => {
      const cur = await tx.posts.requireRow(id);
      if (cur.status === "trash") return (await tx.posts.load([id], WITH_ALL))[0];
      return tx.posts.updateIn(id, { status: "trash" }, null);
    });
  }

  /** Restores the status the post had before it was trashed (draft when unknown) and its slug. */
  untrash(id: number): Promise<LoadedPost> {
    return this.e.write(async (tx) => {
      const cur = await tx.posts.requireRow(id);
      if (cur.status !== "trash") return (await tx.posts.load([id], WITH_ALL))[0];
      const previous = (cur.previous_status ?? "draft") as PostStatus;
      return tx.posts.updateIn(id, { status: previous === "trash" ? "draft" : previous }, null);
    });
  }

  delete(id: number): Promise<void> {
    return this.e.write((tx) => tx.posts.deleteIn(id));
  }

  /**
   * Publishes `future` posts whose date has come (WordPress's cron job
   * `publish_future_post`); returns their ids. Calpress has no cron: the
   * host or the REST layer calls this before serving lists if it wants
   * WordPress's behaviour.
   */
  async publishDue(): Promise<number[]> {
    // Asked first outside a transaction: an empty BEGIN/COMMIT every 30 s
    // would count as a write and throw away every cached answer and total.
    const pending = await this.k(this.e.tables.posts).where("status", "future").whereNot("date_utc", ZERO_DATE).where("date_utc", "<=", formatUtc(this.e.now())).first("id");
    if (pending === undefined) return [];
    return this.e.write(async (tx) => {
      const nowUtc = formatUtc(tx.now());
      const due = await tx.knex(tx.tables.posts).where("status", "future").whereNot("date_utc", ZERO_DATE).where("date_utc", "<=", nowUtc).orderBy("id").pluck("id");
      const ids = due.map(Number);
      for (const id of ids) await tx.posts.updateIn(id, { status: "publish" }, null);
      return ids;
    });
  }

  /** @internal the create operation inside the current transaction. */
  async createIn(input: PostInput, actor: CurrentUser | null): Promise<LoadedPost> {
    const type = this.e.registry.postType(input.type);
    const requested = input.status ?? "draft";
    this.checkStatus(type, requested);
    const author = input.author ?? actor?.id ?? 0;
    if (author !== 0) await this.assertUser(author);
    const parent = input.parent ?? 0;
    if (parent !== 0) await this.assertPostExists(parent, "invalid_parent");
    const zone = siteZone(await this.e.options.timezone());
    const now = this.e.now();
    const dates = derivePostDates(input, zone, now, isSlugFree(requested));
    const status = this.scheduled(type, requested, dates.dateUtc, now);
    const language = input.language ?? (await this.e.options.defaultLanguage());
    const fieldValues = this.fieldsForWrite(type, input.fields, true);
    const base = this.slugBase(type, status, input.slug, input.title ?? "");
    const floating = dates.dateUtc === ZERO_DATE;
    const row: Omit<PostRow, "id"> = {
      type: type.name,
      status,
      slug: status === "trash" ? trashedSlug(base) : base,
      slug_lock: null,
      title: input.title ?? "",
      content: input.content ?? "",
      excerpt: input.excerpt ?? "",
      author,
      parent,
      password: input.password ?? "",
      menu_order: input.menuOrder ?? 0,
      date_local: dates.dateLocal,
      date_utc: dates.dateUtc,
      // wp_insert_post: a new post's modified date is its date, unless it floats.
      modified_local: floating ? formatLocal(now, zone) : dates.dateLocal,
      modified_utc: floating ? formatUtc(now) : dates.dateUtc,
      language,
      translation_group: input.translationGroup ?? null,
      previous_status: null,
    };
    // U+0000 is refused on every database, not only where PostgreSQL fails on it (engine-errors hasNul).
    assertNoNul(row);
    assertNoNul(fieldValues);
    assertNoNul(input.meta);
    const id = await insertReturningId(this.k, this.e.dialect, this.e.tables.posts, row);
    // A new record starts its own translation group unless it joins one.
    const extra = row.translation_group === null ? { translation_group: id } : {};
    if (needsUniqueSlug(status)) await this.claimSlug(id, type.name, language, base, extra);
    else if (Object.keys(extra).length > 0) await this.k(this.e.tables.posts).where({ id }).update(extra);
    if (type.fieldsTable) await this.k(type.fieldsTable).insert({ post_id: id, ...fieldValues });
    await this.writeMeta(id, input.meta);
    const touched = await this.replaceTerms(id, type, input.terms);
    await this.replaceLinks(id, input.links);
    if (status === "publish" && touched.length > 0) await this.e.terms.recountIn(touched);
    const created = (await this.load([id], WITH_ALL))[0];
    this.e.recordChange(postChange("created", created, null, now, actor?.id));
    return created;
  }

  /** @internal the update operation inside the current transaction. */
  async updateIn(id: number, patch: PostPatch, actor: CurrentUser | null): Promise<LoadedPost> {
    // Permission checks belong to the caller; the actor only names who made the change (hooks).
    if (patch.terms !== undefined || patch.status !== undefined) await this.lockTermsBeforePost(id, Object.values(patch.terms ?? {}).flat());
    const cur = await this.requireRow(id, true);
    const type = this.e.registry.postType(cur.type);
    const requested = (patch.status ?? cur.status) as PostStatus;
    if (patch.status !== undefined && patch.status !== cur.status) this.checkStatus(type, requested);
    const changes: Partial<PostRow> = {};

    if (patch.author !== undefined && patch.author !== cur.author) {
      if (patch.author !== 0) await this.assertUser(patch.author);
      changes.author = patch.author;
    }
    if (patch.parent !== undefined && patch.parent !== cur.parent) {
      if (patch.parent !== 0) await this.assertParent(id, patch.parent);
      changes.parent = patch.parent;
    }
    if (patch.title !== undefined) changes.title = patch.title;
    if (patch.content !== undefined) changes.content = patch.content;
    if (patch.excerpt !== undefined) changes.excerpt = patch.excerpt;
    if (patch.password !== undefined) changes.password = patch.password;
    if (patch.menuOrder !== undefined) changes.menu_order = patch.menuOrder;
    if (patch.language !== undefined) changes.language = patch.language;
    if (patch.translationGroup !== undefined) changes.translation_group = patch.translationGroup ?? id;
    // U+0000 is refused on every database (engine-errors hasNul), before anything is written.
    assertNoNul({ ...changes, slug: patch.slug });
    assertNoNul(patch.fields);
    assertNoNul(patch.meta);

    // Dates, then the status they imply.
    const zone = siteZone(await this.e.options.timezone());
    const now = this.e.now();
    let dateLocal = cur.date_local;
    let dateUtc = cur.date_utc;
    if ((patch.dateLocal !== undefined && patch.dateLocal !== "") || (patch.dateUtc !== undefined && patch.dateUtc !== "")) {
      const d = derivePostDates({ dateLocal: patch.dateLocal, dateUtc: patch.dateUtc }, zone, now, false);
      dateLocal = d.dateLocal;
      dateUtc = d.dateUtc;
    } else if (cur.date_utc === ZERO_DATE && requested !== "trash") {
      // wp_update_post: a draft without a date of its own follows "now" on
      // every save, and gets a real date once it leaves draft/pending.
      dateLocal = formatLocal(now, zone);
      dateUtc = isSlugFree(requested) ? ZERO_DATE : formatUtc(now);
    }
    const status: PostStatus = requested === "trash" ? "trash" : this.scheduled(type, requested, dateUtc, now);
    changes.date_local = dateLocal;
    changes.date_utc = dateUtc;
    changes.status = status;
    changes.modified_local = formatLocal(now, zone);
    changes.modified_utc = formatUtc(now);
    if (status === "trash" && cur.status !== "trash") changes.previous_status = cur.status;
    if (status !== "trash" && cur.status === "trash") changes.previous_status = null;

    // Slug: the one asked for, else the current one (without the trash
    // suffix), else one from the title when the status wants a slug.
    let base = cur.status === "trash" ? untrashedSlug(cur.slug) : cur.slug;
    if (patch.slug !== undefined) base = sanitizeTitle(patch.slug);
    const language = changes.language ?? cur.language;
    if (base === "" && !(type.config.emptySlugWhileDraft && isSlugFree(status))) base = sanitizeTitle(changes.title ?? cur.title);
    if (needsUniqueSlug(status)) {
      // Moving to another language: the held slug must not collide there before it is claimed again.
      if (changes.language !== undefined && changes.language !== cur.language) changes.slug_lock = null;
      await this.k(this.e.tables.posts).where({ id }).update(changes);
      await this.claimSlug(id, cur.type, language, base, {});
    } else {
      changes.slug = status === "trash" ? (cur.status === "trash" && patch.slug === undefined ? cur.slug : trashedSlug(base)) : base;
      changes.slug_lock = null;
      await this.k(this.e.tables.posts).where({ id }).update(changes);
    }

    if (patch.fields && type.fieldsTable) {
      const values = this.fieldsForWrite(type, patch.fields, false);
      if (Object.keys(values).length > 0) {
        const n = await this.k(type.fieldsTable).where({ post_id: id }).update(values);
        // A post created before the type declared fields has no row yet.
        if (n === 0) await this.k(type.fieldsTable).insert({ post_id: id, ...this.fieldsForWrite(type, {}, true), ...values });
      }
    } else if (patch.fields && Object.keys(patch.fields).length > 0) {
      this.fieldsForWrite(type, patch.fields, false); // reports the unknown field
    }
    await this.writeMeta(id, patch.meta);
    const touched = new Set(await this.replaceTerms(id, type, patch.terms));
    await this.replaceLinks(id, patch.links);
    // Counts are of published posts: entering or leaving `publish` changes
    // the count of every term the post carries.
    if ((cur.status === "publish") !== (status === "publish")) {
      for (const t of await this.termIdsOf(id)) touched.add(t);
    }
    if (touched.size > 0) await this.e.terms.recountIn([...touched]);
    const updated = (await this.load([id], WITH_ALL))[0];
    const action = status === "trash" && cur.status !== "trash" ? "trashed" : "updated";
    this.e.recordChange(postChange(action, updated, cur.status as PostStatus, now, actor?.id));
    return updated;
  }

  /** @internal */
  async deleteIn(id: number): Promise<void> {
    await this.lockTermsBeforePost(id, []);
    const cur = await this.requireRow(id, true);
    const termIds = await this.termIdsOf(id);
    await this.k(this.e.tables.termRelationships).where({ object_id: id }).delete();
    await this.k(this.e.tables.postmeta).where({ post_id: id }).delete();
    await this.k(this.e.tables.postLinks).where({ from_id: id }).orWhere({ to_id: id }).delete();
    const type = this.e.registry.postTypes.get(cur.type);
    if (type?.fieldsTable) await this.k(type.fieldsTable).where({ post_id: id }).delete();
    // wp_delete_post: children move up to the deleted post's parent.
    await this.k(this.e.tables.posts).where({ parent: id }).update({ parent: cur.parent });
    await this.k(this.e.tables.posts).where({ id }).delete();
    if (cur.status === "publish" && termIds.length > 0) await this.e.terms.recountIn(termIds);
    this.e.recordChange(deletedPostChange({ ...cur, id }, this.e.now()));
  }

  // ------------------------------------------------------------------ reads

  async get(id: number, withRel?: PostQuery["with"], likelyTypes?: readonly string[]): Promise<LoadedPost | undefined> {
    if (!isStoredId(id)) return undefined;
    return (await this.load([id], withRel, likelyTypes))[0];
  }

  async getShared(ids: number[], likelyTypes?: readonly string[]): Promise<Map<number, LoadedPost>> {
    const cache = this.e.readCache;
    if (cache === null) return this.getMany(ids, undefined, likelyTypes);
    const known = cache.postsUnder<LoadedPost>(await cache.token());
    const missing = [...new Set(storedIds(ids))].filter((id) => !known.has(id));
    if (missing.length > 0) {
      const loaded = new Map((await this.load(missing, undefined, likelyTypes)).map((p) => [p.id, p]));
      for (const id of missing) {
        const post = loaded.get(id);
        if (post) sharedPosts.add(post);
        known.set(id, post ?? null);
      }
    }
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

  async find(query: PostQuery): Promise<PostPage> {
    const built = await this.buildQuery(query);
    const { qb } = built;
    const page = Math.max(1, Math.trunc(query.page ?? 1));
    const perPage = query.perPage ?? (await this.e.options.postsPerPage());
    // Ordering may join the typed-field table, which the count needs too.
    const indexOrder = this.applyOrder(qb, query, built);
    const unlimited = perPage <= 0;
    const remember = await this.rememberer();
    const countQuery = (): Knex.QueryBuilder => {
      const c = qb.clone().clearOrder();
      built.narrow?.(c);
      return c.count({ n: "*" }).first();
    };
    const counted = (): Promise<number> => {
      const c = countQuery();
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
    const rowsQb = qb.clone().select("p.*");
    if (narrowRows) built.narrow?.(rowsQb);
    // SQLite plans a page ordered by an indexed typed field (the upcoming
    // events by start) from `posts (type, status, language)` and sorts every
    // match before taking the page: ~20 ms at 100,000 events. NOT INDEXED
    // leaves it only rowid lookups into posts, so it walks the field's index
    // in order and stops after the page (~0.2 ms; ~1 ms where one event in
    // forty matches). Not for id lists and search-narrowed pages, which are
    // small sets best read by id.
    if (this.e.dialect.prefersIndexOrderedPages && indexOrder && !unlimited && !narrowRows && query.ids === undefined) {
      rowsQb.from(this.k.raw("?? as ?? not indexed", [this.e.tables.posts, "p"]));
    }
    const joins = built.selectFields(rowsQb);
    if (!unlimited) rowsQb.limit(perPage).offset((page - 1) * perPage);
    const rows = await remember(rowsQb, async (): Promise<JoinedRow[]> => rowsQb, (r) => r.length);
    if (total === undefined) {
      if (query.noTotal) total = -1;
      else if (unlimited) total = rows.length;
      // A partly filled page (that is not past the end) already tells the total.
      else if (rows.length > 0 && rows.length < perPage) total = (page - 1) * perPage + rows.length;
      else total = await counted();
    }
    return { posts: await this.hydrate(rows, query.with, joins, remember), total };
  }

  async count(query: PostQuery): Promise<number> {
    const built = await this.buildQuery(query);
    built.narrow?.(built.qb);
    const c = built.qb.count({ n: "*" }).first();
    return (await this.rememberer())(c, async () => countOf(await c), () => 1);
  }

  /**
   * How this call reads: through the read cache under the revision of now
   * (one `data_version` statement for the whole call, whatever it reads
   * then), or straight from the database inside a transaction and on the
   * databases without cache (db/revision.ts).
   */
  private async rememberer(): Promise<Remember> {
    const cache = this.e.readCache;
    if (!cache) return (_q, compute) => compute();
    const token = await cache.token();
    return (q, compute, size) => cache.get(token, q, compute, size);
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

  async unlinkAllTo(relation: string, toId: number): Promise<void> {
    if (!isStoredId(toId)) return;
    await this.k(this.e.tables.postLinks).where({ relation, to_id: toId }).delete();
  }

  canRead(post: Post, user: CurrentUser | null): boolean {
    const type = this.e.registry.postTypes.get(post.type);
    return type ? canReadPost(type, post, user) : false;
  }

  // ------------------------------------------------------------------ loading

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
  private async hydrate(
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
    const onlyTerms = Array.isArray(w.terms) ? w.terms : null;
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
      if (onlyTerms) q.whereIn("t.taxonomy", onlyTerms);
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
    const shape = `relations\u0000${w.meta ? 1 : 0}${w.terms ? 1 : 0}${w.links ? 1 : 0}\u0000${onlyTerms?.join(",") ?? "*"}\u0000${onlyLinks?.join(",") ?? "*"}\u0000${ids.length}`;
    const bindings: Knex.Value[] = [...(w.meta ? ids : []), ...(w.terms ? [...ids, ...(onlyTerms ?? [])] : []), ...(w.links ? [...ids, ...(onlyLinks ?? [])] : [])];
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
        if (!rec) continue;
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

  // ------------------------------------------------------------------ the query builder

  /** Every constraint of a PostQuery on `<prefix>posts as p` (and `<prefix>fields_<type> as f` when a typed field is used). */
  private async buildQuery(query: PostQuery): Promise<BuiltQuery> {
    const k = this.k;
    const typeNames = [...new Set(Array.isArray(query.type) ? query.type : [query.type])];
    const types = typeNames.map((t) => this.e.registry.postType(t));
    const single = types.length === 1 ? types[0] : null;
    const qb = k(`${this.e.tables.posts} as p`).whereIn("p.type", typeNames);
    let joined = false;
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
    for (const cond of query.tax ?? []) await this.applyTax(qb, cond);
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
    return { qb, fieldColumn, nonNull, narrow, selectFields };
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

  /** Term ids of a condition, each given id expanded to its translations and (optionally) descendants. */
  private async applyTax(qb: Knex.QueryBuilder, cond: NonNullable<PostQuery["tax"]>[number]): Promise<void> {
    const k = this.k;
    this.e.registry.taxonomy(cond.taxonomy);
    const operator = cond.operator ?? "IN";
    const given = uniqueInts(cond.terms, "tax terms");
    const groups = await this.e.terms.expandTermIds(cond.taxonomy, given, {
      translations: cond.translations === true,
      children: cond.includeChildren === true,
    });
    // `p.id IN (posts with the terms)` rather than a correlated EXISTS: the
    // same rows, but the planner may start from the term's posts (a category
    // of 1,000 events among 100,000) instead of testing every post in turn.
    const carrying = (termIds: number[]): Knex.QueryBuilder => k(`${this.e.tables.termRelationships} as tr`).select("tr.object_id").whereIn("tr.term_id", termIds);
    const all = [...new Set(groups.flat())];
    if (operator === "IN") {
      // Unknown terms match nothing (WordPress turns the query into 0 = 1).
      if (all.length === 0) qb.whereRaw("1 = 0");
      else qb.whereIn("p.id", carrying(all));
    } else if (operator === "NOT IN") {
      if (all.length > 0) {
        qb.whereNotExists(k(`${this.e.tables.termRelationships} as tr`).select(k.raw("1")).where("tr.object_id", k.ref("p.id")).whereIn("tr.term_id", all));
      }
    } else if (operator === "AND") {
      if (groups.some((g) => g.length === 0)) qb.whereRaw("1 = 0");
      for (const g of groups) qb.whereIn("p.id", carrying(g));
    } else {
      throw new EngineError("invalid_input", `unknown tax operator: ${String(operator)}`);
    }
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

  /** The ids plus every post in their translation groups. */
  async translationsOf(ids: number[]): Promise<number[]> {
    ids = storedIds(ids);
    if (ids.length === 0) return [];
    const groups = this.k(this.e.tables.posts).whereIn("id", ids).whereNotNull("translation_group").select("translation_group");
    const members: number[] = await this.k(this.e.tables.posts).whereIn("translation_group", groups).pluck("id");
    return [...new Set([...ids, ...members.map(Number)])];
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
  private applyOrder(qb: Knex.QueryBuilder, query: PostQuery, built: Pick<BuiltQuery, "fieldColumn" | "nonNull">): boolean {
    const order = query.orderBy && query.orderBy.length > 0 ? query.orderBy : [{ field: "date_local", dir: "desc" as const }];
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
        const [sql, bindings] = orderByList("p.id", query.ids ?? [], dir);
        qb.orderByRaw(sql, bindings);
        continue;
      }
      const core = CORE_COLUMNS[o.field];
      if (core) {
        const column = `p.${core.column}`;
        if (core.column === "id") hasId = true;
        if (core.nullable) qb.orderByRaw(`CASE WHEN ?? IS NULL THEN 0 ELSE 1 END ${dir}`, [column]);
        if (core.text) orderByText(qb, this.e.dialect, column, dir, core.column === "title");
        else qb.orderBy(column, dir);
        continue;
      }
      const typed = built.fieldColumn(o.field);
      if (!typed) throw new EngineError("invalid_field", `cannot order by ${o.field}`, { field: o.field });
      if (!built.nonNull.has(typed.column)) qb.orderByRaw(`CASE WHEN ?? IS NULL THEN 0 ELSE 1 END ${dir}`, [typed.column]);
      else if (position === 0 && typed.def.index === true && typed.def.type !== "string" && typed.def.type !== "text") indexOrder = true;
      if (typed.def.type === "string" || typed.def.type === "text") orderByText(qb, this.e.dialect, typed.column, dir, true);
      else qb.orderBy(typed.column, dir);
      lastTyped = true;
    }
    if (!hasId) qb.orderBy(lastTyped && built.nonNull.size > 0 ? "f.post_id" : "p.id", lastDir);
    return indexOrder;
  }

  // ------------------------------------------------------------------ helpers

  /** @internal */
  async requireRow(id: number, forUpdate = false): Promise<PostRow> {
    if (!isStoredId(id)) throw new EngineError("not_found", `no post ${id}`, { id });
    const q = this.k(this.e.tables.posts).where({ id });
    // Row lock against a concurrent update of the same post (SQLite serialises writers anyway).
    if (forUpdate && this.e.inTransaction && !this.e.dialect.serialisesWriters) q.forUpdate();
    const row: PostRow | undefined = await q.first();
    if (!row) throw new EngineError("not_found", `no post ${id}`, { id });
    return row;
  }

  private checkStatus(type: RegisteredPostType, status: string): void {
    if (!type.statuses.has(status as PostStatus)) {
      throw new EngineError("invalid_status", `status ${status} is not allowed for ${type.name}`, { status });
    }
  }

  /** wp_insert_post: `publish` dated a minute or more ahead becomes `future`; a `future` date that has come makes it `publish`. */
  private scheduled(type: RegisteredPostType, status: PostStatus, dateUtc: string, now: Date): PostStatus {
    const ahead = dateUtc === ZERO_DATE ? -Infinity : utcMillis(dateUtc) - now.getTime();
    if (status === "publish" && ahead >= SCHEDULE_THRESHOLD_MS && type.statuses.has("future")) return "future";
    if (status === "future" && ahead < SCHEDULE_THRESHOLD_MS) return "publish";
    return status;
  }

  private slugBase(type: RegisteredPostType, status: PostStatus, asked: string | undefined, title: string): string {
    const fromAsked = asked !== undefined ? sanitizeTitle(asked) : "";
    if (fromAsked !== "") return fromAsked;
    if (type.config.emptySlugWhileDraft && isSlugFree(status)) return "";
    return sanitizeTitle(title);
  }

  /**
   * wp_unique_post_slug for statuses that need a unique slug: the first of
   * `base`, `base-2`, `base-3`, … not held by another post of the type and
   * language. Read-then-write can race with a concurrent insert; the unique
   * index on (type, language, slug_lock) catches that and the next candidate
   * is tried, so concurrent creates never fail. Candidates only move forward
   * after a collision, because MySQL's repeatable-read snapshot may keep
   * showing the colliding slug as free.
   */
  private async claimSlug(id: number, type: string, language: string, base: string, extra: Partial<PostRow>): Promise<string> {
    // WordPress falls back to the post id when the title gives no slug.
    const root = base === "" ? String(id) : base;
    let n = 1;
    for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
      const candidate = await this.firstFreeSlug(id, type, language, root, n);
      const result = await attemptUnique(this.k, this.e.dialect, (k) =>
        k(this.e.tables.posts).where({ id }).update({ ...extra, slug: candidate.slug, slug_lock: candidate.slug }),
      );
      if (result.ok) return candidate.slug;
      n = candidate.n + 1;
    }
    throw new EngineError("slug_conflict", `no free slug for ${base}`, { slug: base });
  }

  private async firstFreeSlug(id: number, type: string, language: string, root: string, from: number): Promise<{ slug: string; n: number }> {
    for (let start = from; ; start += SLUG_BATCH) {
      const candidates: Array<{ slug: string; n: number }> = [];
      for (let n = start; n < start + SLUG_BATCH; n++) candidates.push({ slug: uniqueSlugCandidate(root, n), n });
      const taken = new Set<string>(
        await this.k(this.e.tables.posts)
          .where({ type, language })
          .whereIn(
            "slug_lock",
            candidates.map((c) => c.slug),
          )
          .whereNot("id", id)
          .pluck("slug_lock"),
      );
      const free = candidates.find((c) => !taken.has(c.slug));
      if (free) return free;
    }
  }

  private fieldsForWrite(type: RegisteredPostType, given: Record<string, FieldValue> | undefined, withDefaults: boolean): Record<string, FieldValue> {
    const out: Record<string, FieldValue> = withDefaults ? defaultFieldValues(type) : {};
    for (const [name, value] of Object.entries(given ?? {})) {
      // `undefined` means "not given" (as for every other member of an input); null clears.
      if (value === undefined) continue;
      const def = type.fields[name];
      if (!def) throw new EngineError("invalid_field", `${type.name} has no field ${name}`, { field: name });
      out[name] = toDbValue(type.name, name, def, value);
    }
    if (withDefaults) {
      for (const [name, def] of Object.entries(type.fields)) {
        if (given && given[name] !== undefined) continue;
        out[name] = toDbValue(type.name, name, def, def.default ?? null);
      }
    }
    return out;
  }

  private async writeMeta(id: number, meta: Record<string, string | null> | undefined): Promise<void> {
    if (!meta) return;
    const keys = Object.keys(meta).filter((key) => meta[key] !== undefined);
    if (keys.length === 0) return;
    for (const key of keys) {
      if (key === "" || key.length > 191) throw new EngineError("invalid_input", `bad meta key: ${key}`);
    }
    await this.k(this.e.tables.postmeta).where({ post_id: id }).whereIn("meta_key", keys).delete();
    const rows = keys
      .filter((key) => meta[key] !== null && meta[key] !== undefined)
      .map((key) => ({ post_id: id, meta_key: key, meta_value: String(meta[key]) }));
    await insertChunked(this.k, this.e.tables.postmeta, rows);
  }

  /** Replaces the terms of the named taxonomies; returns every term whose count may change. */
  private async replaceTerms(id: number, type: RegisteredPostType, terms: Record<string, number[]> | undefined): Promise<number[]> {
    if (!terms) return [];
    const touched = new Set<number>();
    for (const [taxName, given] of Object.entries(terms)) {
      const tax = this.e.registry.taxonomy(taxName);
      if (!tax.config.objectTypes.includes(type.name)) {
        throw new EngineError("invalid_type", `taxonomy ${taxName} is not registered for ${type.name}`, { taxonomy: taxName });
      }
      const ids = uniqueInts(given, `terms of ${taxName}`);
      if (ids.length > 0) {
        const found = new Set((await this.k(this.e.tables.terms).where({ taxonomy: taxName }).whereIn("id", storedIds(ids)).pluck("id")).map(Number));
        const missing = ids.filter((t) => !found.has(t));
        if (missing.length > 0) throw new EngineError("invalid_term", `no such ${taxName} terms: ${missing.join(", ")}`, { taxonomy: taxName, terms: missing });
      }
      const old = (
        await this.k(`${this.e.tables.termRelationships} as tr`).join(`${this.e.tables.terms} as t`, "t.id", "tr.term_id").where("tr.object_id", id).where("t.taxonomy", taxName).pluck("tr.term_id")
      ).map(Number);
      // The terms whose counts change are locked (in id order) before their
      // relationships are: concurrent writers then queue on the term rows
      // instead of deadlocking between foreign-key locks and the recount.
      await this.e.terms.lockIn([...old, ...ids]);
      if (old.length > 0) await this.k(this.e.tables.termRelationships).where({ object_id: id }).whereIn("term_id", old).delete();
      await insertChunked(this.k, this.e.tables.termRelationships, ids.map((term_id, i) => ({ object_id: id, term_id, term_order: i })));
      for (const t of old) touched.add(t);
      for (const t of ids) touched.add(t);
    }
    return [...touched];
  }

  private async replaceLinks(id: number, links: Record<string, number[]> | undefined): Promise<void> {
    if (!links) return;
    for (const [relation, given] of Object.entries(links)) {
      if (relation === "" || relation.length > 32) throw new EngineError("invalid_input", `bad link relation: ${relation}`);
      const ids = uniqueInts(given, `links ${relation}`);
      if (ids.length > 0) {
        const found = new Set((await this.k(this.e.tables.posts).whereIn("id", storedIds(ids)).pluck("id")).map(Number));
        const missing = ids.filter((t) => !found.has(t));
        if (missing.length > 0) throw new EngineError("invalid_link", `no such posts: ${missing.join(", ")}`, { relation, ids: missing });
      }
      await this.k(this.e.tables.postLinks).where({ from_id: id, relation }).delete();
      await insertChunked(this.k, this.e.tables.postLinks, ids.map((to_id, i) => ({ from_id: id, relation, to_id, position: i })));
    }
  }

  /**
   * Before a write locks a post that may change term counts: the rows of
   * the post's terms and of `more` (Terms.lockIn), so that every writer takes
   * term rows before post rows. On MariaDB the recount's subquery is a
   * locking read of the counted posts: a writer holding a term and counting
   * would otherwise wait for a post whose writer waits for that term (a
   * deadlock on every busy term). The post's terms are read before its row
   * is locked, so a concurrent change may add one; the recount locks that
   * one later (out of order, rare, and a deadlock there is retried).
   * SQLite runs one writer at a time: nothing to do.
   */
  private async lockTermsBeforePost(id: number, more: readonly number[]): Promise<void> {
    if (this.e.dialect.serialisesWriters || !this.e.inTransaction || !isStoredId(id)) return;
    await this.e.terms.lockIn([...(await this.termIdsOf(id)), ...more]);
  }

  private async termIdsOf(id: number): Promise<number[]> {
    return (await this.k(this.e.tables.termRelationships).where({ object_id: id }).pluck("term_id")).map(Number);
  }

  private async assertUser(id: number): Promise<void> {
    if (!isStoredId(id) || !(await this.k(this.e.tables.users).where({ id }).first("id"))) {
      throw new EngineError("invalid_user", `no user ${id}`, { id });
    }
  }

  private async assertPostExists(id: number, code: string): Promise<void> {
    if (!isStoredId(id) || !(await this.k(this.e.tables.posts).where({ id }).first("id"))) {
      throw new EngineError(code, `no post ${id}`, { id });
    }
  }

  /** The new parent exists and is not the post itself or one of its descendants. */
  private async assertParent(id: number, parent: number): Promise<void> {
    await this.assertPostExists(parent, "invalid_parent");
    let cursor = parent;
    for (let depth = 0; cursor !== 0 && depth < 1000; depth++) {
      if (cursor === id) throw new EngineError("invalid_parent", "a post cannot be its own ancestor", { id, parent });
      const row: { parent: number } | undefined = await this.k(this.e.tables.posts).where({ id: cursor }).first("parent");
      cursor = row ? Number(row.parent) : 0;
    }
  }
}

import type { Knex } from "knex";
import { isStoredId, storedIds } from "../db/ids";
import { insertChunked } from "../db/insert-rows";
import type { EngineContext } from "../engine-context";
import { assertNoNul, EngineError } from "../engine-errors";
import { sanitizeTitle } from "../format/slug";
import { deletedPostChange, postChange } from "../hooks/journal";
import { actorUserId, type Actor } from "../users/actor";
import { utcSqlMillis } from "../dates/format";
import { cleanPostWrite } from "./clean";
import { derivePostDates, formatLocal, formatUtc, siteZone, ZERO_DATE } from "./dates";
import { defaultFieldValues, toDbValue } from "./fields";
import { PostLoader, type PostRow } from "./load";
import { uniqueInts } from "./query";
import type { RegisteredPostType } from "./registry";
import { isSlugFree, needsUniqueSlug, PostSlugs, slugBase, trashedSlug, untrashedSlug } from "./slugs";
import { insertReturningId } from "./sql";
import type { FieldValue, LoadedPost, PostInput, PostPatch, PostQuery, PostStatus } from "./types";

/** What a write returns the post with. */
const WITH_ALL: NonNullable<PostQuery["with"]> = { meta: true, terms: true, links: true };
/** wp_insert_post: a `publish` post dated at least this far ahead is scheduled (`future`). */
const SCHEDULE_THRESHOLD_MS = 60_000;

/**
 * The write operations (create, update, trash, untrash, delete) with
 * WordPress's status, date and slug rules. The `*In` methods run inside the
 * current transaction: the `Posts` façade opens it (or joins the current
 * one) through `write` and builds a writer on the transaction-bound context.
 */
export class PostWriter {
  private readonly loader: PostLoader;
  private readonly slugs: PostSlugs;

  constructor(private readonly e: EngineContext) {
    this.loader = new PostLoader(e);
    this.slugs = new PostSlugs(e);
  }

  private get k(): Knex {
    return this.e.knex;
  }

  /** A post already in the trash is returned as it is. */
  async trashIn(id: number): Promise<LoadedPost> {
    const cur = await this.requireRow(id);
    if (cur.status === "trash") return (await this.loader.load([id], WITH_ALL))[0];
    return this.updateIn(id, { status: "trash" }, null);
  }

  /** Restores the status the post had before it was trashed (draft when unknown) and its slug. */
  async untrashIn(id: number): Promise<LoadedPost> {
    const cur = await this.requireRow(id);
    if (cur.status !== "trash") return (await this.loader.load([id], WITH_ALL))[0];
    const previous = (cur.previous_status ?? "draft") as PostStatus;
    return this.updateIn(id, { status: previous === "trash" ? "draft" : previous }, null);
  }

  /** Whether a `future` post's time has come; a plain read, fit to ask outside a transaction. */
  async anyDue(): Promise<boolean> {
    const pending = await this.k(this.e.tables.posts).where("status", "future").whereNot("date_utc", ZERO_DATE).where("date_utc", "<=", formatUtc(this.e.now())).first("id");
    return pending !== undefined;
  }

  /** Publishes the `future` posts whose time has come; returns their ids. */
  async publishDueIn(): Promise<number[]> {
    const nowUtc = formatUtc(this.e.now());
    const due = await this.k(this.e.tables.posts).where("status", "future").whereNot("date_utc", ZERO_DATE).where("date_utc", "<=", nowUtc).orderBy("id").pluck("id");
    const ids = due.map(Number);
    for (const id of ids) await this.updateIn(id, { status: "publish" }, null);
    return ids;
  }

  async createIn(given: PostInput, actor: Actor): Promise<LoadedPost> {
    const type = this.e.registry.postType(given.type);
    // Cleaned before anything reads it: the slug is made from the cleaned title, as wp_insert_post makes it.
    const input = cleanPostWrite(type.config, given, actor);
    const requested = input.status ?? "draft";
    this.checkStatus(type, requested);
    const author = input.author ?? actorUserId(actor) ?? 0;
    if (author !== 0) await this.assertUser(author);
    const parent = input.parent ?? 0;
    if (parent !== 0) await this.assertPostExists(parent, "invalid_parent");
    const zone = siteZone(await this.e.options.timezone());
    const now = this.e.now();
    const dates = derivePostDates(input, zone, now, isSlugFree(requested));
    const status = this.scheduled(type, requested, dates.dateUtc, now);
    const language = input.language ?? (await this.e.options.defaultLanguage());
    const fieldValues = this.fieldsForWrite(type, input.fields, true);
    const base = slugBase(type, status, input.slug, input.title ?? "");
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
    if (needsUniqueSlug(status)) await this.slugs.claimSlug(id, type.name, language, base, extra);
    else if (Object.keys(extra).length > 0) await this.k(this.e.tables.posts).where({ id }).update(extra);
    if (type.fieldsTable) await this.k(type.fieldsTable).insert({ post_id: id, ...fieldValues });
    await this.writeMeta(id, input.meta);
    const touched = await this.replaceTerms(id, type, input.terms);
    await this.replaceLinks(id, input.links);
    if (status === "publish" && touched.length > 0) await this.e.terms.recountIn(touched);
    const created = (await this.loader.load([id], WITH_ALL))[0];
    this.e.recordChange(postChange("created", created, null, now, actorUserId(actor)));
    return created;
  }

  async updateIn(id: number, given: PostPatch, actor: Actor): Promise<LoadedPost> {
    // Permission checks belong to the caller; the actor names who made the change (hooks) and decides what HTML is kept (clean.ts).
    if (given.terms !== undefined || given.status !== undefined) await this.lockTermsBeforePost(id, Object.values(given.terms ?? {}).flat());
    const cur = await this.requireRow(id, true);
    const type = this.e.registry.postType(cur.type);
    const patch = cleanPostWrite(type.config, given, actor);
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
    const sameLanguage = changes.language === undefined || changes.language === cur.language;
    if (needsUniqueSlug(status) && sameLanguage && cur.slug_lock === base) {
      // The post already holds `base` in the unique index of its type and
      // language: a claim would find it free for this post and write it back
      // unchanged (two statements on every edit of an event's text).
      await this.k(this.e.tables.posts).where({ id }).update(changes);
    } else if (needsUniqueSlug(status)) {
      // Moving to another language: the held slug must not collide there before it is claimed again.
      if (!sameLanguage) changes.slug_lock = null;
      await this.k(this.e.tables.posts).where({ id }).update(changes);
      await this.slugs.claimSlug(id, cur.type, language, base, {});
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
    const updated = (await this.loader.load([id], WITH_ALL))[0];
    const action = status === "trash" && cur.status !== "trash" ? "trashed" : "updated";
    this.e.recordChange(postChange(action, updated, cur.status as PostStatus, now, actorUserId(actor)));
    return updated;
  }

  /** Permanent delete with its meta, term relationships (counts fixed), links and typed fields. */
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

  /** Removes every link of `relation` to `toId` (in the caller's transaction, where the change log names the posts that had one). */
  async unlinkAllTo(relation: string, toId: number): Promise<void> {
    if (!isStoredId(toId)) return;
    const from = (await this.k(this.e.tables.postLinks).where({ relation, to_id: toId }).select("from_id")) as Array<{ from_id: number | string }>;
    await this.k(this.e.tables.postLinks).where({ relation, to_id: toId }).delete();
    // The linking posts no longer show it: their records changed (the change log names them).
    this.e.noteChanged("post", from.map((r) => Number(r.from_id)));
  }

  /** The stored row; `forUpdate`: locked until the transaction ends. */
  private async requireRow(id: number, forUpdate = false): Promise<PostRow> {
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
    const ahead = dateUtc === ZERO_DATE ? -Infinity : utcSqlMillis(dateUtc) - now.getTime();
    if (status === "publish" && ahead >= SCHEDULE_THRESHOLD_MS && type.statuses.has("future")) return "future";
    if (status === "future" && ahead < SCHEDULE_THRESHOLD_MS) return "publish";
    return status;
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
        throw new EngineError("invalid_type", `taxonomy ${taxName} is not registered for ${type.name}`, { taxonomy: taxName, object: "taxonomy" });
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

  /** The author of a post must exist (`object: "post"`: a post's field, not a user addressed by ID). */
  private async assertUser(id: number): Promise<void> {
    if (!isStoredId(id) || !(await this.k(this.e.tables.users).where({ id }).first("id"))) {
      throw new EngineError("invalid_user", `no user ${id}`, { id, object: "post" });
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

import { termChange } from "../hooks/journal";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { EngineContext } from "../engine-context";
import type { TermsApi } from "../engine-api";
import { isStoredId, storedIds } from "../db/ids";
import { termTag } from "../db/cache-tags";
import { noteTagsRead } from "../cache/tag-audit";
import { assertNoNul, EngineError, hasNul } from "../engine-errors";
import { sanitizeTitle, uniqueSlugCandidate } from "../format/slug";
import { cleanTermWrite } from "../posts/clean";
import type { RegisteredTaxonomy } from "../posts/registry";
import type { Actor } from "../users/actor";
import { attemptUnique, countOf, insertReturningId, likeContains, orderByList, orderByText } from "../posts/sql";
import type { Term, TermInput, TermPage, TermPatch, TermQuery } from "./types";

export interface TermRow {
  id: number;
  taxonomy: string;
  name: string;
  slug: string;
  description: string;
  parent: number;
  count: number;
  term_group: number;
  language: string;
  translation_group: number | null;
}

const MAX_SLUG_BYTES = 200;
const SLUG_BATCH = 20;
const MAX_SLUG_ATTEMPTS = 200;
/** Hierarchies deeper than this are treated as corrupt rather than walked forever. */
const MAX_DEPTH = 100;

export function rowToTerm(r: TermRow): Term {
  return {
    id: Number(r.id),
    taxonomy: r.taxonomy,
    name: r.name,
    slug: r.slug,
    description: r.description,
    parent: Number(r.parent),
    count: Number(r.count),
    termGroup: Number(r.term_group),
    language: r.language,
    translationGroup: r.translation_group === null ? null : Number(r.translation_group),
  };
}

const ORDER_COLUMNS: Record<string, string> = {
  id: "t.id",
  term_id: "t.id",
  count: "t.count",
  parent: "t.parent",
  term_group: "t.term_group",
};
/** Text columns: same order on every database (see orderByText); names case-insensitively, as WordPress on MySQL. */
const TEXT_ORDER: Record<string, string> = {
  name: "t.name",
  slug: "t.slug",
  description: "t.description",
};

/**
 * Terms of the registered taxonomies: WordPress's wp_insert_term /
 * wp_update_term / wp_delete_term rules (term_exists, unique slugs with the
 * parent-slug step, children moving up on delete) and get_terms' query
 * arguments. `count` is the number of published posts carrying the term,
 * recomputed in the transaction of every change that can affect it.
 */
export class Terms implements TermsApi {
  constructor(private readonly e: EngineContext) {}

  private get k(): Knex {
    return this.e.knex;
  }

  create(input: TermInput, actor?: Actor): Promise<Term> {
    return this.e.write((tx) => new Terms(tx).createIn(input, actor ?? null));
  }

  update(id: number, patch: TermPatch, actor?: Actor): Promise<Term> {
    return this.e.write((tx) => new Terms(tx).updateIn(id, patch, actor ?? null));
  }

  delete(id: number): Promise<Term> {
    return this.e.write((tx) => new Terms(tx).deleteIn(id));
  }

  recount(termIds: number[]): Promise<void> {
    return this.e.write((tx) => new Terms(tx).recountIn(termIds));
  }

  /** @internal */
  async createIn(input: TermInput, actor: Actor = null): Promise<Term> {
    const term = await this.insertIn(input, actor);
    this.e.recordChange(termChange("created", term, this.e.now()));
    return term;
  }

  private async insertIn(given: TermInput, actor: Actor): Promise<Term> {
    const tax = this.e.registry.taxonomy(given.taxonomy);
    // Cleaned first, as wp_insert_term's sanitize_term: the name rules and the slug see the stored name.
    const input = cleanTermWrite(tax.config, given, actor);
    const name = this.checkName(input.name);
    const language = input.language ?? (await this.e.options.defaultLanguage());
    const parent = await this.checkParent(tax, input.parent ?? 0, null);
    assertNoNul({ description: input.description });
    const askedSlug = input.slug !== undefined ? sanitizeTitle(input.slug) : "";
    const slugProvided = askedSlug !== "";
    const slug = slugProvided ? askedSlug : sanitizeTitle(name);

    // wp_insert_term: a term with the same name at the same level is refused,
    // unless the caller asked for a distinct slug that is still free.
    const nameMatch = await this.sibling(tax.name, language, parent, name, null);
    if (nameMatch) {
      const slugTaken = slugProvided && nameMatch.slug !== slug ? await this.slugHolder(tax.name, language, slug, null) : undefined;
      if (!slugProvided || nameMatch.slug === slug || slugTaken) {
        throw new EngineError("term_exists", "A term with the name provided already exists with this parent.", { term_id: Number(nameMatch.id) });
      }
    }

    const row: Omit<TermRow, "id"> = {
      taxonomy: tax.name,
      name,
      slug: "",
      description: input.description ?? "",
      parent,
      count: 0,
      term_group: 0,
      language,
      translation_group: input.translationGroup ?? null,
    };
    if (slug === "") {
      // wp_insert_term: a name that gives no slug gets the term id as slug,
      // known only after the insert; a random placeholder keeps the unique index happy meanwhile.
      const id = await insertReturningId(this.k, this.e.dialect, this.e.tables.terms, { ...row, slug: `-${randomUUID()}` });
      const final = await this.uniqueSlug(tax, language, String(id), parent, id);
      const group = row.translation_group ?? id;
      await this.k(this.e.tables.terms).where({ id }).update({ slug: final.slug, translation_group: group });
      return rowToTerm({ ...row, id, slug: final.slug, translation_group: group });
    }
    let candidate = await this.uniqueSlug(tax, language, slug, parent, null);
    for (let attempt = 0; ; attempt++) {
      const c = candidate;
      const result = await attemptUnique(this.k, this.e.dialect, (k) => insertReturningId(k, this.e.dialect, this.e.tables.terms, { ...row, slug: c.slug }));
      if (result.ok) {
        const id = result.value;
        if (row.translation_group === null) await this.k(this.e.tables.terms).where({ id }).update({ translation_group: id });
        return rowToTerm({ ...row, id, slug: c.slug, translation_group: row.translation_group ?? id });
      }
      // A concurrent insert took the slug. When that is the same term (this
      // name at this level and language, which the name check above could
      // not see yet), wp_insert_term's rule applies: term_exists with its id,
      // so a create-by-name uses it instead of making `name-2`. Otherwise
      // move on to the next number.
      const holder = await this.committedSlugHolder(tax.name, language, c.slug);
      if (holder && Number(holder.parent) === parent && holder.name.toLowerCase() === name.toLowerCase()) {
        throw new EngineError("term_exists", "A term with the name provided already exists with this parent.", { term_id: Number(holder.id) });
      }
      if (attempt >= MAX_SLUG_ATTEMPTS) throw new EngineError("slug_conflict", `no free slug for ${slug}`, { slug });
      candidate = await this.numberedFree(tax.name, language, c.root, Math.max(2, c.n + 1), null);
    }
  }

  /** @internal */
  async updateIn(id: number, given: TermPatch, actor: Actor = null): Promise<Term> {
    const cur = await this.requireRow(id);
    const tax = this.e.registry.taxonomy(cur.taxonomy);
    const patch = cleanTermWrite(tax.config, given, actor);
    const changes: Partial<TermRow> = {};
    const name = patch.name !== undefined ? this.checkName(patch.name) : cur.name;
    if (name !== cur.name) changes.name = name;
    const parent = patch.parent !== undefined ? await this.checkParent(tax, patch.parent, id) : Number(cur.parent);
    if (parent !== Number(cur.parent)) changes.parent = parent;
    const language = patch.language ?? cur.language;
    if (language !== cur.language) changes.language = language;
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.translationGroup !== undefined) changes.translation_group = patch.translationGroup ?? id;
    assertNoNul({ description: patch.description });

    if (changes.name !== undefined || changes.parent !== undefined || changes.language !== undefined) {
      const clash = await this.sibling(tax.name, language, parent, name, id);
      if (clash) throw new EngineError("term_exists", "A term with the name provided already exists with this parent.", { term_id: Number(clash.id) });
    }

    // wp_update_term: an asked-for slug that another term has is an error;
    // otherwise the slug stays (made unique again only if the language moved).
    if (patch.slug !== undefined) {
      const slug = sanitizeTitle(patch.slug) || sanitizeTitle(name) || String(id);
      if (slug !== cur.slug || changes.language !== undefined) {
        if (await this.slugHolder(tax.name, language, slug, id)) {
          throw new EngineError("duplicate_term_slug", `The slug "${slug}" is already in use by another term.`, { slug });
        }
        changes.slug = slug;
      }
    } else if (changes.language !== undefined && (await this.slugHolder(tax.name, language, cur.slug, id))) {
      changes.slug = (await this.uniqueSlug(tax, language, cur.slug, parent, id)).slug;
    }
    if (Object.keys(changes).length > 0) {
      const result = await attemptUnique(this.k, this.e.dialect, (k) => k(this.e.tables.terms).where({ id }).update(changes));
      if (!result.ok) throw new EngineError("duplicate_term_slug", `The slug "${changes.slug ?? cur.slug}" is already in use by another term.`, { slug: changes.slug ?? cur.slug });
    }
    const updated = rowToTerm({ ...cur, ...changes });
    this.e.recordChange(termChange("updated", updated, this.e.now()));
    // A term's permalink is its ancestors' slugs and its own: its descendants' changed with it.
    if (changes.slug !== undefined || changes.parent !== undefined) this.e.noteChanged("term", await this.descendantsIn(cur.taxonomy, id));
    return updated;
  }

  /** @internal */
  async deleteIn(id: number): Promise<Term> {
    const cur = await this.requireRow(id);
    // The children's parent and every descendant's permalink change (no hook, as wp_delete_term fires none for them).
    this.e.noteChanged("term", await this.descendantsIn(cur.taxonomy, id));
    // wp_delete_term: children move up to the deleted term's parent.
    await this.k(this.e.tables.terms).where({ taxonomy: cur.taxonomy, parent: id }).update({ parent: cur.parent });
    await this.k(this.e.tables.termRelationships).where({ term_id: id }).delete();
    await this.k(this.e.tables.terms).where({ id }).delete();
    const deleted = rowToTerm(cur);
    this.e.recordChange(termChange("deleted", deleted, this.e.now()));
    return deleted;
  }

  /**
   * @internal Locks the term rows until the transaction ends, in id order so
   * that two writers never wait for each other's terms in opposite orders.
   * Posts take these locks before changing relationships and `recountIn`
   * takes them again (a no-op then) before counting; see there for why.
   * PostgreSQL: FOR NO KEY UPDATE, which the foreign-key checks of
   * relationship inserts (FOR KEY SHARE) do not wait for. SQLite has one
   * writer at a time: nothing to lock.
   */
  async lockIn(termIds: number[]): Promise<number[]> {
    const ids = [...new Set(storedIds(termIds.map(Number)))].sort((a, b) => a - b);
    if (ids.length === 0 || !this.e.inTransaction || this.e.dialect.serialisesWriters) return ids;
    const q = this.k(this.e.tables.terms).whereIn("id", ids).orderBy("id").select("id");
    this.e.dialect.lockRowsKeepingKeys(q);
    await q;
    return ids;
  }

  /**
   * @internal Recomputes `count` (published posts with the term) in one
   * statement, after locking the term rows. The lock is what makes the
   * count right under PostgreSQL's READ COMMITTED: a writer that waited for
   * another's term rows counts in a new statement, whose snapshot is taken
   * after the other committed, so it sees the other's relationships too (an
   * UPDATE that merely waits for the row re-reads that row only, and its
   * count subquery keeps the old snapshot: the last writer to commit would
   * overwrite the count with one that misses the others). Every writer
   * recounts after its own relationship changes while holding the lock, so
   * the last one to commit counts everything. MariaDB's UPDATE … (SELECT)
   * reads the latest committed rows with locking reads anyway; the lock
   * there mainly orders the writers (fewer deadlocks; `engine.write`
   * retries the rest).
   */
  async recountIn(termIds: number[]): Promise<void> {
    const ids = await this.lockIn(termIds);
    if (ids.length === 0) return;
    const k = this.k;
    const counts = async (): Promise<Map<number, number>> =>
      new Map(((await k(this.e.tables.terms).whereIn("id", ids).select("id", "count")) as Array<{ id: number | string; count: number | string }>).map((r) => [Number(r.id), Number(r.count)]));
    const before = await counts();
    await k(this.e.tables.terms)
      .whereIn("id", ids)
      .update({
        count: k(`${this.e.tables.termRelationships} as tr`)
          .join(`${this.e.tables.posts} as p`, "p.id", "tr.object_id")
          .where("p.status", "publish")
          .where("tr.term_id", k.ref(`${this.e.tables.terms}.id`))
          .count("*"),
      });
    // Only a count that moved changed the term's record (a draft joining a term moves none).
    const after = await counts();
    this.e.noteChanged("term", [...after].filter(([id, count]) => before.get(id) !== count).map(([id]) => id));
  }

  /** The ids of a term's descendants, level by level (at most MAX_DEPTH levels). */
  private async descendantsIn(taxonomy: string, id: number): Promise<number[]> {
    const seen = new Set<number>([id]);
    let frontier = [id];
    for (let depth = 0; frontier.length > 0 && depth < MAX_DEPTH; depth++) {
      const children = (await this.k(this.e.tables.terms).where({ taxonomy }).whereIn("parent", frontier).select("id")) as Array<{ id: number | string }>;
      frontier = children.map((c) => Number(c.id)).filter((c) => !seen.has(c));
      for (const c of frontier) seen.add(c);
    }
    seen.delete(id);
    return [...seen];
  }

  async get(id: number): Promise<Term | undefined> {
    if (!isStoredId(id)) return undefined;
    const row: TermRow | undefined = await this.k(this.e.tables.terms).where({ id }).first();
    if (row) noteTagsRead([termTag(Number(row.id))]);
    return row ? rowToTerm(row) : undefined;
  }

  async getMany(ids: number[]): Promise<Map<number, Term>> {
    const out = new Map<number, Term>();
    const wanted = [...new Set(storedIds(ids))];
    if (wanted.length === 0) return out;
    const read = (ids: number[]): Promise<TermRow[]> => this.k(this.e.tables.terms).whereIn("id", ids).select("*");
    const cache = this.e.readCache;
    if (cache === null) {
      for (const r of await read(wanted)) out.set(Number(r.id), rowToTerm(r));
    } else {
      // A site has few terms and every list filter and record asks for some (`categories=7`): rows are shared while unchanged, each caller getting terms of its own.
      const known = await cache.shared<TermRow>("terms", wanted, termTag, async (missing) => new Map((await read(missing)).map((r) => [Number(r.id), r])));
      for (const id of wanted) {
        const row = known.get(id);
        if (row) out.set(id, rowToTerm(row));
      }
    }
    noteTagsRead([...out.keys()].map(termTag));
    return out;
  }

  /** The term of `language` with that slug, else the lowest-id one of any language (languages.md §2.4). */
  async bySlug(taxonomy: string, slug: string, language?: string): Promise<Term | undefined> {
    // No stored term holds U+0000 (engine-errors hasNul): nothing to look up.
    if (hasNul(slug)) return undefined;
    const base = (): Knex.QueryBuilder => this.k(this.e.tables.terms).where({ taxonomy, slug });
    let row: TermRow | undefined;
    if (language !== undefined) row = await base().where({ language }).orderBy("id").first();
    if (!row) row = await base().orderBy("id").first();
    if (row) noteTagsRead([termTag(Number(row.id))]);
    return row ? rowToTerm(row) : undefined;
  }

  /** Name compared case-insensitively, as WordPress's get_term_by('name') on MySQL; language preferred as bySlug. */
  async byName(taxonomy: string, name: string, parent?: number, language?: string): Promise<Term | undefined> {
    const trimmed = name.trim();
    if (hasNul(trimmed)) return undefined;
    const base = (): Knex.QueryBuilder => {
      const q = this.k(this.e.tables.terms)
        .where({ taxonomy })
        .where((b) => b.where("name", trimmed).orWhereRaw("LOWER(??) = LOWER(?)", ["name", trimmed]));
      if (parent !== undefined) q.where({ parent });
      return q;
    };
    let row: TermRow | undefined;
    if (language !== undefined) row = await base().where({ language }).orderBy("id").first();
    if (!row) row = await base().orderBy("id").first();
    return row ? rowToTerm(row) : undefined;
  }

  async find(query: TermQuery): Promise<TermPage> {
    const k = this.k;
    this.e.registry.taxonomy(query.taxonomy);
    const qb = k(`${this.e.tables.terms} as t`).where("t.taxonomy", query.taxonomy);
    // Ids past the column range can match nothing (db/ids.ts); an `include` of only such ids is `IN ()`, i.e. 1 = 0.
    if (query.include) qb.whereIn("t.id", storedIds(query.include));
    const excluded = storedIds(query.exclude ?? []);
    if (excluded.length > 0) qb.whereNotIn("t.id", excluded);
    // No stored term holds U+0000 and PostgreSQL cannot compare with it (engine-errors hasNul).
    if (query.search !== undefined && hasNul(query.search)) qb.whereRaw("1 = 0");
    else if (query.search !== undefined && query.search !== "") {
      const s = query.search;
      qb.where((b) => b.where(likeContains(k, "t.name", s)).orWhere(likeContains(k, "t.slug", s)));
    }
    if (query.slug) qb.whereIn("t.slug", query.slug);
    if (query.name) qb.whereIn("t.name", query.name);
    if (query.parent !== undefined) qb.where("t.parent", query.parent);
    if (query.post !== undefined) {
      const post = query.post;
      if (isStoredId(post)) qb.join(`${this.e.tables.termRelationships} as tr`, (j) => j.on("tr.term_id", "=", "t.id").andOnVal("tr.object_id", "=", post));
      else qb.whereRaw("1 = 0");
    }
    if (query.hideEmpty) qb.where("t.count", ">", 0);
    if (query.language !== undefined) qb.where("t.language", query.language);

    const rowsQb = qb.clone().select("t.*");
    const dir: "asc" | "desc" = query.order === "desc" ? "desc" : "asc";
    // The terms of one post come in assignment order unless another order is asked for.
    const orderBy = query.orderBy ?? (query.post !== undefined ? "term_order" : "name");
    if (orderBy === "include") {
      const [sql, bindings] = orderByList("t.id", query.include ?? [], dir);
      rowsQb.orderByRaw(sql, bindings);
    } else if (orderBy === "slug__in") {
      const [sql, bindings] = orderByList("t.slug", query.slug ?? [], dir);
      rowsQb.orderByRaw(sql, bindings);
    } else if (orderBy === "term_order" && query.post !== undefined) {
      rowsQb.orderBy("tr.term_order", dir);
    } else if (TEXT_ORDER[orderBy]) {
      orderByText(rowsQb, this.e.dialect, TEXT_ORDER[orderBy], dir, orderBy !== "slug");
    } else if (ORDER_COLUMNS[orderBy]) {
      rowsQb.orderBy(ORDER_COLUMNS[orderBy], dir);
    }
    // `none` (and term_order without a post) still get the id order: the three databases disagree otherwise.
    rowsQb.orderBy("t.id", dir);
    const page = Math.max(1, Math.trunc(query.page ?? 1));
    const perPage = query.perPage ?? 0;
    const skipped = query.offset !== undefined ? Math.max(0, Math.trunc(query.offset)) : (page - 1) * perPage;
    if (perPage > 0) rowsQb.limit(perPage).offset(skipped);
    const rows: TermRow[] = await rowsQb;
    let total: number;
    if (query.noTotal) total = -1;
    else if (perPage <= 0) total = rows.length;
    else if (rows.length > 0 && rows.length < perPage) total = skipped + rows.length;
    else {
      const countQb = qb.clone().count({ n: "*" }).first();
      const cache = this.e.readCache;
      total = cache ? await cache.count(countQb, async () => countOf(await countQb)) : countOf(await countQb);
    }
    return { terms: rows.map(rowToTerm), total };
  }

  async ancestors(id: number): Promise<Term[]> {
    const chain: Term[] = [];
    const seen = new Set<number>();
    let cursor = await this.get(id);
    while (cursor && !seen.has(cursor.id) && chain.length < MAX_DEPTH) {
      chain.unshift(cursor);
      seen.add(cursor.id);
      cursor = cursor.parent !== 0 ? await this.get(cursor.parent) : undefined;
    }
    return chain;
  }

  /**
   * For each given id (in order): the id, plus its translation group when
   * `translations`, plus the descendants of all of those when `children`.
   * Ids that are not terms of the taxonomy give an empty group. One query per
   * hierarchy level, not per term.
   */
  async expandTermIds(
    taxonomy: string,
    ids: number[],
    opts: { translations?: boolean; children?: boolean; remember?: <T>(query: Knex.QueryBuilder, compute: () => Promise<T>, size: (value: T) => number) => Promise<T> },
  ): Promise<number[][]> {
    if (ids.length === 0) return [];
    // An id past the column range is no term: its group stays empty (db/ids.ts).
    const stored = storedIds(ids);
    if (stored.length === 0) return ids.map(() => []);
    const k = this.k;
    // The given terms and, for translations, every term of their groups: one statement.
    const groupsQb = k(this.e.tables.terms)
      .where({ taxonomy })
      .where((b) => {
        b.whereIn("id", stored);
        if (opts.translations) {
          b.orWhereIn("translation_group", k(this.e.tables.terms).select("translation_group").where({ taxonomy }).whereIn("id", stored).whereNotNull("translation_group"));
        }
      })
      .select("id", "translation_group");
    type GroupRow = { id: number; translation_group: number | null };
    // Through the caller's read cache when it has one (a post query: the rows are shared and read-only).
    const read = async (): Promise<GroupRow[]> => (await groupsQb) as GroupRow[];
    const rows = opts.remember ? await opts.remember(groupsQb, read, (r) => r.length) : await read();
    const given = new Set(ids);
    const known = new Map(
      rows.filter((r) => given.has(Number(r.id))).map((r) => [Number(r.id), r.translation_group === null ? null : Number(r.translation_group)]),
    );
    const groups: Array<Set<number>> = ids.map((id) => new Set(known.has(id) ? [id] : []));
    if (opts.translations) {
      const tgs = new Set([...known.values()].filter((g): g is number => g !== null));
      if (tgs.size > 0) {
        const members = rows.filter((r) => r.translation_group !== null && tgs.has(Number(r.translation_group)));
        ids.forEach((id, i) => {
          const g = known.get(id);
          if (g === undefined || g === null) return;
          for (const m of members) if (Number(m.translation_group) === g) groups[i].add(Number(m.id));
        });
      }
    }
    if (opts.children) {
      // owners: term id → indices of the groups it belongs to
      const owners = new Map<number, Set<number>>();
      groups.forEach((g, i) => g.forEach((t) => (owners.get(t) ?? owners.set(t, new Set()).get(t)!).add(i)));
      let frontier = [...owners.keys()];
      for (let depth = 0; frontier.length > 0 && depth < MAX_DEPTH; depth++) {
        const children: Array<{ id: number; parent: number }> = await k(this.e.tables.terms).where({ taxonomy }).whereIn("parent", frontier).select("id", "parent");
        const next: number[] = [];
        for (const c of children) {
          const cid = Number(c.id);
          const parentOwners = owners.get(Number(c.parent)) ?? new Set<number>();
          const mine = owners.get(cid) ?? new Set<number>();
          const before = mine.size;
          parentOwners.forEach((i) => mine.add(i));
          if (!owners.has(cid)) owners.set(cid, mine);
          if (mine.size > before) next.push(cid);
        }
        frontier = next;
      }
      owners.forEach((idx, t) => idx.forEach((i) => groups[i].add(t)));
    }
    return groups.map((g) => [...g]);
  }

  // ------------------------------------------------------------------ helpers

  private async requireRow(id: number): Promise<TermRow> {
    const row: TermRow | undefined = isStoredId(id) ? await this.k(this.e.tables.terms).where({ id }).first() : undefined;
    if (!row) throw new EngineError("not_found", `no term ${id}`, { id, object: "term" });
    return row;
  }

  private checkName(raw: string): string {
    const name = raw.trim();
    assertNoNul({ name });
    if (name === "") throw new EngineError("invalid_input", "A name is required for this term.", { field: "name" });
    if ([...name].length > 200) throw new EngineError("invalid_input", "A term name may have at most 200 characters.", { field: "name" });
    return name;
  }

  /** The parent must be a term of the same (hierarchical) taxonomy and, on update, not the term or a descendant of it. */
  private async checkParent(tax: RegisteredTaxonomy, parent: number, self: number | null): Promise<number> {
    if (!parent) return 0;
    if (!tax.config.hierarchical) throw new EngineError("invalid_parent", `${tax.name} is not hierarchical`, { parent, object: "term" });
    if (!isStoredId(parent)) throw new EngineError("invalid_parent", `no ${tax.name} term ${parent}`, { parent, object: "term" });
    let cursor = parent;
    for (let depth = 0; cursor !== 0; depth++) {
      if (self !== null && cursor === self) throw new EngineError("invalid_parent", "A term cannot be its own ancestor.", { parent, object: "term" });
      const row: { parent: number; taxonomy: string } | undefined = await this.k(this.e.tables.terms).where({ id: cursor }).first("parent", "taxonomy");
      if (!row || row.taxonomy !== tax.name) {
        if (cursor === parent) throw new EngineError("invalid_parent", `no ${tax.name} term ${parent}`, { parent, object: "term" });
        break;
      }
      if (depth > MAX_DEPTH) break;
      cursor = Number(row.parent);
    }
    return parent;
  }

  /** Another term with that name (case-insensitive) under the same parent and language. */
  private async sibling(taxonomy: string, language: string, parent: number, name: string, exclude: number | null): Promise<TermRow | undefined> {
    const q = this.k(this.e.tables.terms)
      .where({ taxonomy, language, parent })
      .where((b) => b.where("name", name).orWhereRaw("LOWER(??) = LOWER(?)", ["name", name]))
      .orderBy("id");
    if (exclude !== null) q.whereNot("id", exclude);
    const rows: TermRow[] = await q.select("*");
    return rows.find((r) => r.name.toLowerCase() === name.toLowerCase());
  }

  /**
   * The term holding a slug, read after an insert collided with it: the row
   * a concurrent transaction has just committed. PostgreSQL's READ COMMITTED
   * shows it to a new statement; MariaDB's REPEATABLE READ would answer from
   * this transaction's older snapshot, so there it is a locking read, which
   * sees the latest committed row.
   */
  private async committedSlugHolder(taxonomy: string, language: string, slug: string): Promise<TermRow | undefined> {
    const q = this.k(this.e.tables.terms).where({ taxonomy, language, slug });
    if (this.e.inTransaction) this.e.dialect.readLatestCommitted(q);
    const row: TermRow | undefined = await q.first();
    return row;
  }

  private async slugHolder(taxonomy: string, language: string, slug: string, exclude: number | null): Promise<number | undefined> {
    const q = this.k(this.e.tables.terms).where({ taxonomy, language, slug });
    if (exclude !== null) q.whereNot("id", exclude);
    const row: { id: number } | undefined = await q.first("id");
    return row ? Number(row.id) : undefined;
  }

  /**
   * wp_unique_term_slug: the slug if free; for a child term, then the slug
   * with its ancestors' slugs appended one by one (`jazz-music`,
   * `jazz-music-arts`); then that with `-2`, `-3`, …
   */
  private async uniqueSlug(tax: RegisteredTaxonomy, language: string, slug: string, parent: number, exclude: number | null): Promise<{ slug: string; root: string; n: number }> {
    if (!(await this.slugHolder(tax.name, language, slug, exclude))) return { slug, root: slug, n: 1 };
    let root = slug;
    if (tax.config.hierarchical && parent) {
      let cursor = parent;
      for (let depth = 0; cursor !== 0 && depth < MAX_DEPTH; depth++) {
        const p: TermRow | undefined = await this.k(this.e.tables.terms).where({ id: cursor }).first();
        if (!p) break;
        const extended = `${root}-${p.slug}`;
        if (Buffer.byteLength(extended) > MAX_SLUG_BYTES) break;
        root = extended;
        if (!(await this.slugHolder(tax.name, language, root, exclude))) return { slug: root, root, n: 1 };
        cursor = Number(p.parent);
      }
    }
    return this.numberedFree(tax.name, language, root, 2, exclude);
  }

  private async numberedFree(taxonomy: string, language: string, root: string, from: number, exclude: number | null): Promise<{ slug: string; root: string; n: number }> {
    for (let start = from; ; start += SLUG_BATCH) {
      const candidates: Array<{ slug: string; n: number }> = [];
      for (let n = start; n < start + SLUG_BATCH; n++) candidates.push({ slug: uniqueSlugCandidate(root, n), n });
      const q = this.k(this.e.tables.terms).where({ taxonomy, language }).whereIn(
        "slug",
        candidates.map((c) => c.slug),
      );
      if (exclude !== null) q.whereNot("id", exclude);
      const taken = new Set<string>(await q.pluck("slug"));
      const free = candidates.find((c) => !taken.has(c.slug));
      if (free) return { slug: free.slug, root, n: free.n };
    }
  }
}

import type { Knex } from "knex";
import type { Dialect } from "./db/dialects";
import type { Tables } from "./db/tables";
import type { CurrentUser, RoleName } from "./users/types";
import type { Actor } from "./users/actor";
import type { LoadedPost, Occurrence, OccurrenceInput, Post, PostInput, PostPage, PostPatch, PostQuery, PostTypeConfig } from "./posts/types";
import type { ChangeLogPage } from "./hooks/change-log";
import type { Term, TermInput, TermPage, TermPatch, TermQuery, TaxonomyConfig } from "./taxonomy/types";

/**
 * The posts-and-taxonomies engine as plugins, routes and host applications
 * see it. Every operation runs on the engine's knex handle; `transaction`
 * hands out an engine bound to one transaction, so a multi-step write
 * (an event with a new venue and new terms) commits or rolls back whole.
 */
export interface EngineApi {
  readonly knex: Knex;
  /** What the database can do (lib/db/dialects/types.ts); code outside lib/db asks it rather than compare database names. */
  readonly dialect: Dialect;
  /** The names of calpress's tables (table prefix, PostgreSQL schema): `engine.knex(engine.tables.posts)`. */
  readonly tables: Tables;

  registerPostType(name: string, config: PostTypeConfig): void;
  postType(name: string): PostTypeConfig | undefined;
  /** The registered post types' names, in registration order. */
  postTypeNames(): string[];
  registerTaxonomy(name: string, config: TaxonomyConfig): void;
  taxonomy(name: string): TaxonomyConfig | undefined;
  /** The registered taxonomies' names, in registration order. */
  taxonomyNames(): string[];
  /** Creates core tables and the typed-field tables of registered post types; idempotent. */
  migrate(): Promise<void>;
  transaction<T>(work: (tx: EngineApi) => Promise<T>): Promise<T>;
  /**
   * Like `transaction`, but run again from the start when the database reports
   * a deadlock or a busy file (concurrent writers on MariaDB, several processes
   * on SQLite). For work that only touches the database through `tx`.
   */
  write<T>(work: (tx: EngineApi) => Promise<T>): Promise<T>;

  /**
   * The change log (lib/hooks/change-log.ts): what committed writes changed
   * after number `since`, in commit order, at most `limit` rows (0: none, only the counter), with the
   * last number committed (`head`) and the last number pruned.
   */
  readChanges(since: number, limit: number): Promise<ChangeLogPage>;

  readonly options: OptionsApi;
  readonly users: UsersApi;
  readonly posts: PostsApi;
  readonly terms: TermsApi;
  /** Dated instances of repeating posts (lib/posts/occurrences.ts). */
  readonly occurrences: OccurrencesApi;
}

export interface OccurrencesApi {
  /** The post's instances, first to last. */
  list(postId: number): Promise<Occurrence[]>;
  /** Instances by their row ids (not their shown ids), those that exist. */
  getMany(rowIds: readonly number[]): Promise<Map<number, Occurrence>>;
  /**
   * Makes these the post's instances: rows of keys that stay keep their ids. A post with instances repeats; one
   * given none repeats only with `repeats: true` (a series whose every instance is cancelled or detached): it is
   * then listed nowhere as itself by lists of instances (PostQuery.occurrences), though read by id as ever.
   */
  replace(postId: number, instances: readonly OccurrenceInput[], opts?: { repeats?: boolean }): Promise<void>;
  /** How many instances the posts of `author` have, those of `exceptPostId` left out (for a per-author bound). */
  countByAuthor(author: number, exceptPostId: number): Promise<number>;
}

export interface OptionsApi {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /** Site time zone (IANA name, `UTC`, or `UTC+N`); default `UTC`. */
  timezone(): Promise<string>;
  defaultLanguage(): Promise<string>;
  postsPerPage(): Promise<number>;
}

export interface UserRecord {
  id: number;
  login: string;
  email: string;
  displayName: string;
  role: RoleName;
  registered: string;
}

/** What `users.find` looks for; every condition narrows. */
export interface UserQuery {
  /** Users with one of these roles (`[]`: none). */
  roles?: RoleName[];
  /** These ids only. */
  include?: number[];
  /** A column of `searchColumns` contains the text, case-insensitive (WordPress's `*text*` search). */
  search?: string;
  /** Default: login and display name (WordPress searches e-mails only for users who may list users). */
  searchColumns?: Array<"login" | "email" | "display_name">;
  /** From 1 (default 1). */
  page?: number;
  /** 0 or absent: every match. */
  perPage?: number;
}

/** A page of users, ordered by display name (case-insensitive), then id; `total` counts every page. */
export interface UserPage {
  users: UserRecord[];
  total: number;
}

export interface AppPasswordRecord {
  uuid: string;
  name: string;
  created: string;
  lastUsed: string | null;
}

export interface UsersApi {
  create(input: { login: string; role: RoleName; email?: string; displayName?: string; password?: string }): Promise<UserRecord>;
  /** Creates the user or changes its role; used by `--user` and fixtures. */
  ensure(input: { login: string; role: RoleName; email?: string; displayName?: string }): Promise<UserRecord>;
  get(id: number): Promise<UserRecord | undefined>;
  getMany(ids: number[]): Promise<Map<number, UserRecord>>;
  find(query: UserQuery): Promise<UserPage>;
  /**
   * The primitive capabilities the user has among those the site knows
   * (every role's, for the registered post types), sorted: WordPress's
   * `allcaps` without the role name. Asked of `user.can`, so a host's own
   * CurrentUser answers for itself.
   */
  capabilitiesOf(user: CurrentUser): string[];
  /** The roles that have a primitive capability, in ROLE_NAMES order (WordPress's role table, for the registered post types). */
  rolesWith(capability: string): RoleName[];
  byLogin(loginOrEmail: string): Promise<UserRecord | undefined>;
  /** Adds an application password; `secret` given for development/tests, else generated. Returns the plain secret once. */
  addAppPassword(userId: number, name: string, secret?: string): Promise<{ record: AppPasswordRecord; secret: string }>;
  listAppPasswords(userId: number): Promise<AppPasswordRecord[]>;
  /** Checks login (or e-mail) + application password. */
  verifyAppPassword(login: string, secret: string, ip?: string): Promise<{ ok: true; user: CurrentUser } | { ok: false; reason: "invalid_username" | "invalid_email" | "incorrect_password" }>;
  /** The CurrentUser (with capabilities for every registered post type/taxonomy) of a stored user. */
  currentUser(record: UserRecord): CurrentUser;
  setRole(userId: number, role: RoleName): Promise<void>;
  deleteAppPassword(userId: number, uuid: string): Promise<boolean>;
}

export interface PostsApi {
  /**
   * Writes clean every text by the kind the type declares (lib/posts/clean.ts),
   * for `actor`: a user (HTML kept only with `unfiltered_html`), `null` for
   * nobody signed in (HTML cleaned), or `OPERATOR` for the site's own content
   * (HTML kept). The actor is also who the change is recorded for.
   */
  create(input: PostInput, actor?: Actor): Promise<LoadedPost>;
  update(id: number, patch: PostPatch, actor?: Actor): Promise<LoadedPost>;
  /**
   * `likelyTypes`: the post types the caller expects, a hint that makes the read cheaper (any type is still read whole).
   * An instance id (lib/posts/occurrences.ts) reads the post as seen at that instance (`LoadedPost.occurrence`).
   */
  get(id: number, withRel?: PostQuery["with"], likelyTypes?: readonly string[]): Promise<LoadedPost | undefined>;
  getMany(ids: number[], withRel?: PostQuery["with"], likelyTypes?: readonly string[]): Promise<Map<number, LoadedPost>>;
  /**
   * Posts by id without relations, shared between requests while the
   * database is unchanged (where the engine can tell; else a plain read).
   * The posts are shared: read-only.
   */
  getShared(ids: number[], likelyTypes?: readonly string[]): Promise<Map<number, LoadedPost>>;
  /** Every post id in the translation groups of these ids (the ids included). */
  translationsOf(ids: number[]): Promise<number[]>;
  /** Publishes `future` posts whose time has come (there is no cron); returns their ids. */
  publishDue(): Promise<number[]>;
  /** Lowest id among posts of the type with that slug (any status but trash), preferring `language`. */
  getBySlug(type: string, slug: string, opts?: { language?: string; withRel?: PostQuery["with"] }): Promise<LoadedPost | undefined>;
  find(query: PostQuery): Promise<PostPage>;
  /** `find`'s page as ids in order, and its total, without loading the posts (for records kept elsewhere). */
  findIds(query: PostQuery): Promise<{ ids: number[]; total: number }>;
  count(query: PostQuery): Promise<number>;
  /** Moves to the trash, remembering the status; slug gets `__trashed`. */
  trash(id: number): Promise<LoadedPost>;
  untrash(id: number): Promise<LoadedPost>;
  /** Permanent delete with its meta, term relationships (counts fixed) and links. */
  delete(id: number): Promise<void>;
  getMeta(id: number): Promise<Record<string, string>>;
  /** Ids that link to `toId` through `relation` (e.g. events using a venue). */
  linkedFrom(relation: string, toIds: number[]): Promise<Map<number, number[]>>;
  /** Removes every link to `toId` (a trashed venue leaves its events). */
  unlinkAllTo(relation: string, toId: number): Promise<void>;
  /** Whether a post is visible to the user as a single record (status + capability). */
  canRead(post: Post, user: CurrentUser | null): boolean;
}

export interface TermsApi {
  /** The name and description are cleaned by the kinds the taxonomy declares, for `actor` (as `PostsApi.create`). */
  create(input: TermInput, actor?: Actor): Promise<Term>;
  update(id: number, patch: TermPatch, actor?: Actor): Promise<Term>;
  get(id: number): Promise<Term | undefined>;
  getMany(ids: number[]): Promise<Map<number, Term>>;
  bySlug(taxonomy: string, slug: string, language?: string): Promise<Term | undefined>;
  byName(taxonomy: string, name: string, parent?: number, language?: string): Promise<Term | undefined>;
  find(query: TermQuery): Promise<TermPage>;
  /** Children move up to the deleted term's parent; relationships removed; counts fixed. */
  delete(id: number): Promise<Term>;
  /** Ancestors first → the term (for category URLs). */
  ancestors(id: number): Promise<Term[]>;
  /** Recomputes counts of the given terms from published posts. */
  recount(termIds: number[]): Promise<void>;
}

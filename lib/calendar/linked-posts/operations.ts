import { DateTime } from "luxon";
import type { EngineApi } from "../../engine-api";
import { lockNames } from "../../db/name-lock";
import { isEngineError } from "../../engine-errors";
import { sanitizePostHtml } from "../../format/sanitize";
import { parseApiDate } from "../../dates/strtotime";
import { toMysql, zoneForLuxon } from "../../dates/format";
import type { FetchOptions } from "../../net/safe-fetch";
import { postTypeCaps, type PostTypeCaps } from "../../posts/registry";
import type { FieldValue, LoadedPost, PostInput, PostPatch, PostStatus } from "../../posts/types";
import { RestError } from "../../routes/errors";
import type { CurrentUser } from "../../users/types";
import { isTruthyFlag } from "../common/args";
import { ORGANIZER_LINK, VENUE_LINK } from "../post-types";
import { cleanLinkedField, failureCode, linkedKind, type LinkedKindConfig, type LinkedPostKind } from "./kinds";
import { applyImagePlan, planImage, type ImagePlan } from "./image";
import { findDataProblem, isPlainData, isPostStatus } from "./validate";
import { checkAuthorAssignment } from "../common/author";

/**
 * The venue and organizer operations (calendar-api.md §5): create with the
 * duplicate rule, update, trash. Routes and the events code call these; the
 * same operation serves `POST /venues` and a venue created inline with an
 * event, so both follow one set of rules.
 */

export interface LinkedPostContext {
  user: CurrentUser | null;
  /** The request's effective language L (languages.md §2.2): new records get it, duplicates are looked for in it. */
  language: string;
  /** The policy of image URL checks (`createSite({ fetch })`); default: public hosts only. */
  fetch?: FetchOptions;
}

/** Extra knobs for the routes; the events code needs none of them. */
export interface LinkedPostWriteOptions {
  /**
   * Where validation failures are reported in `data.params`: under the field
   * that failed (`"field"`, the venue/organizer routes) or under one
   * parameter name (default: the kind, i.e. `params.venue` of an event write).
   */
  reportUnder?: "field" | string;
}

const WITH_ALL = { meta: true, terms: true, links: true } as const;

/** The event → venue/organizer link relation of a kind. */
export function linkRelation(kind: LinkedPostKind): string {
  return kind === "venue" ? VENUE_LINK : ORGANIZER_LINK;
}

export function kindCaps(engine: EngineApi, kind: LinkedPostKind): PostTypeCaps {
  const config = engine.postType(linkedKind(kind).postType);
  return postTypeCaps(config?.capabilityType ?? ["post", "posts"]);
}

/** A validation failure of one field, reported as `rest_invalid_param`. */
class FieldProblem extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function invalidParam(param: string, message: string): RestError {
  return new RestError("rest_invalid_param", `Invalid parameter(s): ${param}`, 400, { params: { [param]: message }, details: [] });
}

function toRestError(problem: FieldProblem, kind: LinkedPostKind, options: LinkedPostWriteOptions): RestError {
  const under = options.reportUnder ?? kind;
  if (under === "field") return invalidParam(problem.field, problem.message);
  return invalidParam(under, `${problem.field}: ${problem.message}`);
}

/** What a create or update writes, computed before any transaction opens. */
interface PreparedWrite {
  title?: string;
  content?: string;
  /** The description as sent, for the duplicate rule's comparison. */
  rawDescription?: string;
  status?: PostStatus;
  author?: number;
  dateLocal?: string;
  dateUtc?: string;
  /** Typed fields that were sent (or reset), by column. */
  fields: Record<string, FieldValue>;
  image: ImagePlan;
}

function sent(data: Record<string, unknown>, name: string): boolean {
  return data[name] !== undefined && data[name] !== null;
}

/**
 * Status scaling (calendar-api.md §4.3, same for venues and organizers):
 * users who may publish get what they ask for, default `publish`; others get
 * `pending` instead of `publish`/`future`, default `draft`.
 */
export function scaleStatus(requested: PostStatus | undefined, user: CurrentUser | null, caps: PostTypeCaps): PostStatus {
  if (user?.can(caps.publish_posts)) return requested ?? "publish";
  if (requested === undefined) return "draft";
  return requested === "publish" || requested === "future" ? "pending" : requested;
}

/** `date` is a site-time wall clock, `date_utc` a UTC one (calendar-api.md §5.3). */
async function wallClock(engine: EngineApi, value: unknown, utc: boolean): Promise<string> {
  const zone = utc ? "UTC" : zoneForLuxon(await engine.options.timezone());
  const dt = parseApiDate(typeof value === "number" ? value : String(value), { zone });
  if (!dt) throw new FieldProblem(utc ? "date_utc" : "date", "Invalid date.");
  return toMysql(dt.setZone(zone) as DateTime);
}

async function prepareWrite(
  engine: EngineApi,
  k: LinkedKindConfig,
  data: Record<string, unknown>,
  ctx: LinkedPostContext,
  mode: "create" | "update",
): Promise<PreparedWrite> {
  const out: PreparedWrite = { fields: {}, image: { action: "none" } };
  const user = ctx.user;
  const unfiltered = user?.can("unfiltered_html") === true;
  // Every text member through the kind's sanitiser (kinds.ts), on create and update alike.
  const clean = (field: string, value: unknown): string => cleanLinkedField(k.kind, field, String(value), unfiltered);
  if (sent(data, k.nameField)) out.title = clean(k.nameField, data[k.nameField]);
  if (sent(data, "description")) {
    out.rawDescription = String(data.description);
    out.content = clean("description", data.description);
  }
  const requested = sent(data, "status") && isPostStatus(String(data.status)) ? (String(data.status) as PostStatus) : undefined;
  out.status = scaleStatus(requested, user, kindCaps(engine, k.kind));
  if (sent(data, "author")) out.author = Number(data.author);
  if (sent(data, "date")) out.dateLocal = await wallClock(engine, data.date, false);
  if (sent(data, "date_utc")) out.dateUtc = await wallClock(engine, data.date_utc, true);

  for (const flag of k.flagFields) {
    if (sent(data, flag)) out.fields[flag] = isTruthyFlag(data[flag]);
    // The original's update resets an omitted show_map/show_map_link to true
    // (calendar-api.md §5.4, match); on create an omitted one is not stored
    // and the record shows true.
    else if (mode === "update") out.fields[flag] = true;
  }
  for (const field of k.stringFields) {
    if (!sent(data, field)) continue;
    const stored = clean(field, data[field]);
    // `""` clears the field; it is then omitted from the record.
    out.fields[field] = stored === "" ? null : stored;
  }
  if (k.geo && (sent(data, "geo_lat") || sent(data, "geo_lng"))) {
    out.fields.geo_lat = data.geo_lat === "" || !sent(data, "geo_lat") ? null : Number(data.geo_lat);
    out.fields.geo_lng = data.geo_lng === "" || !sent(data, "geo_lng") ? null : Number(data.geo_lng);
  }
  if (sent(data, "image")) {
    const planned = await planImage(engine, data.image, user, ctx.fetch);
    if ("error" in planned) throw new FieldProblem("image", planned.error);
    out.image = planned.plan;
  }
  return out;
}

/** Meta of a write (everything but name, description, status, author and dates), as the duplicate rule copies it. */
function metaPatch(prepared: PreparedWrite, k: LinkedKindConfig, sentData: Record<string, unknown>): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  for (const [name, value] of Object.entries(prepared.fields)) {
    // Flags reset on update only; here only what was sent is written.
    if (k.flagFields.includes(name) && !sent(sentData, name)) continue;
    fields[name] = value;
  }
  return fields;
}

function normalisedText(s: string): string {
  return s.trim().toLowerCase();
}

/** How much of a name the duplicate rule's SQL pattern spells out (at most 2,000 bytes with escapes). */
const DUPLICATE_PREFIX_CHARS = 1000;

/**
 * The duplicate rule (calendar-api.md §5.3): a non-trashed record of the
 * kind, in language L, whose name equals the new one case-insensitively and,
 * when a non-empty description is sent, whose description equals it too.
 *
 * calpress decision: only records the user may read are candidates, so the
 * rule never hands out (or, through the response, shows) a draft or private
 * record of someone else; the original does not check.
 *
 * The name is matched in SQL with LOWER() … LIKE, with every non-ASCII
 * character as a one-character wildcard (SQLite's LOWER() folds ASCII only),
 * and the candidates are then compared exactly in JavaScript.
 */
export async function findDuplicate(
  engine: EngineApi,
  kind: LinkedPostKind,
  name: string,
  description: string | undefined,
  ctx: LinkedPostContext,
): Promise<LoadedPost | undefined> {
  const k = linkedKind(kind);
  const wanted = normalisedText(name);
  if (wanted === "") return undefined;
  const chars = [...wanted];
  // SQLite refuses LIKE patterns over 50,000 bytes ("pattern too complex")
  // and names are unbounded: a long name is narrowed by its first
  // DUPLICATE_PREFIX_CHARS characters only (then `%`); the exact comparison
  // below decides either way.
  const head = chars.slice(0, DUPLICATE_PREFIX_CHARS).map((c) => (c.charCodeAt(0) > 127 ? "_" : /[!%_]/.test(c) ? `!${c}` : c));
  const pattern = head.join("") + (chars.length > DUPLICATE_PREFIX_CHARS ? "%" : "");
  const rows: Array<{ id: number | string; title: string; content: string }> = await engine
    .knex(engine.tables.posts)
    .where({ type: k.postType, language: ctx.language })
    .whereNot("status", "trash")
    .whereRaw("LOWER(title) LIKE ? ESCAPE '!'", [pattern])
    .orderBy("id", "asc")
    .select("id", "title", "content");
  const sentDescription = description !== undefined && description.trim() !== "" ? description : undefined;
  for (const row of rows) {
    if (normalisedText(row.title) !== wanted) continue;
    if (sentDescription !== undefined) {
      const stored = normalisedText(row.content ?? "");
      // The stored text may be the sent one or its kses-filtered form.
      const candidates = [normalisedText(sentDescription), normalisedText(sanitizePostHtml(sentDescription))];
      if (!candidates.includes(stored)) continue;
    }
    const post = await engine.posts.get(Number(row.id), WITH_ALL);
    if (post && engine.posts.canRead(post, ctx.user)) return post;
  }
  return undefined;
}

/**
 * Locks the names the duplicate rule will look for (kind, language L,
 * lower-cased trimmed name, as `findDuplicate` compares them) until the
 * transaction ends: without it, parallel creates of one name on PostgreSQL
 * and MariaDB each find nothing and each create a record. A per-name lock
 * (lib/db/name-lock.ts) rather than a table lock, so creates of other names
 * and all other writes go on in parallel.
 *
 * `createLinkedPost` takes its own name's lock. A write that creates venues
 * or organizers inline (an event) should call this first in its
 * transaction, before any read: on MariaDB the transaction's snapshot starts
 * at its first plain read, and a snapshot from before the lock would not
 * show the record the previous holder of the lock created.
 */
export async function lockLinkedPostNames(
  tx: EngineApi,
  items: ReadonlyArray<{ kind: LinkedPostKind; data: Record<string, unknown> }>,
  language: string,
): Promise<void> {
  const parts = linkedPostLockParts(items, language);
  if (parts.length > 0) await lockNames(tx, parts);
}

/** The lock keys of `lockLinkedPostNames`, for a caller that takes them together with others (one sorted `lockNames`). */
export function linkedPostLockParts(items: ReadonlyArray<{ kind: LinkedPostKind; data: Record<string, unknown> }>, language: string): string[][] {
  const parts: string[][] = [];
  for (const { kind, data } of items) {
    const k = linkedKind(kind);
    // The name as it will be stored (text for everyone, so the user does not matter), as findDuplicate compares it.
    const name = sent(data, k.nameField) ? normalisedText(cleanLinkedField(kind, k.nameField, String(data[k.nameField]), false)) : "";
    if (name !== "") parts.push([k.postType, language, name]);
  }
  return parts;
}

function storageProblem(err: unknown): FieldProblem | undefined {
  if (isEngineError(err, "invalid_user")) return new FieldProblem("author", "The author must be the ID of an existing user.");
  if (isEngineError(err, "invalid_status")) return new FieldProblem("status", "The status is not allowed.");
  if (isEngineError(err, "invalid_date")) return new FieldProblem("date", "Invalid date.");
  if (isEngineError(err, "invalid_field")) {
    const field = typeof err.data?.field === "string" ? err.data.field : "data";
    return new FieldProblem(field, err.message);
  }
  return undefined;
}

export interface CreateResult {
  post: LoadedPost;
  /** True when the duplicate rule answered with an existing record. */
  reused: boolean;
}

/**
 * Creates a venue or organizer from request data, or answers with the
 * existing one the duplicate rule finds (then writing the sent meta onto
 * it). The caller has checked the data (route args, or
 * `validateLinkedPostData`); it is checked again here for callers that did
 * not. Runs in `engine`'s transaction when it is transaction-bound, else in
 * its own.
 */
export async function createLinkedPost(
  engine: EngineApi,
  kind: LinkedPostKind,
  data: Record<string, unknown>,
  ctx: LinkedPostContext,
  options: LinkedPostWriteOptions = {},
): Promise<CreateResult> {
  const k = linkedKind(kind);
  if (!isPlainData(data)) {
    throw new RestError(failureCode(kind, "create"), `Could not create the ${kind}: no ${kind} data was given.`, 400);
  }
  const problem = await findDataProblem(kind, data, engine);
  if (problem !== null) throw toRestError(new FieldProblem(problem.field, problem.message), kind, options);
  // Also for a venue or organizer created inline with an event: the same record, the same rule.
  checkAuthorAssignment(data.author, ctx.user, kindCaps(engine, kind), "create");
  let prepared: PreparedWrite;
  try {
    prepared = await prepareWrite(engine, k, data, ctx, "create");
  } catch (err) {
    if (err instanceof FieldProblem) throw toRestError(err, kind, options);
    throw err;
  }
  const title = prepared.title ?? "";
  const caps = kindCaps(engine, kind);
  try {
    return await engine.write(async (tx) => {
      // The duplicate rule's find-then-create, atomic: concurrent creates of
      // one name wait for each other here (see lockLinkedPostNames).
      await lockLinkedPostNames(tx, [{ kind, data }], ctx.language);
      const duplicate = await findDuplicate(tx, kind, title, prepared.rawDescription, ctx);
      if (duplicate) {
        // calpress decision: the sent meta is written only when the user may
        // edit the record found; otherwise it is reused as it is.
        if (!ctx.user?.can("edit_post", duplicate)) return { post: duplicate, reused: true };
        const fields = metaPatch(prepared, k, data);
        const imageId = await applyImagePlan(tx, prepared.image, ctx.user);
        if (imageId !== undefined) fields.image_id = imageId;
        if (Object.keys(fields).length === 0) return { post: duplicate, reused: true };
        const post = await tx.posts.update(duplicate.id, { fields }, ctx.user);
        return { post, reused: true };
      }
      if (ctx.user && !ctx.user.can(caps.create_posts)) {
        throw new RestError(failureCode(kind, "create"), `You are not allowed to create a ${kind}.`, 400);
      }
      const fields = { ...prepared.fields };
      const imageId = await applyImagePlan(tx, prepared.image, ctx.user);
      if (imageId !== undefined) fields.image_id = imageId;
      const input: PostInput = {
        type: k.postType,
        title,
        content: prepared.content ?? "",
        status: prepared.status,
        author: prepared.author ?? ctx.user?.id ?? 0,
        language: ctx.language,
        fields,
      };
      if (prepared.dateLocal !== undefined) input.dateLocal = prepared.dateLocal;
      if (prepared.dateUtc !== undefined) input.dateUtc = prepared.dateUtc;
      const post = await tx.posts.create(input, ctx.user);
      return { post, reused: false };
    });
  } catch (err) {
    const p = storageProblem(err);
    if (p) throw toRestError(p, kind, options);
    if (isEngineError(err)) throw new RestError(failureCode(kind, "create"), `Could not create the ${kind}.`, 400);
    throw err;
  }
}

/**
 * For the events code: a venue or organizer from inline event data
 * (calendar-api.md §4.6), validated like `POST /venues` / `POST /organizers`,
 * with the duplicate rule. Errors: 400 `rest_invalid_param` with
 * `data.params.<kind>` for invalid data, 400 `could-not-create-<kind>` when
 * there is nothing to create. Pass the transaction-bound engine to make it
 * part of the event's write.
 */
export async function createOrReuseLinkedPost(
  engine: EngineApi,
  kind: LinkedPostKind,
  data: Record<string, unknown>,
  ctx: { user: CurrentUser | null; language: string },
): Promise<LoadedPost> {
  return (await createLinkedPost(engine, kind, data, ctx)).post;
}

/**
 * Update (calendar-api.md §5.4): sent fields replace stored ones, `""`
 * clears a meta field, an omitted status falls back as on create (`publish`
 * for publishers), venue flags reset to true, the image is kept unless sent
 * (calpress decision). No duplicate rule.
 */
export async function updateLinkedPost(
  engine: EngineApi,
  kind: LinkedPostKind,
  id: number,
  data: Record<string, unknown>,
  ctx: LinkedPostContext,
): Promise<LoadedPost> {
  const k = linkedKind(kind);
  checkAuthorAssignment(data.author, ctx.user, kindCaps(engine, kind), "update");
  let prepared: PreparedWrite;
  try {
    prepared = await prepareWrite(engine, k, data, ctx, "update");
  } catch (err) {
    if (err instanceof FieldProblem) throw toRestError(err, kind, { reportUnder: "field" });
    throw err;
  }
  try {
    return await engine.write(async (tx) => {
      const fields = { ...prepared.fields };
      const imageId = await applyImagePlan(tx, prepared.image, ctx.user);
      if (imageId !== undefined) fields.image_id = imageId;
      const patch: PostPatch = { fields, status: prepared.status };
      if (prepared.title !== undefined) patch.title = prepared.title;
      if (prepared.content !== undefined) patch.content = prepared.content;
      if (prepared.author !== undefined) patch.author = prepared.author;
      if (prepared.dateLocal !== undefined) patch.dateLocal = prepared.dateLocal;
      if (prepared.dateUtc !== undefined) patch.dateUtc = prepared.dateUtc;
      return tx.posts.update(id, patch, ctx.user);
    });
  } catch (err) {
    const p = storageProblem(err);
    if (p) throw toRestError(p, kind, { reportUnder: "field" });
    if (isEngineError(err)) throw new RestError(failureCode(kind, "update"), `Could not update the ${kind}.`, 400);
    throw err;
  }
}

/** Delete (calendar-api.md §5.5): to the trash, and off every event that linked to it, in one transaction. */
export async function trashLinkedPost(engine: EngineApi, kind: LinkedPostKind, id: number): Promise<LoadedPost> {
  try {
    return await engine.write(async (tx) => {
      await tx.posts.unlinkAllTo(linkRelation(kind), id);
      await tx.posts.trash(id);
      const post = await tx.posts.get(id, WITH_ALL);
      if (!post) throw new RestError(failureCode(kind, "delete"), `Could not delete the ${kind}.`, 500);
      return post;
    });
  } catch (err) {
    if (isEngineError(err)) throw new RestError(failureCode(kind, "delete"), `Could not delete the ${kind}.`, 500);
    throw err;
  }
}

import type { RestRequest } from "../../routes/types";
import type { EngineApi } from "../../engine-api";
import type { LoadedPost } from "../../posts/types";
import type { RecordContext, Related } from "../records/context";
import { postTag, SLUGS_TAG, termTag } from "../../db/cache-tags";
import { loadRelated } from "../records/load";
import { NAMESPACE, requestLanguage } from "./args";

export interface RecordContextOptions {
  /** Single reads add `json_ld`. */
  single: boolean;
  /** A list that adds `json_ld` on request (the events list's `json_ld=1`). */
  jsonLd?: boolean;
  /**
   * Where the records sit in a JSON answer that `_fields` filters: `""` the
   * body itself (a single record), else the list member (`"events"`).
   * Members the filter drops are then neither loaded nor built. Absent:
   * whole records (writes, and answers that are not filtered, such as feeds).
   */
  fieldsAt?: string;
  /** The language linked posts are shown in (their translation in it, where one exists); default: the request's. */
  language?: string;
}

/** The `wants` of a record context: which members of records at `at` the request's `_fields` keeps. */
export function recordWants(req: RestRequest, at: string | undefined): ((member: string) => boolean) | undefined {
  if (at === undefined) return undefined;
  return (member) => req.wantsField(at === "" ? member : `${at}.${member}`);
}

/** Builds the record context of a response, batch-loading what the records embed. */
export async function recordContext(
  engine: EngineApi,
  req: RestRequest,
  posts: LoadedPost[],
  opts: RecordContextOptions,
): Promise<RecordContext> {
  const language = opts.language ?? (await requestLanguage(req, engine));
  const password = req.params.password;
  const wants = recordWants(req, opts.fieldsAt);
  const jsonLd = opts.single || opts.jsonLd === true;
  // The records' own images show in `image` and in JSON-LD.
  const images = wants === undefined || wants("image") || (jsonLd && wants("json_ld"));
  const related = await loadRelated(engine, posts, req.user, language, { images });
  nameDependencies(req, posts, related, language);
  return {
    home: req.urls.home,
    ns: `${req.urls.root}${NAMESPACE}`,
    siteTimezone: await engine.options.timezone(),
    user: req.user,
    editContext: req.params.context === "edit",
    password: typeof password === "string" && password !== "" ? password : undefined,
    single: opts.single,
    jsonLd: opts.jsonLd === true,
    ...(wants === undefined ? {} : { wants }),
    related,
  };
}

/**
 * Names a loaded post and the terms loaded with it: what a handler read on
 * looking it up, also when it then refuses (its status or password decide).
 */
export function nameLoadedPost(req: RestRequest, p: LoadedPost): void {
  req.dependsOn(postTag(p.id));
  for (const ids of Object.values(p.termIds ?? {})) for (const id of ids) req.dependsOn(termTag(id));
}

/**
 * Tells the REST layer what these records show (for stored answers, see
 * lib/cache/answer-store.ts): what `recordTags` names for each record.
 */
function nameDependencies(req: RestRequest, posts: LoadedPost[], related: Related, language: string | undefined): void {
  for (const p of posts) req.dependsOn(...recordTags(p, related, language));
}

/**
 * The cache tags of one record: the post and its terms, every post it links
 * to (also those not shown: publishing a linked draft venue changes the
 * record) and the one shown in its place, the featured images, and, when a
 * language may swap a linked post for its translation, the set of posts
 * itself (a new translation). Also what a kept record (lib/cache/records.ts)
 * is proved against: without its terms' tags (`terms: false`), as it is
 * kept with its terms as parts proved apart (lib/calendar/records/kept.ts).
 */
export function recordTags(post: LoadedPost, related: Related, language: string | undefined, opts: { terms: boolean } = { terms: true }): Set<number> {
  const tags = new Set<number>([postTag(post.id)]);
  const image = (p: LoadedPost): void => {
    const id = Number(p.fields.image_id);
    if (Number.isInteger(id) && id > 0) tags.add(postTag(id));
  };
  // Which terms the post has is its own tag's; what each shows, the term's.
  if (opts.terms) for (const ids of Object.values(post.termIds ?? {})) for (const id of ids) tags.add(termTag(id));
  image(post);
  let translatable = false;
  for (const ids of Object.values(post.links ?? {})) {
    for (const id of ids) {
      tags.add(postTag(id));
      const shown = related.posts.get(id);
      if (shown === undefined) continue;
      tags.add(postTag(shown.id));
      image(shown);
      // A linked post of a translation group, shown in another language: a new translation may take its place.
      if (shown.translationGroup !== null && shown.language !== language) translatable = true;
    }
  }
  if (translatable && language !== undefined) tags.add(SLUGS_TAG);
  return tags;
}

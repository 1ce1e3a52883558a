import type { RestRequest } from "../../routes/request";
import type { EngineApi } from "../../engine-api";
import type { LoadedPost } from "../../posts/types";
import type { RecordContext, Related } from "../records/context";
import { postTag, SLUGS_TAG, termTag } from "../../db/cache-tags";
import { loadRelated } from "../records/load";
import { NAMESPACE, requestLanguage } from "./args";

/** Builds the record context of a response, batch-loading what the records embed. */
export async function recordContext(
  engine: EngineApi,
  req: RestRequest,
  posts: LoadedPost[],
  opts: { single: boolean },
): Promise<RecordContext> {
  const language = await requestLanguage(req, engine);
  const password = req.params.password;
  const related = await loadRelated(engine, posts, req.user, language);
  nameDependencies(req, posts, related, language);
  return {
    home: req.urls.home,
    ns: `${req.urls.root}${NAMESPACE}`,
    siteTimezone: await engine.options.timezone(),
    user: req.user,
    editContext: req.params.context === "edit",
    password: typeof password === "string" && password !== "" ? password : undefined,
    single: opts.single,
    related,
  };
}

/**
 * Tells the REST layer what these records show (for stored answers, see
 * lib/routes/answer-store.ts): the posts, every post they link to (also
 * those not shown: publishing a linked draft venue changes the record), the
 * terms, the featured images, and, when a language may swap a linked post
 * for its translation, the set of posts itself (a new translation).
 */
function nameDependencies(req: RestRequest, posts: LoadedPost[], related: Related, language: string | undefined): void {
  let links = false;
  const image = (p: LoadedPost): void => {
    const id = Number(p.fields.image_id);
    if (Number.isInteger(id) && id > 0) req.dependsOn(postTag(id));
  };
  for (const p of posts) {
    req.dependsOn(postTag(p.id));
    for (const ids of Object.values(p.termIds ?? {})) for (const id of ids) req.dependsOn(termTag(id));
    for (const ids of Object.values(p.links ?? {})) {
      for (const id of ids) {
        req.dependsOn(postTag(id));
        links = true;
      }
    }
    image(p);
  }
  let translatable = false;
  for (const p of related.posts.values()) {
    req.dependsOn(postTag(p.id));
    image(p);
    // A linked post of a translation group, shown in another language: a new translation may take its place.
    if (p.translationGroup !== null && p.language !== language) translatable = true;
  }
  for (const id of related.terms.keys()) req.dependsOn(termTag(id));
  if (links && language !== undefined && translatable) req.dependsOn(SLUGS_TAG);
}

import type { RestRequest } from "../../routes/request";
import type { EngineApi } from "../../engine-api";
import type { LoadedPost } from "../../posts/types";
import type { RecordContext } from "../records/context";
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
  return {
    home: req.urls.home,
    ns: `${req.urls.root}${NAMESPACE}`,
    siteTimezone: await engine.options.timezone(),
    user: req.user,
    editContext: req.params.context === "edit",
    password: typeof password === "string" && password !== "" ? password : undefined,
    single: opts.single,
    related: await loadRelated(engine, posts, req.user, language),
  };
}

import type { PostQuery } from "../../posts/types";
import type { RestRequest } from "../../routes/types";
import { CATEGORY, ORGANIZER_LINK, TAG, VENUE_LINK } from "../post-types";
import { recordWants } from "../common/context";
import { EVENT_RELATIONS } from "./operations";

type Relations = NonNullable<PostQuery["with"]>;

/**
 * The relations to load events with when their records show only the
 * members `wants` keeps (`_fields`): terms for `categories`/`tags`, links
 * for `venue`, `organizer` and the JSON-LD (its location and organizer).
 * `{}` loads none, and saves the statement that reads them.
 */
export function eventRelations(wants: ((member: string) => boolean) | undefined, jsonLd: boolean): Relations {
  if (wants === undefined) return EVENT_RELATIONS;
  const out: { terms?: string[]; links?: string[] } = {};
  const terms = [...(wants("categories") ? [CATEGORY] : []), ...(wants("tags") ? [TAG] : [])];
  if (terms.length > 0) out.terms = terms;
  if (wants("venue") || wants("organizer") || (jsonLd && wants("json_ld"))) out.links = [VENUE_LINK, ORGANIZER_LINK];
  return out;
}

/**
 * The relations of the event a by-ID or by-slug request addresses: a read
 * (GET, HEAD) builds its record from that post, so `_fields` decides; other
 * methods load the record again after writing and keep the full set.
 */
export function addressedEventRelations(req: RestRequest): Relations {
  const read = req.method === "GET" || req.method === "HEAD";
  return read ? eventRelations(recordWants(req, ""), true) : EVENT_RELATIONS;
}

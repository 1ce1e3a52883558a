import { READABLE, type JsonObject as RouteJsonObject } from "../../routes";
import { RestResponse } from "../../routes/response";
import type { RestRequest } from "../../routes/types";
import type { CalendarHost } from "../host";
import { NAMESPACE } from "../common/args";
import { changesPage, TOKEN_PATTERN } from "../changes/feed";

/** calpress decision: a page of the feed names at most this many changes (larger `per_page` is clamped, as lists clamp theirs). */
export const MAX_CHANGES_PER_PAGE = 100;

/**
 * `GET /changes` (calpress addition, issue 22): the changes feed of
 * lib/calendar/changes/feed.ts. Public: each user learns only of what they
 * may read. Without `since` the answer is empty and its `next` is the token
 * to start from (read the lists after taking it: a change in between is
 * reported again, which a mirror applies twice to the same effect).
 */
export function registerChangesRoute(host: CalendarHost): void {
  const { engine, rest } = host;

  async function feed(req: RestRequest): Promise<RestResponse> {
    const since = req.isSent("since") ? Number(req.params.since) : null;
    const per = Math.min(Number(req.params.per_page), MAX_CHANGES_PER_PAGE);
    const language = req.isSent("i18n_language") ? String(req.params.i18n_language) : null;
    const page = await changesPage(engine, req, since, per, language);
    const headers: Record<string, string> = {};
    const query = { since: page.next, per_page: per, ...(language === null ? {} : { i18n_language: language }) };
    if (page.more) headers.Link = `<${req.urls.route(`/${NAMESPACE}/changes`, query)}>; rel="next"`;
    return new RestResponse({ changes: page.changes, next: page.next, more: page.more }, 200, headers);
  }

  const entry: RouteJsonObject = {
    type: "object",
    properties: {
      id: { type: "integer" },
      type: { type: "string", enum: ["event", "venue", "organizer", "category", "tag"] },
      deleted: { type: "boolean" },
      language: { type: "string", description: "The record's language: the list it belongs to (absent in a tombstone)." },
      record: { type: "object", description: "The record as the list of its language shows it to this user (absent in a tombstone)." },
      occurrences: {
        type: "array",
        items: { type: "object" },
        description: "A series' occurrences, as its list shows them in its place (present only for a series: empty when every occurrence is cancelled or detached).",
      },
    },
  };
  rest.registerRoute(NAMESPACE, "/changes", {
    methods: READABLE,
    args: {
      since: {
        type: "string",
        pattern: TOKEN_PATTERN.source,
        description: "The `next` token of an earlier answer: the changes committed after it. Absent: no changes, and the token to start from.",
      },
      per_page: { type: "integer", minimum: 1, default: 50, description: `The number of changes to read at most (at most ${MAX_CHANGES_PER_PAGE}).` },
    },
    permission: "public",
    handler: feed,
    summary: "Lists the events, venues, organizers, categories and tags changed since a token (for mirrors).",
    responses: {
      "200": {
        description: "The changed records (or tombstones) in commit order, each once, with the next token.",
        schema: { type: "object", properties: { changes: { type: "array", items: entry }, next: { type: "string" }, more: { type: "boolean" } } },
      },
      "400": { description: "Invalid parameter(s), or a token this site never gave." },
      "410": { description: "The token is older than the kept changes: read the lists again and start over." },
    },
  });
}

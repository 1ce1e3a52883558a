import { RestError } from "../../routes/errors";
import type { RestRequest } from "../../routes/types";
import type { CalendarHost } from "../host";
import { NAMESPACE, requestLanguage } from "../common/args";
import { fetchIcs, importIcs, IcsFormatError, type ImportReport } from "../import/ics";

/** Who may import: administrators (`manage_options`), as WordPress's importers ask for `import`, which only they have. */
const IMPORT_CAP = "manage_options";

/**
 * `POST /import` (calpress addition, issue 22): an iCalendar file as the
 * body (`Content-Type: text/calendar`, within the site's body limit, 1 MiB
 * by default), or JSON `{"url": "https://…"}` fetched under the site's fetch
 * policy (public hosts only, at most 10 MiB). Answers the import's report.
 */
export function registerImportRoute(host: CalendarHost): void {
  const { engine, rest } = host;

  async function run(req: RestRequest): Promise<ImportReport> {
    const user = req.user;
    if (user === null) throw new Error("unreachable: the permission check lets no anonymous request through");
    let text = req.bodyText;
    if (text === undefined) {
      const url = req.params.url;
      if (typeof url !== "string") {
        throw new RestError("rest_missing_callback_param", "Missing parameter(s): url", 400, { params: ["url"] });
      }
      const fetched = await fetchIcs(url, host.fetch);
      if ("error" in fetched) throw new RestError("rest_invalid_param", "Invalid parameter(s): url", 400, { params: { url: fetched.error }, details: [] });
      text = fetched.text;
    }
    try {
      return await importIcs(engine, text, user, { language: await requestLanguage(req, engine), fetch: host.fetch });
    } catch (err) {
      if (err instanceof IcsFormatError) throw new RestError("calendar-import-invalid-file", err.message, 400);
      throw err;
    }
  }

  rest.registerRoute(NAMESPACE, "/import", {
    methods: ["POST"],
    args: {
      url: { type: "string", format: "uri", description: "An iCalendar file's URL (public hosts only), when the body is not the file itself (Content-Type: text/calendar)." },
    },
    permission: (req) => req.user?.can(IMPORT_CAP) === true,
    handler: run,
    summary: "Imports the events of an iCalendar file (Google, Apple, Outlook or another calpress); idempotent by UID.",
    responses: {
      "200": {
        description: "What was created, updated and skipped (with reasons).",
        schema: {
          type: "object",
          properties: {
            created: { type: "array", items: { type: "object" } },
            updated: { type: "array", items: { type: "object" } },
            skipped: { type: "array", items: { type: "object" } },
          },
        },
      },
      "400": { description: "Not an iCalendar file, or a URL that cannot be fetched." },
      "401": { description: "Authentication required." },
      "403": { description: "Only administrators may import." },
    },
  });
}

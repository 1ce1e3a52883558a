import { RestError } from "../../routes/errors";
import type { RestRequest } from "../../routes/types";
import type { CalendarHost } from "../host";
import { NAMESPACE, requestLanguage } from "../common/args";
import { fetchIcs, importIcs, IcsFormatError, ImportBudgetError, MAX_SOURCE_LENGTH, type ImportReport } from "../import/ics";

/** Who may import: administrators (`manage_options`), as WordPress's importers ask for `import`, which only they have. */
const IMPORT_CAP = "manage_options";

/**
 * `POST /import` (calpress addition, issue 22): an iCalendar file as the
 * body (`Content-Type: text/calendar`, within the site's body limit, 1 MiB
 * by default), or JSON `{"url": "https://…"}` fetched under the site's fetch
 * policy (public hosts only, at most 10 MiB). Answers the import's report;
 * a file past one of the import's budgets is a 400 naming it, with nothing
 * written (lib/calendar/import/budgets.ts).
 */
export function registerImportRoute(host: CalendarHost): void {
  const { engine, rest } = host;

  async function run(req: RestRequest): Promise<ImportReport> {
    const user = req.user;
    if (user === null) throw new Error("unreachable: the permission check lets no anonymous request through");
    const url = typeof req.params.url === "string" ? req.params.url : undefined;
    let text = req.bodyText;
    if (text === undefined) {
      if (url === undefined) {
        throw new RestError("rest_missing_callback_param", "Missing parameter(s): url", 400, { params: ["url"] });
      }
      const fetched = await fetchIcs(url, host.fetch);
      if ("error" in fetched) throw new RestError("rest_invalid_param", "Invalid parameter(s): url", 400, { params: { url: fetched.error }, details: [] });
      text = fetched.text;
    }
    const given = typeof req.params.source === "string" ? req.params.source : undefined;
    try {
      return await importIcs(engine, text, user, {
        language: await requestLanguage(req, engine),
        fetch: host.fetch,
        // A URL import's UIDs belong to the URL, unless the caller names the source.
        source: given ?? (req.bodyText === undefined ? url : undefined),
        restore: req.params.restore === true,
      });
    } catch (err) {
      if (err instanceof ImportBudgetError) throw new RestError("calendar-import-over-budget", err.message, 400, { budget: err.budget });
      if (err instanceof IcsFormatError) throw new RestError("calendar-import-invalid-file", err.message, 400);
      throw err;
    }
  }

  rest.registerRoute(NAMESPACE, "/import", {
    methods: ["POST"],
    args: {
      url: { type: "string", format: "uri", description: "An iCalendar file's URL (public hosts only), when the body is not the file itself (Content-Type: text/calendar)." },
      source: {
        type: "string",
        maxLength: MAX_SOURCE_LENGTH,
        description:
          "Where the file comes from: its UIDs match only events imported from the same source. Default: the URL of a URL import, else the calendar's X-WR-RELCALID or X-WR-CALNAME.",
      },
      restore: {
        type: "boolean",
        default: false,
        description: "Publish again the events an editor unpublished or trashed since they were imported (by default they are left as the editor left them).",
      },
    },
    permission: (req) => req.user?.can(IMPORT_CAP) === true,
    handler: run,
    summary: "Imports the events of an iCalendar file (Google, Apple, Outlook or another calpress); idempotent by UID within a source.",
    responses: {
      "200": {
        description: "What was created, updated and skipped (with reasons).",
        schema: {
          type: "object",
          properties: {
            created: { type: "array", items: { type: "object" } },
            updated: { type: "array", items: { type: "object" } },
            skipped: { type: "array", items: { type: "object" } },
            notes: { type: "array", items: { type: "object" }, description: "Events imported with a remark (a zone only the file defines, matched at their own times only)." },
          },
        },
      },
      "400": { description: "Not an iCalendar file, a file past one of the import's budgets (`calendar-import-over-budget`, `data.budget` names it), or a URL that cannot be fetched." },
      "401": { description: "Authentication required." },
      "403": { description: "Only administrators may import." },
    },
  });
}

import type { CalendarHost } from "./host";
import { registerCalendarContent } from "./post-types";
import { languageArg, NAMESPACE } from "./common/args";
import { registerEventRoutes } from "./routes/events";
import { registerLinkedPostRoutes } from "./routes/linked-posts";
import { registerTermRoutes } from "./routes/terms";
import { registerDocRoute } from "./routes/doc";
import { registerChangesRoute } from "./routes/changes";
import { registerImportRoute } from "./routes/import";
import { registerRecurrencePreviewRoute } from "./routes/recurrence-preview";

export type { CalendarHost } from "./host";

/**
 * The calendar is a plugin like any other: content types through the
 * engine's public registration API, routes through the route table. The
 * registration order is the order of the namespace index (rest-conventions.md §7.1).
 */
export function registerCalendar(host: CalendarHost): void {
  registerCalendarContent(host.engine);
  host.rest.registerNamespace(NAMESPACE);
  host.rest.addGlobalArgs({ i18n_language: languageArg }, { namespace: NAMESPACE });
  registerDocRoute(host);
  registerEventRoutes(host);
  registerLinkedPostRoutes(host, "venue");
  registerLinkedPostRoutes(host, "organizer");
  registerTermRoutes(host, "categories");
  registerTermRoutes(host, "tags");
  registerChangesRoute(host);
  registerImportRoute(host);
  registerRecurrencePreviewRoute(host);
}

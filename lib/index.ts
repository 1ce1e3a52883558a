export { createSite } from "./site";
export type { Controllers, ControllerExtension, EndpointName, PermissionOverride, PostControllerExtension, RestField, TermControllerExtension, Context, PropertySchema } from "./controllers";
export type { Site, SiteOptions, HostUser, HostUserRef } from "./site";
export type { TrustProxy } from "./routes/client-address";
export type { Tables } from "./db/tables";
export { TableClashError } from "./db/ownership";
export type { FetchOptions } from "./net/safe-fetch";
export * from "./routes";
export type { EngineApi, PostsApi, TermsApi, UsersApi, OptionsApi, UserRecord, UserQuery, UserPage } from "./engine-api";
export { EngineError, isEngineError } from "./engine-errors";
export type { PostTypeConfig, FieldDef, Post, LoadedPost, PostInput, PostQuery, RestLocation } from "./posts/types";
export type { TaxonomyConfig, Term, TermInput, TermQuery } from "./taxonomy/types";
export type { CurrentUser, RoleName } from "./users/types";
export { OPERATOR } from "./users/actor";
export type { Actor, Operator } from "./users/actor";
/** WordPress's sanitisers, as the engine applies them on write by each text's declared kind (`FieldDef.kind`). */
export { sanitizeTitle } from "./format/slug";
export { escUrlRaw, sanitizeBasicHtml, sanitizeEmail, sanitizeField, sanitizePostHtml, sanitizeTextareaField, sanitizeTextField, TEXT_KINDS } from "./format/sanitize";
export type { TextKind } from "./format/sanitize";
export { strtotime, parseApiDate } from "./dates/strtotime";
export { createCalendarPage, createDocsPage, createEditorPage } from "./pages";
export type { CalendarPageOptions, DocsPageOptions } from "./pages";
export { createEvent, updateEvent, trashEvent, listEvents, getEvent } from "./calendar/events";
export { loadFixture, validateFixture, generateFixture, resolveFixture } from "./fixtures";
export type { Fixture } from "./fixtures";
export { actingAs, WEBHOOK_SECRET_OPTION, WEBHOOK_URL_OPTION } from "./hooks";
export type { Change, DeliveryReport, HookListener, HookMap, PostChange, TermChange, Unsubscribe, WebhookSettings } from "./hooks";
/** The cache tags a route names with `req.dependsOn(…)` (stored answers, guarded `If-Match` writes). */
export { postTag, termTag, SITE_TAG } from "./db/cache-tags";
/** calpress's own version (package.json), as `calpress --version` prints it. */
export { CALPRESS_VERSION as version } from "./version";

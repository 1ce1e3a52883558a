export { createSite } from "./site";
export type { Site, SiteOptions, HostUser } from "./site";
export * from "./routes";
export type { EngineApi, PostsApi, TermsApi, UsersApi, OptionsApi, UserRecord } from "./engine-api";
export type { PostTypeConfig, FieldDef, Post, LoadedPost, PostInput, PostQuery } from "./posts/types";
export type { TaxonomyConfig, Term, TermInput, TermQuery } from "./taxonomy/types";
export type { CurrentUser, RoleName } from "./users/types";
export { sanitizeTitle } from "./format/slug";
export { strtotime, parseApiDate } from "./dates/strtotime";

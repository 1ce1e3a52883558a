/** languages.md §2.1: the site's active content languages, exact and case-sensitive. */
export const LANGUAGES = ["nl", "en", "fi", "fr", "de", "it", "no"] as const;
export type Language = (typeof LANGUAGES)[number];

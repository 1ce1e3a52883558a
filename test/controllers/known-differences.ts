/**
 * What calpress answers differently from the recorded WordPress on purpose,
 * each with its reason (docs/generated-controllers.md "Differences from
 * WordPress" says the same in prose). The vector test allows a difference
 * only when a rule here names it: every other one fails the test, and so
 * does a rule that no longer matches anything (a difference that went away).
 */

/** The reasons, by name. */
export const REASONS = {
  attachmentLink: "calpress has no media routes: records carry no `wp:attachment` link (and no `curies` when no other `wp:` link is left)",
  userProfile: "calpress users have no URL, description or avatars: user records (embedded authors) show them empty",
  visibleTotals:
    "lists count only what they show: the visibility rules (view: what the user may read; edit context: what the user may edit) are part of the query, " +
    "so X-WP-Total, X-WP-TotalPages, `Link` and the page's records agree; WordPress counts posts it then leaves out of the page",
  typedFieldParams: "typed fields filter and sort lists (calpress addition): `?salary=`, `salary_min`/`salary_max`, `orderby=salary`",
  unknownTerms: "term ids that are not terms of the taxonomy are refused (400 rest_invalid_param) instead of skipped with a 201",
  roleCaps: "a post type's own capabilities (`capabilityType`) are granted to roles as the `post` ones are; in WordPress no role has them until a plugin grants them",
  allowAfterWrite:
    "`Allow` after a write: the endpoint that answered keeps the permission it had before its handler ran (after a delete, Allow names DELETE; WordPress checks again " +
    "and sends none), and the others are checked on the request as sent (WordPress sets `context=edit` on the request first)",
  autosaves: "no autosave or revision routes",
  draftSlug: "a draft keeps the slug it is given while another post has it (made unique when it is published); WordPress's REST create makes it unique at once",
  trashSlug: "a trashed post without a slug gets one from its title before `__trashed`",
  statuses: "calpress knows WordPress's seven post statuses, not its internal ones (`inherit`, `request-*`)",
  validation: "every invalid parameter is reported at once (WordPress stops after its first failing stage)",
  metaSchema: "typed string fields declare their length (`maxLength`) in the argument schema",
  noOptionsSchema: "OPTIONS answers carry no item `schema`: the namespace's OpenAPI document (`GET /<namespace>/doc`) describes the records",
  termRules:
    "terms: a rename to a name its level already has is refused (term_exists) as a create would be, and a parent that makes a loop is refused (400); " +
    "WordPress allows the first and quietly reparents to break the second (later answers differ where the scenario builds on them)",
  termErrors: "an empty term name or a slug another term has is a client error (400); WordPress answers 500",
  emptyObjects: "an empty JSON object is written `{}` (WordPress writes an empty PHP array `[]`): batch slots without headers, records `_fields` left empty, empty `properties` in the index",
  envelopeHeaders: "`_envelope` shows header values as strings (WordPress keeps X-WP-Total a number)",
  metaErrorEnvelope: "a typed field's error carries its parameter in `data.param` (WordPress: `additional_data`)",
  sanitising:
    "the engine's text sanitising (lib/format/sanitize.ts, per field kind) is not WordPress's kses: it drops script and event-handler text WordPress keeps, keeps `&` in term names " +
    "and cleans typed text fields WordPress stores as sent; slugs made from sanitised titles follow",
  discovery:
    "the discovery routes (`/wp/v2/types`, `/wp/v2/taxonomies`, the REST root) show a subset of WordPress's members, for what calpress registers " +
    "(lib/core-routes; README \"Add a post type and routes of your own\")",
} as const;

export type Reason = keyof typeof REASONS;

export interface Rule {
  /** Vectors it applies to (by name). */
  vector: RegExp;
  /** Difference lines it allows. */
  diff: RegExp;
  why: Reason;
}

const ALL = /./;
const DISCOVERY = /^(index\.|types\.|taxonomies\.)/;

export const RULES: Rule[] = [
  // -------------------------------------------------------------- everywhere
  { vector: ALL, diff: /\/_links\/wp:attachment: missing$/, why: "attachmentLink" },
  { vector: /^(gigs|listings)\.(list|get)/, diff: /\/_links\/curies: missing$/, why: "attachmentLink" },
  { vector: ALL, diff: /\/_embedded\/author\/0\/(url|description): ".*" → ""$/, why: "userProfile" },
  { vector: ALL, diff: /\/_embedded\/author\/0\/avatar_urls\/\d+: missing$/, why: "userProfile" },
  { vector: ALL, diff: /\/(endpoints\/\d+\/)?args\/status\/items\/enum: 13 items → 8$/, why: "statuses" },
  { vector: ALL, diff: /\/args\/meta\/properties\/(location|apply_url)\/maxLength: extra$/, why: "metaSchema" },
  { vector: ALL, diff: /\/args\/(salary|remote|hours|location|apply_url|closes)(_min|_max)?: extra$/, why: "typedFieldParams" },
  { vector: ALL, diff: /\/args\/orderby\/enum: 10 items → 16$/, why: "typedFieldParams" },
  { vector: ALL, diff: /^\/schema: missing$/, why: "noOptionsSchema" },
  { vector: ALL, diff: /\/args\/meta\/properties: \[\] → \{\}$/, why: "emptyObjects" },
  { vector: ALL, diff: /autosaves.*: missing$/, why: "autosaves" },

  // -------------------------------------------------------------- discovery
  { vector: DISCOVERY, diff: /: missing$/, why: "discovery" },
  { vector: DISCOVERY, diff: /(labels|statuses): extra$/, why: "discovery" },
  { vector: DISCOVERY, diff: /^code rest_forbidden_context → rest_cannot_view$/, why: "discovery" },
  { vector: /^types\.job\.embed$/, diff: /./, why: "discovery" },
  { vector: /^index\.root$/, diff: /^\/(name|description|gmt_offset|namespaces): |^\/_links\/service-desc: extra$/, why: "discovery" },
  { vector: /^index\.root$/, diff: /\/wp\/v2\/(types|taxonomies).*\/context\/enum: 3 items → 2$/, why: "discovery" },
  { vector: /^index\.root$/, diff: /\/routes\/\/batch\/v1\/.*properties: \[\] → \{\}$/, why: "emptyObjects" },
  { vector: /^batch\.options$/, diff: /properties: \[\] → \{\}$/, why: "emptyObjects" },
  { vector: /^options\.gigs\.editor$/, diff: /^header allow GET → GET, POST$/, why: "roleCaps" },

  // -------------------------------------------------------------- lists
  { vector: /^jobs\.list\.(context\.edit\.(contributor|author)|status\.(draft\.contributor|any\.author|private\.author))$/, diff: /^(header x-wp-total|header x-wp-totalpages|link next|body: \d+ items)/, why: "visibleTotals" },
  { vector: /^jobs\.after-writes\.list\.edit$/, diff: /^(header x-wp-total|body: \d+ items)/, why: "unknownTerms" },
  { vector: /^jobs\.list\.meta\.field-name-ignored$/, diff: /./, why: "typedFieldParams" },
  { vector: /^jobs\.list\.orderby\.bad$/, diff: /^(status 400 → 200|code rest_invalid_param → undefined)$/, why: "typedFieldParams" },
  { vector: /^jobs\.list\.multiple-invalid$/, diff: /^params /, why: "validation" },
  { vector: /^jobs\.list\.fields\.unknown$/, diff: /^\/\d+: \[\] → \{\}$/, why: "emptyObjects" },
  { vector: /^jobs\.list\.envelope$/, diff: /^\/headers\/X-WP-Total(Pages)?: \d+ → "\d+"$/, why: "envelopeHeaders" },
  { vector: /^jobs\.autosaves\.list$/, diff: /./, why: "autosaves" },
  { vector: /^gigs\.(list\.edit|create|update|delete)\.editor$/, diff: /^(status 403 → 20[01]|code rest_cannot_\w+ → undefined|code rest_forbidden_context → undefined)$/, why: "roleCaps" },

  // -------------------------------------------------------------- writes
  { vector: /^jobs\.create\.departments-(missing-term|other-taxonomy)$/, diff: /./, why: "unknownTerms" },
  { vector: /^jobs\.create\.draft-same-slug$/, diff: /^\/(slug|generated_slug): "sales-lead-\d" → "sales-lead"$/, why: "draftSlug" },
  { vector: /^jobs\.delete\.contributor-own-draft$/, diff: /^\/slug: "__trashed" → ".+__trashed"$/, why: "trashSlug" },
  { vector: /^(jobs\.delete\.(force|force-in-body|fixture-trash-force|editor-others)|listings\.delete|departments\.delete\.(force|parent)|skills\.delete\.force)$/, diff: /^header allow \(none\) → DELETE$/, why: "allowAfterWrite" },
  { vector: /^batch\.jobs\.mixed$/, diff: /^\/responses\/5\/headers: \[\] → \{"Allow":"DELETE"\}$/, why: "allowAfterWrite" },
  { vector: /^skills\.create\.(author|contributor)$/, diff: /^header allow POST → GET, POST$/, why: "allowAfterWrite" },
  { vector: /^batch\./, diff: /\/headers: \[\] → \{\}$/, why: "emptyObjects" },
  { vector: /^batch\.jobs\.require-all-validate$/, diff: /\/body\/(data\/param: extra|additional_data: missing)$/, why: "metaErrorEnvelope" },
  { vector: /^(jobs\.sanitise\.|jobs\.after-writes\.list\.anonymous$)/, diff: /./, why: "sanitising" },
  { vector: /^(departments\.|terms\.final|counts\.)/, diff: /\/(name|description): "[^"]*(&amp;|alert)/, why: "sanitising" },
  { vector: /^departments\.create\.name-empty$|^departments\.update\.(name-empty|slug-taken)$/, diff: /^status 500 → 400$/, why: "termErrors" },
  { vector: /^departments\.update\.(name-taken|parent-self|parent-cycle)$/, diff: /./, why: "termRules" },
  { vector: /^(departments\.update\.(parent|parent-zero|empty-body|parent-cycle\.read)|counts\.(before|post-filter)|departments\.delete\.force)$/, diff: /\/(name: "Sales" → "Ops"|parent: 0 → \d+)$/, why: "termRules" },
];

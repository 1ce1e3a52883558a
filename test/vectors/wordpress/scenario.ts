/**
 * The recorder's scenario: a fixed, ordered list of requests sent to the
 * reference WordPress (setup-wordpress.sh) right after its fixtures are laid.
 * Order matters: the writes build on each other, and a replay (calpress's
 * side) must send them in the same order from the same fixtures.
 *
 * Placeholders `{{post.<key>}}`, `{{term.<key>}}`, `{{user.<role>}}` stand for
 * ids: the fixtures' (setup.php) and those a step saves from its answer
 * (`save`). In bodies an id is written `ref("post.<key>")`.
 */

export type Role = "administrator" | "editor" | "author" | "contributor" | "subscriber";
export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";
export type FileName = "discovery" | "jobs" | "terms";

/** An id known only once the fixtures exist or an earlier step has run. */
export class Ref {
  constructor(readonly key: string) {}
}
export const ref = (key: string): Ref => new Ref(key);

export type Body = null | boolean | number | string | Ref | Body[] | { [key: string]: Body };

/** Which part of a very large answer is kept (the rest is dropped, said in the vector). */
export type BodyFilter = "namespace-routes" | "index-routes";

export interface Step {
  name: string;
  file: FileName;
  method: Method;
  /** Route under /wp-json (may hold placeholders). */
  path: string;
  /** Query string as sent, without `?` (may hold placeholders). */
  query?: string;
  /** JSON body. */
  body?: Body;
  /** application/x-www-form-urlencoded body instead of JSON. */
  form?: string;
  /** Sent as is with Content-Type application/json (malformed JSON). */
  raw?: string;
  /** Extra request headers (CORS). */
  headers?: Record<string, string>;
  /** Whose application password authenticates the request; null: anonymous. */
  user: Role | null;
  /** Keep the answer's `id` (or ids, for batch) under these keys. */
  save?: string | Array<string | null>;
  filter?: BodyFilter;
  note?: string;
}

interface Options {
  query?: string;
  headers?: Record<string, string>;
  body?: Body;
  form?: string;
  raw?: string;
  save?: string | Array<string | null>;
  filter?: BodyFilter;
  note?: string;
}

function builder(file: FileName, out: Step[]) {
  return (name: string, method: Method, path: string, user: Role | null, o: Options = {}): void => {
    out.push({ name, file, method, path, user, ...o });
  };
}

const JOB = "/wp/v2/jobs";
const job = (key: string): string => `${JOB}/{{post.${key}}}`;
const DEP = "/wp/v2/departments";
const dep = (key: string): string => `${DEP}/{{term.${key}}}`;
const SKILL = "/wp/v2/skills";
const skill = (key: string): string => `${SKILL}/{{term.${key}}}`;

const TIES = "ties (the same sort value) come in the database's order, which is not specified: compare the sort values' order and the set of ids";

const XSS = {
  title: 'Title <script>alert(1)</script><b>bold</b> <a href="javascript:alert(2)" onclick="evil()">x</a>',
  content:
    '<p onclick="evil()">Hello <a href="javascript:alert(1)">js link</a> <a href="https://example.com/" target="_blank">ok link</a></p>' +
    '<script>alert(2)</script><iframe src="https://example.com/"></iframe><img src="x" onerror="alert(3)"><strong style="color:red">kept?</strong>',
  excerpt: '<em>Short</em> <script>alert(4)</script><a href="javascript:void(0)">x</a>',
};
const XSS_META = { location: '<script>alert(5)</script><b>Milan</b>', apply_url: "javascript:alert(6)" };

export function scenario(): Step[] {
  const steps: Step[] = [];

  // ---------------------------------------------------------------- discovery
  {
    const s = builder("discovery", steps);
    s("index.root", "GET", "/", null, { filter: "index-routes" });
    s("index.namespace.wp-v2", "GET", "/wp/v2", null, { filter: "namespace-routes" });
    s("index.namespace.board-v1", "GET", "/board/v1", null, { note: "listing: a post type registered with rest_namespace board/v1" });
    s("index.namespace.unknown", "GET", "/nope/v1", null);
    s("options.jobs.anonymous", "OPTIONS", JOB, null);
    s("options.jobs.administrator", "OPTIONS", JOB, "administrator");
    s("options.jobs.subscriber", "OPTIONS", JOB, "subscriber");
    s("options.job.anonymous", "OPTIONS", job("backend_engineer"), null);
    s("options.job.administrator", "OPTIONS", job("backend_engineer"), "administrator");
    s("options.job.author-others", "OPTIONS", job("backend_engineer"), "author", { note: "author on an administrator's post" });
    s("options.job.author-own", "OPTIONS", job("sales_lead"), "author");
    s("options.job.missing", "OPTIONS", `${JOB}/999`, "administrator");
    s("options.departments.anonymous", "OPTIONS", DEP, null);
    s("options.departments.editor", "OPTIONS", DEP, "editor");
    s("options.department.editor", "OPTIONS", dep("backend"), "editor");
    s("options.skills.anonymous", "OPTIONS", SKILL, null);
    s("options.gigs.editor", "OPTIONS", "/wp/v2/gigs", "editor", { note: "gig has capability_type gig/gigs; only administrators hold those caps" });
    s("options.gigs.administrator", "OPTIONS", "/wp/v2/gigs", "administrator");
    s("types.list", "GET", "/wp/v2/types", null);
    s("types.job.view", "GET", "/wp/v2/types/job", null);
    s("types.job.edit.administrator", "GET", "/wp/v2/types/job", "administrator", { query: "context=edit" });
    s("types.job.edit.contributor", "GET", "/wp/v2/types/job", "contributor", { query: "context=edit" });
    s("types.job.edit.subscriber", "GET", "/wp/v2/types/job", "subscriber", { query: "context=edit" });
    s("types.job.edit.anonymous", "GET", "/wp/v2/types/job", null, { query: "context=edit" });
    s("types.job.embed", "GET", "/wp/v2/types/job", null, { query: "context=embed" });
    s("types.gig.edit.administrator", "GET", "/wp/v2/types/gig", "administrator", { query: "context=edit" });
    s("types.listing", "GET", "/wp/v2/types/listing", null);
    s("types.missing", "GET", "/wp/v2/types/nope", null);
    s("taxonomies.list", "GET", "/wp/v2/taxonomies", null);
    s("taxonomies.list.type-job", "GET", "/wp/v2/taxonomies", null, { query: "type=job" });
    s("taxonomies.department.view", "GET", "/wp/v2/taxonomies/department", null);
    s("taxonomies.department.edit.editor", "GET", "/wp/v2/taxonomies/department", "editor", { query: "context=edit" });
    s("taxonomies.department.edit.subscriber", "GET", "/wp/v2/taxonomies/department", "subscriber", { query: "context=edit" });
    s("taxonomies.skill.view", "GET", "/wp/v2/taxonomies/skill", null);
    s("taxonomies.missing", "GET", "/wp/v2/taxonomies/nope", null);
  }

  // ------------------------------------------------- jobs: reads (fixtures only)
  {
    const s = builder("jobs", steps);
    const list = (name: string, query: string, user: Role | null = null, note?: string): void =>
      s(`jobs.list.${name}`, "GET", JOB, user, { query, note });

    s("jobs.list.default", "GET", JOB, null);
    s("jobs.list.head", "HEAD", JOB, null);
    list("context.view", "context=view");
    list("context.embed", "context=embed");
    list("context.edit.anonymous", "context=edit");
    list("context.edit.anonymous.invalid-page", "context=edit&per_page=0", null, "validation before permission?");
    list("context.edit.subscriber", "context=edit", "subscriber");
    list("context.edit.contributor", "context=edit", "contributor", "contributor may edit_posts; the list keeps only posts they may edit");
    list("context.edit.author", "context=edit", "author");
    list("context.edit.administrator", "context=edit&per_page=3", "administrator");
    list("context.bad", "context=bogus");
    list("page.2", "page=2");
    list("page.3.out-of-range", "page=3");
    list("page.0", "page=0");
    list("page.not-number", "page=abc");
    list("page.out-of-range.empty-result", "search=zzzz&page=2", null, "no error when nothing matches at all");
    list("per_page.5.page.1", "per_page=5");
    list("per_page.5.page.2", "per_page=5&page=2");
    list("per_page.5.page.3", "per_page=5&page=3");
    list("per_page.1", "per_page=1&_fields=id");
    list("per_page.100", "per_page=100&_fields=id");
    list("per_page.0", "per_page=0");
    list("per_page.101", "per_page=101");
    list("per_page.negative", "per_page=-1");
    list("per_page.not-number", "per_page=abc");
    list("per_page.fraction", "per_page=1.5");
    list("per_page.with-query-in-link", "per_page=2&page=2&search=engineer&_fields=id", null, "Link keeps the other query parameters");
    list("search.title", "search=engineer&_fields=id,title");
    list("search.case", "search=ENGINEER&_fields=id");
    list("search.content", "search=calendar&_fields=id,title");
    list("search.excerpt", "search=every%20day&_fields=id,title");
    list("search.words", "search=backend%20senior&_fields=id");
    list("search.empty", "search=&_fields=id");
    list("search.no-match", "search=zzzz");
    list("after", "after=2024-06-01T00:00:00&_fields=id,date");
    list("before", "before=2024-03-20T10:00:00&_fields=id,date", null, "boundary: Sales Lead is at exactly 10:00 local");
    list("after.before", "after=2024-03-01T00:00:00&before=2024-07-01T00:00:00&_fields=id,date");
    list("after.local-midnight", "after=2025-01-01T00:00:00&_fields=id,date,date_gmt", null, "Night Shift Operator: 00:30 local, 23:30 UTC the day before");
    list("after.utc-z", "after=2025-01-01T00:00:00Z&_fields=id,date,date_gmt", null, "the same instant written in UTC: which zone after is read in");
    list("after.offset", "after=2025-01-01T00:00:00%2B01:00&_fields=id,date,date_gmt", null, "+01:00 (the site's offset then)");
    list("before.utc-z", "before=2024-01-10T08:30:00Z&_fields=id,date,date_gmt", null, "Senior Backend Engineer: 09:00 local, 08:00 UTC");
    list("after.date-only", "after=2024-06-01&_fields=id");
    list("after.bad", "after=not-a-date");
    list("modified_after", "modified_after=2024-09-01T00:00:00&_fields=id,modified");
    list("modified_before", "modified_before=2024-03-01T00:00:00&_fields=id,modified");
    list("modified_after.bad", "modified_after=yesterday");
    list("author.one", "author={{user.author}}&_fields=id,author");
    list("author.list", "author={{user.administrator}},{{user.editor}}&_fields=id,author");
    list("author.array", "author[]={{user.editor}}&author[]={{user.author}}&_fields=id,author");
    list("author.missing-user", "author=999&_fields=id");
    list("author.bad", "author=abc");
    list("author_exclude", "author_exclude={{user.administrator}}&_fields=id,author");
    list("include", "include={{post.sales_lead}},{{post.backend_engineer}},{{post.designer}}&_fields=id");
    list("include.orderby-include", "include={{post.sales_lead}},{{post.backend_engineer}},{{post.designer}}&orderby=include&_fields=id");
    list("include.not-visible", "include={{post.php_maintainer}},{{post.internal_auditor}},{{post.backend_engineer}}&_fields=id", null, "a draft and a private post in include, anonymous");
    list("include.missing", "include=999&_fields=id");
    list("include.bad", "include=abc");
    list("exclude", "exclude={{post.night_operator}},{{post.designer}}&_fields=id");
    list("offset", "offset=3&_fields=id");
    list("offset.page", "offset=3&page=2&per_page=4&_fields=id", null, "offset and page together");
    list("offset.beyond", "offset=20&_fields=id");
    list("order.asc", "order=asc&_fields=id");
    list("order.upper-case", "order=ASC&_fields=id");
    list("order.bad", "order=sideways");
    for (const orderby of ["author", "date", "id", "modified", "parent", "slug", "title"]) {
      const tied = orderby === "author" || orderby === "parent";
      list(`orderby.${orderby}`, `orderby=${orderby}&_fields=id${tied ? `,${orderby}` : ""}`, null, tied ? TIES : undefined);
    }
    list("orderby.title.asc", "orderby=title&order=asc&_fields=id,title");
    list("orderby.include.missing-include", "orderby=include");
    list("orderby.relevance", "orderby=relevance&search=engineer&_fields=id,title");
    list("orderby.relevance.missing-search", "orderby=relevance");
    list("orderby.include_slugs", "orderby=include_slugs&slug=sales-lead,designer,backend-nope,senior-backend-engineer&_fields=id,slug");
    list("orderby.bad", "orderby=salary");
    list("slug.one", "slug=sales-lead&_fields=id,slug");
    list("slug.list", "slug=sales-lead,designer&_fields=id,slug");
    list("slug.array", "slug[]=sales-lead&slug[]=designer&_fields=id,slug");
    list("slug.missing", "slug=nope");
    list("status.publish.anonymous", "status=publish&_fields=id");
    list("status.draft.anonymous", "status=draft");
    list("status.draft.subscriber", "status=draft", "subscriber");
    list("status.draft.contributor", "status=draft&_fields=id,author,status", "contributor");
    list("status.draft.author", "status=draft&_fields=id,author,status", "author");
    list("status.draft.administrator", "status=draft&_fields=id,author,status", "administrator");
    list("status.list.administrator", "status=draft,pending,private&_fields=id,status", "administrator");
    list("status.any.administrator", "status=any&_fields=id,status", "administrator");
    list("status.any.author", "status=any&_fields=id,status,author", "author");
    list("status.trash.administrator", "status=trash&_fields=id,status,slug", "administrator");
    list("status.future.editor", "status=future&_fields=id,status,date", "editor");
    list("status.private.author", "status=private&_fields=id,status", "author");
    list("status.private.editor", "status=private&_fields=id,status", "editor");
    list("status.bad", "status=bogus", "administrator");
    list("departments.one", "departments={{term.backend}}&_fields=id,departments");
    list("departments.parent.no-children", "departments={{term.engineering}}&_fields=id,departments", null, "no include_children by default");
    list("departments.object.include_children", "departments[terms]={{term.engineering}}&departments[include_children]=true&_fields=id,departments");
    list("departments.list", "departments={{term.backend}},{{term.sales}}&_fields=id,departments");
    list("departments.object.operator-and", "departments[terms]={{term.backend}},{{term.frontend}}&departments[operator]=AND&_fields=id,departments");
    list("departments.object.operator-bad", "departments[terms]={{term.backend}}&departments[operator]=XOR");
    list("departments.empty-term", "departments={{term.legal}}&_fields=id", null, "Legal holds only a private post");
    list("departments.missing-term", "departments=999&_fields=id");
    list("departments.bad", "departments=abc");
    list("departments_exclude", "departments_exclude={{term.sales}}&_fields=id,departments");
    list("departments_exclude.object.include_children", "departments_exclude[terms]={{term.engineering}}&departments_exclude[include_children]=true&_fields=id,departments");
    list("skills.one", "skills={{term.typescript}}&_fields=id,skills");
    list("skills.object.operator-and", "skills[terms]={{term.typescript}},{{term.sql}}&skills[operator]=AND&_fields=id,skills");
    list("skills.object.include_children", "skills[terms]={{term.typescript}}&skills[include_children]=true&_fields=id,skills", null, "include_children on a flat taxonomy");
    list("tax_relation.and", "departments={{term.backend}}&skills={{term.sql}}&tax_relation=AND&_fields=id,departments,skills");
    list("tax_relation.or", "departments={{term.sales}}&skills={{term.php}}&tax_relation=OR&_fields=id,departments,skills");
    list("tax_relation.default", "departments={{term.backend}}&skills={{term.php}}&_fields=id,departments,skills");
    list("tax_relation.bad", "departments={{term.backend}}&skills={{term.php}}&tax_relation=XOR");
    list("meta.query-args-ignored", "meta_key=salary&meta_value=90000&_fields=id");
    list("meta.field-name-ignored", "salary=90000&location=Milan&_fields=id");
    list("meta.object-ignored", "meta[salary]=90000&_fields=id");
    list("unknown-param-ignored", "foo=bar&_fields=id");
    list("fields.top", "_fields=id,title");
    list("fields.nested", "_fields=id,title.rendered,meta.salary&per_page=3");
    list("fields.array", "_fields[]=id&_fields[]=slug&per_page=3");
    list("fields.unknown", "_fields=nope&per_page=2");
    list("fields.links", "_fields=id,_links&per_page=2");
    list("embed.all", "_embed&per_page=2");
    list("embed.author", "_embed=author&per_page=2");
    list("embed.term", "_embed=wp:term&per_page=2");
    list("embed.fields", "_embed&_fields=id,_links.author,_embedded&per_page=2");
    list("envelope", "_envelope&per_page=2&_fields=id");
    list("envelope.error", "_envelope&per_page=0");
    list("multiple-invalid", "per_page=0&page=abc&order=sideways&after=x");

    const one = (name: string, key: string, user: Role | null, query?: string, note?: string): void =>
      s(`jobs.get.${name}`, "GET", job(key), user, { query, note });
    one("publish.anonymous", "backend_engineer", null);
    one("publish.edit.administrator", "backend_engineer", "administrator", "context=edit");
    one("publish.embed", "backend_engineer", null, "context=embed");
    one("publish.edit.anonymous", "backend_engineer", null, "context=edit");
    one("publish.edit.subscriber", "backend_engineer", "subscriber", "context=edit");
    one("publish.edit.author-others", "backend_engineer", "author", "context=edit");
    one("publish.edit.author-own", "sales_lead", "author", "context=edit");
    one("publish.edit.editor-others", "sales_lead", "editor", "context=edit");
    one("publish.context-bad", "backend_engineer", null, "context=bogus");
    one("publish.fields", "backend_engineer", null, "_fields=id,slug,meta");
    one("publish.embed-all", "backend_engineer", null, "_embed");
    one("publish.embed-term", "backend_engineer", null, "_embed=wp:term");
    one("publish.unknown-param", "backend_engineer", null, "foo=bar");
    one("dst.summer", "protected_posting", "administrator", "_fields=id,date,date_gmt,modified,modified_gmt");
    one("dst.ambiguous-hour", "product_manager", null, "_fields=id,date,date_gmt", "02:30 happens twice in Rome that night");
    one("new-year-utc", "night_operator", null, "_fields=id,date,date_gmt");
    one("modified-differs", "frontend_developer", null, "_fields=id,date,date_gmt,modified,modified_gmt");
    one("draft.anonymous", "php_maintainer", null);
    one("draft.contributor", "php_maintainer", "contributor");
    one("draft.author-own", "php_maintainer", "author", undefined, "floating date: date_gmt of a draft without one");
    one("draft.editor", "php_maintainer", "editor", "context=edit");
    one("pending.anonymous", "contributor_pending", null);
    one("pending.contributor-own", "contributor_pending", "contributor");
    one("pending.author-others", "contributor_pending", "author");
    one("private.anonymous", "internal_auditor", null);
    one("private.author", "internal_auditor", "author");
    one("private.editor", "internal_auditor", "editor");
    one("future.anonymous", "future_architect", null);
    one("future.author", "future_architect", "author");
    one("future.editor", "future_architect", "editor");
    one("trash.anonymous", "trashed_opening", null);
    one("trash.administrator", "trashed_opening", "administrator");
    one("password.anonymous", "protected_posting", null);
    one("password.wrong", "protected_posting", null, "password=wrong");
    one("password.right", "protected_posting", null, "password=opensesame");
    one("password.subscriber", "protected_posting", "subscriber");
    one("password.edit.administrator", "protected_posting", "administrator", "context=edit");
    one("password.embed", "protected_posting", null, "context=embed");
    list("password.in-list", "include={{post.protected_posting}}", null, "a protected post in a list (no password parameter on collections)");
    list("password.in-list.with-password", "include={{post.protected_posting}}&password=opensesame", null);
    s("jobs.get.missing", "GET", `${JOB}/999`, null);
    s("jobs.get.wrong-type", "GET", `${JOB}/{{post.regular_post}}`, null, { note: "the id of a post of type post" });
    s("jobs.get.zero", "GET", `${JOB}/0`, null);
    s("jobs.get.not-number", "GET", `${JOB}/abc`, null);
    s("jobs.get.negative", "GET", `${JOB}/-1`, null);
    s("jobs.get.trailing-slash", "GET", `${job("backend_engineer")}/`, null, { query: "_fields=id" });
    s("jobs.collection.delete", "DELETE", JOB, "administrator", { note: "a method the collection route does not have" });
    s("jobs.collection.put", "PUT", JOB, "administrator", { body: { title: "Nope" } });
    s("jobs.cors.get", "GET", JOB, null, { query: "per_page=1&_fields=id", headers: { Origin: "https://client.example" } });
    s("jobs.cors.preflight", "OPTIONS", JOB, null, {
      headers: { Origin: "https://client.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
    });
    s("jobs.cors.authenticated", "GET", job("backend_engineer"), "editor", { query: "_fields=id", headers: { Origin: "https://client.example" } });
    s("jobs.autosaves.list", "GET", `${job("backend_engineer")}/autosaves`, "administrator", { note: "WordPress adds autosave routes for every show_in_rest type" });
    s("gigs.list.anonymous", "GET", "/wp/v2/gigs", null);
    s("gigs.list.edit.editor", "GET", "/wp/v2/gigs", "editor", { query: "context=edit" });
    s("gigs.list.edit.administrator", "GET", "/wp/v2/gigs", "administrator", { query: "context=edit" });
    s("listings.list", "GET", "/board/v1/listings", null);
    s("listings.get", "GET", "/board/v1/listings/{{post.first_listing}}", null);
    s("listings.wrong-namespace", "GET", "/wp/v2/listings", null);
  }

  // ------------------------------------------------ terms: reads (fixtures only)
  {
    const s = builder("terms", steps);
    const list = (name: string, query: string | undefined, user: Role | null = null, note?: string): void =>
      s(`departments.list.${name}`, "GET", DEP, user, { query, note });
    list("default", undefined);
    list("context.embed", "context=embed");
    list("context.edit.anonymous", "context=edit");
    list("context.edit.author", "context=edit", "author");
    list("context.edit.editor", "context=edit", "editor");
    list("context.bad", "context=bogus");
    list("per_page.2", "per_page=2");
    list("per_page.2.page.2", "per_page=2&page=2");
    list("page.out-of-range", "per_page=2&page=9");
    list("per_page.0", "per_page=0");
    list("per_page.101", "per_page=101");
    list("search", "search=end&_fields=id,name");
    list("search.description", "search=customers&_fields=id,name");
    list("include", "include={{term.sales}},{{term.backend}}&_fields=id");
    list("include.orderby-include", "include={{term.sales}},{{term.backend}}&orderby=include&_fields=id");
    list("exclude", "exclude={{term.sales}},{{term.backend}}&_fields=id");
    list("offset", "offset=2&_fields=id", null, "department is hierarchical: WordPress registers offset only for flat taxonomies");
    list("order.desc", "order=desc&_fields=id,name");
    for (const orderby of ["id", "include", "name", "slug", "include_slugs", "term_group", "description", "count"]) {
      const tied = orderby === "term_group" || orderby === "description" || orderby === "count";
      list(`orderby.${orderby}`, `orderby=${orderby}&_fields=id,name,count${orderby === "description" ? ",description" : ""}`, null, tied ? TIES : undefined);
    }
    list("orderby.include_slugs.with-slugs", "orderby=include_slugs&slug=sales,backend,legal&_fields=id,slug");
    list("orderby.bad", "orderby=parent");
    list("hide_empty.true", "hide_empty=true&_fields=id,name,count");
    list("hide_empty.false", "hide_empty=false&_fields=id,count");
    list("hide_empty.bad", "hide_empty=maybe");
    list("parent.engineering", "parent={{term.engineering}}&_fields=id,parent");
    list("parent.0", "parent=0&_fields=id,parent");
    list("parent.bad", "parent=abc");
    list("post.published", "post={{post.backend_engineer}}&_fields=id,name");
    list("post.draft.anonymous", "post={{post.php_maintainer}}", null, "terms of a post the user may not read");
    list("post.draft.author-own", "post={{post.php_maintainer}}&_fields=id", "author");
    list("post.missing", "post=999");
    list("post.wrong-type", "post={{post.regular_post}}");
    list("slug.one", "slug=backend&_fields=id,slug");
    list("slug.list", "slug=backend,sales&_fields=id,slug");
    list("unknown-param-ignored", "foo=bar&_fields=id");
    list("fields.nested", "_fields=id,_links.self");
    list("embed", "_embed&include={{term.backend}}");
    s("skills.list.default", "GET", SKILL, null);
    s("skills.list.parent-ignored", "GET", SKILL, null, { query: "parent=5&_fields=id", note: "skill is flat: no parent parameter" });
    s("skills.list.offset", "GET", SKILL, null, { query: "offset=1&_fields=id,name" });
    s("skills.list.offset.per_page", "GET", SKILL, null, { query: "offset=1&per_page=2&_fields=id,name" });
    s("skills.list.hide_empty", "GET", SKILL, null, { query: "hide_empty=true&_fields=id,count" });
    s("skills.list.post", "GET", SKILL, null, { query: "post={{post.backend_engineer}}&_fields=id,name" });
    s("departments.get.view", "GET", dep("backend"), null);
    s("departments.get.edit.editor", "GET", dep("backend"), "editor", { query: "context=edit" });
    s("departments.get.edit.author", "GET", dep("backend"), "author", { query: "context=edit" });
    s("departments.get.embed", "GET", dep("backend"), null, { query: "context=embed" });
    s("departments.get.missing", "GET", `${DEP}/999`, null);
    s("departments.get.other-taxonomy", "GET", `${DEP}/{{term.typescript}}`, null, { note: "a skill's id under departments" });
    s("departments.get.empty-private-only", "GET", dep("legal"), null);
    s("skills.get.view", "GET", skill("typescript"), null);
  }

  // --------------------------------------------------------- jobs: writes
  {
    const s = builder("jobs", steps);
    s("jobs.create.anonymous", "POST", JOB, null, { body: { title: "Anonymous job" } });
    s("jobs.create.subscriber", "POST", JOB, "subscriber", { body: { title: "Subscriber job" } });
    s("jobs.create.anonymous.invalid", "POST", JOB, null, { body: { title: "Anonymous job", status: "bogus" }, note: "validation before permission?" });
    s("jobs.update.anonymous.missing", "PATCH", `${JOB}/999`, null, { body: { title: "x" }, note: "missing post before permission?" });
    s("jobs.create.minimal", "POST", JOB, "administrator", { body: { title: "Created by admin" }, save: "post.created_minimal", note: "no status: draft; no date: now" });
    s("jobs.create.full", "POST", JOB, "administrator", {
      save: "post.created_full",
      body: {
        title: "Staff Engineer",
        content: "<p>Lead the platform.</p>",
        excerpt: "Platform lead.",
        status: "publish",
        date: "2024-12-05T10:00:00",
        slug: "staff-engineer-bologna",
        author: ref("user.editor"),
        departments: [ref("term.backend"), ref("term.engineering")],
        skills: [ref("term.typescript"), ref("term.sql")],
        meta: { salary: 100000, remote: true, hours: 38.5, location: "Bologna", apply_url: "https://example.com/apply/staff", closes: "2025-01-31 17:00:00" },
      },
    });
    s("jobs.create.full.read-edit", "GET", job("created_full"), "administrator", { query: "context=edit" });
    s("jobs.create.date_gmt-only", "POST", JOB, "administrator", {
      body: { title: "Dated in UTC", status: "publish", date_gmt: "2024-07-01T08:00:00" }, save: "post.created_date_gmt",
    });
    s("jobs.create.date-with-offset", "POST", JOB, "administrator", {
      body: { title: "Dated with an offset", status: "publish", date: "2024-07-01T10:00:00+05:00" }, save: "post.created_date_offset",
    });
    s("jobs.create.future-date-publish", "POST", JOB, "administrator", {
      body: { title: "Published in the future", status: "publish", date: "2099-01-01T09:00:00" }, save: "post.created_future",
      note: "status publish with a future date",
    });
    s("jobs.create.draft-with-date", "POST", JOB, "administrator", {
      body: { title: "Draft with a date", date: "2024-08-01T09:00:00" }, save: "post.created_draft_dated",
    });
    s("jobs.create.title-object", "POST", JOB, "administrator", {
      body: { title: { raw: "Title given as an object" }, content: { raw: "<p>Content as an object.</p>" }, status: "draft" }, save: "post.created_title_object",
    });
    s("jobs.create.form-encoded", "POST", JOB, "administrator", {
      form: "title=Form+encoded&status=publish&date=2024-08-02T09:00:00&departments[]={{term.sales}}&meta[salary]=42000&meta[remote]=true",
      save: "post.created_form",
    });
    s("jobs.create.unicode-slug", "POST", JOB, "administrator", {
      body: { title: "Café Ünïcode — Crème brûlée", status: "publish", date: "2024-08-03T09:00:00" }, save: "post.created_unicode",
    });
    s("jobs.create.slug-collision", "POST", JOB, "administrator", {
      body: { title: "Sales Lead", status: "publish", date: "2024-08-04T09:00:00" }, save: "post.created_slug_collision",
    });
    s("jobs.create.draft-same-slug", "POST", JOB, "administrator", {
      body: { title: "Sales Lead", status: "draft", slug: "sales-lead" }, save: "post.created_draft_same_slug",
      note: "a draft keeps a colliding slug as asked? (WordPress makes it unique only on publish)",
    });
    s("jobs.create.unknown-fields", "POST", JOB, "administrator", {
      body: { title: "Unknown fields ignored", foo: "bar", parent: 3, menu_order: 4, sticky: true, meta: { unknown_key: "x" } },
      save: "post.created_unknown_fields",
    });
    s("jobs.create.with-id", "POST", JOB, "administrator", { body: { id: ref("post.backend_engineer"), title: "Has an id" } });
    s("jobs.create.status-bad", "POST", JOB, "administrator", { body: { title: "Bad status", status: "bogus" } });
    s("jobs.create.date-bad", "POST", JOB, "administrator", { body: { title: "Bad date", date: "not a date" } });
    s("jobs.create.author-missing", "POST", JOB, "administrator", { body: { title: "Missing author", author: 999 } });
    s("jobs.create.author-bad", "POST", JOB, "administrator", { body: { title: "Bad author", author: "abc" } });
    s("jobs.create.departments-missing-term", "POST", JOB, "administrator", { body: { title: "Missing term", departments: [999] } });
    s("jobs.create.departments-other-taxonomy", "POST", JOB, "administrator", {
      body: { title: "Skill as department", departments: [ref("term.typescript")] },
    });
    s("jobs.create.departments-bad", "POST", JOB, "administrator", { body: { title: "Bad terms", departments: "abc" } });
    s("jobs.create.departments-scalar", "POST", JOB, "administrator", {
      body: { title: "Scalar term", departments: ref("term.sales") }, save: "post.created_scalar_term",
    });
    s("jobs.create.meta-integer-bad", "POST", JOB, "administrator", { body: { title: "Bad salary", meta: { salary: "lots" } } });
    s("jobs.create.meta-integer-fraction", "POST", JOB, "administrator", { body: { title: "Fraction salary", meta: { salary: 1.5 } } });
    s("jobs.create.meta-integer-string", "POST", JOB, "administrator", {
      body: { title: "String salary", meta: { salary: "5000" } }, save: "post.created_meta_string",
    });
    s("jobs.create.meta-boolean-bad", "POST", JOB, "administrator", { body: { title: "Bad remote", meta: { remote: "maybe" } } });
    s("jobs.create.meta-boolean-strings", "POST", JOB, "administrator", {
      body: { title: "Remote as a string", meta: { remote: "1", hours: "12.25" } }, save: "post.created_meta_bool_string",
    });
    s("jobs.create.meta-date-bad", "POST", JOB, "administrator", { body: { title: "Bad closes", meta: { closes: "tomorrow" } } });
    s("jobs.create.meta-uri-javascript", "POST", JOB, "administrator", {
      body: { title: "Javascript apply url", meta: { apply_url: "javascript:alert(1)" } }, save: "post.created_meta_js_url",
    });
    s("jobs.create.meta-not-object", "POST", JOB, "administrator", { body: { title: "Meta not an object", meta: "salary" } });
    s("jobs.create.template-bad", "POST", JOB, "administrator", { body: { title: "Bad template", template: "nope.php" } });
    s("jobs.create.password-bad-type", "POST", JOB, "administrator", { body: { title: "Bad password", password: 123 } });
    s("jobs.create.multiple-invalid", "POST", JOB, "administrator", {
      body: { title: "Many errors", status: "bogus", date: "x", meta: { salary: "x" }, author: "x" },
    });
    s("jobs.create.invalid-json", "POST", JOB, "administrator", { raw: '{"title": "broken"' });
    s("jobs.create.empty", "POST", JOB, "administrator", { body: {}, note: "no title, no content" });
    s("jobs.create.contributor.publish", "POST", JOB, "contributor", { body: { title: "Contributor publishes", status: "publish" } });
    s("jobs.create.contributor.private", "POST", JOB, "contributor", { body: { title: "Contributor private", status: "private" } });
    s("jobs.create.contributor.future", "POST", JOB, "contributor", { body: { title: "Contributor future", status: "future", date: "2099-02-01T09:00:00" } });
    s("jobs.create.contributor.pending", "POST", JOB, "contributor", {
      body: { title: "Contributor pending", status: "pending", departments: [ref("term.sales")] }, save: "post.contributor_created_pending",
    });
    s("jobs.create.contributor.default", "POST", JOB, "contributor", { body: { title: "Contributor default status" }, save: "post.contributor_created_draft" });
    s("jobs.create.contributor.as-other-author", "POST", JOB, "contributor", { body: { title: "As someone else", author: ref("user.editor") } });
    s("jobs.create.author.publish", "POST", JOB, "author", {
      body: { title: "Author publishes", status: "publish", date: "2024-08-05T09:00:00", skills: [ref("term.php")] }, save: "post.author_created",
    });
    s("jobs.create.author.private", "POST", JOB, "author", { body: { title: "Author private", status: "private" } });
    s("jobs.create.author.as-other-author", "POST", JOB, "author", { body: { title: "Author as editor", author: ref("user.editor") } });
    s("jobs.create.editor.private", "POST", JOB, "editor", {
      body: { title: "Editor private", status: "private", date: "2024-08-06T09:00:00" }, save: "post.editor_created_private",
    });
    s("jobs.create.editor.as-author", "POST", JOB, "editor", {
      body: { title: "Editor writes for author", status: "publish", author: ref("user.author"), date: "2024-08-07T09:00:00" }, save: "post.editor_created_for_author",
    });
    s("jobs.create.editor.as-subscriber", "POST", JOB, "editor", {
      body: { title: "For a subscriber", author: ref("user.subscriber") },
      note: "a user who cannot edit posts as author",
    });

    // Updates
    for (const method of ["POST", "PUT", "PATCH"] as const) {
      s(`jobs.update.${method.toLowerCase()}`, method, job("created_minimal"), "administrator", {
        body: { title: `Updated with ${method}` },
      });
    }
    s("jobs.update.full", "POST", job("created_minimal"), "administrator", {
      body: {
        status: "publish", date: "2024-09-10T15:00:00", content: "<p>Now with content.</p>", excerpt: "Now with an excerpt.",
        departments: [ref("term.frontend")], skills: [ref("term.typescript")], meta: { salary: 65000, location: "Naples", remote: true },
      },
    });
    s("jobs.update.meta-partial", "PATCH", job("created_minimal"), "administrator", { body: { meta: { salary: 66000 } }, note: "other meta kept" });
    s("jobs.update.meta-null-deletes", "PATCH", job("created_minimal"), "administrator", { body: { meta: { location: null, remote: null } } });
    s("jobs.update.terms-clear", "PATCH", job("created_minimal"), "administrator", { body: { skills: [] } });
    s("jobs.update.slug-collision", "PATCH", job("created_minimal"), "administrator", { body: { slug: "designer" } });
    s("jobs.update.slug-sanitised", "PATCH", job("created_minimal"), "administrator", { body: { slug: "A Slug With Spaces & Ünïcode" } });
    s("jobs.update.set-password", "PATCH", job("created_minimal"), "administrator", { body: { password: "letmein" } });
    s("jobs.update.read-protected.anonymous", "GET", job("created_minimal"), null);
    s("jobs.update.unset-password", "PATCH", job("created_minimal"), "administrator", { body: { password: "" } });
    s("jobs.update.to-draft", "PATCH", job("created_minimal"), "editor", { body: { status: "draft" } });
    s("jobs.update.id-in-body", "PATCH", job("created_minimal"), "administrator", {
      body: { id: ref("post.backend_engineer"), title: "Id in body" }, note: "the path id wins?",
    });
    s("jobs.update.missing", "PATCH", `${JOB}/999`, "administrator", { body: { title: "Nope" } });
    s("jobs.update.wrong-type", "PATCH", `${JOB}/{{post.regular_post}}`, "administrator", { body: { title: "Nope" } });
    s("jobs.update.invalid-param", "PATCH", job("created_minimal"), "administrator", { body: { status: "bogus" } });
    s("jobs.update.empty-body", "PATCH", job("created_minimal"), "administrator", { body: {} });
    s("jobs.update.anonymous", "PATCH", job("backend_engineer"), null, { body: { title: "Hacked" } });
    s("jobs.update.subscriber", "PATCH", job("backend_engineer"), "subscriber", { body: { title: "Hacked" } });
    s("jobs.update.author-others", "PATCH", job("backend_engineer"), "author", { body: { title: "Hacked" } });
    s("jobs.update.author-own-published", "PATCH", job("sales_lead"), "author", { body: { excerpt: "Edited by its author." } });
    s("jobs.update.author-reassign", "PATCH", job("sales_lead"), "author", { body: { author: ref("user.editor") } });
    s("jobs.update.contributor-own-pending", "PATCH", job("contributor_pending"), "contributor", { body: { title: "Contributor Pending Idea (edited)" } });
    s("jobs.update.contributor-publish-own", "PATCH", job("contributor_pending"), "contributor", { body: { status: "publish" } });
    s("jobs.update.contributor-others", "PATCH", job("php_maintainer"), "contributor", { body: { title: "Not mine" } });
    s("jobs.update.editor-publishes-pending", "PATCH", job("contributor_created_pending"), "editor", {
      body: { status: "publish", date: "2024-09-20T09:00:00" },
    });
    s("jobs.update.contributor-own-now-published", "PATCH", job("contributor_created_pending"), "contributor", { body: { title: "Edit after publish" } });
    s("jobs.update.trashed", "PATCH", job("trashed_opening"), "administrator", { body: { title: "Edit a trashed post" } });

    // Deletes
    s("jobs.delete.anonymous", "DELETE", job("backend_engineer"), null);
    s("jobs.delete.subscriber", "DELETE", job("backend_engineer"), "subscriber");
    s("jobs.delete.author-others", "DELETE", job("backend_engineer"), "author");
    s("jobs.delete.missing", "DELETE", `${JOB}/999`, "administrator");
    s("jobs.delete.trash", "DELETE", job("created_slug_collision"), "administrator", { note: "no force: to the trash, the trashed record answered" });
    s("jobs.delete.trash-again", "DELETE", job("created_slug_collision"), "administrator");
    s("jobs.delete.trashed.read", "GET", job("created_slug_collision"), "administrator", { query: "context=edit" });
    s("jobs.delete.force-bad", "DELETE", job("created_slug_collision"), "administrator", { query: "force=maybe" });
    s("jobs.delete.force-false", "DELETE", job("created_unicode"), "administrator", { query: "force=false" });
    s("jobs.delete.force", "DELETE", job("created_slug_collision"), "administrator", { query: "force=true" });
    s("jobs.delete.force.read", "GET", job("created_slug_collision"), "administrator");
    s("jobs.delete.force-in-body", "DELETE", job("created_unicode"), "administrator", { body: { force: true } });
    s("jobs.delete.fixture-trash-force", "DELETE", job("trashed_opening"), "administrator", { query: "force=1" });
    s("jobs.delete.author-own-published", "DELETE", job("author_created"), "author");
    s("jobs.delete.contributor-own-draft", "DELETE", job("contributor_created_draft"), "contributor");
    s("jobs.delete.contributor-own-published", "DELETE", job("contributor_created_pending"), "contributor", { note: "published by an editor earlier" });
    s("jobs.delete.editor-others", "DELETE", job("created_unknown_fields"), "editor", { query: "force=true" });

    // Sanitising: the same hostile input from each role.
    for (const role of ["contributor", "author", "editor", "administrator"] as const) {
      const key = `xss_${role}`;
      s(`jobs.sanitise.${role}.create`, "POST", JOB, role, {
        body: { ...XSS, status: role === "contributor" ? "pending" : "publish", date: "2024-10-01T09:00:00", meta: XSS_META },
        save: `post.${key}`,
      });
      s(`jobs.sanitise.${role}.stored`, "GET", job(key), "administrator", { query: "context=edit&_fields=id,title,content,excerpt,meta" });
    }
    s("jobs.sanitise.author.update", "PATCH", job("xss_author"), "author", { body: { content: XSS.content } });
    s("jobs.sanitise.administrator-edits-author-post", "PATCH", job("xss_author"), "administrator", {
      body: { content: XSS.content }, note: "unfiltered_html belongs to who saves, not to the post's author",
    });
    s("jobs.sanitise.slug-html", "POST", JOB, "author", { body: { title: "Slug", slug: "<b>bold</b> slug" }, save: "post.xss_slug" });

    // Batch
    s("batch.jobs.mixed", "POST", "/batch/v1", "administrator", {
      body: {
        requests: [
          { method: "POST", path: "/wp/v2/jobs", body: { title: "Batch created one", status: "publish", date: "2024-10-02T09:00:00" } },
          { method: "POST", path: "/wp/v2/jobs", body: { title: "Batch created two", departments: [ref("term.sales")] } },
          { method: "PUT", path: "/wp/v2/jobs/{{post.created_full}}", body: { title: "Staff Engineer (batch)" } },
          { method: "PATCH", path: "/wp/v2/jobs/999", body: { title: "Missing" } },
          { method: "POST", path: "/wp/v2/jobs", body: { title: "Batch bad", status: "bogus" } },
          { method: "DELETE", path: "/wp/v2/jobs/{{post.created_title_object}}", body: { force: true } },
        ],
      },
      save: ["post.batch_one", "post.batch_two", null, null, null, null],
    });
    s("batch.jobs.require-all-validate", "POST", "/batch/v1", "administrator", {
      body: {
        validation: "require-all-validate",
        requests: [
          { path: "/wp/v2/jobs", body: { title: "Not created: a sibling is invalid" } },
          { path: "/wp/v2/jobs", body: { title: "Invalid", meta: { salary: "x" } } },
        ],
      },
    });
    s("batch.jobs.require-all-validate.ok", "POST", "/batch/v1", "administrator", {
      body: {
        validation: "require-all-validate",
        requests: [
          { path: "/wp/v2/jobs", body: { title: "All valid one" } },
          { path: "/wp/v2/jobs?_fields=id,title", body: { title: "All valid two" } },
        ],
      },
      save: ["post.batch_valid_one", "post.batch_valid_two"],
    });
    s("batch.jobs.anonymous", "POST", "/batch/v1", null, {
      body: { requests: [{ path: "/wp/v2/jobs", body: { title: "Anonymous batch" } }] },
    });
    s("batch.jobs.contributor", "POST", "/batch/v1", "contributor", {
      body: {
        requests: [
          { path: "/wp/v2/jobs", body: { title: "Contributor batch", status: "publish" } },
          { path: "/wp/v2/jobs", body: { title: "Contributor batch draft" } },
        ],
      },
      save: [null, "post.batch_contributor"],
    });
    s("batch.get-not-allowed", "POST", "/batch/v1", "administrator", {
      body: { requests: [{ method: "GET", path: "/wp/v2/jobs" }] },
    });
    s("batch.route-without-batch", "POST", "/batch/v1", "administrator", {
      body: { requests: [{ method: "POST", path: "/wp/v2/types", body: {} }] },
    });
    s("batch.unknown-route", "POST", "/batch/v1", "administrator", {
      body: { requests: [{ method: "POST", path: "/wp/v2/nope", body: {} }] },
    });
    s("batch.too-many", "POST", "/batch/v1", "administrator", {
      body: { requests: Array.from({ length: 26 }, (_, i) => ({ path: "/wp/v2/jobs", body: { title: `Too many ${i}` } })) },
    });
    s("batch.empty", "POST", "/batch/v1", "administrator", { body: { requests: [] } });
    s("batch.get", "GET", "/batch/v1", "administrator");
    s("batch.options", "OPTIONS", "/batch/v1", "administrator");

    // Own capabilities (gig) and a custom namespace (listing).
    s("gigs.create.editor", "POST", "/wp/v2/gigs", "editor", { body: { title: "Editor gig" } });
    s("gigs.create.administrator", "POST", "/wp/v2/gigs", "administrator", { body: { title: "Admin gig", status: "publish", date: "2024-10-03T09:00:00" }, save: "post.created_gig" });
    s("gigs.update.editor", "PATCH", "/wp/v2/gigs/{{post.weekend_gig}}", "editor", { body: { title: "Editor edits" } });
    s("gigs.delete.editor", "DELETE", "/wp/v2/gigs/{{post.weekend_gig}}", "editor");
    s("listings.create", "POST", "/board/v1/listings", "administrator", { body: { title: "Second Listing", status: "publish", date: "2024-10-04T09:00:00" }, save: "post.created_listing" });
    s("listings.update", "PATCH", "/board/v1/listings/{{post.created_listing}}", "administrator", { body: { title: "Second Listing (edited)" } });
    s("listings.delete", "DELETE", "/board/v1/listings/{{post.created_listing}}", "administrator", { query: "force=true" });

    // State after the writes.
    s("jobs.after-writes.list.edit", "GET", JOB, "administrator", {
      query: "status=any&per_page=100&orderby=id&order=asc&context=edit&_fields=id,status,slug,author,title.raw,date,date_gmt,departments,skills",
    });
    s("jobs.after-writes.list.anonymous", "GET", JOB, null, { query: "per_page=100&orderby=id&order=asc&_fields=id,slug" });
  }

  // --------------------------------------------------------- terms: writes
  {
    const s = builder("terms", steps);
    s("departments.create.anonymous", "POST", DEP, null, { body: { name: "Research" } });
    s("departments.create.author", "POST", DEP, "author", { body: { name: "Research" } });
    s("departments.create.anonymous.invalid", "POST", DEP, null, { body: { name: "Research", parent: "abc" }, note: "validation before permission?" });
    s("departments.create.editor", "POST", DEP, "editor", {
      body: { name: "Research", description: "Looks ahead.", parent: ref("term.engineering") }, save: "term.research",
    });
    s("departments.create.minimal", "POST", DEP, "editor", { body: { name: "Operations" }, save: "term.operations" });
    s("departments.create.with-slug", "POST", DEP, "editor", { body: { name: "People & Culture", slug: "people" }, save: "term.people" });
    s("departments.create.duplicate-name", "POST", DEP, "editor", { body: { name: "Research", parent: ref("term.engineering") } });
    s("departments.create.duplicate-name-other-parent", "POST", DEP, "editor", {
      body: { name: "Backend", parent: ref("term.sales") }, save: "term.sales_backend",
    });
    s("departments.create.duplicate-name-top", "POST", DEP, "editor", { body: { name: "Sales" } });
    s("departments.create.duplicate-slug", "POST", DEP, "editor", { body: { name: "Sales Two", slug: "sales" } });
    s("departments.create.parent-missing", "POST", DEP, "editor", { body: { name: "Orphan", parent: 999 } });
    s("departments.create.parent-other-taxonomy", "POST", DEP, "editor", { body: { name: "Wrong parent", parent: ref("term.typescript") } });
    s("departments.create.parent-bad", "POST", DEP, "editor", { body: { name: "Bad parent", parent: "abc" } });
    s("departments.create.name-missing", "POST", DEP, "editor", { body: { description: "No name" } });
    s("departments.create.name-empty", "POST", DEP, "editor", { body: { name: "" } });
    s("departments.create.name-html.editor", "POST", DEP, "editor", {
      body: { name: '<b>R&D</b> <script>alert(1)</script>', description: '<p onclick="x()">Desc <script>alert(2)</script><a href="javascript:alert(3)">l</a></p>' },
      save: "term.html_editor",
    });
    s("departments.create.name-html.administrator", "POST", DEP, "administrator", {
      body: { name: '<b>Admin R&D</b> <script>alert(1)</script>', description: '<p onclick="x()">Desc <script>alert(2)</script><a href="javascript:alert(3)">l</a></p>' },
      save: "term.html_administrator",
    });
    s("departments.create.unknown-fields", "POST", DEP, "editor", { body: { name: "Unknown fields", foo: "bar", count: 99, meta: { x: 1 } }, save: "term.unknown_fields" });
    s("departments.create.id-in-body", "POST", DEP, "editor", { body: { name: "With id", id: 3 }, save: "term.with_id" });
    s("departments.create.form-encoded", "POST", DEP, "editor", { form: "name=Form+Dept&parent={{term.sales}}", save: "term.form" });
    s("departments.create.invalid-json", "POST", DEP, "editor", { raw: "{name:" });
    s("skills.create.subscriber", "POST", SKILL, "subscriber", { body: { name: "Cobol" } });
    s("skills.create.author", "POST", SKILL, "author", { body: { name: "Rust" }, save: "term.rust", note: "a flat taxonomy: assign_terms is enough to create" });
    s("skills.create.contributor", "POST", SKILL, "contributor", { body: { name: "Elixir" }, save: "term.elixir" });
    s("skills.update.contributor", "PATCH", skill("elixir"), "contributor", { body: { description: "Edited by a contributor" } });
    s("skills.delete.contributor", "DELETE", skill("elixir"), "contributor", { query: "force=true" });
    s("skills.create.duplicate-name", "POST", SKILL, "editor", { body: { name: "rust" } });
    s("skills.create.with-parent", "POST", SKILL, "editor", { body: { name: "Tokio", parent: ref("term.rust") }, save: "term.tokio", note: "skill is flat" });

    for (const method of ["POST", "PUT", "PATCH"] as const) {
      s(`departments.update.${method.toLowerCase()}`, method, dep("operations"), "editor", { body: { description: `Updated with ${method}` } });
    }
    s("departments.update.rename", "PATCH", dep("operations"), "editor", { body: { name: "Ops" }, note: "the slug stays" });
    s("departments.update.slug", "PATCH", dep("operations"), "editor", { body: { slug: "Ops Team" } });
    s("departments.update.slug-taken", "PATCH", dep("operations"), "editor", { body: { slug: "sales" } });
    s("departments.update.name-taken", "PATCH", dep("operations"), "editor", { body: { name: "Sales" } });
    s("departments.update.parent", "PATCH", dep("operations"), "editor", { body: { parent: ref("term.research") } });
    s("departments.update.parent-self", "PATCH", dep("operations"), "editor", { body: { parent: ref("term.operations") } });
    s("departments.update.parent-cycle", "PATCH", dep("engineering"), "editor", { body: { parent: ref("term.backend") }, note: "a child as parent" });
    s("departments.update.parent-cycle.read", "GET", DEP, null, { query: "orderby=id&_fields=id,parent" });
    s("departments.update.parent-missing", "PATCH", dep("operations"), "editor", { body: { parent: 999 } });
    s("departments.update.parent-zero", "PATCH", dep("operations"), "editor", { body: { parent: 0 } });
    s("departments.update.missing", "PATCH", `${DEP}/999`, "editor", { body: { name: "Nope" } });
    s("departments.update.other-taxonomy", "PATCH", `${DEP}/{{term.typescript}}`, "editor", { body: { name: "Nope" } });
    s("departments.update.author", "PATCH", dep("operations"), "author", { body: { name: "Nope" } });
    s("departments.update.anonymous", "PATCH", dep("operations"), null, { body: { name: "Nope" } });
    s("departments.update.empty-body", "PATCH", dep("operations"), "editor", { body: {} });
    s("departments.update.name-empty", "PATCH", dep("operations"), "editor", { body: { name: "" } });

    // Counts follow posts (published ones only).
    s("counts.before", "GET", DEP, null, { query: "orderby=id&_fields=id,name,count&per_page=100" });
    s("counts.assign-published", "POST", JOB, "administrator", {
      body: { title: "Ops Engineer", status: "publish", date: "2024-10-05T09:00:00", departments: [ref("term.operations"), ref("term.legal")] },
      save: "post.ops_engineer",
    });
    s("counts.assign-draft", "POST", JOB, "administrator", { body: { title: "Ops Draft", departments: [ref("term.operations")] }, save: "post.ops_draft" });
    s("counts.after-assign", "GET", DEP, null, { query: "orderby=id&include={{term.operations}},{{term.legal}}&_fields=id,count" });
    s("counts.hide_empty.after-assign", "GET", DEP, null, { query: "orderby=id&hide_empty=true&_fields=id,count" });
    s("counts.trash-post", "DELETE", job("ops_engineer"), "administrator");
    s("counts.after-trash", "GET", DEP, null, { query: "orderby=id&include={{term.operations}},{{term.legal}}&_fields=id,count" });
    s("counts.restore-publish", "PATCH", job("ops_engineer"), "administrator", { body: { status: "publish" } });
    s("counts.after-restore", "GET", DEP, null, { query: "orderby=id&include={{term.operations}},{{term.legal}}&_fields=id,count" });
    s("counts.post-filter", "GET", DEP, null, { query: "orderby=id&post={{post.ops_engineer}}&_fields=id,name" });
    s("counts.jobs-filter", "GET", JOB, null, { query: "departments={{term.operations}}&_fields=id" });
    s("counts.include-children", "GET", JOB, null, { query: "departments[terms]={{term.research}}&departments[include_children]=true&_fields=id" });

    // Deletes: terms have no trash.
    s("departments.delete.no-force", "DELETE", dep("operations"), "editor");
    s("departments.delete.force-false", "DELETE", dep("operations"), "editor", { query: "force=false" });
    s("departments.delete.author", "DELETE", dep("operations"), "author", { query: "force=true" });
    s("departments.delete.anonymous", "DELETE", dep("operations"), null, { query: "force=true" });
    s("departments.delete.missing", "DELETE", `${DEP}/999`, "editor", { query: "force=true" });
    s("departments.delete.force", "DELETE", dep("operations"), "editor", { query: "force=true" });
    s("departments.delete.force.read", "GET", dep("operations"), null);
    s("departments.delete.post-after", "GET", job("ops_engineer"), null, { query: "_fields=id,departments" });
    s("departments.delete.parent.make-child", "POST", DEP, "editor", { body: { name: "Lab", parent: ref("term.research") }, save: "term.lab" });
    s("departments.delete.parent", "DELETE", dep("research"), "editor", { query: "force=true", note: "Research has a child (Lab) and a parent (Engineering)" });
    s("departments.delete.parent.children", "GET", DEP, null, { query: "orderby=id&_fields=id,name,parent&per_page=100" });
    s("skills.delete.force", "DELETE", skill("rust"), "editor", { query: "force=true" });
    s("terms.final.departments", "GET", DEP, "editor", { query: "orderby=id&context=edit&per_page=100" });
    s("terms.final.skills", "GET", SKILL, "editor", { query: "orderby=id&context=edit&per_page=100" });
  }

  const seen = new Set<string>();
  for (const step of steps) {
    if (seen.has(step.name)) throw new Error(`duplicate step name ${step.name}`);
    seen.add(step.name);
  }
  return steps;
}

/**
 * A job board in configuration only: a `job` post type with typed fields
 * and two taxonomies, shown in the REST API. The site generates their
 * routes (WordPress's posts and terms controllers, lib/controllers), the
 * editor its screens; no route code. The same content as the WordPress
 * reference site the generated API is compared with (test/vectors/wordpress).
 */
import type { Site } from "calpress";

export function registerJobBoard(site: Site): void {
  site.engine.registerPostType("job", {
    labels: { singular: "Job", plural: "Jobs" },
    rest: { namespace: "wp/v2", base: "jobs" },
    supports: ["title", "editor", "excerpt", "author", "custom-fields"],
    // As WordPress: a draft has no slug until it is published or given one.
    emptySlugWhileDraft: true,
    fields: {
      salary: { type: "integer", index: true },
      remote: { type: "boolean" },
      hours: { type: "number" },
      location: { type: "string", length: 100 },
      apply_url: { type: "string", length: 2048, kind: "url" },
      closes: { type: "datetime" },
    },
  });
  site.engine.registerTaxonomy("department", {
    objectTypes: ["job"],
    hierarchical: true,
    labels: { singular: "Department", plural: "Departments" },
    rest: { namespace: "wp/v2", base: "departments" },
  });
  site.engine.registerTaxonomy("skill", {
    objectTypes: ["job"],
    labels: { singular: "Skill", plural: "Skills" },
    rest: { namespace: "wp/v2", base: "skills" },
  });
}

import { RestResponse, type RestRequest, type Site } from "../../lib";

/**
 * A host plugin for the fixture and testing-entry tests: a `job` type with
 * a typed field of every kind (names the generator reads, and some it does
 * not), a hierarchical `page_note` type without `future`, a hierarchical
 * and a flat taxonomy, and a route that lists jobs and creates one.
 */
export function registerJobsPlugin(site: Site): void {
  const { engine, rest } = site;
  engine.registerPostType("job", {
    labels: { singular: "Job", plural: "Jobs" },
    capabilityType: ["job", "jobs"],
    fields: {
      employer: { type: "string", length: 80, index: true },
      contact_email: { type: "string" },
      website: { type: "string", length: 300 },
      summary: { type: "text" },
      openings: { type: "integer", default: 1 },
      salary: { type: "number" },
      remote: { type: "boolean", default: false },
      closes: { type: "datetime", index: true },
      grade: { type: "string", length: 4 },
    },
  });
  engine.registerPostType("page_note", { hierarchical: true, statuses: ["publish", "draft", "private", "trash"] });
  engine.registerTaxonomy("department", { objectTypes: ["job", "page_note"], hierarchical: true });
  engine.registerTaxonomy("skill", { objectTypes: ["job"] });

  rest.registerNamespace("jobs/v1");
  rest.registerRoute("jobs/v1", "/jobs", [
    {
      methods: "GET",
      permission: "public",
      args: { department: { type: "string" } },
      handler: async (req: RestRequest<{ department?: string }>) => {
        const department = req.params.department === undefined ? undefined : await engine.terms.bySlug("department", req.params.department, "en");
        const { posts, total } = await engine.posts.find({
          type: "job",
          visibility: { user: req.user, mode: "read" },
          ...(department ? { tax: [{ taxonomy: "department", terms: [department.id], includeChildren: true }] } : {}),
          orderBy: [{ field: "id", dir: "asc" }],
          perPage: 100,
        });
        return { total, jobs: posts.map((p) => ({ id: p.id, title: p.title, employer: p.fields.employer, openings: p.fields.openings })) };
      },
    },
    {
      methods: "POST",
      permission: (req) => req.user?.can("publish_jobs") ?? false,
      args: { title: { type: "string", required: true, minLength: 1 }, employer: { type: "string" } },
      handler: async (req: RestRequest<{ title: string; employer?: string }>) => {
        const job = await engine.posts.create({ type: "job", title: req.params.title, status: "publish", author: req.user?.id, fields: { employer: req.params.employer ?? null } });
        return new RestResponse({ id: job.id, title: job.title }, 201);
      },
    },
  ]);
}

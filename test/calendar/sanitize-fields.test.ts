/**
 * Issue 19 item 3: every text field of every record type, with what it
 * stores for `<script>`, `onerror=` and `javascript:` input, written by a
 * user without `unfiltered_html` (a contributor; an author for categories)
 * and by an administrator, through every way in: create, update and (for
 * venues, organizers and terms) inline with an event.
 *
 * Sanitisers (lib/format/sanitize.ts `sanitizeField`):
 * - text: sanitize_text_field() for everyone: tags and their script bodies
 *   go; `javascript:` is plain text, never a link;
 * - html: kses for users without `unfiltered_html`, kept for those with it
 *   (what WordPress does for post content and titles);
 * - url: esc_url_raw() with WordPress's protocols for everyone: markup
 *   characters go, a disallowed scheme is a 400;
 * - email: must be an e-mail address (a 400 otherwise).
 * - slug: normalised to lower-case letters, digits and dashes.
 */
import { expect } from "chai";
import type { Fixture } from "../../lib/fixtures";
import { startTestSite, type TestSite } from "../support/site";

type Kind = "text" | "html" | "url" | "email" | "slug";
type Input = "script" | "onerror" | "javascript";
type Role = "contributor" | "author" | "admin";

const USERS = [
  { login: "admin", role: "administrator", app_password: "admin-pass" },
  { login: "author", role: "author", app_password: "author-pass" },
  { login: "contributor", role: "contributor", app_password: "contributor-pass" },
] as const;

const FIXTURE: Fixture = { version: 1, name: "sanitize", options: { default_language: "en" }, users: [...USERS] };

/** The hostile value of each input for a field of the kind; `u` makes every value (and so every name) unique. */
function hostile(kind: Kind, input: Input, u: string): string {
  if (kind === "url") {
    return { script: `https://example.com/${u}<script>`, onerror: `https://example.com/${u}"onerror="alert(1)`, javascript: "javascript://example.com/%0Aalert(1)" }[input];
  }
  return {
    script: `${u}<script>alert(1)</script>`,
    onerror: `${u}<img src="x" onerror="alert(1)">`,
    javascript: kind === "html" ? `<a href="javascript:alert(1)">${u}</a>` : `javascript:alert(1)//${u}`,
  }[input];
}

/** What is stored, or the status of the refusal. */
function expected(kind: Kind, input: Input, u: string, unfiltered: boolean): { stored: string | RegExp } | { status: number } {
  const sent = hostile(kind, input, u);
  switch (kind) {
    case "text":
      return { stored: input === "javascript" ? sent : u };
    case "html":
      if (unfiltered) return { stored: sent };
      return { stored: { script: u, onerror: `${u}<img src="x" />`, javascript: `<a>${u}</a>` }[input] };
    case "url":
      return input === "javascript" ? { status: 400 } : { stored: { script: `https://example.com/${u}script`, onerror: `https://example.com/${u}onerror=alert(1)` }[input] };
    case "email":
      return { status: 400 };
    case "slug":
      return { stored: /^[a-z0-9-]+$/ };
  }
}

/** How a field of a record type is written and read back. */
interface Way {
  /** Sends `value` for the field; answers the response and the stored value (when the write succeeded). */
  write(field: string, value: string, u: string, as: Role): Promise<{ status: number; stored?: string }>;
}

/** Every text field of every record type (calendar-api.md §2, §6), with its sanitiser and the roles that write it. */
const FIELDS: Array<{ record: string; field: string; kind: Kind; ways: string[]; roles: Role[] }> = [
  { record: "event", field: "title", kind: "html", ways: ["create", "update"], roles: ["contributor", "admin"] },
  { record: "event", field: "description", kind: "html", ways: ["create", "update"], roles: ["contributor", "admin"] },
  { record: "event", field: "excerpt", kind: "html", ways: ["create", "update"], roles: ["contributor", "admin"] },
  { record: "event", field: "website", kind: "url", ways: ["create", "update"], roles: ["contributor", "admin"] },
  { record: "event", field: "cost", kind: "text", ways: ["create", "update"], roles: ["contributor", "admin"] },
  { record: "event", field: "slug", kind: "slug", ways: ["create", "update"], roles: ["contributor", "admin"] },
  ...["venue", "address", "city", "country", "province", "state", "zip", "phone", "stateprovince"].map((field) => ({
    record: "venue",
    field,
    kind: "text" as const,
    ways: ["create", "update", "inline"],
    roles: ["contributor", "admin"] as Role[],
  })),
  { record: "venue", field: "description", kind: "html", ways: ["create", "update", "inline"], roles: ["contributor", "admin"] },
  { record: "venue", field: "website", kind: "url", ways: ["create", "update", "inline"], roles: ["contributor", "admin"] },
  { record: "organizer", field: "organizer", kind: "text", ways: ["create", "update", "inline"], roles: ["contributor", "admin"] },
  { record: "organizer", field: "phone", kind: "text", ways: ["create", "update", "inline"], roles: ["contributor", "admin"] },
  { record: "organizer", field: "description", kind: "html", ways: ["create", "update", "inline"], roles: ["contributor", "admin"] },
  { record: "organizer", field: "website", kind: "url", ways: ["create", "update", "inline"], roles: ["contributor", "admin"] },
  { record: "organizer", field: "email", kind: "email", ways: ["create", "update", "inline"], roles: ["contributor", "admin"] },
  // Term routes: categories for authors and up, tags for editors and up (who all have unfiltered_html).
  { record: "category", field: "name", kind: "text", ways: ["create", "update", "inline"], roles: ["author", "admin"] },
  { record: "category", field: "description", kind: "html", ways: ["create", "update"], roles: ["author", "admin"] },
  { record: "tag", field: "name", kind: "text", ways: ["create", "update"], roles: ["admin"] },
  { record: "tag", field: "name", kind: "text", ways: ["inline"], roles: ["contributor", "admin"] },
  { record: "tag", field: "description", kind: "html", ways: ["create", "update"], roles: ["admin"] },
];

describe("stored text fields: what <script>, onerror= and javascript: become (sqlite)", () => {
  let ts: TestSite;
  let counter = 0;
  const dates = { start_date: "2031-03-03 18:00:00", end_date: "2031-03-03 20:00:00" };

  before(async () => {
    ts = await startTestSite({ fixture: FIXTURE, timezone: "UTC" });
  });
  after(async () => {
    await ts?.close();
  });

  const postField = async (id: number, field: string): Promise<string> => {
    const post = (await ts.site.engine.posts.get(id))!;
    if (field === "title" || field === "venue" || field === "organizer") return post.title;
    if (field === "description") return post.content;
    if (field === "excerpt") return post.excerpt;
    if (field === "slug") return post.slug;
    const value = post.fields[field];
    if (field === "cost") return (JSON.parse(String(value)) as string[])[0];
    return value === null || value === undefined ? "" : String(value);
  };
  const termField = async (id: number, field: string): Promise<string> => {
    const term = (await ts.site.engine.terms.get(id))!;
    return field === "name" ? term.name : term.description;
  };
  const stored = async (status: number, read: () => Promise<string>): Promise<{ status: number; stored?: string }> =>
    status < 300 ? { status, stored: await read() } : { status };

  const linked = (record: "venue" | "organizer"): Record<string, Way["write"]> => {
    const plural = `/${record}s`;
    const data = (field: string, value: string, u: string): Record<string, string> => ({ [record]: `${record} ${u}`, [field]: value });
    return {
      create: async (field, value, u, as) => {
        const res = await ts.post(plural, { json: data(field, value, u), as });
        return stored(res.status, () => postField(res.body.id, field));
      },
      update: async (field, value, u, as) => {
        const made = await ts.post(plural, { json: { [record]: `${record} ${u} before` }, as });
        expect(made.status).to.equal(201);
        const res = await ts.post(`${plural}/${made.body.id}`, { json: { [field]: value }, as });
        return stored(res.status, () => postField(made.body.id, field));
      },
      inline: async (field, value, u, as) => {
        const res = await ts.post("/events", { json: { title: `event ${u}`, ...dates, [record]: data(field, value, u) }, as });
        const id = (): number => (record === "venue" ? res.body.venue.id : res.body.organizer[0].id);
        return stored(res.status, () => postField(id(), field));
      },
    };
  };
  const terms = (record: "category" | "tag"): Record<string, Way["write"]> => {
    const plural = record === "category" ? "categories" : "tags";
    return {
      create: async (field, value, u, as) => {
        const res = await ts.post(`/${plural}`, { json: { name: `${record} ${u}`, [field]: value }, as });
        return stored(res.status, () => termField(res.body.id, field));
      },
      update: async (field, value, u, as) => {
        const made = await ts.post(`/${plural}`, { json: { name: `${record} ${u} before` }, as });
        expect(made.status).to.equal(201);
        const res = await ts.post(`/${plural}/${made.body.id}`, { json: { [field]: value }, as });
        return stored(res.status, () => termField(made.body.id, field));
      },
      // Terms an event names that do not exist yet are created with it.
      inline: async (_field, value, u, as) => {
        const res = await ts.post("/events", { json: { title: `event ${u}`, ...dates, [plural]: [value] }, as });
        return stored(res.status, () => termField(res.body[plural][0].id, "name"));
      },
    };
  };
  const WAYS: Record<string, Record<string, Way["write"]>> = {
    event: {
      create: async (field, value, u, as) => {
        const res = await ts.post("/events", { json: { title: `event ${u}`, ...dates, [field]: value }, as });
        return stored(res.status, () => postField(res.body.id, field));
      },
      update: async (field, value, u, as) => {
        const made = await ts.post("/events", { json: { title: `event ${u} before`, ...dates }, as });
        expect(made.status).to.equal(201);
        const res = await ts.post(`/events/${made.body.id}`, { json: { [field]: value }, as });
        return stored(res.status, () => postField(made.body.id, field));
      },
    },
    venue: linked("venue"),
    organizer: linked("organizer"),
    category: terms("category"),
    tag: terms("tag"),
  };

  for (const row of FIELDS) {
    for (const way of row.ways) {
      it(`${row.record} ${row.field} (${row.kind}), ${way}`, async () => {
        for (const role of row.roles) {
          for (const input of ["script", "onerror", "javascript"] as const) {
            const u = `tok${++counter}`;
            const value = hostile(row.kind, input, u);
            const want = expected(row.kind, input, u, role === "admin");
            const got = await WAYS[row.record][way](row.field, value, u, role);
            const what = `${role}, ${input}: ${JSON.stringify(value)}`;
            if ("status" in want) {
              expect(got.status, what).to.equal(want.status);
              continue;
            }
            expect(got.status, what).to.be.below(300);
            if (want.stored instanceof RegExp) expect(got.stored, what).to.match(want.stored);
            else expect(got.stored, what).to.equal(want.stored);
          }
        }
      });
    }
  }

  it("refuses a name that is nothing once cleaned, and looks for duplicates by the cleaned name", async () => {
    for (const record of ["venue", "organizer"]) {
      const empty = await ts.post(`/${record}s`, { json: { [record]: "<script>alert(1)</script>" }, as: "admin" });
      expect(empty.status, record).to.equal(400);
      expect(empty.body.code).to.equal("rest_invalid_param");
      const first = await ts.post(`/${record}s`, { json: { [record]: "Clean Name" }, as: "admin" });
      const again = await ts.post(`/${record}s`, { json: { [record]: "Clean <b>Name</b>" }, as: "admin" });
      expect(again.body.id, record).to.equal(first.body.id);
    }
  });
});

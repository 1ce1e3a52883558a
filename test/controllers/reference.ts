/**
 * The WordPress reference (test/vectors/wordpress) on a calpress site: the
 * same content registered and laid as setup.php lays it in WordPress
 * (types, taxonomies, users, terms and posts with the same ids, dates, meta
 * and terms), and the recorded requests replayed against it.
 */
import fs from "node:fs";
import path from "node:path";
import type { Site } from "../../lib/site";
import { registerJobBoard } from "../../examples/job-board";
import type { RoleName } from "../../lib/users/types";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Vector {
  seq: number;
  name: string;
  file: "discovery" | "jobs" | "terms";
  note?: string;
  request: {
    method: string;
    path: string;
    query?: string;
    headers?: Record<string, string>;
    user: RoleName | null;
    body?: Json;
    form?: string;
    raw?: string;
  };
  response: {
    status: number;
    headers: Record<string, string | string[]>;
    body: Json;
    filtered?: string;
    volatile?: string[];
  };
  saved?: Record<string, number>;
}

const DIR = path.join(__dirname, "../vectors/wordpress");

export interface Reference {
  vectors: Vector[];
  /** Ids of the fixtures (`post.<key>`, `term.<key>`, `user.<role>`) in WordPress. */
  fixtures: Record<string, number>;
}

export function loadReference(): Reference {
  const vectors: Vector[] = [];
  for (const file of ["discovery", "jobs", "terms"] as const) {
    const data = JSON.parse(fs.readFileSync(path.join(DIR, `${file}.json`), "utf8")) as { vectors: Omit<Vector, "file">[] };
    for (const v of data.vectors) vectors.push({ ...v, file });
  }
  vectors.sort((a, b) => a.seq - b.seq);
  const fixtures = (JSON.parse(fs.readFileSync(path.join(DIR, "fixtures.json"), "utf8")) as { fixtures: Record<string, number> }).fixtures;
  return { vectors, fixtures };
}

/** Application passwords of the replay's users (any value: calpress checks its own). */
export const PASSWORDS: Record<RoleName, string> = {
  administrator: "reference-admin-pass",
  editor: "reference-editor-pass",
  author: "reference-author-pass",
  contributor: "reference-contributor-pass",
  subscriber: "reference-subscriber-pass",
};
export const LOGINS: Record<RoleName, string> = { administrator: "admin", editor: "editor", author: "author", contributor: "contributor", subscriber: "subscriber" };

interface PostSpec {
  key: string;
  type?: string;
  title: string;
  author: RoleName;
  date: string;
  status?: "publish" | "draft" | "private" | "pending" | "future" | "trash";
  modified?: string;
  floating?: boolean;
  content?: string;
  excerpt?: string;
  password?: string;
  department?: string[];
  skill?: string[];
  meta?: Record<string, string | number | boolean>;
}

/** setup.php's posts, in id order. */
const POSTS: PostSpec[] = [
  {
    key: "backend_engineer",
    title: "Senior Backend Engineer",
    author: "administrator",
    date: "2024-01-10 09:00:00",
    content: "<p>Build and run the services behind our calendar.</p>\n<p>Remote within the EU.</p>",
    excerpt: "Services in TypeScript and SQL.",
    department: ["backend"],
    skill: ["typescript", "sql"],
    meta: { salary: 90000, remote: true, hours: 40, location: "Milan", apply_url: "https://example.com/apply/backend", closes: "2024-02-28 18:00:00" },
  },
  {
    key: "frontend_developer",
    title: "Frontend Developer",
    author: "editor",
    date: "2024-02-15 14:30:00",
    modified: "2024-09-15 10:00:00",
    content: "<p>Pages people enjoy using.</p>",
    department: ["frontend"],
    skill: ["typescript"],
    meta: { salary: 70000, remote: false, hours: 37.5, location: "Rome" },
  },
  { key: "sales_lead", title: "Sales Lead", author: "author", date: "2024-03-20 10:00:00", content: "<p>Lead a small team that sells calendars.</p>", department: ["sales"], meta: { salary: 60000, location: "Turin" } },
  { key: "php_maintainer", title: "PHP Maintainer", author: "author", date: "2024-04-01 08:00:00", status: "draft", floating: true, modified: "2024-04-01 08:00:00", content: "<p>Keep the legacy plugin alive.</p>", department: ["backend"], skill: ["php"] },
  { key: "internal_auditor", title: "Internal Auditor", author: "administrator", date: "2024-04-05 12:00:00", status: "private", content: "<p>Not advertised.</p>", department: ["legal"] },
  {
    key: "protected_posting",
    title: "Protected Posting",
    author: "administrator",
    date: "2024-05-01 11:00:00",
    password: "opensesame",
    content: "<p>Only for those who know the word.</p>",
    excerpt: "A secret excerpt.",
    department: ["engineering"],
    meta: { salary: 123456, location: "Hidden" },
  },
  { key: "contributor_pending", title: "Contributor Pending Idea", author: "contributor", date: "2024-05-10 16:00:00", status: "pending", content: "<p>Waiting for review.</p>", department: ["frontend"] },
  { key: "future_architect", title: "Future Architect", author: "editor", date: "2099-06-01 09:00:00", status: "future", content: "<p>Scheduled far ahead.</p>", department: ["backend"] },
  { key: "trashed_opening", title: "Trashed Opening", author: "administrator", date: "2023-12-01 09:00:00", status: "trash", modified: "2023-12-15 10:00:00", content: "<p>No longer open.</p>", department: ["sales"] },
  {
    key: "data_analyst",
    title: "Data Analyst",
    author: "editor",
    date: "2024-06-03 09:15:00",
    content: "<p>Numbers, queries and charts.</p>",
    excerpt: "SQL every day.",
    department: ["backend"],
    skill: ["sql"],
    meta: { salary: 55000, remote: true, location: "Milan" },
  },
  {
    key: "devops_engineer",
    title: "DevOps Engineer",
    author: "administrator",
    date: "2024-06-20 17:45:00",
    modified: "2024-12-01 09:00:00",
    content: "<p>Pipelines, servers and the pager.</p>",
    department: ["engineering"],
    skill: ["typescript"],
  },
  { key: "qa_engineer", title: "QA Engineer", author: "author", date: "2024-07-08 08:00:00", content: "<p>Break things before users do.</p>", department: ["frontend"], skill: ["typescript"] },
  { key: "account_executive", title: "Account Executive", author: "editor", date: "2024-08-19 13:00:00", content: "<p>Close deals with engineering teams.</p>", department: ["sales"] },
  {
    key: "support_engineer",
    title: "Support Engineer",
    author: "author",
    date: "2024-09-02 09:30:00",
    content: "<p>Help customers run the calendar.</p>",
    department: ["engineering"],
    skill: ["php"],
    meta: { remote: true },
  },
  { key: "product_manager", title: "Product Manager", author: "administrator", date: "2024-10-27 02:30:00", content: "<p>Decide what we build next.</p>" },
  { key: "designer", title: "Designer", author: "editor", date: "2024-11-11 11:11:00", content: "<p>Make it clear.</p>", department: ["frontend"] },
  { key: "night_operator", title: "Night Shift Operator", author: "administrator", date: "2025-01-01 00:30:00", content: "<p>Keep the lights on overnight.</p>", department: ["engineering"] },
  { key: "regular_post", type: "post", title: "A regular post", author: "administrator", date: "2024-01-05 10:00:00", content: "<p>Not a job.</p>" },
  { key: "weekend_gig", type: "gig", title: "Weekend Gig", author: "administrator", date: "2024-02-02 10:00:00", content: "<p>Saturday only.</p>" },
  { key: "first_listing", type: "listing", title: "First Listing", author: "administrator", date: "2024-02-03 10:00:00", content: "<p>In a namespace of its own.</p>" },
];

/** calpress-reference.php's registrations (the job board is examples/job-board.ts) and WordPress's own `post` and `category`. */
export function registerReference(site: Site): void {
  const { engine } = site;
  // WordPress's own post type and category taxonomy, which the reference does not show in its API either way.
  engine.registerPostType("post", { supports: ["title", "editor"] });
  engine.registerTaxonomy("category", { objectTypes: ["post"], hierarchical: true });
  registerJobBoard(site);
  engine.registerPostType("gig", {
    labels: { singular: "Gig", plural: "Gigs" },
    rest: { namespace: "wp/v2", base: "gigs" },
    capabilityType: ["gig", "gigs"],
    supports: ["title", "editor", "author"],
    emptySlugWhileDraft: true,
  });
  engine.registerPostType("listing", {
    labels: { singular: "Listing", plural: "Listings" },
    rest: { namespace: "board/v1", base: "listings" },
    supports: ["title", "editor"],
    emptySlugWhileDraft: true,
  });
}

/** setup.php: users, terms and posts, with WordPress's ids (a fresh database gives the same sequence). */
export async function layReference(site: Site): Promise<Record<string, number>> {
  const { engine } = site;
  const ids: Record<string, number> = {};
  await engine.options.set("timezone", "Europe/Rome");
  const people: Array<[RoleName, string]> = [
    ["administrator", "Ada Admin"],
    ["editor", "Eddie Editor"],
    ["author", "Aurora Author"],
    ["contributor", "Carl Contributor"],
    ["subscriber", "Sue Subscriber"],
  ];
  for (const [role, name] of people) {
    const login = LOGINS[role];
    const user = await engine.users.create({ login, role, email: `${login}@example.com`, displayName: name });
    await engine.users.addAppPassword(user.id, "calpress-recorder", PASSWORDS[role]);
    ids[`user.${role}`] = user.id;
  }
  const term = async (key: string, name: string, taxonomy: string, extra: { parent?: string; description?: string } = {}): Promise<void> => {
    const t = await engine.terms.create({ taxonomy, name, parent: extra.parent ? ids[`term.${extra.parent}`] : undefined, description: extra.description });
    ids[`term.${key}`] = t.id;
  };
  await term("uncategorized", "Uncategorized", "category");
  await term("engineering", "Engineering", "department", { description: "Builds and runs the product." });
  await term("backend", "Backend", "department", { parent: "engineering", description: "Servers and data." });
  await term("frontend", "Frontend", "department", { parent: "engineering" });
  await term("sales", "Sales", "department", { description: "Finds the customers." });
  await term("legal", "Legal", "department");
  await term("typescript", "TypeScript", "skill");
  await term("php", "PHP", "skill");
  await term("sql", "SQL", "skill");
  await term("go", "Go", "skill", { description: "Assigned to nothing." });

  for (const p of POSTS) {
    const status = p.status === "trash" ? "publish" : (p.status ?? "publish");
    const terms: Record<string, number[]> = {};
    if (p.department) terms.department = p.department.map((k) => ids[`term.${k}`]);
    if (p.skill) terms.skill = p.skill.map((k) => ids[`term.${k}`]);
    const post = await engine.posts.create({
      type: p.type ?? "job",
      title: p.title,
      content: p.content ?? "",
      excerpt: p.excerpt ?? "",
      status,
      author: ids[`user.${p.author}`],
      dateLocal: p.date,
      ...(p.floating ? { dateUtc: "0000-00-00 00:00:00" } : {}),
      password: p.password ?? "",
      fields: p.meta,
      ...(Object.keys(terms).length > 0 ? { terms } : {}),
    });
    if (p.status === "trash") await engine.posts.trash(post.id);
    // wp_insert_post: a post's modified date is its date unless edited later (setup.php sets those directly).
    const modifiedLocal = p.modified ?? p.date;
    const stored = (await engine.posts.get(post.id))!;
    const modifiedUtc = p.modified ? toUtc(p.modified) : stored.dateUtc;
    await engine.knex(engine.tables.posts).where({ id: post.id }).update({ modified_local: modifiedLocal, modified_utc: modifiedUtc });
    ids[`post.${p.key}`] = post.id;
  }
  return ids;
}

/** Site time (Europe/Rome) to UTC for the fixture's `modified` dates (both in winter and summer). */
function toUtc(local: string): string {
  const zone = "Europe/Rome";
  const asUtc = Date.parse(`${local.replace(" ", "T")}Z`);
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }).formatToParts(new Date(asUtc));
  const get = (t: string): number => Number(parts.find((x) => x.type === t)?.value);
  const offset = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second")) - asUtc;
  return new Date(asUtc - offset).toISOString().slice(0, 19).replace("T", " ");
}

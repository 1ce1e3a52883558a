import type { Knex } from "knex";
import type { CurrentUser } from "../users/types";
import type { RegisteredPostType } from "./registry";
import type { PostStatus, Visibility } from "./types";

/**
 * Visibility as a query constraint (DESIGN §5). `visibilityRules` is the one
 * place that decides which statuses of which authors a user sees;
 * `applyVisibility` turns the rules into a where-clause for lists, counts and
 * searches, and `ruleAllows` checks one loaded post against the same rules, so
 * a list and a single read can never disagree. Post passwords do not hide a
 * post: the REST layer masks protected content.
 */
export interface StatusRule {
  statuses: PostStatus[];
  /** Only posts by this author. */
  authorOnly?: number;
}

const UNPUBLISHED: PostStatus[] = ["draft", "pending", "future"];

export function visibilityRules(type: RegisteredPostType, vis: Visibility): StatusRule[] {
  const user = vis.user;
  const caps = type.caps;
  if (vis.mode === "list-edit") {
    // WordPress REST list quirk (calendar-api §8): whoever may edit the type
    // lists every status but trash and auto-draft, others' posts included.
    if (user && user.can(caps.edit_posts)) {
      return [{ statuses: [...type.statuses].filter((s) => s !== "trash" && s !== "auto-draft") }];
    }
    return [{ statuses: ["publish"] }];
  }
  if (vis.mode === "edit") return editRules(type, user);
  const rules: StatusRule[] = [{ statuses: ["publish"] }];
  if (!user) return rules;
  // read_post in map_meta_cap: private needs read_private_X unless it is
  // one's own; other unpublished statuses need edit of that post, i.e.
  // edit_others_X for someone else's; one's own post is always readable.
  if (user.can(caps.read_private_posts)) rules.push({ statuses: ["private"] });
  else rules.push({ statuses: ["private"], authorOnly: user.id });
  const unpublished: PostStatus[] = vis.mode === "read-trash" ? [...UNPUBLISHED, "trash"] : UNPUBLISHED;
  if (user.can(caps.edit_others_posts)) rules.push({ statuses: unpublished });
  else rules.push({ statuses: unpublished, authorOnly: user.id });
  return rules;
}

/**
 * `edit_post` in map_meta_cap as rules: one's own posts with edit_posts
 * (published ones also with edit_published_posts), others' with
 * edit_others_posts (published ones also with edit_published_posts, private
 * ones with edit_private_posts). A trashed post is checked by WordPress as
 * the status it had; here as an unpublished one (callers check each post
 * with `edit_post` too).
 */
function editRules(type: RegisteredPostType, user: CurrentUser | null): StatusRule[] {
  const caps = type.caps;
  // No rule at all would be no condition: an empty list of statuses matches nothing.
  if (!user || !user.can(caps.edit_posts)) return [{ statuses: [] }];
  const published: PostStatus[] = user.can(caps.edit_published_posts) ? ["publish", "future"] : [];
  const rules: StatusRule[] = [{ statuses: ["draft", "pending", "private", "trash", ...published], authorOnly: user.id }];
  if (user.can(caps.edit_others_posts)) {
    rules.push({ statuses: ["draft", "pending", "trash", ...published, ...(user.can(caps.edit_private_posts) ? (["private"] as PostStatus[]) : [])] });
  }
  return rules;
}

/** Adds `(type = T AND (rule OR rule …)) OR …` for the queried types. */
export function applyVisibility(
  qb: Knex.QueryBuilder,
  types: RegisteredPostType[],
  vis: Visibility,
  alias = "p",
): void {
  qb.where(function typesClause() {
    for (const type of types) {
      const rules = visibilityRules(type, vis);
      this.orWhere(function typeClause() {
        this.where(`${alias}.type`, type.name).andWhere(function rulesClause() {
          for (const rule of rules) {
            this.orWhere(function ruleClause() {
              this.whereIn(`${alias}.status`, rule.statuses);
              if (rule.authorOnly !== undefined) this.andWhere(`${alias}.author`, rule.authorOnly);
            });
          }
        });
      });
    }
  });
}

export function ruleAllows(rules: StatusRule[], post: { status: string; author: number }): boolean {
  return rules.some(
    (r) => (r.statuses as string[]).includes(post.status) && (r.authorOnly === undefined || r.authorOnly === post.author),
  );
}

export function canReadPost(type: RegisteredPostType, post: { status: string; author: number }, user: CurrentUser | null): boolean {
  return ruleAllows(visibilityRules(type, { user, mode: "read" }), post);
}

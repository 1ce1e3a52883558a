import { expect } from "chai";
import { Registry } from "../../lib/posts/registry";
import { roleCan, roleCapabilities } from "../../lib/users/capabilities";
import type { RoleName } from "../../lib/users/types";
import { forEachDatabase } from "../support/databases";
import { useFixture } from "../support/engine";

const ME = 7;
const OTHER = 8;

function registry(): Registry {
  const r = new Registry();
  r.registerPostType("event", { capabilityType: ["event", "events"] });
  r.registerTaxonomy("event_cat", { objectTypes: ["event"], hierarchical: true });
  r.registerTaxonomy("event_tag", { objectTypes: ["event"], capabilities: { manage: "manage_categories", assign: "edit_events" } });
  return r;
}

type Row = [cap: string, own: boolean, status: string, expected: Record<RoleName, boolean>];
const Y = true;
const N = false;
const all = (v: boolean): Record<RoleName, boolean> => ({ administrator: v, editor: v, author: v, contributor: v, subscriber: v });
const roles = (administrator: boolean, editor: boolean, author: boolean, contributor: boolean, subscriber: boolean): Record<RoleName, boolean> => ({
  administrator,
  editor,
  author,
  contributor,
  subscriber,
});

/** map_meta_cap outcomes, role by role (calendar-api §8 and WordPress's role table). */
const MATRIX: Row[] = [
  ["read_post", N, "publish", all(Y)],
  ["read_post", Y, "publish", all(Y)],
  ["read_post", Y, "draft", all(Y)],
  ["read_post", N, "draft", roles(Y, Y, N, N, N)],
  ["read_post", N, "pending", roles(Y, Y, N, N, N)],
  ["read_post", N, "future", roles(Y, Y, N, N, N)],
  ["read_post", Y, "private", all(Y)],
  ["read_post", N, "private", roles(Y, Y, N, N, N)],

  ["edit_post", Y, "draft", roles(Y, Y, Y, Y, N)],
  ["edit_post", Y, "pending", roles(Y, Y, Y, Y, N)],
  ["edit_post", Y, "publish", roles(Y, Y, Y, N, N)],
  ["edit_post", Y, "future", roles(Y, Y, Y, N, N)],
  ["edit_post", Y, "private", roles(Y, Y, Y, Y, N)],
  ["edit_post", N, "draft", roles(Y, Y, N, N, N)],
  ["edit_post", N, "publish", roles(Y, Y, N, N, N)],
  ["edit_post", N, "private", roles(Y, Y, N, N, N)],

  ["delete_post", Y, "draft", roles(Y, Y, Y, Y, N)],
  ["delete_post", Y, "publish", roles(Y, Y, Y, N, N)],
  ["delete_post", N, "draft", roles(Y, Y, N, N, N)],
  ["delete_post", N, "publish", roles(Y, Y, N, N, N)],
  ["delete_post", N, "private", roles(Y, Y, N, N, N)],

  ["publish_post", Y, "draft", roles(Y, Y, Y, N, N)],
];

describe("engine: capability mapping", () => {
  const reg = registry();

  for (const [cap, own, status, expected] of MATRIX) {
    for (const role of Object.keys(expected) as RoleName[]) {
      it(`${role} ${cap} on ${own ? "own" : "others'"} ${status} → ${expected[role] ? "yes" : "no"}`, () => {
        const object = { type: "event", status, author: own ? ME : OTHER };
        expect(roleCan(reg, role, ME, cap, object)).to.equal(expected[role]);
      });
    }
  }

  it("checks a trashed post as the status it had", () => {
    const trashedPublished = { type: "event", status: "trash", author: ME, previousStatus: "publish" };
    const trashedDraft = { type: "event", status: "trash", author: ME, previousStatus: "draft" };
    expect(roleCan(reg, "author", ME, "edit_post", trashedPublished)).to.equal(true);
    expect(roleCan(reg, "contributor", ME, "edit_post", trashedPublished)).to.equal(false);
    expect(roleCan(reg, "contributor", ME, "delete_post", trashedDraft)).to.equal(true);
    expect(roleCan(reg, "author", ME, "edit_post", { ...trashedPublished, author: OTHER })).to.equal(false);
    expect(roleCan(reg, "editor", ME, "edit_post", { ...trashedPublished, author: OTHER })).to.equal(true);
  });

  it("grants the primitive capabilities of each post type as WordPress grants post capabilities", () => {
    const expectCaps = (role: RoleName, has: string[], hasNot: string[]): void => {
      const caps = roleCapabilities(reg, role);
      for (const c of has) expect(caps.has(c), `${role} has ${c}`).to.equal(true);
      for (const c of hasNot) expect(caps.has(c), `${role} lacks ${c}`).to.equal(false);
    };
    const everything = [
      "edit_events", "edit_others_events", "edit_published_events", "edit_private_events", "publish_events",
      "read_private_events", "delete_events", "delete_others_events", "delete_published_events", "delete_private_events", "read",
    ];
    expectCaps("administrator", [...everything, "manage_categories", "upload_files", "unfiltered_html", "list_users", "edit_users", "edit_posts"], []);
    expectCaps("editor", [...everything, "manage_categories", "upload_files", "unfiltered_html"], ["list_users", "edit_users"]);
    expectCaps(
      "author",
      ["edit_events", "edit_published_events", "publish_events", "delete_events", "delete_published_events", "upload_files", "read"],
      ["edit_others_events", "read_private_events", "delete_others_events", "manage_categories", "unfiltered_html", "edit_private_events"],
    );
    expectCaps("contributor", ["edit_events", "delete_events", "read"], ["publish_events", "edit_published_events", "upload_files"]);
    expectCaps("subscriber", ["read"], ["edit_events", "edit_posts"]);
  });

  it("maps term capabilities through the taxonomy's settings", () => {
    const term = { type: "event_tag", status: "", author: 0 };
    expect(roleCan(reg, "editor", ME, "edit_term", term)).to.equal(true);
    expect(roleCan(reg, "author", ME, "edit_term", term)).to.equal(false);
    expect(roleCan(reg, "contributor", ME, "assign_term", term)).to.equal(true);
    expect(roleCan(reg, "subscriber", ME, "assign_terms", term)).to.equal(false);
    // WordPress defaults: manage_categories to manage, edit_posts to assign.
    const cat = { type: "event_cat", status: "", author: 0 };
    expect(roleCan(reg, "author", ME, "manage_terms", cat)).to.equal(false);
    expect(roleCan(reg, "contributor", ME, "assign_terms", cat)).to.equal(true);
  });

  it("maps generic post capabilities to the type's, and refuses unknown types and objectless meta caps", () => {
    expect(roleCan(reg, "author", ME, "publish_posts", { type: "event", status: "", author: 0 })).to.equal(true);
    expect(roleCan(reg, "contributor", ME, "publish_posts", { type: "event", status: "", author: 0 })).to.equal(false);
    expect(roleCan(reg, "administrator", ME, "edit_post")).to.equal(false);
    expect(roleCan(reg, "administrator", ME, "edit_post", { type: "nope", status: "publish", author: ME })).to.equal(false);
    expect(roleCan(reg, "subscriber", ME, "exist")).to.equal(true);
  });
});

forEachDatabase("engine: current user", (db) => {
  const fx = useFixture(db);

  it("knows post types registered after the user object was built", async () => {
    const { engine, as } = fx();
    const author = as("author");
    expect(author.can("publish_workshops")).to.equal(false);
    engine.registerPostType("workshop", { capabilityType: ["workshop", "workshops"] });
    expect(author.can("publish_workshops")).to.equal(true);
    expect(author.can("edit_post", { type: "workshop", status: "publish", author: author.id })).to.equal(true);
    expect(as("author2").can("edit_post", { type: "workshop", status: "publish", author: author.id })).to.equal(false);
  });

  it("agrees with canRead for single reads", async () => {
    const { engine, as, users } = fx();
    const draft = await engine.posts.create({ type: "event", status: "draft", title: "Private plans", author: users.author.id });
    expect(engine.posts.canRead(draft, as("author"))).to.equal(true);
    expect(engine.posts.canRead(draft, as("author2"))).to.equal(false);
    expect(engine.posts.canRead(draft, as("editor"))).to.equal(true);
    expect(engine.posts.canRead(draft, null)).to.equal(false);
    const priv = await engine.posts.update(draft.id, { status: "private" });
    expect(engine.posts.canRead(priv, as("author"))).to.equal(true);
    expect(engine.posts.canRead(priv, as("contributor"))).to.equal(false);
    expect(engine.posts.canRead(priv, as("administrator"))).to.equal(true);
    const pub = await engine.posts.update(draft.id, { status: "publish" });
    expect(engine.posts.canRead(pub, null)).to.equal(true);
    const trashed = await engine.posts.trash(draft.id);
    expect(engine.posts.canRead(trashed, as("administrator"))).to.equal(false);
  });
});

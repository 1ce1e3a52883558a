import { createEngine, Engine, EngineOptions } from "../../lib/engine";
import { registerCalendar } from "../../lib/calendar/plugin";
import { RestServer } from "../../lib/routes";
import type { UserRecord } from "../../lib/engine-api";
import type { CurrentUser, RoleName } from "../../lib/users/types";
import type { TestDatabase, TestTarget } from "./databases";

/** Post types and taxonomies shaped like the calendar's, for engine tests. */
export function registerTestTypes(engine: Engine): void {
  engine.registerPostType("event", {
    labels: { singular: "Event", plural: "Events" },
    capabilityType: ["event", "events"],
    emptySlugWhileDraft: true,
    supports: ["title", "editor", "excerpt", "author"],
    fields: {
      start: { type: "datetime", index: true },
      end: { type: "datetime" },
      cost: { type: "string", length: 100 },
      all_day: { type: "boolean", default: false },
      capacity: { type: "integer" },
      city: { type: "string", index: true },
      rating: { type: "number" },
    },
    searchFields: ["city", "note"],
  });
  engine.registerPostType("venue", {
    capabilityType: ["venue", "venues"],
    fields: { city: { type: "string", length: 100, index: true }, address: { type: "text" } },
    searchFields: ["city", "address"],
  });
  engine.registerPostType("page", { hierarchical: true });
  engine.registerTaxonomy("event_cat", { objectTypes: ["event"], hierarchical: true, capabilities: { manage: "manage_categories", assign: "edit_events" } });
  engine.registerTaxonomy("event_tag", { objectTypes: ["event"], capabilities: { manage: "manage_categories", assign: "edit_events" } });
}

export interface Fixture {
  engine: Engine;
  target: string;
  users: Record<RoleName, UserRecord>;
  /** A second author, for own-versus-others checks. */
  author2: UserRecord;
  as(role: RoleName | "author2"): CurrentUser;
  close(): Promise<void>;
}

export interface FixtureOptions extends EngineOptions {
  timezone?: string;
  /** Register more types before migrating. */
  setup?: (engine: Engine) => void;
}

export async function makeFixture(db: TestDatabase, opts: FixtureOptions = {}): Promise<Fixture> {
  const { engine, close } = await createEngine(db.target, opts);
  registerTestTypes(engine);
  opts.setup?.(engine);
  await engine.migrate();
  if (opts.timezone) await engine.options.set("timezone", opts.timezone);
  const users = {} as Record<RoleName, UserRecord>;
  for (const role of ["administrator", "editor", "author", "contributor", "subscriber"] as RoleName[]) {
    users[role] = await engine.users.create({ login: role, role, email: `${role}@example.com` });
  }
  const author2 = await engine.users.create({ login: "author2", role: "author", email: "author2@example.com" });
  return {
    engine,
    target: db.target,
    users,
    author2,
    as: (role) => engine.users.currentUser(role === "author2" ? author2 : users[role]),
    close,
  };
}

/**
 * A fresh database and engine for one `describe` block (created in `before`,
 * dropped in `after`); call the returned function inside tests.
 */
export function useFixture(target: TestTarget, opts: FixtureOptions = {}): () => Fixture {
  let db: TestDatabase | undefined;
  let fixture: Fixture | undefined;
  before(async () => {
    db = await target.create();
    fixture = await makeFixture(db, opts);
  });
  after(async () => {
    await fixture?.close();
    await db?.drop();
  });
  return () => {
    if (!fixture) throw new Error("fixture not ready");
    return fixture;
  };
}

/**
 * A migrated engine with the calendar registered, on a database of `db` made
 * for the suite (before its tests) and dropped after them; `ready` receives
 * them once made.
 */
export function useCalendarEngine(db: TestTarget, ready: (made: { engine: Engine; database: TestDatabase }) => void): void {
  let database: TestDatabase | undefined;
  let close: (() => Promise<void>) | undefined;
  before(async function () {
    this.timeout(60_000);
    database = await db.create();
    const made = await createEngine(database.target);
    close = made.close;
    registerCalendar({ engine: made.engine, rest: new RestServer() });
    await made.engine.migrate();
    ready({ engine: made.engine, database });
  });
  after(async function () {
    this.timeout(60_000);
    await close?.();
    await database?.drop();
  });
}

import { expect } from "chai";
import { EngineError } from "../../lib/engine-errors";
import { APP_PASSWORD_KEY_OPTION, normaliseAppPassword } from "../../lib/users/users";
import { forEachDatabase } from "../support/databases";
import { useFixture } from "../support/engine";

forEachDatabase("engine: users and application passwords", (db) => {
  let clock = new Date(Date.UTC(2026, 0, 1, 10, 0, 0));
  const fx = useFixture(db, { now: () => clock });

  it("creates users, refuses duplicate logins and e-mails, ensures roles", async () => {
    const { engine } = fx();
    const u = await engine.users.create({ login: "alice", role: "author", email: "alice@example.com" });
    expect(u.displayName).to.equal("alice");
    expect(await engine.users.byLogin("alice")).to.deep.equal(u);
    expect(await engine.users.byLogin("alice@example.com")).to.deep.equal(u);
    for (const [input, code] of [
      [{ login: "alice", role: "author" as const }, "existing_user_login"],
      [{ login: "alice2", role: "author" as const, email: "alice@example.com" }, "existing_user_email"],
      [{ login: "bob", role: "king" as never }, "invalid_role"],
    ] as const) {
      try {
        await engine.users.create(input);
        expect.fail("should throw");
      } catch (err) {
        expect((err as EngineError).code).to.equal(code);
      }
    }
    const promoted = await engine.users.ensure({ login: "alice", role: "editor" });
    expect(promoted.role).to.equal("editor");
    expect(promoted.id).to.equal(u.id);
    const made = await engine.users.ensure({ login: "carol", role: "subscriber" });
    expect((await engine.users.getMany([u.id, made.id, 999])).size).to.equal(2);
  });

  it("accepts an application password with or without its grouping characters", async () => {
    const { engine } = fx();
    const user = await engine.users.create({ login: "dev", role: "administrator", email: "dev@example.com" });
    const { secret, record } = await engine.users.addAppPassword(user.id, "cli", "admin-pass");
    expect(secret).to.equal("admin-pass");
    expect(record.lastUsed).to.equal(null);
    for (const given of ["admin-pass", "adminpass", "admin pass", "ad-min pa ss"]) {
      const r = await engine.users.verifyAppPassword("dev", given);
      expect(r.ok, given).to.equal(true);
      if (r.ok) {
        expect(r.user.id).to.equal(user.id);
        expect(r.user.can("list_users")).to.equal(true);
      }
    }
    expect(await engine.users.verifyAppPassword("dev", "Adminpass")).to.deep.equal({ ok: false, reason: "incorrect_password" });
    expect(normaliseAppPassword("ab-CD 12")).to.equal("abCD12");
  });

  it("generates 24-character secrets, keeps several per user and stores only an HMAC", async () => {
    const { engine } = fx();
    const user = await engine.users.create({ login: "gen", role: "author", email: "gen@example.com" });
    const one = await engine.users.addAppPassword(user.id, "one");
    const two = await engine.users.addAppPassword(user.id, "two");
    expect(one.secret).to.match(/^[A-Za-z0-9]{24}$/);
    expect(one.secret).to.not.equal(two.secret);
    expect((await engine.users.listAppPasswords(user.id)).map((a) => a.name)).to.deep.equal(["one", "two"]);
    const chunked = two.secret.replace(/(.{4})/g, "$1 ").trim();
    expect((await engine.users.verifyAppPassword("gen", chunked)).ok).to.equal(true);
    expect((await engine.users.verifyAppPassword("gen", one.secret)).ok).to.equal(true);
    const rows: Array<{ hash: string }> = await engine.knex(engine.tables.appPasswords).where({ user_id: user.id }).select("hash");
    for (const r of rows) {
      expect(r.hash).to.match(/^[0-9a-f]{64}$/);
      expect(r.hash).to.not.include(one.secret);
      expect(r.hash).to.not.include(two.secret);
    }
    const key = await engine.options.get(APP_PASSWORD_KEY_OPTION);
    expect(key).to.match(/^[0-9a-f]{64}$/);
  });

  it("reports unknown users, unknown e-mails and wrong passwords", async () => {
    const { engine } = fx();
    const user = await engine.users.create({ login: "eve", role: "subscriber", email: "eve@example.com" });
    await engine.users.addAppPassword(user.id, "x", "right-one");
    expect(await engine.users.verifyAppPassword("nobody", "right-one")).to.deep.equal({ ok: false, reason: "invalid_username" });
    expect(await engine.users.verifyAppPassword("nobody@example.com", "right-one")).to.deep.equal({ ok: false, reason: "invalid_email" });
    expect(await engine.users.verifyAppPassword("eve", "wrong-one")).to.deep.equal({ ok: false, reason: "incorrect_password" });
    expect(await engine.users.verifyAppPassword("eve", "---")).to.deep.equal({ ok: false, reason: "incorrect_password" });
    expect((await engine.users.verifyAppPassword("eve@example.com", "right-one")).ok).to.equal(true);
    const noPasswords = await engine.users.create({ login: "frank", role: "subscriber" });
    expect(await engine.users.verifyAppPassword(noPasswords.login, "anything")).to.deep.equal({ ok: false, reason: "incorrect_password" });
  });

  it("records last use at most once a minute", async () => {
    const { engine } = fx();
    const user = await engine.users.create({ login: "lu", role: "author" });
    await engine.users.addAppPassword(user.id, "x", "lastused1");
    clock = new Date(Date.UTC(2026, 0, 1, 10, 0, 0));
    await engine.users.verifyAppPassword("lu", "lastused1", "10.0.0.1");
    expect((await engine.users.listAppPasswords(user.id))[0].lastUsed).to.equal("2026-01-01 10:00:00");
    clock = new Date(Date.UTC(2026, 0, 1, 10, 0, 30));
    await engine.users.verifyAppPassword("lu", "lastused1");
    expect((await engine.users.listAppPasswords(user.id))[0].lastUsed).to.equal("2026-01-01 10:00:00");
    clock = new Date(Date.UTC(2026, 0, 1, 10, 1, 0));
    await engine.users.verifyAppPassword("lu", "lastused1");
    expect((await engine.users.listAppPasswords(user.id))[0].lastUsed).to.equal("2026-01-01 10:01:00");
  });

  it("hashes login passwords with scrypt", async () => {
    const { engine } = fx();
    const u = await engine.users.create({ login: "pw", role: "author", password: "s3cret!" });
    const row: { password_hash: string } = await engine.knex(engine.tables.users).where({ id: u.id }).first("password_hash");
    expect(row.password_hash).to.match(/^scrypt\$/);
    expect(row.password_hash).to.not.include("s3cret!");
    expect((await engine.users.verifyPassword("pw", "s3cret!"))?.id).to.equal(u.id);
    expect(await engine.users.verifyPassword("pw", "nope")).to.equal(undefined);
  });

  it("finds users by role, id and search (case-insensitive), by display name, with totals", async () => {
    const { engine } = fx();
    const beta = await engine.users.create({ login: "findme_b", role: "author", displayName: "Beta Finder" });
    const alpha = await engine.users.create({ login: "findme_a", role: "contributor", displayName: "alpha finder" });
    const gamma = await engine.users.create({ login: "findme_c", role: "subscriber", displayName: "Gamma Finder", email: "hidden@corp.test" });
    const names = (page: { users: Array<{ displayName: string }> }) => page.users.map((u) => u.displayName);
    const all = await engine.users.find({ search: "FINDER" });
    expect(names(all)).to.deep.equal(["alpha finder", "Beta Finder", "Gamma Finder"]);
    expect(all.total).to.equal(3);
    expect(all.users[1]).to.deep.equal(beta);
    expect(names(await engine.users.find({ search: "finder", roles: ["author", "contributor"] }))).to.deep.equal(["alpha finder", "Beta Finder"]);
    expect(names(await engine.users.find({ search: "findme_c" }))).to.deep.equal(["Gamma Finder"]);
    // E-mails only when asked for; LIKE wildcards are literal.
    expect((await engine.users.find({ search: "corp.test" })).total).to.equal(0);
    expect(names(await engine.users.find({ search: "corp.test", searchColumns: ["email"] }))).to.deep.equal(["Gamma Finder"]);
    expect((await engine.users.find({ search: "%" })).total).to.equal(0);
    expect((await engine.users.find({ search: "find\u0000me" })).total).to.equal(0);
    const page2 = await engine.users.find({ search: "finder", perPage: 2, page: 2 });
    expect(names(page2)).to.deep.equal(["Gamma Finder"]);
    expect(page2.total).to.equal(3);
    expect((await engine.users.find({ search: "finder", perPage: 2, page: 1 })).total).to.equal(3);
    expect(names(await engine.users.find({ include: [gamma.id, alpha.id, 2 ** 40] }))).to.deep.equal(["alpha finder", "Gamma Finder"]);
    expect((await engine.users.find({ roles: [] })).total).to.equal(0);
  });

  it("names the roles that have a capability, and the capabilities a user has", async () => {
    const { engine } = fx();
    expect(engine.users.rolesWith("edit_events")).to.deep.equal(["administrator", "editor", "author", "contributor"]);
    expect(engine.users.rolesWith("edit_others_events")).to.deep.equal(["administrator", "editor"]);
    expect(engine.users.rolesWith("list_users")).to.deep.equal(["administrator"]);
    expect(engine.users.rolesWith("no_such_cap")).to.deep.equal([]);
    const author = engine.users.currentUser(await engine.users.create({ login: "capable", role: "author" }));
    const caps = engine.users.capabilitiesOf(author);
    expect(caps).to.include.members(["read", "edit_events", "publish_events", "upload_files", "edit_posts"]);
    expect(caps).to.not.include.members(["edit_others_events"]);
    expect(caps).to.not.include("list_users");
    expect(caps).to.deep.equal([...caps].sort());
    // Asked of `can`: a host's own user answers for itself.
    const host = { id: 0, login: "h", email: "", displayName: "h", role: "subscriber" as const, can: (cap: string) => cap === "edit_venues" };
    expect(engine.users.capabilitiesOf(host)).to.deep.equal(["edit_venues"]);
  });
});

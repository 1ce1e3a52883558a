/**
 * The failed-login limit over real HTTP, as behind a reverse proxy: every
 * request reaches the site from 127.0.0.1. Failures count per (client,
 * login), and `trustProxy` says which address is the client's.
 */
import { expect } from "chai";
import { startTestSite, type TestSite } from "../support/site";

const basic = (login: string, password: string): string => `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;

async function tryLogin(t: TestSite, login: string, password: string, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { authorization: basic(login, password) };
  if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor;
  const res = await fetch(`${t.ns}/events?status=draft`, { headers });
  await res.arrayBuffer();
  return res.status;
}

describe("site: failed logins behind a proxy", function () {
  this.timeout(60_000);

  it("20 bad logins for made-up names never block the administrator's correct login from the same address", async () => {
    const t = await startTestSite({ fixture: "minimal", timezone: "UTC" });
    try {
      for (let i = 0; i < 20; i++) expect(await tryLogin(t, `made-up-${i % 3}`, "guess")).to.equal(401);
      for (let i = 0; i < 20; i++) expect(await tryLogin(t, "intruder", "guess")).to.equal(401);
      // That name is now refused for a while…
      expect(await tryLogin(t, "intruder", "guess")).to.equal(429);
      // …the administrator is not.
      expect(await tryLogin(t, "admin", "admin-pass")).to.equal(200);
    } finally {
      await t.close();
    }
  });

  it("without trustProxy X-Forwarded-For is ignored: guesses for one login from one address stop at 20 whatever it claims", async () => {
    const t = await startTestSite({ fixture: "minimal", timezone: "UTC" });
    try {
      for (let i = 0; i < 20; i++) expect(await tryLogin(t, "admin", "wrong", `203.0.113.${i}`)).to.equal(401);
      expect(await tryLogin(t, "admin", "wrong", "203.0.113.99")).to.equal(429);
    } finally {
      await t.close();
    }
  });

  it("with trustProxy, the forwarded address is the client: one client's guesses do not block the user elsewhere", async () => {
    const t = await startTestSite({ fixture: "minimal", timezone: "UTC", trustProxy: "loopback" });
    try {
      for (let i = 0; i < 20; i++) expect(await tryLogin(t, "admin", "wrong", "198.51.100.7")).to.equal(401);
      expect(await tryLogin(t, "admin", "admin-pass", "198.51.100.7")).to.equal(429);
      expect(await tryLogin(t, "admin", "admin-pass", "192.0.2.10")).to.equal(200);
      // The application password's last use records the client's address too.
      const { appPasswords, users } = t.site.engine.tables;
      const row = await t.site.engine.knex(`${appPasswords} as a`).join(`${users} as u`, "u.id", "a.user_id").where("u.login", "admin").first<{ last_ip: string }>("a.last_ip");
      expect(row?.last_ip).to.equal("192.0.2.10");
    } finally {
      await t.close();
    }
  });
});

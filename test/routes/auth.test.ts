/**
 * Auth helpers: Basic credentials and the failed-login limiter, directly
 * and wrapped around the test authenticator over HTTP.
 */
import { expect } from "chai";
import type { Request } from "express";
import { LoginLimiter, RestError, basicCredentials } from "../../lib/routes";
import { basicHeader, call, fakeAuthenticate, ns, obj, startTestApp } from "./helpers";

function fakeRequest(headers: Record<string, string>, ip = "10.0.0.1"): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { ip, socket: {}, get: (name: string) => lower[name.toLowerCase()] } as unknown as Request;
}

describe("routes: auth helpers", () => {
  describe("basicCredentials", () => {
    it("reads login and password (the password may contain colons and spaces)", () => {
      expect(basicCredentials(fakeRequest({ Authorization: basicHeader("admin", "abcd efgh:ijkl") }))).to.deep.equal({ login: "admin", password: "abcd efgh:ijkl" });
      expect(basicCredentials(fakeRequest({ Authorization: basicHeader("é@example.com", "pw") }))).to.deep.equal({ login: "é@example.com", password: "pw" });
    });
    it("null when absent, not Basic or malformed", () => {
      expect(basicCredentials(fakeRequest({}))).to.equal(null);
      expect(basicCredentials(fakeRequest({ Authorization: "Bearer abc" }))).to.equal(null);
      expect(basicCredentials(fakeRequest({ Authorization: `Basic ${Buffer.from("no-colon").toString("base64")}` }))).to.equal(null);
    });
  });

  describe("LoginLimiter", () => {
    it("refuses a client after maxFailures failures in the window, then forgives when the window passes", async () => {
      let now = 1_000_000;
      const limiter = new LoginLimiter({ maxFailures: 3, windowMs: 60_000, now: () => now });
      const auth = limiter.wrap(fakeAuthenticate);
      const bad = fakeRequest({ Authorization: basicHeader("admin", "wrong") });
      for (let i = 0; i < 3; i++) {
        const result = await auth(bad);
        expect(result instanceof RestError && result.code).to.equal("incorrect_password");
        now += 1000;
      }
      const blocked = await auth(bad);
      expect(blocked).to.be.instanceOf(RestError);
      const error = blocked as RestError;
      expect(error.code).to.equal("too_many_login_attempts");
      expect(error.httpStatus).to.equal(429);
      // First failure at t0, now t0+3s: 57 s left.
      expect(error.headers["Retry-After"]).to.equal("57");
      // Even the right password waits (guessing must stop)…
      const right = fakeRequest({ Authorization: basicHeader("admin", "admin-pass") });
      expect(((await auth(right)) as RestError).code).to.equal("too_many_login_attempts");
      // …anonymous requests and other clients are not affected…
      expect(await auth(fakeRequest({}))).to.equal(null);
      expect((await auth(fakeRequest({ Authorization: basicHeader("admin", "admin-pass") }, "10.0.0.2")) as { login: string }).login).to.equal("admin");
      // …and once the oldest failure leaves the window, the real user gets in.
      now += 58_000;
      expect((await auth(right)) as { login: string }).to.have.property("login", "admin");
    });

    it("does not count successful logins", async () => {
      const limiter = new LoginLimiter({ maxFailures: 2 });
      const auth = limiter.wrap(fakeAuthenticate);
      const right = fakeRequest({ Authorization: basicHeader("editor", "editor-pass") });
      for (let i = 0; i < 5; i++) expect(await auth(right)).to.have.property("login", "editor");
      expect(limiter.retryAfter("10.0.0.1")).to.equal(0);
      await auth(fakeRequest({ Authorization: basicHeader("editor", "x") }));
      expect(limiter.retryAfter("10.0.0.1")).to.equal(0);
      await auth(fakeRequest({ Authorization: basicHeader("editor", "y") }));
      expect(limiter.retryAfter("10.0.0.1")).to.be.greaterThan(0);
      limiter.reset("10.0.0.1");
      expect(limiter.retryAfter("10.0.0.1")).to.equal(0);
    });

    it("answers 429 in the envelope with Retry-After over HTTP (default: 10 failures per 60 s)", async () => {
      const app = await startTestApp({ limiter: new LoginLimiter() });
      try {
        const wrong = { Authorization: basicHeader("admin", "wrong") };
        for (let i = 0; i < 10; i++) expect((await call(app, ns("/items"), { headers: wrong })).status).to.equal(401);
        const res = await call(app, ns("/items"), { headers: wrong });
        expect(res.status).to.equal(429);
        expect(obj(res.body).code).to.equal("too_many_login_attempts");
        expect(obj(res.body).data).to.deep.equal({ status: 429 });
        expect(Number(res.headers.get("retry-after"))).to.be.within(1, 60);
        expect(res.headers.get("content-type")).to.equal("application/json; charset=UTF-8");
        // Public reads without credentials keep working.
        expect((await call(app, ns("/items"))).status).to.equal(200);
      } finally {
        await app.close();
      }
    });
  });
});

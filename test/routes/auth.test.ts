/**
 * Auth helpers: Basic credentials and the failed-login limiter, directly
 * and wrapped around the test authenticator over HTTP.
 */
import { expect } from "chai";
import type { Request } from "express";
import { LoginLimiter, RestError, basicCredentials } from "../../lib/routes";
import { requestNonce } from "../../lib/routes/auth";
import { clientAddressOf, parseTrustProxy } from "../../lib/routes/client-address";
import { createNonce, NONCE_TICK_MS, verifyNonce } from "../../lib/users/nonce";
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
      const key = LoginLimiter.key("10.0.0.1", "editor");
      expect(limiter.retryAfter(key)).to.equal(0);
      await auth(fakeRequest({ Authorization: basicHeader("editor", "x") }));
      expect(limiter.retryAfter(key)).to.equal(0);
      await auth(fakeRequest({ Authorization: basicHeader("editor", "y") }));
      expect(limiter.retryAfter(key)).to.be.greaterThan(0);
      limiter.reset(key);
      expect(limiter.retryAfter(key)).to.equal(0);
    });

    it("counts per (client, login): failures for other names never block a correct login, even from the same address", async () => {
      const limiter = new LoginLimiter({ maxFailures: 3 });
      const auth = limiter.wrap(fakeAuthenticate);
      // Behind a proxy every client has the proxy's address.
      for (let i = 0; i < 20; i++) await auth(fakeRequest({ Authorization: basicHeader(`made-up-${i % 4}`, "guess") }));
      expect(((await auth(fakeRequest({ Authorization: basicHeader("made-up-0", "guess") }))) as RestError).code).to.equal("too_many_login_attempts");
      expect(await auth(fakeRequest({ Authorization: basicHeader("admin", "admin-pass") }))).to.have.property("login", "admin");
      // Failures for admin block admin from that address (the case of the login does not give more guesses)…
      for (let i = 0; i < 3; i++) await auth(fakeRequest({ Authorization: basicHeader(i % 2 === 0 ? "admin" : " ADMIN", "wrong") }));
      expect(((await auth(fakeRequest({ Authorization: basicHeader("admin", "admin-pass") }))) as RestError).code).to.equal("too_many_login_attempts");
      // …not from another address, nor other logins from the same one.
      expect(await auth(fakeRequest({ Authorization: basicHeader("admin", "admin-pass") }, "10.0.0.9"))).to.have.property("login", "admin");
      expect(await auth(fakeRequest({ Authorization: basicHeader("editor", "editor-pass") }))).to.have.property("login", "editor");
    });

    it("remembers at most maxTracked (client, login) pairs, the least recently failed forgotten first", async () => {
      const limiter = new LoginLimiter({ maxFailures: 2, maxTracked: 50 });
      const auth = limiter.wrap(fakeAuthenticate);
      for (let i = 0; i < 2; i++) await auth(fakeRequest({ Authorization: basicHeader("admin", "wrong") }));
      for (let i = 0; i < 49; i++) await auth(fakeRequest({ Authorization: basicHeader(`nobody-${i}`, "x") }));
      expect(limiter.tracked).to.equal(50);
      expect(limiter.retryAfter(LoginLimiter.key("10.0.0.1", "admin"))).to.be.greaterThan(0);
      for (let i = 49; i < 200; i++) await auth(fakeRequest({ Authorization: basicHeader(`nobody-${i}`, "x") }));
      expect(limiter.tracked).to.equal(50);
      expect(limiter.retryAfter(LoginLimiter.key("10.0.0.1", "admin"))).to.equal(0);
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

/** A request as the helpers read it: URL, headers, socket peer and (raw or decoded) body. */
function rawRequest(init: { url?: string; headers?: Record<string, string>; peer?: string; body?: unknown }): Request {
  const headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    originalUrl: init.url ?? "/",
    url: init.url ?? "/",
    headers,
    body: init.body,
    socket: { remoteAddress: init.peer ?? "10.0.0.1" },
    get: (name: string) => headers[name.toLowerCase()],
  } as unknown as Request;
}

describe("routes: cookie-login nonces", () => {
  it("reads _wpnonce from the query, then a form body, then X-WP-Nonce (WordPress's order)", () => {
    expect(requestNonce(rawRequest({}))).to.equal(undefined);
    expect(requestNonce(rawRequest({ headers: { "X-WP-Nonce": "h" } }))).to.equal("h");
    expect(requestNonce(rawRequest({ url: "/x?a=1&_wpnonce=q", headers: { "X-WP-Nonce": "h" } }))).to.equal("q");
    const form = { "Content-Type": "application/x-www-form-urlencoded; charset=UTF-8", "X-WP-Nonce": "h" };
    expect(requestNonce(rawRequest({ headers: form, body: Buffer.from("title=x&_wpnonce=b") }))).to.equal("b");
    // A JSON body is not where WordPress looks ($_REQUEST).
    expect(requestNonce(rawRequest({ headers: { "Content-Type": "application/json" }, body: Buffer.from('{"_wpnonce":"j"}') }))).to.equal(undefined);
    // A body a host middleware decoded.
    expect(requestNonce(rawRequest({ body: { _wpnonce: "d" } }))).to.equal("d");
    // Present but empty is a nonce (a wrong one), as isset() has it.
    expect(requestNonce(rawRequest({ url: "/x?_wpnonce=" }))).to.equal("");
  });

  it("are valid for the user in the current and the previous 12-hour window only", () => {
    const key = Buffer.alloc(32, 7);
    const made = Date.UTC(2030, 0, 1, 13, 0, 0);
    const nonce = createNonce(key, 5, made);
    expect(nonce).to.match(/^[0-9a-f]{10}$/);
    expect(verifyNonce(key, 5, nonce, made)).to.equal(1);
    expect(verifyNonce(key, 5, nonce, made + NONCE_TICK_MS)).to.equal(2);
    expect(verifyNonce(key, 5, nonce, made + 2 * NONCE_TICK_MS)).to.equal(false);
    expect(verifyNonce(key, 6, nonce, made)).to.equal(false);
    expect(verifyNonce(Buffer.alloc(32, 8), 5, nonce, made)).to.equal(false);
    expect(verifyNonce(key, 5, `${nonce}0`, made)).to.equal(false);
  });
});

describe("routes: the client address (trustProxy)", () => {
  const via = (peer: string, forwarded?: string): Request => rawRequest({ peer, headers: forwarded === undefined ? {} : { "X-Forwarded-For": forwarded } });

  it("is the socket's peer unless it is a trusted proxy", () => {
    expect(clientAddressOf(false)(via("10.0.0.1", "6.6.6.6"))).to.equal("10.0.0.1");
    expect(clientAddressOf(true)(via("10.0.0.1", "6.6.6.6, 1.2.3.4"))).to.equal("6.6.6.6");
    // One proxy in front: the address it appended.
    expect(clientAddressOf(1)(via("10.0.0.1", "6.6.6.6, 1.2.3.4"))).to.equal("1.2.3.4");
    expect(clientAddressOf(2)(via("10.0.0.1", "6.6.6.6, 1.2.3.4"))).to.equal("6.6.6.6");
    expect(clientAddressOf("loopback")(via("::ffff:127.0.0.1", "1.2.3.4"))).to.equal("1.2.3.4");
    expect(clientAddressOf("loopback")(via("10.0.0.1", "1.2.3.4"))).to.equal("10.0.0.1");
    expect(clientAddressOf(["10.0.0.0/8", "::1"])(via("10.9.9.9", "1.2.3.4, 10.1.1.1"))).to.equal("1.2.3.4");
    expect(clientAddressOf("10.0.0.0/8,192.168.1.1")(via("192.168.1.1", "1.2.3.4"))).to.equal("1.2.3.4");
    // No header: the peer, whatever is trusted.
    expect(clientAddressOf(true)(via("::ffff:10.0.0.1"))).to.equal("10.0.0.1");
  });

  it("refuses settings that are not addresses, subnets or hop counts", () => {
    expect(() => clientAddressOf("10.0.0.0/40")).to.throw(/prefix/);
    expect(() => clientAddressOf("proxy.example")).to.throw(/not an address/);
    expect(() => clientAddressOf(-1)).to.throw(/whole number/);
    expect(parseTrustProxy("true")).to.equal(true);
    expect(parseTrustProxy("2")).to.equal(2);
    expect(parseTrustProxy("loopback, 10.0.0.0/8")).to.equal("loopback, 10.0.0.0/8");
    expect(() => parseTrustProxy("yes")).to.throw();
  });
});

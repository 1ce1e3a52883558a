/**
 * Credentials an operator sets on the command line: `--user` takes a
 * fixture's published password away from that login, short application
 * passwords are accepted with a warning, `--trust-proxy` is checked, and
 * CALPRESS_SECRET keys the application-password hashes.
 */
import { expect } from "chai";
import os from "node:os";
import path from "node:path";
import { main, type CliIO } from "../../lib/cli/main";
import { createSite } from "../../lib/site";
import { call, startServer, type Server } from "../reliability/cli-process";
import { removeSqliteFile } from "../support/databases";

function captureIO(): CliIO & { outLines: string[]; errLines: string[] } {
  const outLines: string[] = [];
  const errLines: string[] = [];
  return { outLines, errLines, out: (l) => outLines.push(l), err: (l) => errLines.push(l) };
}

function tempDb(name: string): string {
  const file = path.join(os.tmpdir(), `calpress-cred-${name}-${process.pid}.sqlite`);
  removeSqliteFile(file);
  return file;
}


async function stop(server: Server): Promise<void> {
  server.child.kill("SIGTERM");
  await server.exit;
}

/** Runs `work` with CALPRESS_SECRET set to `value` (or unset), restoring it after. */
async function withSecretEnv<T>(value: string | undefined, work: () => Promise<T>): Promise<T> {
  const before = process.env.CALPRESS_SECRET;
  if (value === undefined) delete process.env.CALPRESS_SECRET;
  else process.env.CALPRESS_SECRET = value;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.CALPRESS_SECRET;
    else process.env.CALPRESS_SECRET = before;
  }
}

const OPERATOR = "admin:operator-pass-0123456789:administrator";

describe("CLI: operator credentials", function () {
  this.timeout(120_000);

  it("serve --fixture demo --user admin:… : the demo's published admin password no longer works", async () => {
    const db = tempDb("demo-user");
    const server = await withSecretEnv(undefined, () => startServer(["--db", db, "--fixture", "demo", "--user", OPERATOR]));
    try {
      expect((await call(server.port, "GET", "/events?status=draft", { auth: "admin:demo-admin-pass" })).status).to.equal(401);
      expect((await call(server.port, "GET", "/events?status=draft", { auth: "admin:operator-pass-0123456789" })).status).to.equal(200);
      // The other demo users keep the fixture as it is (none of them has a password there).
      expect(server.stderr()).to.not.contain("warning");
    } finally {
      await stop(server);
      removeSqliteFile(db);
    }
  });

  it("serve --user on a database an earlier load gave the demo password: that password is taken away", async () => {
    const db = tempDb("demo-later");
    await withSecretEnv(undefined, async () => {
      const io = captureIO();
      expect(await main(["fixture", "load", "demo", "--db", db], io)).to.equal(0);
      const server = await startServer(["--db", db, "--user", OPERATOR]);
      try {
        expect((await call(server.port, "GET", "/events?status=draft", { auth: "admin:demo-admin-pass" })).status).to.equal(401);
        expect((await call(server.port, "GET", "/events?status=draft", { auth: "admin:operator-pass-0123456789" })).status).to.equal(200);
      } finally {
        await stop(server);
        removeSqliteFile(db);
      }
    });
  });

  it("application passwords under 16 letters and digits are accepted with a warning on stderr", async () => {
    const server = await startServer(["--db", ":memory:", "--user", "ada:ada-pass:administrator", "--user", "bob:bob-has-a-long-password-1:editor"]);
    try {
      expect((await call(server.port, "GET", "/events?status=draft", { auth: "ada:ada-pass" })).status).to.equal(200);
      expect(server.stderr()).to.match(/warning: the application password given for "ada" has 7 letters and digits/);
      expect(server.stderr()).to.not.contain('"bob"');
    } finally {
      await stop(server);
    }
    const db = tempDb("short-add");
    try {
      const io = captureIO();
      expect(await main(["user", "add", "carol", "--role", "editor", "--app-password", "ab cd-ef", "--db", db], io)).to.equal(0);
      expect(io.errLines.join("\n")).to.match(/"carol" has 6 letters and digits/);
    } finally {
      removeSqliteFile(db);
    }
  });

  it("--trust-proxy takes true, false, hops or addresses; anything else exits 2", async () => {
    const io = captureIO();
    expect(await main(["serve", "--db", ":memory:", "--trust-proxy", "proxy.example"], io)).to.equal(2);
    expect(io.errLines.join("\n")).to.contain("--trust-proxy");
  });

  it("CALPRESS_SECRET keys application-password hashes: the same secret is needed to log in", async () => {
    const db = tempDb("secret");
    try {
      await withSecretEnv("first-secret-for-tests", async () => {
        expect(await main(["user", "add", "sam", "--role", "editor", "--app-password", "sam-password-0123456789", "--db", db], captureIO())).to.equal(0);
      });
      const withSecret = await withSecretEnv("first-secret-for-tests", () => startServer(["--db", db]));
      try {
        expect((await call(withSecret.port, "GET", "/events?status=draft", { auth: "sam:sam-password-0123456789" })).status).to.equal(200);
      } finally {
        await stop(withSecret);
      }
      for (const other of [undefined, "another-secret"]) {
        const server = await withSecretEnv(other, () => startServer(["--db", db]));
        try {
          expect((await call(server.port, "GET", "/events?status=draft", { auth: "sam:sam-password-0123456789" })).status, String(other)).to.equal(401);
        } finally {
          await stop(server);
        }
      }
      // The option wins over the environment.
      await withSecretEnv("another-secret", async () => {
        const site = await createSite({ db, secret: "first-secret-for-tests", webhooks: false });
        try {
          expect((await site.engine.users.verifyAppPassword("sam", "sam-password-0123456789")).ok).to.equal(true);
        } finally {
          await site.close();
        }
      });
      // With a secret, no key is kept in the database.
      const fresh = await createSite({ db: ":memory:", secret: "first-secret-for-tests", webhooks: false });
      try {
        const user = await fresh.engine.users.ensure({ login: "sam", role: "editor" });
        await fresh.engine.users.addAppPassword(user.id, "x", "sam-password-0123456789");
        await fresh.createNonce("sam");
        expect(await fresh.engine.options.get("app_password_hmac_key")).to.equal(undefined);
      } finally {
        await fresh.close();
      }
    } finally {
      removeSqliteFile(db);
    }
  });
});

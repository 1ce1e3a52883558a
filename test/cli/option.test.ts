import { expect } from "chai";
import os from "node:os";
import path from "node:path";
import { removeSqliteFile, runCli as run } from "../support/cli";


describe("calpress option", () => {
  const file = path.join(os.tmpdir(), `calpress_option_${process.pid}.sqlite`);
  after(() => {
    removeSqliteFile(file);
  });

  it("sets and gets the webhook options", async () => {
    expect(await run(["option", "set", "webhook_url", "https://example.com/hooks", "--db", file])).to.deep.equal({
      code: 0,
      out: ["https://example.com/hooks"],
      err: [],
    });
    expect((await run(["option", "set", "webhook_secret", "s3cret", "--db", file])).code).to.equal(0);
    expect((await run(["option", "get", "webhook_url", "--db", file])).out).to.deep.equal(["https://example.com/hooks"]);
    expect((await run(["option", "get", "webhook_secret", "--db", file])).out).to.deep.equal(["s3cret"]);
  });

  it("refuses a bad value with exit code 2, keeping the stored one", async () => {
    const bad = await run(["option", "set", "webhook_url", "javascript:alert(1)", "--db", file]);
    expect(bad.code).to.equal(2);
    expect(bad.err[0]).to.equal("calpress: webhook_url must be an http or https URL");
    expect((await run(["option", "get", "webhook_url", "--db", file])).out).to.deep.equal(["https://example.com/hooks"]);
  });

  it("answers 1 for an option never set, 2 for bad usage", async () => {
    expect((await run(["option", "get", "no_such_option", "--db", file])).code).to.equal(1);
    expect((await run(["option", "set", "webhook_url", "--db", file])).code).to.equal(2);
    expect((await run(["option", "frob", "--db", file])).code).to.equal(2);
  });
});

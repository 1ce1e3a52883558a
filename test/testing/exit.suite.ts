/**
 * Run by testing.test.ts in a child mocha without --exit: the process must
 * end by itself once the suite is done, so nothing calpress/testing opened
 * (servers, keep-alive sockets, pools, timers) may outlive `close()`.
 * Not named *.test.ts: the main suite does not run it directly.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { testSites } from "../../lib/testing";
import { registerJobsPlugin } from "../support/job-plugin";

const bases = ["sqlite", process.env.CALPRESS_TEST_PG_URL, process.env.CALPRESS_TEST_MYSQL_URL].filter((b): b is string => typeof b === "string" && b !== "");

for (const db of bases) {
  describe(`a host's suite on ${db.split(":")[0]}`, () => {
    const sites = testSites({ fixture: path.resolve(__dirname, "../support/jobs.fixture.json"), plugins: [registerJobsPlugin], db });
    after(async () => {
      await sites.close();
      if (db === "sqlite") {
        // Where the files were, for the parent to check that they are gone.
        const file = (t?.site.engine.knex.client.config.connection as { filename: string }).filename;
        process.stdout.write(`sqlite directory: ${path.dirname(file)}\n`);
      }
    });
    let t: Awaited<ReturnType<typeof sites.create>> | undefined;

    it("makes requests, resets, and leaves a site open for sites.close()", async () => {
      t = await sites.create();
      const other = await sites.create();
      // Keep-alive connections stay open after these answers.
      for (let i = 0; i < 3; i++) assert.equal((await t.fetch("/wp-json/jobs/v1/jobs")).status, 200);
      assert.equal((await other.fetch("/wp-json/jobs/v1/jobs", { method: "POST", as: "admin", json: { title: "Mine" } })).status, 201);
      await other.reset();
      assert.equal((await other.fetch("/wp-json/jobs/v1/jobs")).status, 200);
      await other.close();
      // `t` is left for sites.close().
    });
  });
}

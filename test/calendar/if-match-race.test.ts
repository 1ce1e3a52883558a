/**
 * `If-Match` against lost updates, raced: two updates of one event sent at
 * once with the same ETag, over real HTTP to one site, on every database.
 * Exactly one may win (200); the other must find its tag stale (412) and
 * write nothing, so that the record afterwards is the winner's.
 * test/cli/workers-race.test.ts races the same across the processes of
 * `serve --workers 2`.
 */
import { expect } from "chai";
import { forEachDatabase } from "../support/databases";
import { makeEvent, useSite } from "./events-support";

/** Pairs raced per database: the window is narrow, so it takes many to show that none slips through. */
const PAIRS = 200;

interface Outcome {
  status: number;
  title: string;
  body: { title?: string; code?: string };
}

forEachDatabase("calendar: If-Match raced", (db) => {
  const site = useSite(db);

  it(`${PAIRS} pairs of updates with one ETag: one 200 and one 412 each, and the record is the winner's`, async function () {
    // A hang guard only.
    this.timeout(180_000);
    const t = site();
    const event = await makeEvent(t, { title: "Raced Night", status: "publish" });
    const url = `/events/${event.id}`;
    const row = async (): Promise<{ title: string; content: string }> => t.site.engine.knex(t.site.engine.tables.posts).where({ id: event.id }).first("title", "content");
    const failures: string[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const read = await t.get(url, { as: "editor" });
      expect(read.status).to.equal(200);
      const etag = read.headers.get("etag");
      if (etag === null) throw new Error("no ETag");
      const write = async (side: string, method: string): Promise<Outcome> => {
        // Title and description both: a loser that wrote either shows.
        const title = `Pair ${pair} ${side}`;
        const res = await t.request(method, url, { as: "editor", json: { title, description: `<p>${title}</p>` }, headers: { "If-Match": etag } });
        return { status: res.status, title, body: res.body as Outcome["body"] };
      };
      // PUT and POST both update (WordPress's EDITABLE methods): every other pair sends one of each.
      const outcomes = await Promise.all([write("a", "POST"), write("b", pair % 2 === 0 ? "POST" : "PUT")]);
      const statuses = outcomes.map((o) => o.status).sort();
      const winner = outcomes.find((o) => o.status === 200);
      if (statuses[0] !== 200 || statuses[1] !== 412 || winner === undefined) {
        failures.push(`pair ${pair}: ${outcomes.map((o) => `${o.status} ${o.body.code ?? o.body.title ?? ""}`).join(", ")}`);
        continue;
      }
      expect(outcomes.find((o) => o.status === 412)?.body.code).to.equal("rest_precondition_failed");
      expect(winner.body.title).to.equal(winner.title);
      const stored = await row();
      expect(stored.title, `pair ${pair}: the stored record is the winner's`).to.equal(winner.title);
      expect(stored.content).to.equal(`<p>${winner.title}</p>`);
    }
    expect(failures, `${failures.length} of ${PAIRS} pairs did not end in one 200 and one 412`).to.deep.equal([]);
  });
});

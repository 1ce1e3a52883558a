/**
 * The tag feed (lib/cache/tag-feed.ts) against a scripted change source:
 * what it may say about a position, and when it must say it does not know.
 */
import { expect } from "chai";
import { TagFeed } from "../../lib/cache/tag-feed";
import { scripted } from "../support/scripted-tags";

describe("TagFeed", () => {
  it("says a thing is good while none of its tags changed after its position, and bad once one did", async () => {
    const db = scripted();
    const feed = new TagFeed(db.changes, { revision: db.revision });
    const token = await feed.current();
    const mark = await feed.markFor(token as string);
    expect(mark).to.be.a("string");
    db.commit(8, 12);
    await feed.current();
    expect(feed.unchangedSince(mark as string, [4, 16])).to.equal(true);
    expect(feed.unchangedSince(mark as string, [4, 12])).to.equal(false);
    // A later mark sees the change as before it.
    const later = await feed.markFor((await feed.current()) as string);
    expect(feed.unchangedSince(later as string, [12])).to.equal(true);
    db.commit(12);
    await feed.current();
    expect(feed.unchangedSince(later as string, [12])).to.equal(false);
    expect(feed.unchangedSince(later as string, [8])).to.equal(true);
  });

  it("gives no mark when something committed after the token its caller read", async () => {
    const db = scripted();
    const feed = new TagFeed(db.changes, { revision: db.revision });
    const token = (await feed.current()) as string;
    db.commit(4);
    expect(await feed.markFor(token)).to.equal(null);
  });

  it("does not know positions it never saw, forgot, or from before a new epoch", async () => {
    const db = scripted();
    const feed = new TagFeed(db.changes, { revision: db.revision, maxTags: 3 });
    const first = (await feed.markFor((await feed.current()) as string)) as string;
    expect(feed.unchangedSince("1:999", [4])).to.equal(undefined);
    db.commit(4);
    await feed.current();
    const second = (await feed.markFor((await feed.current()) as string)) as string;
    expect(feed.unchangedSince(first, [8])).to.equal(true);
    // Past the bound the oldest change (4) is forgotten: positions before it can no longer be answered.
    db.commit(8, 12, 16);
    await feed.current();
    expect(feed.size().tags).to.be.at.most(3);
    expect(feed.unchangedSince(first, [20])).to.equal(undefined);
    expect(feed.unchangedSince(second, [8])).to.equal(false);
    expect(feed.unchangedSince(second, [20])).to.equal(true);
    db.newEpoch();
    db.commit(24);
    await feed.current();
    expect(feed.unchangedSince(second, [20])).to.equal(undefined);
  });

  it("syncs once per revision token, however many ask", async () => {
    const db = scripted();
    const feed = new TagFeed(db.changes, { revision: db.revision });
    await Promise.all(Array.from({ length: 20 }, () => feed.current()));
    const after = db.syncs;
    expect(after).to.be.at.most(2);
    await Promise.all(Array.from({ length: 20 }, () => feed.current()));
    expect(db.syncs).to.equal(after);
    db.commit(4);
    await Promise.all(Array.from({ length: 20 }, () => feed.current()));
    expect(db.syncs).to.be.at.most(after + 2);
  });
});

import { expect } from "chai";
import { spanInstants } from "../../lib/calendar/import/zone-match";

describe("iCalendar import: matching a file's zone samples a bounded number of instants", () => {
  it("a span of thousands of years (a finite yearly series) is sampled at most 20,000 times, besides each change of the file's", () => {
    const from = Date.UTC(2000, 0, 1) / 1000;
    const to = Date.UTC(7000, 0, 1) / 1000;
    const changes = [Date.UTC(2001, 2, 25, 1) / 1000, Date.UTC(2001, 9, 28, 1) / 1000];
    const instants = spanInstants(from, to, changes);
    expect(instants.length).to.be.at.most(20_000 + 2 * changes.length);
    expect(instants).to.include.members([changes[0]! - 1, changes[0]!, changes[1]! - 1, changes[1]!]);
    expect(instants.at(-1)).to.be.below(to);
  });

  it("a span of a few years is still sampled every day", () => {
    const from = Date.UTC(2020, 0, 1) / 1000;
    const to = Date.UTC(2023, 0, 1) / 1000;
    expect(spanInstants(from, to, [])).to.have.length((to - from) / 86_400);
  });
});

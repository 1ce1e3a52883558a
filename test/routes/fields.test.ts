/**
 * `fieldWanted`: what a handler may skip for a `_fields` filter. It must
 * never say "not wanted" for a path the filter keeps anything of.
 */
import { expect } from "chai";
import { fieldWanted, filterFields, parseFields } from "../../lib/routes/fields";

describe("routes: fieldWanted (the _fields tree as handlers read it)", () => {
  it("wants everything without a filter", () => {
    expect(fieldWanted(undefined, "venue")).to.equal(true);
    expect(fieldWanted(parseFields(""), "events.venue.city")).to.equal(true);
  });

  it("follows top-level names and dotted paths", () => {
    const tree = parseFields("id,venue.venue,json_ld");
    expect(fieldWanted(tree, "id")).to.equal(true);
    expect(fieldWanted(tree, "title")).to.equal(false);
    expect(fieldWanted(tree, "venue")).to.equal(true);
    expect(fieldWanted(tree, "venue.venue")).to.equal(true);
    expect(fieldWanted(tree, "venue.city")).to.equal(false);
    expect(fieldWanted(tree, "json_ld.location.address")).to.equal(true);
    expect(fieldWanted(tree, "organizer")).to.equal(false);
  });

  it("reads a list member's items under its name (`events` whole, or not at all)", () => {
    expect(fieldWanted(parseFields("events,total"), "events.venue")).to.equal(true);
    expect(fieldWanted(parseFields("id,title"), "events.id")).to.equal(false);
    expect(fieldWanted(parseFields(["total", "rest_url"]), "events.categories")).to.equal(false);
  });

  it("agrees with the filter: a member it calls unwanted is never in the filtered body", () => {
    const body = { id: 1, title: "T", venue: { venue: "Hall", city: "Rome" }, organizer: [{ id: 2 }], categories: [] };
    for (const fields of ["id", "venue.city", "organizer.id", "title,venue", "nothing", "venue.venue,venue"]) {
      const tree = parseFields(fields);
      const kept = filterFields(body, tree ?? {}) as Record<string, unknown>;
      for (const member of Object.keys(body)) {
        if (!fieldWanted(tree, member)) expect(kept, `${fields}: ${member}`).to.not.have.property(member);
        else expect(kept, `${fields}: ${member}`).to.have.property(member);
      }
    }
  });
});

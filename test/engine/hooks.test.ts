import { expect } from "chai";
import { createEvent } from "../../lib/calendar/events/operations";
import type { Change, PostChange, TermChange } from "../../lib/hooks";
import { RestError } from "../../lib/routes/errors";
import { forEachDatabase } from "../support/databases";
import { recordChanges, userId, waitFor } from "../support/hooks";
import { dayAt, useSite } from "../calendar/events-support";

function named(changes: Change[], name: string): Change[] {
  return changes.filter((c) => c.name === name);
}

function onePost(changes: Change[], name: string, id?: number): PostChange {
  const found = named(changes, name).filter((c): c is PostChange => c.kind === "post" && (id === undefined || c.id === id));
  expect(found, `${name} in ${JSON.stringify(changes.map((c) => c.name))}`).to.have.length(1);
  return found[0];
}

forEachDatabase("change hooks", (db) => {
  const errors: string[] = [];
  const site = useSite(db, { logger: { error: (message) => errors.push(message) }, webhooks: { autoStart: false } });

  it("emits event.created with inline venue, organizer and term creations, naming the user", async () => {
    const t = site();
    const log = recordChanges(t);
    const typed: PostChange[] = [];
    const off = t.site.hooks.on("event.created", (change) => {
      typed.push(change);
    });
    try {
      const res = await t.post("/events", {
        as: "editor",
        json: {
          title: "Hooked Concert",
          start_date: dayAt(3, "20:00:00"),
          end_date: dayAt(3, "22:00:00"),
          categories: "Hook Category",
          venue: { venue: "Hook Hall", city: "Rome" },
          organizer: { organizer: "Hook Org" },
        },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      await waitFor(() => typed.length === 1 && log.changes.length >= 4, "the creation hooks");
      const editor = await userId(t, "editor");
      const event = onePost(log.changes, "event.created");
      expect(event).to.include({ kind: "post", action: "created", id: res.body.id, type: "event", title: "Hooked Concert", status: "publish", userId: editor });
      expect(event.slug).to.equal(res.body.slug);
      expect(event.previousStatus).to.equal(null);
      expect(event.post?.fields.start_local).to.equal(dayAt(3, "20:00:00"));
      expect(typed[0].id).to.equal(res.body.id);
      const venue = onePost(log.changes, "venue.created");
      expect(venue).to.include({ id: res.body.venue.id, title: "Hook Hall", userId: editor });
      expect(onePost(log.changes, "organizer.created")).to.include({ id: res.body.organizer[0].id, title: "Hook Org" });
      const term = named(log.changes, "term.created") as TermChange[];
      expect(term.map((c) => [c.taxonomy, c.title, c.userId])).to.deep.equal([["calendar_events_cat", "Hook Category", editor]]);
      // One change per record per transaction, though the engine writes some twice.
      expect(log.changes).to.have.length(4);
    } finally {
      log.stop();
      off();
    }
  });

  it("emits event.updated and event.trashed with the previous status", async () => {
    const t = site();
    const created = await t.post("/events", { as: "editor", json: { title: "To Change", status: "draft", start_date: dayAt(4, "10:00:00"), end_date: dayAt(4, "11:00:00") } });
    expect(created.status).to.equal(201);
    const log = recordChanges(t);
    try {
      const updated = await t.post(`/events/${created.body.id}`, { as: "editor", json: { title: "Changed", status: "publish" } });
      expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
      await waitFor(() => log.changes.length === 1, "event.updated");
      expect(onePost(log.changes, "event.updated")).to.include({ id: created.body.id, title: "Changed", status: "publish", previousStatus: "draft" });

      const trashed = await t.request("DELETE", `/events/${created.body.id}`, { as: "admin" });
      expect(trashed.status).to.equal(200);
      await waitFor(() => log.changes.length === 2, "event.trashed");
      const change = onePost(log.changes, "event.trashed");
      expect(change).to.include({ id: created.body.id, status: "trash", previousStatus: "publish", userId: await userId(t, "admin") });
    } finally {
      log.stop();
    }
  });

  it("emits venue.* and organizer.* for their own routes", async () => {
    const t = site();
    const log = recordChanges(t);
    try {
      const venue = await t.post("/venues", { as: "editor", json: { venue: "Solo Venue", city: "Oslo" } });
      expect(venue.status, JSON.stringify(venue.body)).to.equal(201);
      expect((await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { venue: "Solo Venue Renamed" } })).status).to.equal(200);
      expect((await t.request("DELETE", `/venues/${venue.body.id}`, { as: "editor" })).status).to.equal(200);
      const organizer = await t.post("/organizers", { as: "editor", json: { organizer: "Solo Organizer" } });
      expect(organizer.status).to.equal(201);
      expect((await t.post(`/organizers/${organizer.body.id}`, { as: "editor", json: { organizer: "Solo Organizer 2" } })).status).to.equal(200);
      expect((await t.request("DELETE", `/organizers/${organizer.body.id}`, { as: "editor" })).status).to.equal(200);
      await waitFor(() => log.changes.length === 6, "six changes");
      expect(log.changes.map((c) => `${c.name} ${c.id}`)).to.deep.equal([
        `venue.created ${venue.body.id}`,
        `venue.updated ${venue.body.id}`,
        `venue.trashed ${venue.body.id}`,
        `organizer.created ${organizer.body.id}`,
        `organizer.updated ${organizer.body.id}`,
        `organizer.trashed ${organizer.body.id}`,
      ]);
      expect(onePost(log.changes, "venue.updated").title).to.equal("Solo Venue Renamed");
      expect(onePost(log.changes, "organizer.trashed").status).to.equal("trash");
    } finally {
      log.stop();
    }
  });

  it("emits term.created, term.updated and term.deleted with the taxonomy", async () => {
    const t = site();
    const log = recordChanges(t);
    try {
      const created = await t.post("/categories", { as: "admin", json: { name: "Hook Term" } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect((await t.post(`/categories/${created.body.id}`, { as: "admin", json: { name: "Hook Term 2" } })).status).to.equal(200);
      const tag = await t.post("/tags", { as: "admin", json: { name: "hook-tag" } });
      expect(tag.status).to.equal(201);
      expect((await t.request("DELETE", `/categories/${created.body.id}`, { as: "admin" })).status).to.equal(200);
      await waitFor(() => log.changes.length === 4, "four term changes");
      const terms = log.changes as TermChange[];
      expect(terms.map((c) => [c.name, c.taxonomy, c.id, c.title])).to.deep.equal([
        ["term.created", "calendar_events_cat", created.body.id, "Hook Term"],
        ["term.updated", "calendar_events_cat", created.body.id, "Hook Term 2"],
        ["term.created", "post_tag", tag.body.id, "hook-tag"],
        ["term.deleted", "calendar_events_cat", created.body.id, "Hook Term 2"],
      ]);
      expect(terms[0].userId).to.equal(await userId(t, "admin"));
    } finally {
      log.stop();
    }
  });

  it("emits nothing for a write that rolls back", async () => {
    const t = site();
    // A host route whose write creates a term and then fails: the transaction rolls back.
    t.site.rest.registerNamespace("hooktest/v1");
    t.site.rest.registerRoute("hooktest/v1", "/fail", [
      {
        methods: "POST",
        permission: "public",
        handler: async () => {
          await t.site.engine.write(async (tx) => {
            await tx.terms.create({ taxonomy: "calendar_events_cat", name: "Rolled Back Term" });
            throw new RestError("hooktest_failed", "Failed on purpose.", 409);
          });
          return {};
        },
      },
    ]);
    const log = recordChanges(t);
    try {
      const failed = await fetch(`${t.root}hooktest/v1/fail`, { method: "POST" });
      expect(failed.status).to.equal(409);
      // In-process: the venue and terms are written in the transaction before the organizer fails.
      const admin = t.site.engine.users.currentUser((await t.site.engine.users.byLogin("admin"))!);
      const body = {
        title: "Never Hooked",
        start_date: "tomorrow 10am",
        end_date: "tomorrow 11am",
        categories: "Never Hooked Category",
        venue: { venue: "Never Hooked Venue" },
        organizer: [{ organizer: "Never Hooked Organizer" }, { email: "x@example.com" }],
      };
      let failure: unknown;
      await createEvent(t.site.engine, body, admin, { validated: true }).catch((err: unknown) => (failure = err));
      expect(failure).to.be.instanceOf(RestError);
      expect(await t.site.engine.terms.bySlug("calendar_events_cat", "rolled-back-term")).to.equal(undefined);
      // A committed write after them: its hook arrives, and it is the only one.
      const ok = await t.post("/categories", { as: "admin", json: { name: "After Rollback" } });
      expect(ok.status).to.equal(201);
      await waitFor(() => log.changes.length >= 1, "the committed change");
      expect(log.changes.map((c) => c.name + " " + c.title)).to.deep.equal(["term.created After Rollback"]);
    } finally {
      log.stop();
    }
  });

  it("a throwing listener is logged and neither fails the request nor stops other listeners", async () => {
    const t = site();
    errors.length = 0;
    const seen: number[] = [];
    const offThrow = t.site.hooks.on("event.created", () => {
      throw new Error("listener exploded");
    });
    const offReject = t.site.hooks.on("event.created", async () => {
      throw new Error("listener rejected");
    });
    const offOk = t.site.hooks.on("event.created", (change) => {
      seen.push(change.id);
    });
    try {
      const res = await t.post("/events", { as: "editor", json: { title: "Survives", start_date: dayAt(2, "10:00:00"), end_date: dayAt(2, "11:00:00") } });
      expect(res.status).to.equal(201);
      await waitFor(() => seen.length === 1 && errors.length === 2, "the listeners");
      expect(seen).to.deep.equal([res.body.id]);
      expect(errors).to.deep.equal(["hook listener for event.created failed", "hook listener for event.created failed"]);
      // The site still answers.
      expect((await t.get(`/events/${res.body.id}`)).status).to.equal(200);
    } finally {
      offThrow();
      offReject();
      offOk();
    }
  });

  it("unsubscribing stops delivery to that listener", async () => {
    const t = site();
    const seen: string[] = [];
    const off = t.site.hooks.on("term.created", (c) => {
      seen.push(c.title);
    });
    const log = recordChanges(t);
    try {
      expect((await t.post("/tags", { as: "admin", json: { name: "first-heard" } })).status).to.equal(201);
      await waitFor(() => seen.length === 1, "the first term");
      off();
      expect((await t.post("/tags", { as: "admin", json: { name: "not-heard" } })).status).to.equal(201);
      await waitFor(() => log.changes.length === 2, "the second term");
      expect(seen).to.deep.equal(["first-heard"]);
    } finally {
      log.stop();
    }
  });
});

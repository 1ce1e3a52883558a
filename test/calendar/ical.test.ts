/**
 * The iCalendar feed of the events list (`GET /events.ics`, and `GET
 * /events` with `Accept: text/calendar`): parsed with ical.js, a parser
 * independent of the generator, and compared event by event with the JSON
 * list of the same query — instants across time zones and DST changes,
 * all-day dates, locations, categories, filters, paging and visibility —
 * plus RFC 5545 escaping, folding and byte-for-byte determinism.
 */
import { expect } from "chai";
import { DateTime } from "luxon";
import { forEachDatabase } from "../support/databases";
import type { ApiResponse, TestSite } from "../support/site";
import { makeEvent, postId, useSite } from "./events-support";

// ical.js ships CommonJS without a default export the TypeScript config can import.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ICAL = require("ical.js") as typeof import("ical.js").default;

type Component = InstanceType<typeof ICAL.Component>;

/** A whole year of 2031: no fixture event falls in it, and both DST changes of both zones do. */
const YEAR = { start_date: "2031-01-01", end_date: "2031-12-31", per_page: 50 };

interface JsonEvent {
  id: number;
  title: string;
  url: string;
  all_day: boolean | null;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  description: string;
  categories: Array<{ name: string }>;
  venue: { venue: string; address?: string; city?: string; geo_lat?: number; geo_lng?: number } | [];
  organizer: Array<{ organizer: string; email?: string }>;
}

/** The calendar component of a feed, its VTIMEZONEs registered so that TZIDs resolve (ical.js knows only UTC itself). */
function parseFeed(text: string): Component {
  const calendar = new ICAL.Component(ICAL.parse(text));
  ICAL.TimezoneService.reset();
  for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(vtimezone);
  return calendar;
}

function vevents(text: string): Component[] {
  return parseFeed(text).getAllSubcomponents("vevent");
}

/** Unix seconds of a `YYYY-MM-DD HH:MM:SS` UTC wall clock. */
function unix(utc: string): number {
  return DateTime.fromSQL(utc, { zone: "UTC" }).toSeconds();
}

function text(vevent: Component, name: string): string | undefined {
  const value = vevent.getFirstPropertyValue(name);
  return value === null ? undefined : String(value);
}

function categoriesOf(vevent: Component): string[] {
  return vevent.getAllProperties("categories").flatMap((p) => p.getValues().map(String));
}

/** The feed's lines, unfolded (RFC 5545 §3.1). */
function unfolded(feed: string): string[] {
  return feed.replace(/\r\n[ \t]/g, "").split("\r\n");
}

async function feedOf(t: TestSite, query: Record<string, string | number>, as?: string): Promise<ApiResponse> {
  const res = await t.get("/events.ics", { query, ...(as ? { as } : {}) });
  expect(res.status, res.text).to.equal(200);
  expect(res.headers.get("content-type")).to.equal("text/calendar; charset=utf-8");
  return res;
}

async function jsonOf(t: TestSite, query: Record<string, string | number>): Promise<JsonEvent[]> {
  const res = await t.get("/events", { query });
  expect(res.status, res.text).to.equal(200);
  return (res.body as { events: JsonEvent[] }).events;
}

/** The feed and the JSON list of one query agree event by event. */
function expectSameEvents(feed: string, events: JsonEvent[], host: string): void {
  const parsed = vevents(feed);
  expect(parsed.map((v) => text(v, "uid"))).to.deep.equal(events.map((e) => `${e.id}@${host}`));
  parsed.forEach((vevent, i) => {
    const json = events[i] as JsonEvent;
    const event = new ICAL.Event(vevent);
    // The titles of these tests have no characters the title filters turn into entities.
    expect(text(vevent, "summary")).to.equal(json.title);
    expect(text(vevent, "url"), `url of ${json.title}`).to.equal(json.url);
    expect(categoriesOf(vevent).sort(), `categories of ${json.title}`).to.deep.equal(json.categories.map((c) => c.name).sort());
    if (json.all_day === true) {
      expect(event.startDate.isDate, `${json.title} starts on a DATE`).to.equal(true);
      expect(event.endDate.isDate).to.equal(true);
      expect(event.startDate.toString()).to.equal(json.start_date.slice(0, 10));
      // DTEND of an all-day event is exclusive: the day after the last one.
      expect(event.endDate.toString()).to.equal(DateTime.fromISO(json.end_date.slice(0, 10)).plus({ days: 1 }).toISODate());
    } else {
      expect(event.startDate.isDate).to.equal(false);
      expect(event.startDate.toUnixTime(), `start of ${json.title}`).to.equal(unix(json.utc_start_date));
      expect(event.endDate.toUnixTime(), `end of ${json.title}`).to.equal(unix(json.utc_end_date));
    }
    const venue = Array.isArray(json.venue) ? undefined : json.venue;
    if (venue === undefined) {
      expect(text(vevent, "location")).to.equal(undefined);
    } else {
      const location = text(vevent, "location") ?? "";
      expect(location.startsWith(`${venue.venue}, `), location).to.equal(true);
      if (venue.address) expect(location).to.include(venue.address);
      if (venue.city) expect(location).to.include(venue.city);
      const geo = vevent.getFirstPropertyValue("geo");
      expect(geo === null ? undefined : geo).to.deep.equal(venue.geo_lat !== undefined ? [venue.geo_lat, venue.geo_lng] : undefined);
    }
  });
}

forEachDatabase("iCalendar feed of GET /events", (db) => {
  const site = useSite(db);
  const ids: Record<string, number> = {};
  const host = "127.0.0.1";

  before(async function () {
    this.timeout(60_000);
    const t = site();
    const townHall = await postId(t, "Town Hall");
    const jazzClub = await postId(t, "Jazz Club");
    const make = async (key: string, body: Record<string, unknown>): Promise<void> => {
      ids[key] = (await makeEvent(t, body)).id;
    };
    // New York: DST starts 2031-03-09 02:00 EST and ends 2031-11-02 02:00 EDT.
    await make("nyBefore", { title: "NY before DST", timezone: "America/New_York", start_date: "2031-03-08 10:00:00", end_date: "2031-03-08 11:00:00", categories: "Talks" });
    await make("nyAcross", { title: "NY across DST", timezone: "America/New_York", start_date: "2031-03-09 01:30:00", end_date: "2031-03-09 04:30:00", categories: "Talks" });
    await make("nyAfter", { title: "NY after DST", timezone: "America/New_York", start_date: "2031-03-10 10:00:00", end_date: "2031-03-10 11:00:00" });
    await make("nyNovember", { title: "NY back to EST", timezone: "America/New_York", start_date: "2031-11-02 00:30:00", end_date: "2031-11-02 03:00:00" });
    // Berlin: summer time starts 2031-03-30 02:00 CET and ends 2031-10-26 03:00 CEST.
    await make("berlinMarch", { title: "Berlin before summer time", timezone: "Europe/Berlin", start_date: "2031-03-29 12:00:00", end_date: "2031-03-29 13:00:00", venue: townHall, organizer: [jazzClub], categories: "Talks,Fairs" });
    await make("berlinSummer", { title: "Berlin in summer time", timezone: "Europe/Berlin", start_date: "2031-03-30 12:00:00", end_date: "2031-03-30 13:00:00" });
    await make("berlinNight", { title: "Berlin night of the change", timezone: "Europe/Berlin", start_date: "2031-10-25 22:00:00", end_date: "2031-10-26 05:00:00" });
    await make("allDay", { title: "Harvest Fair", timezone: "Europe/Berlin", all_day: true, start_date: "2031-10-01", end_date: "2031-10-02", categories: "Fairs" });
    await make("offset", { title: "Fixed offset", timezone: "UTC+2", start_date: "2031-06-01 09:00:00", end_date: "2031-06-01 10:00:00" });
    await make("marks", {
      title: "Rock, Paper; Scissors \\ Lizard",
      timezone: "UTC",
      start_date: "2031-05-01 18:00:00",
      end_date: "2031-05-01 19:00:00",
      description: "First line, with; marks.\n\nSecond paragraph: Grüße aus Köln — ünïcödé text long enough to be folded over several lines of the feed ✓✓✓✓✓✓.",
    });
    await make("draft", { title: "Draft in 2031", status: "draft", start_date: "2031-04-01 10:00:00", end_date: "2031-04-01 11:00:00" });
  });

  it("answers the same events as the JSON list, instant for instant across zones and DST changes", async () => {
    const t = site();
    const feed = (await feedOf(t, YEAR)).text;
    const events = await jsonOf(t, YEAR);
    expect(events.map((e) => e.id)).to.not.include(ids.draft);
    expect(events.length).to.equal(Object.keys(ids).length - 1);
    expectSameEvents(feed, events, host);
  });

  it("writes local times with a TZID and a VTIMEZONE with the zone's DST rules", async () => {
    const t = site();
    const feed = (await feedOf(t, YEAR)).text;
    const lines = unfolded(feed);
    expect(lines).to.include("DTSTART;TZID=America/New_York:20310308T100000");
    expect(lines).to.include("DTSTART;TZID=Europe/Berlin:20311025T220000");
    // The fixed offset and UTC are written in UTC.
    expect(lines).to.include("DTSTART:20310601T070000Z");
    expect(lines).to.include("DTSTART:20310501T180000Z");
    const zones = parseFeed(feed).getAllSubcomponents("vtimezone");
    expect(zones.map((z) => text(z, "tzid")).sort()).to.deep.equal(["America/New_York", "Europe/Berlin"]);
    const changes = (tzid: string): string[] =>
      zones
        .find((z) => text(z, "tzid") === tzid)!
        .getAllSubcomponents()
        .map((o) => [o.name, text(o, "dtstart"), o.getFirstProperty("rrule")?.toICALString(), o.getFirstProperty("tzoffsetfrom")!.toICALString(), o.getFirstProperty("tzoffsetto")!.toICALString()].filter((part) => part !== undefined).join(" "));
    // The zones' current rules, from the year before the first event on (lib/calendar/ical/vtimezone.ts).
    expect(changes("America/New_York")).to.deep.equal([
      "standard 2029-12-31T19:00:00 TZOFFSETFROM:-0500 TZOFFSETTO:-0500",
      "daylight 2030-03-10T02:00:00 RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU TZOFFSETFROM:-0500 TZOFFSETTO:-0400",
      "standard 2030-11-03T02:00:00 RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU TZOFFSETFROM:-0400 TZOFFSETTO:-0500",
    ]);
    expect(changes("Europe/Berlin")).to.deep.equal([
      "standard 2030-01-01T01:00:00 TZOFFSETFROM:+0100 TZOFFSETTO:+0100",
      "daylight 2030-03-31T02:00:00 RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU TZOFFSETFROM:+0100 TZOFFSETTO:+0200",
      "standard 2030-10-27T03:00:00 RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU TZOFFSETFROM:+0200 TZOFFSETTO:+0100",
    ]);
    // The instants on both sides of the changes, read back through the VTIMEZONEs.
    const byUid = new Map(vevents(feed).map((v) => [text(v, "uid"), new ICAL.Event(v)]));
    const start = (key: string): string => DateTime.fromSeconds(byUid.get(`${ids[key]}@${host}`)!.startDate.toUnixTime(), { zone: "UTC" }).toFormat("yyyy-MM-dd HH:mm");
    const end = (key: string): string => DateTime.fromSeconds(byUid.get(`${ids[key]}@${host}`)!.endDate.toUnixTime(), { zone: "UTC" }).toFormat("yyyy-MM-dd HH:mm");
    expect([start("nyBefore"), start("nyAfter"), start("nyAcross"), end("nyAcross")]).to.deep.equal(["2031-03-08 15:00", "2031-03-10 14:00", "2031-03-09 06:30", "2031-03-09 08:30"]);
    expect([start("berlinMarch"), start("berlinSummer"), start("berlinNight"), end("berlinNight")]).to.deep.equal(["2031-03-29 11:00", "2031-03-30 10:00", "2031-10-25 20:00", "2031-10-26 04:00"]);
  });

  it("writes all-day events as DATE values with an exclusive DTEND", async () => {
    const lines = unfolded((await feedOf(site(), YEAR)).text);
    expect(lines).to.include("DTSTART;VALUE=DATE:20311001");
    expect(lines).to.include("DTEND;VALUE=DATE:20311003");
  });

  it("escapes commas, semicolons and newlines, and folds lines at 75 octets", async () => {
    const t = site();
    const feed = (await feedOf(t, YEAR)).text;
    expect(lines(feed).every((line) => Buffer.byteLength(line, "utf8") <= 75), "line length").to.equal(true);
    // Every line ends with CRLF; no bare LF or CR.
    expect(feed.replace(/\r\n/g, "")).to.not.match(/[\r\n]/);
    expect(feed.split("\r\n").some((line) => line.startsWith(" ")), "some line is folded").to.equal(true);
    const raw = unfolded(feed);
    expect(raw).to.include("SUMMARY:Rock\\, Paper\\; Scissors \\\\ Lizard");
    expect(raw.find((l) => l.startsWith("DESCRIPTION:First line"))).to.match(/^DESCRIPTION:First line\\, with\\; marks\.\\nSecond paragraph/);
    const marks = vevents(feed).find((v) => text(v, "uid") === `${ids.marks}@${host}`)!;
    expect(text(marks, "summary")).to.equal("Rock, Paper; Scissors \\ Lizard");
    expect(text(marks, "description")).to.equal("First line, with; marks.\nSecond paragraph: Grüße aus Köln — ünïcödé text long enough to be folded over several lines of the feed ✓✓✓✓✓✓.");
    // The calendar's name (the site name) is escaped too, and cannot break out of its line.
    await t.site.engine.options.set("blogname", "Events, Talks;\nMore");
    try {
      const named = unfolded((await feedOf(t, YEAR)).text);
      expect(named).to.include("X-WR-CALNAME:Events\\, Talks\\; More");
    } finally {
      await t.site.engine.options.set("blogname", "Calpress Minimal");
    }
  });

  it("gives the venue as LOCATION and GEO, the organizer with mailto:, the stable UID and the modified time as DTSTAMP", async () => {
    const t = site();
    const feed = (await feedOf(t, YEAR)).text;
    const [json] = await jsonOf(t, { include: ids.berlinMarch as number });
    const vevent = vevents(feed).find((v) => text(v, "uid") === `${ids.berlinMarch}@${host}`)!;
    expect(text(vevent, "location")).to.equal("Town Hall, 1 Dam Square, 1012 JS Amsterdam, Noord-Holland, Netherlands");
    expect(vevent.getFirstPropertyValue("geo")).to.deep.equal([52.373, 4.8924]);
    const organizer = vevent.getFirstProperty("organizer")!;
    expect(organizer.getFirstValue()).to.equal("mailto:info@jazzclub.common.com");
    expect(organizer.getParameter("cn")).to.equal("Jazz Club");
    expect(categoriesOf(vevent).sort()).to.deep.equal(["Fairs", "Talks"]);
    expect(unfolded(feed)).to.include(`DTSTAMP:${DateTime.fromSQL((json as unknown as { modified_utc: string }).modified_utc, { zone: "UTC" }).toFormat("yyyyMMdd'T'HHmmss")}Z`);
  });

  it("is deterministic: separately built answers are the same bytes", async () => {
    const t = site();
    // Anonymous and a subscriber (who sees what the public sees) are built separately: logged-in requests bypass the response cache.
    const anonymous = (await feedOf(t, YEAR)).text;
    const subscriber = (await feedOf(t, YEAR, "subscriber")).text;
    const negotiated = await t.get("/events", { query: YEAR, headers: { Accept: "text/calendar" } });
    expect(subscriber).to.equal(anonymous);
    expect(negotiated.text).to.equal(anonymous);
    expect(anonymous.startsWith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpress//calpress events//EN\r\n")).to.equal(true);
    expect(anonymous.endsWith("END:VCALENDAR")).to.equal(true);
    // The same feed through `?rest_route=`, and HEAD: the GET's headers without a body.
    const viaRestRoute = await fetch(`${t.home}/?rest_route=/calendar/events/v1/events.ics&${new URLSearchParams(Object.entries(YEAR).map(([k, v]): [string, string] => [k, String(v)]))}`);
    expect(await viaRestRoute.text()).to.equal(anonymous);
    const head = await fetch(`${t.ns}/events.ics?${new URLSearchParams(Object.entries(YEAR).map(([k, v]): [string, string] => [k, String(v)]))}`, { method: "HEAD" });
    expect(head.status).to.equal(200);
    expect(head.headers.get("content-type")).to.equal("text/calendar; charset=utf-8");
    expect(head.headers.get("content-length")).to.equal(String(Buffer.byteLength(anonymous)));
    expect(await head.text()).to.equal("");
  });

  it("applies the list's filters and paging, with its counting headers", async () => {
    const t = site();
    for (const query of [{ ...YEAR, categories: "fairs" }, { ...YEAR, categories: "talks" }, { ...YEAR, search: "Berlin" }, { ...YEAR, per_page: 3, page: 2 }]) {
      const feed = await feedOf(t, query);
      const json = await t.get("/events", { query });
      const events = (json.body as { events: JsonEvent[] }).events;
      expect(events.length, JSON.stringify(query)).to.be.greaterThan(0);
      expectSameEvents(feed.text, events, host);
      for (const name of ["x-wp-total", "x-wp-totalpages", "x-cal-total", "x-cal-totalpages"]) expect(feed.headers.get(name), name).to.equal(json.headers.get(name));
    }
    const fairs = vevents((await feedOf(t, { ...YEAR, categories: "fairs" })).text).map((v) => text(v, "uid"));
    expect(fairs).to.have.members([`${ids.berlinMarch}@${host}`, `${ids.allDay}@${host}`]);
    const paged = await feedOf(t, { ...YEAR, per_page: 3, page: 2 });
    expect(paged.headers.get("link")).to.include(`${t.ns}/events.ics?`);
  });

  it("shows non-public and password-protected events as the JSON list does", async () => {
    const t = site();
    const protectedId = await postId(t, "Protected Event");
    const draftId = await postId(t, "Draft Event");
    const query = { include: `${protectedId},${draftId}` };
    const json = await jsonOf(t, query);
    expect(json.map((e) => e.id)).to.deep.equal([protectedId]);
    const feed = (await feedOf(t, query)).text;
    expectSameEvents(feed, json, host);
    const [vevent] = vevents(feed);
    // Masked as in JSON: no content, venue or categories.
    expect(text(vevent!, "description")).to.equal(undefined);
    expect(text(vevent!, "location")).to.equal(undefined);
    expect(categoriesOf(vevent!)).to.deep.equal([]);
    // An editor asking for drafts gets them in both.
    const drafts = { status: "draft", ...YEAR };
    const editorJson = await t.get("/events", { query: drafts, as: "editor" });
    const editorFeed = await feedOf(t, drafts, "editor");
    expect((editorJson.body as { events: JsonEvent[] }).events.map((e) => e.id)).to.include(ids.draft);
    expectSameEvents(editorFeed.text, (editorJson.body as { events: JsonEvent[] }).events, host);
  });

  it("negotiates by Accept on GET /events and keeps JSON otherwise", async () => {
    const t = site();
    const cases: Array<[string | undefined, string]> = [
      [undefined, "application/json; charset=UTF-8"],
      ["application/json", "application/json; charset=UTF-8"],
      ["*/*", "application/json; charset=UTF-8"],
      ["text/calendar", "text/calendar; charset=utf-8"],
      ["text/calendar, application/json;q=0.5", "text/calendar; charset=utf-8"],
      ["application/json, text/calendar;q=0.5", "application/json; charset=UTF-8"],
    ];
    // Twice each, so that the second may come from the response cache: it must keep the representations apart.
    for (let round = 0; round < 2; round++) {
      for (const [accept, type] of cases) {
        const res = await t.get("/events", { query: YEAR, headers: accept === undefined ? {} : { Accept: accept } });
        expect(res.status).to.equal(200);
        expect(res.headers.get("content-type"), `${accept} round ${round}`).to.equal(type);
        expect(res.headers.get("vary") ?? "").to.include("Accept");
      }
    }
  });

  it("answers errors with the JSON envelope, and _envelope as JSON", async () => {
    const t = site();
    const bad: Array<Record<string, string>> = [{ per_page: "many" }, { categories: "no-such-category" }, { start_date: "not a date at all" }];
    for (const query of bad) {
      const ics = await t.get("/events.ics", { query });
      const json = await t.get("/events", { query });
      expect(ics.status, JSON.stringify(query)).to.equal(400);
      expect(ics.headers.get("content-type")).to.equal("application/json; charset=UTF-8");
      expect(ics.body).to.deep.equal(json.body);
    }
    const negotiated = await t.get("/events", { query: { per_page: "many" }, headers: { Accept: "text/calendar" } });
    expect(negotiated.status).to.equal(400);
    expect((negotiated.body as { code: string }).code).to.equal("rest_invalid_param");
    const enveloped = await t.get("/events.ics", { query: { ...YEAR, _envelope: "1" } });
    expect(enveloped.headers.get("content-type")).to.equal("application/json; charset=UTF-8");
    const envelope = enveloped.body as { status: number; body: string };
    expect(envelope.status).to.equal(200);
    expect(envelope.body).to.equal((await feedOf(t, YEAR)).text);
  });
});

/** Physical lines (folded lines stay separate). */
function lines(feed: string): string[] {
  return feed.split("\r\n");
}

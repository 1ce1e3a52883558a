// Rendering: the month grid, the list and the event detail, as DOM built
// with createElement and textContent (never HTML strings, so names and titles
// from the API cannot inject markup; descriptions go through safeFragment).

import {
  dayLong,
  decodeText,
  describeRecurrence,
  eventRange,
  isoDate,
  isoLocal,
  isoUtc,
  parseWallClock,
  safeFragment,
  viewerRange,
  viewerTimeZone,
  wallTime,
  weekdays,
} from "./format.js";

/** Events shown in one day cell before a "more" button (chips are truncated; the title attribute has the full name). */
const CHIPS_PER_DAY = 3;

/** h("p", {class: "x"}, "text", child…): a small element builder. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function hidden(text) {
  return h("span", { class: "visually-hidden" }, text);
}

/** The event's venues as a list: the API sends an object, [] for none, or a list. */
export function venuesOf(event) {
  const v = event.venue;
  const list = Array.isArray(v) ? v : v && typeof v === "object" ? [v] : [];
  return list.filter((x) => x && typeof x === "object" && x.id !== undefined);
}

export function organizersOf(event) {
  return Array.isArray(event.organizer) ? event.organizer.filter((x) => x && typeof x === "object") : [];
}

/**
 * The calendar days (event-local) an event covers, as "YYYY-MM-DD" strings
 * within [from, to]. An event that ends at midnight does not spill onto the
 * next day.
 */
export function daysOf(event, from, to) {
  const start = parseWallClock(event.start_date);
  const end = parseWallClock(event.end_date) ?? start;
  if (!start) return [];
  const first = Date.UTC(start.year, start.month - 1, start.day);
  let last = Date.UTC(end.year, end.month - 1, end.day);
  const endsAtMidnight = end.hour === 0 && end.minute === 0 && end.second === 0;
  if (endsAtMidnight && last > first && !event.all_day) last -= 86400000;
  const lo = Math.max(first, Date.UTC(from.year, from.month - 1, from.day));
  const hi = Math.min(last, Date.UTC(to.year, to.month - 1, to.day));
  const days = [];
  for (let t = lo; t <= hi; t += 86400000) {
    const d = new Date(t);
    days.push(isoDate({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }));
  }
  return days;
}

function monthBounds(year, month) {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { from: { year, month, day: 1 }, to: { year, month, day: last }, lastDay: last };
}

/** Events by the days of the month they cover: Map<"YYYY-MM-DD", event[]>, in API order. */
export function eventsByDay(events, year, month) {
  const { from, to } = monthBounds(year, month);
  const byDay = new Map();
  for (const event of events) {
    for (const day of daysOf(event, from, to)) {
      if (!byDay.has(day)) byDay.set(day, []);
      byDay.get(day).push(event);
    }
  }
  return byDay;
}

function eventButton(event, className, content, tooltip) {
  return h("button", { type: "button", class: className, title: tooltip, dataset: { eventId: String(event.id) } }, content);
}

function chipLabel(event) {
  const time = event.all_day ? "All day" : wallTime(event.start_date);
  return [h("span", { class: "chip-time" }, time), " ", h("span", { class: "chip-title" }, decodeText(event.title)), repeatsMark(event)];
}

/** A mark on a repeating event (a series): its rule in words for screen readers and as a tooltip. */
function repeatsMark(event) {
  const rule = describeRecurrence(event.recurrence);
  return rule ? [" ", h("span", { class: "repeats", title: rule, "aria-hidden": "true" }, "↻"), hidden(` (repeats: ${rule})`)] : null;
}

/**
 * The month as a table: one column per weekday, one row per week, each day
 * cell with its events as buttons (a natural tab stop each) and, past a few,
 * a button to see that day in the list.
 */
export function renderMonth({ year, month, events, today, firstDay, title }) {
  const { lastDay } = monthBounds(year, month);
  const byDay = eventsByDay(events, year, month);
  const names = weekdays(firstDay);
  const firstWeekday = ((new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 6) % 7) + 1; // 1 = Monday
  const lead = (firstWeekday - firstDay + 7) % 7;
  const cells = Math.ceil((lead + lastDay) / 7) * 7;

  const rows = [];
  let row = [];
  for (let i = 0; i < cells; i++) {
    const dayNumber = i - lead + 1;
    if (dayNumber < 1 || dayNumber > lastDay) {
      row.push(h("td", { class: "day outside" }));
    } else {
      const day = { year, month, day: dayNumber };
      const key = isoDate(day);
      const list = byDay.get(key) ?? [];
      const isToday = key === today;
      const shown = list.slice(0, CHIPS_PER_DAY);
      const more = list.length - shown.length;
      row.push(
        h(
          "td",
          { class: `day${isToday ? " today" : ""}${list.length ? " has-events" : ""}`, "aria-current": isToday ? "date" : undefined, dataset: { day: key } },
          h("div", { class: "day-head" }, h("span", { class: "day-number", "aria-hidden": "true" }, String(dayNumber)), hidden(dayLong(day) + (isToday ? " (today)" : ""))),
          shown.length ? h("ul", { class: "day-events" }, shown.map((event) => h("li", {}, eventButton(event, "event-chip", chipLabel(event), decodeText(event.title))))) : null,
          more > 0 ? h("button", { type: "button", class: "more", dataset: { day: key } }, `${more} more`, hidden(` on ${dayLong(day)}`)) : null,
        ),
      );
    }
    if (row.length === 7) {
      rows.push(h("tr", {}, row));
      row = [];
    }
  }

  return h(
    "table",
    { class: "month-grid" },
    h("caption", { class: "visually-hidden" }, title),
    h("thead", {}, h("tr", {}, names.map((n) => h("th", { scope: "col" }, h("abbr", { title: n.long }, n.short))))),
    h("tbody", {}, rows),
  );
}

function placeLine(event) {
  const venue = venuesOf(event)[0];
  if (!venue) return "";
  return [decodeText(venue.venue), decodeText(venue.city)].filter(Boolean).join(", ");
}

function termNames(terms) {
  return Array.isArray(terms) ? terms.map((t) => decodeText(t.name)).filter(Boolean) : [];
}

/** The list view: days as headings, each event once, under the first day of it shown this month. */
export function renderList({ year, month, events }) {
  const { from, to } = monthBounds(year, month);
  const groups = new Map();
  for (const event of events) {
    const day = daysOf(event, from, to)[0];
    if (!day) continue;
    if (!groups.has(day)) groups.set(day, []);
    groups.get(day).push(event);
  }
  const days = [...groups.keys()].sort();
  return h(
    "div",
    { class: "event-list" },
    days.map((key) => {
      const day = parseWallClock(`${key} 00:00:00`);
      return h(
        "section",
        { class: "list-day", "aria-labelledby": `day-${key}` },
        h("h3", { id: `day-${key}`, tabindex: "-1" }, dayLong(day)),
        h(
          "ul",
          { class: "list-events" },
          groups.get(key).map((event) => {
            const range = eventRange(event);
            const when = event.all_day
              ? range.end
                ? `All day, until ${range.end}`
                : "All day"
              : range.sameDay
                ? `${wallTime(event.start_date)} – ${range.end} ${event.timezone_abbr ?? ""}`.trim()
                : `${range.start} – ${range.end} ${event.timezone_abbr ?? ""}`.trim();
            const place = placeLine(event);
            const terms = termNames(event.categories);
            return h(
              "li",
              { class: "list-event" },
              eventButton(event, "list-title", [decodeText(event.title), repeatsMark(event)]),
              h("p", { class: "list-meta" }, h("span", { class: "list-when" }, when), place ? [" · ", h("span", { class: "list-place" }, place)] : null),
              terms.length ? h("p", { class: "list-terms" }, terms.join(", ")) : null,
            );
          }),
        ),
      );
    }),
  );
}

/** OpenStreetMap at the venue's coordinates (a link: this page embeds no map tiles). */
export function osmLink(lat, lng) {
  const la = Number(lat).toFixed(5);
  const lo = Number(lng).toFixed(5);
  return `https://www.openstreetmap.org/?mlat=${la}&mlon=${lo}#map=17/${la}/${lo}`;
}

function hasCoordinates(venue) {
  return typeof venue.geo_lat === "number" && typeof venue.geo_lng === "number" && !(venue.geo_lat === 0 && venue.geo_lng === 0);
}

function fact(label, ...content) {
  return h("div", { class: "fact" }, h("dt", {}, label), h("dd", {}, ...content));
}

function externalLink(href, text) {
  return /^https?:\/\//i.test(href ?? "") ? h("a", { href, rel: "noopener noreferrer" }, text ?? href) : null;
}

function renderVenue(venue) {
  const name = decodeText(venue.venue) || "Venue";
  const street = decodeText(venue.address);
  const locality = [decodeText(venue.city), decodeText(venue.stateprovince), decodeText(venue.zip)].filter(Boolean).join(", ");
  const country = decodeText(venue.country);
  return h(
    "div",
    { class: "venue" },
    h("p", { class: "venue-name" }, name),
    street || locality || country ? h("p", { class: "venue-address" }, [street, locality, country].filter(Boolean).flatMap((line, i) => (i ? [h("br"), line] : [line]))) : null,
    hasCoordinates(venue)
      ? h("p", {}, h("a", { class: "map-link", href: osmLink(venue.geo_lat, venue.geo_lng), rel: "noopener noreferrer" }, `${name} on OpenStreetMap`))
      : null,
    venue.phone ? h("p", {}, "Phone: ", h("a", { href: `tel:${venue.phone.replace(/[^\d+]/g, "")}` }, venue.phone)) : null,
    venue.website ? h("p", {}, externalLink(venue.website, "Venue website")) : null,
  );
}

function renderOrganizer(organizer) {
  const contacts = [
    organizer.phone ? h("a", { href: `tel:${organizer.phone.replace(/[^\d+]/g, "")}` }, organizer.phone) : null,
    organizer.email ? h("a", { href: `mailto:${organizer.email}` }, organizer.email) : null,
    organizer.website ? externalLink(organizer.website, "Website") : null,
  ].filter(Boolean);
  return h(
    "li",
    { class: "organizer" },
    h("span", { class: "organizer-name" }, decodeText(organizer.organizer) || "Organizer"),
    contacts.length ? [" — ", contacts.flatMap((c, i) => (i ? [", ", c] : [c]))] : null,
  );
}

/**
 * The detail panel's body for one event: when (in the event's zone and the
 * viewer's), where (with a map link when the venue has coordinates), who,
 * how much, and the description.
 */
export function renderDetail(event) {
  const range = eventRange(event);
  const zoneName = event.timezone_abbr && event.timezone_abbr !== event.timezone ? `${event.timezone_abbr} (${event.timezone})` : event.timezone || "";
  const when = h(
    "span",
    {},
    h("time", { class: "event-start", datetime: event.all_day ? (event.start_date ?? "").slice(0, 10) : isoLocal(event.start_date, event.utc_start_date) }, range.start),
    range.end ? [" – ", h("time", { class: "event-end", datetime: event.all_day ? (event.end_date ?? "").slice(0, 10) : isoLocal(event.end_date, event.utc_end_date) }, range.end)] : null,
    event.all_day ? " (all day)" : null,
    zoneName ? [" ", h("span", { class: "zone" }, event.all_day ? `· ${event.timezone}` : zoneName)] : null,
  );

  const facts = [fact("When (event time)", when)];
  const rule = describeRecurrence(event.recurrence);
  if (rule) facts.push(fact("Repeats", h("span", { class: "event-repeats" }, rule)));
  const viewer = event.all_day ? null : viewerRange(event);
  if (viewer) {
    facts.push(
      fact(
        `Your time (${viewerTimeZone()})`,
        h("time", { class: "viewer-start", datetime: isoUtc(event.utc_start_date) }, viewer.start),
        " – ",
        h("time", { class: "viewer-end", datetime: isoUtc(event.utc_end_date) }, viewer.end),
        viewer.zone ? [" ", h("span", { class: "zone" }, viewer.zone)] : null,
      ),
    );
  }
  const venues = venuesOf(event);
  if (venues.length) facts.push(fact(venues.length > 1 ? "Venues" : "Venue", venues.map(renderVenue)));
  const organizers = organizersOf(event);
  if (organizers.length) facts.push(fact(organizers.length > 1 ? "Organizers" : "Organizer", h("ul", { class: "organizers" }, organizers.map(renderOrganizer))));
  if (event.cost) facts.push(fact("Cost", h("span", { class: "cost" }, decodeText(event.cost))));
  const categories = termNames(event.categories);
  if (categories.length) facts.push(fact("Categories", categories.join(", ")));
  const tags = termNames(event.tags);
  if (tags.length) facts.push(fact("Tags", tags.join(", ")));
  // `website` falls back to the event's own page URL, which this server does not render.
  if (event.website && event.website !== event.url) facts.push(fact("Website", externalLink(event.website, event.website)));

  const description = h("div", { class: "description" });
  description.append(safeFragment(event.description));
  return h("div", {}, h("dl", { class: "facts" }, facts), description.childNodes.length ? description : null);
}

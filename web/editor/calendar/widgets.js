// The calendar's widget groups for its events (the contract is in
// ../widgets.js): what the generated form cannot know about an event.
//
//   When                  start_date, end_date, all_day, timezone   (when.js)
//   Venue and organizers  venue, organizer                          (linked.js)
//   Details               cost, website, image, show_map, show_map_link (details.js)
//   Repeats               recurrence                                (recurrence.js)
//
// The events list gets a "Starts" and a "Series" column and a "When"
// filter (upcoming by default; every event can be reached).
//
// Categories and tags stay with the generic term pickers: the events API
// takes them as lists of term IDs, as the generic form sends them.

import { registerListOptions, registerWidgetGroup } from "../widgets.js";
import { ensureStylesheet } from "./dom.js";
import { DETAIL_FIELDS, renderDetails } from "./details.js";
import { LINKED_FIELDS, renderLinked } from "./linked.js";
import { RECURRENCE_FIELDS, renderRecurrence } from "./recurrence.js";
import { seriesRole, wallText } from "./series.js";
import { renderWhen, WHEN_FIELDS } from "./when.js";

/** The events type of the calendar's namespace. */
export const isEventsType = (type) => Boolean(type) && type.rest_namespace === "calendar/events/v1" && type.rest_base === "events";

function styled(render) {
  return (ctx) => {
    ensureStylesheet();
    return render(ctx);
  };
}

registerWidgetGroup({ id: "calendar-when", legend: "When", appliesTo: isEventsType, fields: WHEN_FIELDS, render: styled(renderWhen) });
registerWidgetGroup({ id: "calendar-linked", legend: "Venue and organizers", appliesTo: isEventsType, fields: LINKED_FIELDS, render: styled(renderLinked) });
registerWidgetGroup({ id: "calendar-details", legend: "Details", appliesTo: isEventsType, fields: DETAIL_FIELDS, render: styled(renderDetails) });
registerWidgetGroup({ id: "calendar-recurrence", legend: "Repeats", appliesTo: isEventsType, fields: RECURRENCE_FIELDS, render: styled(renderRecurrence) });

// The API lists events by start, earliest first, in a window that defaults
// to yesterday to two years ahead. The editor shows what is coming first and
// reaches every event through "When": the past twelve months (the API has
// no newest-first order, so "all" begins with the oldest).
const EVER = { start_date: "1970-01-01", end_date: "9999-12-31" };
registerListOptions({
  appliesTo: isEventsType,
  query: () => EVER,
  filters: [
    {
      name: "when",
      label: "When",
      default: "upcoming",
      choices: [
        { value: "upcoming", label: "Upcoming", query: { start_date: "now", end_date: EVER.end_date } },
        { value: "past-year", label: "Past 12 months", query: { start_date: "-1 year", end_date: "now" } },
        { value: "all", label: "All, oldest first", query: EVER },
      ],
    },
  ],
  columns: [
    {
      label: "Starts",
      value: (r) => (typeof r.start_date === "string" ? `${wallText(r.start_date, r.all_day !== true)}${r.all_day === true ? " (all day)" : r.timezone_abbr ? ` ${r.timezone_abbr}` : ""}` : ""),
    },
    {
      label: "Series",
      value: (r) => {
        const role = seriesRole(r);
        if (role === "occurrence") return `Occurrence of #${r.series_id}`;
        if (role === "detached") return `Changed occurrence of #${r.series_id}`;
        return role === "series" ? "Repeats" : "";
      },
    },
  ],
});

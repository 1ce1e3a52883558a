// The "When" group: start and end (the event's wall clock, sent as
// "YYYY-MM-DD HH:MM:SS"), all day (hides the times), the time zone (any
// IANA zone, picked from a searchable list) and, beside it, the same start
// and end in the viewer's own zone. An occurrence of a series gets the
// notice that says so, with the link to the whole series.
//
// The four fields are always sent together: the API reads dates sent
// without `timezone` in the site's zone, and an update without `all_day`
// resets it.

import { debounce, describeBy, field, FieldErrors, h, uid } from "./dom.js";
import { occurrenceNotice } from "./series.js";
import { instantToWall, isKnownZone, joinWall, offsetText, parseWall, splitWall, viewerZone, wallToInstant, zoneNames, zoneOffsetMinutes } from "./time.js";

export const WHEN_FIELDS = ["start_date", "end_date", "all_day", "timezone"];

/** The event fired (bubbling) by the When group's element on every change; the recurrence group listens. */
export const WHEN_EVENT = "calendar-when-change";

const siteZones = new WeakMap();

/** The site's time zone (`timezone_string` of the REST root index; "" means UTC or an offset site), once per api. */
export function siteZone(api) {
  let found = siteZones.get(api);
  if (!found) {
    found = api("GET", "", { query: { _fields: "timezone_string" } }).then(
      (res) => (res.ok && res.body && typeof res.body.timezone_string === "string" && res.body.timezone_string !== "" ? res.body.timezone_string : "UTC"),
      () => "UTC",
    );
    siteZones.set(api, found);
  }
  return found;
}

const viewerFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });

/** Now, rounded up to the next whole hour, as a wall clock in `zone`: the new event's default start. */
function nextHour(zone) {
  const t = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
  return { start: instantToWall(t, zone), end: instantToWall(t + 3_600_000, zone) };
}

/** Minutes between two wall clocks (as if both were UTC: the wall-clock length the form keeps). */
function wallMinutes(a, b) {
  const pa = parseWall(a);
  const pb = parseWall(b);
  if (!pa || !pb) return null;
  const ms = (w) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  return Math.round((ms(pb) - ms(pa)) / 60_000);
}

function plusMinutes(wall, minutes) {
  const w = parseWall(wall);
  if (!w) return null;
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute + minutes, w.second));
  return instantToWall(d.getTime(), "UTC");
}

export function renderWhen(ctx) {
  const record = ctx.record;
  const errors = new FieldErrors();
  const viewer = viewerZone();
  const initialZone = record && typeof record.timezone === "string" ? record.timezone : "";
  const defaults = record ? { start: record.start_date, end: record.end_date } : nextHour(viewer);
  const start = splitWall(defaults.start);
  const end = splitWall(defaults.end);

  const startDate = h("input", { type: "date", value: start.date, required: true, "aria-label": "Start date" });
  const startTime = h("input", { type: "time", value: start.time, "aria-label": "Start time" });
  const endDate = h("input", { type: "date", value: end.date, required: true, "aria-label": "End date" });
  const endTime = h("input", { type: "time", value: end.time, "aria-label": "End time" });
  const allDay = h("input", { type: "checkbox", checked: record ? record.all_day === true : false });
  const listId = uid("zones");
  const zone = h("input", { type: "text", list: listId, value: initialZone, autocomplete: "off", spellcheck: "false", placeholder: "Site time zone", class: "cal-zone-input" });
  const zoneList = h("datalist", { id: listId }, zoneNames(initialZone).map((name) => h("option", { value: name })));
  const zoneOffset = h("p", { class: "cal-zone-offset" });
  const viewerLine = h("output", { class: "cal-viewer-time", "aria-live": "polite" });

  // Date and time of one end, with one error line that describes both inputs.
  function dateTime(name, legend, dateInput, timeInput) {
    const id = uid(name);
    dateInput.id = `${id}-date`;
    timeInput.id = `${id}-time`;
    const error = h("p", { class: "cal-error", id: `${id}-error`, hidden: true });
    errors.add(name, dateInput, error);
    timeInput.setAttribute("aria-describedby", error.id);
    return h(
      "fieldset",
      { class: "cal-datetime" },
      h("legend", {}, legend),
      h("div", { class: "cal-datetime-row" }, h("label", { for: dateInput.id, class: "cal-sub-label" }, "Date", dateInput), h("label", { for: timeInput.id, class: "cal-sub-label cal-time" }, "Time", timeInput)),
      error,
    );
  }

  const allDayField = h("div", { class: "cal-field cal-check" });
  allDay.id = uid("all-day");
  const allDayError = h("p", { class: "cal-error", id: `${allDay.id}-error`, hidden: true });
  errors.add("all_day", allDay, allDayError);
  allDayField.append(allDay, h("label", { for: allDay.id }, "All day"), allDayError);

  let siteZoneName = "";
  const zoneField = field({
    label: "Time zone",
    control: zone,
    name: "timezone",
    errors,
    hint: "Any time zone, such as Europe/Rome or Asia/Tokyo; type to search. Empty: the site's.",
  });
  zoneOffset.id = `${zone.id}-offset`;
  describeBy(zone, zoneOffset.id);
  zoneField.insertBefore(zoneOffset, zoneField.querySelector(".cal-hint"));
  zoneField.append(zoneList);

  const notice = occurrenceNotice(ctx);
  const element = h(
    "div",
    { class: "cal-group cal-when", dataset: { calendarWhen: "" } },
    notice,
    h("div", { class: "cal-row" }, dateTime("start_date", "Starts", startDate, startTime), dateTime("end_date", "Ends", endDate, endTime)),
    allDayField,
    zoneField,
    h("div", { class: "cal-viewer" }, h("span", { class: "cal-viewer-label", id: uid("viewer") }, `In your time zone (${viewer}):`), " ", viewerLine),
  );
  viewerLine.setAttribute("aria-labelledby", element.querySelector(".cal-viewer-label").id);

  /** The zone the dates are read in: the typed one, else the site's. */
  const effectiveZone = () => (zone.value.trim() !== "" ? zone.value.trim() : siteZoneName || "UTC");

  function current() {
    const isAllDay = allDay.checked;
    return {
      start_date: joinWall(startDate.value, isAllDay ? "00:00:00" : startTime.value) ?? "",
      end_date: joinWall(endDate.value, isAllDay ? "23:59:59" : endTime.value, "23:59:59") ?? "",
      all_day: isAllDay,
      timezone: zone.value.trim(),
    };
  }

  /** Client-side hints only: the API's messages replace them on save. */
  function hints() {
    const v = current();
    const z = effectiveZone();
    errors.show("timezone", zone.value.trim() === "" || isKnownZone(zone.value.trim()) ? "" : "This browser knows no such time zone; the server will check it.");
    const s = wallToInstant(v.start_date, z);
    const e = wallToInstant(v.end_date, z);
    errors.show("end_date", s !== null && e !== null && e < s ? "The end is before the start." : "");
  }

  function refresh() {
    for (const input of [startTime, endTime]) input.closest("label").hidden = allDay.checked;
    const v = current();
    const z = effectiveZone();
    const s = wallToInstant(v.start_date, z);
    const e = wallToInstant(v.end_date, z);
    const offset = s !== null ? zoneOffsetMinutes(z, s) : null;
    zoneOffset.textContent = offset === null ? "" : `${zone.value.trim() === "" ? `${z}: ` : ""}UTC${offsetText(offset)} on the start date.`;
    if (s === null) {
      viewerLine.textContent = "—";
      viewerLine.dataset.utcStart = "";
    } else {
      viewerLine.textContent = e !== null ? `${viewerFormat.format(new Date(s))} – ${viewerFormat.format(new Date(e))}` : viewerFormat.format(new Date(s));
      viewerLine.dataset.utcStart = new Date(s).toISOString();
    }
    element.dispatchEvent(new CustomEvent(WHEN_EVENT, { bubbles: true, detail: { ...v, timezone: v.timezone || z } }));
  }
  const refreshSoon = debounce(refresh, 150);

  // Moving the start moves the end along (the same length), as calendar apps do.
  let lastStart = current().start_date;
  function startMoved() {
    const before = lastStart;
    const now = current().start_date;
    lastStart = now;
    const length = wallMinutes(before, current().end_date);
    if (now === "" || before === "" || length === null || length < 0) return;
    const moved = plusMinutes(now, length);
    if (moved === null) return;
    const next = splitWall(moved);
    endDate.value = next.date;
    if (!allDay.checked) endTime.value = next.time;
  }

  function edited() {
    ctx.changed();
    hints();
    refreshSoon();
  }
  startDate.addEventListener("change", () => {
    startMoved();
    edited();
  });
  startTime.addEventListener("change", () => {
    startMoved();
    edited();
  });
  for (const input of [endDate, endTime, zone]) input.addEventListener("input", edited);
  zone.addEventListener("change", edited);
  allDay.addEventListener("change", () => {
    if (allDay.checked && endDate.value !== "" && startDate.value !== "" && endDate.value < startDate.value) endDate.value = startDate.value;
    edited();
  });
  // The date inputs fire `input` as the user types each part; the end follows on `change`.
  for (const input of [startDate, startTime]) input.addEventListener("input", () => {
    ctx.changed();
    refreshSoon();
  });

  siteZone(ctx.api).then((name) => {
    siteZoneName = name;
    if (!zoneList.querySelector(`option[value="${CSS.escape(name)}"]`)) zoneList.append(h("option", { value: name }));
    zone.placeholder = `Site time zone: ${name}`;
    // A new event starts in the site's zone; the user may change it (and may already have).
    if (!record && zone.value.trim() === "") zone.value = name;
    refresh();
  });
  queueMicrotask(() => {
    // The occurrence notice belongs at the top of the form, where it is read first (it stays here without one).
    const form = element.closest("form");
    if (notice && form) form.prepend(notice);
    refresh();
  });

  const inputs = { start_date: startDate, end_date: endDate, all_day: allDay, timezone: zone };
  // For the other groups of the same form (the recurrence preview reads the dates).
  element.calendarWhen = () => ({ ...current(), timezone: current().timezone || effectiveZone() });

  return {
    element,
    value() {
      return current();
    },
    showErrors(params) {
      for (const name of WHEN_FIELDS) errors.show(name, typeof params?.[name] === "string" ? params[name] : "");
    },
    focus(name) {
      const input = inputs[name] ?? startDate;
      input.focus();
      return true;
    },
  };
}

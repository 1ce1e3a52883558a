// The "Repeats" group: an event's `recurrence` (RFC 5545 lines) edited as a
// rule (none, daily, weekly on some days, monthly on a day or "the 2nd
// Tuesday", yearly; every N; ending never, on a date or after N times),
// dates to skip (EXDATE) and extra dates (RDATE). It shows the lines it will
// send and the next occurrences as the API expands them
// (`GET calendar/events/v1/recurrence-preview`). Lines the form cannot show
// stay, as they are, in the "Other lines" box.
//
// An occurrence of a series has no rules of its own (the API refuses
// `recurrence` for one): the group then only says so, links to the series
// and sends nothing.

import { apiMessage, debounce, describeBy, FieldErrors, h, uid } from "./dom.js";
import { buildRecurrence, dayName, describeRule, emptyModel, nthOfMonth, ordinalName, parseRecurrence, rawItemText, sameLines, WEEKDAYS } from "./rrule.js";
import { editHref, seriesRole, wallText } from "./series.js";
import { weekdayCode } from "./time.js";
import { WHEN_EVENT } from "./when.js";

export const RECURRENCE_FIELDS = ["recurrence"];
const PREVIEW_ROUTE = "calendar/events/v1/recurrence-preview";
const PREVIEW_COUNT = 10;

const UNIT = { DAILY: ["day", "days"], WEEKLY: ["week", "weeks"], MONTHLY: ["month", "months"], YEARLY: ["year", "years"] };

/** The dates the When group of the same form shows, else the record's. */
function whenOf(element, record) {
  const scope = element.closest("form") ?? element.getRootNode?.() ?? document;
  const when = scope.querySelector?.("[data-calendar-when]");
  if (when && typeof when.calendarWhen === "function") return when.calendarWhen();
  return { start_date: record?.start_date ?? "", end_date: record?.end_date ?? "", all_day: record?.all_day === true, timezone: record?.timezone ?? "" };
}

function seriesOnly(ctx) {
  const record = ctx.record;
  const role = seriesRole(record);
  const link = h("a", { href: editHref(ctx.type, record.series_id), class: "cal-series-link" }, "Edit the whole series");
  const element = h(
    "div",
    { class: "cal-group cal-recurrence cal-recurrence-occurrence" },
    h("p", {}, role === "occurrence" ? "This is one occurrence of a series: how the series repeats is set on the series. " : "This event replaced one occurrence of a series; it does not repeat. ", link),
  );
  return { element, value: () => ({}), showErrors() {}, focus: () => link.focus() };
}

export function renderRecurrence(ctx) {
  const role = seriesRole(ctx.record);
  if (role === "occurrence" || role === "detached") return seriesOnly(ctx);

  const record = ctx.record;
  const initialLines = Array.isArray(record?.recurrence) ? record.recurrence : [];
  const startDate = () => String(whenOf(element, record).start_date || record?.start_date || "").slice(0, 10);
  const model = parseRecurrence(initialLines, String(record?.start_date ?? ""));
  const errors = new FieldErrors();
  const id = uid("recurrence");

  // ---- controls ----
  const freq = h(
    "select",
    { id: `${id}-freq` },
    h("option", { value: "", dataset: { none: "" } }, "Does not repeat"),
    h("option", { value: "DAILY" }, "Daily"),
    h("option", { value: "WEEKLY" }, "Weekly"),
    h("option", { value: "MONTHLY" }, "Monthly"),
    h("option", { value: "YEARLY" }, "Yearly"),
  );
  const interval = h("input", { type: "number", id: `${id}-interval`, min: 1, max: 9999, step: 1, inputmode: "numeric", class: "cal-narrow" });
  const unit = h("span", { class: "cal-unit", id: `${id}-unit` });
  interval.setAttribute("aria-describedby", unit.id);

  const dayBoxes = WEEKDAYS.map((code) => h("input", { type: "checkbox", value: code, id: `${id}-day-${code}` }));
  const weekly = h(
    "fieldset",
    { class: "cal-weekdays" },
    h("legend", {}, "On"),
    h("div", { class: "cal-weekday-row" }, dayBoxes.map((box) => h("label", { for: box.id, class: "cal-weekday" }, box, h("span", { "aria-hidden": "true" }, dayName(box.value).slice(0, 3)), h("span", { class: "cal-visually-hidden" }, dayName(box.value))))),
  );

  const monthName = `${id}-monthly`;
  const byMonthday = h("input", { type: "radio", name: monthName, value: "monthday", id: `${id}-by-monthday` });
  const byWeekday = h("input", { type: "radio", name: monthName, value: "weekday", id: `${id}-by-weekday` });
  const monthday = h("select", { id: `${id}-monthday`, "aria-label": "Day of the month" }, Array.from({ length: 31 }, (_, i) => h("option", { value: String(i + 1) }, String(i + 1))), h("option", { value: "-1" }, "last"));
  const nth = h("select", { id: `${id}-nth`, "aria-label": "Which one in the month" }, [1, 2, 3, 4, -1].map((n) => h("option", { value: String(n) }, ordinalName(n))));
  const nthDay = h("select", { id: `${id}-nth-day`, "aria-label": "Weekday" }, WEEKDAYS.map((code) => h("option", { value: code }, dayName(code))));
  const monthly = h(
    "fieldset",
    { class: "cal-monthly" },
    h("legend", {}, "On"),
    h("div", { class: "cal-choice" }, byMonthday, h("label", { for: byMonthday.id }, "Day"), monthday, h("span", {}, "of the month")),
    h("div", { class: "cal-choice" }, byWeekday, h("label", { for: byWeekday.id }, "The"), nth, nthDay),
  );

  const endName = `${id}-end`;
  const endNever = h("input", { type: "radio", name: endName, value: "never", id: `${id}-end-never` });
  const endUntil = h("input", { type: "radio", name: endName, value: "until", id: `${id}-end-until` });
  const endCount = h("input", { type: "radio", name: endName, value: "count", id: `${id}-end-count` });
  const until = h("input", { type: "date", id: `${id}-until`, "aria-label": "Last date" });
  const count = h("input", { type: "number", id: `${id}-count`, min: 1, max: 99999, step: 1, inputmode: "numeric", class: "cal-narrow", "aria-label": "Number of times" });
  const ends = h(
    "fieldset",
    { class: "cal-ends" },
    h("legend", {}, "Ends"),
    h("div", { class: "cal-choice" }, endNever, h("label", { for: endNever.id }, "Never")),
    h("div", { class: "cal-choice" }, endUntil, h("label", { for: endUntil.id }, "On"), until),
    h("div", { class: "cal-choice" }, endCount, h("label", { for: endCount.id }, "After"), count, h("span", {}, "times")),
  );

  const ruleOptions = h(
    "div",
    { class: "cal-rule-options" },
    h("div", { class: "cal-field cal-inline" }, h("label", { for: interval.id }, "Every"), interval, unit),
    weekly,
    monthly,
    ends,
  );

  // Dates to skip and extra dates: chips and a date input.
  function dateList(kind, label, listName, hint) {
    const input = h("input", { type: "date", id: `${id}-${kind}-input` });
    const addButton = h("button", { type: "button", class: "cal-button" }, "Add");
    const chips = h("ul", { class: "cal-chips", "aria-label": listName });
    const hintLine = h("p", { class: "cal-hint", id: `${input.id}-hint` }, hint);
    describeBy(input, hintLine.id);
    const list = kind === "exdates" ? model.exdates : model.rdates;
    function render() {
      chips.replaceChildren(
        ...list.map((item, index) =>
          h(
            "li",
            { class: "cal-chip", dataset: { day: item.day } },
            h("span", { class: "cal-chip-name" }, item.raw ? rawItemText(item) : wallText(item.day, false)),
            h(
              "button",
              {
                type: "button",
                class: "cal-chip-remove",
                "aria-label": `Remove ${item.raw ? rawItemText(item) : item.day} from ${label.toLowerCase()}`,
                onclick: () => {
                  list.splice(index, 1);
                  render();
                  edited();
                  const next = chips.querySelectorAll(".cal-chip-remove")[Math.min(index, list.length - 1)];
                  (next ?? input).focus();
                },
              },
              h("span", { "aria-hidden": "true" }, "×"),
            ),
          ),
        ),
      );
      chips.hidden = list.length === 0;
    }
    function addDay(day) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
      if (!list.some((item) => item.day === day && !item.raw)) list.push({ day });
      list.sort((a, b) => a.day.localeCompare(b.day));
      render();
      edited();
      return true;
    }
    addButton.addEventListener("click", () => {
      if (addDay(input.value)) input.value = "";
      input.focus();
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        addButton.click();
      }
    });
    render();
    const element = h("div", { class: "cal-field cal-date-list", dataset: { list: kind } }, h("label", { for: input.id }, label), chips, h("div", { class: "cal-inline" }, input, addButton), hintLine);
    return { element, addDay, render };
  }
  const exdates = dateList("exdates", "Skip these dates", "Dates skipped", "Occurrences on these days are left out (also: “Skip” in the preview).");
  const rdates = dateList("rdates", "Extra dates", "Extra dates chosen", "The event also happens on these days, at its usual time.");

  const advanced = h("textarea", { id: `${id}-advanced`, rows: 3, spellcheck: "false", class: "cal-code" });
  advanced.value = model.advanced.join("\n");
  const advancedBox = h(
    "details",
    { class: "cal-advanced", open: model.advanced.length > 0 },
    h("summary", {}, "Other recurrence lines", model.advanced.length > 0 ? ` (${model.advanced.length})` : ""),
    h("div", { class: "cal-field" }, h("label", { for: advanced.id }, "Lines this form has no controls for (RFC 5545, one per line), sent as they are"), advanced),
  );

  const summary = h("p", { class: "cal-rule-summary", id: `${id}-summary` });
  const sent = h("code", { class: "cal-lines", id: `${id}-lines` });
  const sentBox = h("div", { class: "cal-sent" }, h("span", { class: "cal-sent-label", id: `${id}-lines-label` }, "Sent as: "), h("pre", { "aria-labelledby": `${id}-lines-label` }, sent));

  const error = h("p", { class: "cal-error", id: `${id}-error`, hidden: true });
  errors.add("recurrence", freq, error);
  describeBy(advanced, error.id);
  describeBy(freq, summary.id);

  const previewStatus = h("p", { class: "cal-preview-status", role: "status", "aria-live": "polite" });
  const previewList = h("ol", { class: "cal-preview-list" });
  const previewTitle = h("h3", { class: "cal-preview-title", id: `${id}-preview-title` }, "Next occurrences");
  const preview = h("section", { class: "cal-preview", "aria-labelledby": previewTitle.id, dataset: { preview: "" } }, previewTitle, previewStatus, previewList);

  const element = h(
    "div",
    { class: "cal-group cal-recurrence", dataset: { calendarRecurrence: "" } },
    h("div", { class: "cal-field" }, h("label", { for: freq.id }, "Repeats"), freq),
    ruleOptions,
    exdates.element,
    rdates.element,
    advancedBox,
    summary,
    sentBox,
    error,
    preview,
  );

  // ---- model ⇄ form ----
  function writeForm() {
    freq.value = model.freq;
    interval.value = String(model.interval);
    for (const box of dayBoxes) box.checked = model.byday.includes(box.value);
    byMonthday.checked = model.monthly !== "weekday";
    byWeekday.checked = model.monthly === "weekday";
    monthday.value = String(model.monthday);
    nth.value = String(model.nth);
    nthDay.value = model.nthDay;
    endNever.checked = model.end === "never";
    endUntil.checked = model.end === "until";
    endCount.checked = model.end === "count";
    until.value = model.until;
    count.value = String(model.count);
  }

  function readForm() {
    model.freq = freq.value;
    model.interval = Math.max(1, Math.floor(Number(interval.value) || 1));
    model.byday = dayBoxes.filter((b) => b.checked).map((b) => b.value);
    model.monthly = byWeekday.checked ? "weekday" : "monthday";
    model.monthday = Number(monthday.value);
    model.nth = Number(nth.value);
    model.nthDay = nthDay.value;
    model.end = endUntil.checked ? "until" : endCount.checked ? "count" : "never";
    model.until = until.value;
    model.count = Math.max(1, Math.floor(Number(count.value) || 1));
    model.advanced = advanced.value.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  }

  function lines() {
    return buildRecurrence(model);
  }

  /** What is sent (and previewed): the stored lines as they are until the user changes something. */
  function effectiveLines() {
    return record && !touched ? initialLines.map((l) => String(l).trim()).filter((l) => l !== "") : lines();
  }

  function show() {
    const f = model.freq;
    // A rule the form cannot show lives in the other lines: "no rule" here then means "that rule only".
    const customRule = model.advanced.some((l) => /^RRULE[:;]/i.test(l));
    ruleOptions.hidden = f === "";
    // Dates to skip need a rule (or some already there); extra dates alone make a series too.
    exdates.element.hidden = f === "" && model.exdates.length === 0 && !customRule;
    weekly.hidden = f !== "WEEKLY";
    monthly.hidden = f !== "MONTHLY";
    const [one, many] = UNIT[f] ?? ["", ""];
    unit.textContent = model.interval === 1 ? one : many;
    until.disabled = model.end !== "until";
    count.disabled = model.end !== "count";
    freq.querySelector("option[data-none]").textContent = customRule ? "Custom rule (in the other lines)" : "Does not repeat";
    summary.textContent = f === "" && customRule ? "Repeats by the rule in “Other recurrence lines”." : describeRule(model, startDate());
    const current = effectiveLines();
    sent.textContent = current.length > 0 ? current.join("\n") : "(nothing: a single event)";
  }

  let touchedMonthly = model.freq === "MONTHLY";
  /** Defaults that follow the start date: the weekly day, the monthly day or weekday. */
  function fillDefaults() {
    const day = startDate();
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return;
    if (model.freq === "WEEKLY" && model.byday.length === 0) model.byday = [weekdayCode(day)];
    if (model.freq === "MONTHLY" && !touchedMonthly) {
      const fresh = emptyModel(day);
      model.monthday = fresh.monthday;
      model.nth = nthOfMonth(day);
      model.nthDay = fresh.nthDay;
    }
  }

  // Whether the user changed anything here: an untouched series' lines are not sent (the form would
  // rewrite them in its own words, e.g. BYMONTHDAY written out), so they stay exactly as stored.
  let touched = false;
  /** Whether the API's message names one of the other lines (focus then goes to their box). */
  let errorInAdvanced = false;
  function edited() {
    touched = true;
    readForm();
    show();
    errors.clear("recurrence");
    advanced.removeAttribute("aria-invalid");
    errorInAdvanced = false;
    ctx.changed();
    previewSoon();
  }

  freq.addEventListener("change", () => {
    readForm();
    fillDefaults();
    if (model.freq === "MONTHLY") touchedMonthly = true;
    writeForm();
    edited();
  });
  for (const control of [interval, count, until, advanced]) control.addEventListener("input", edited);
  for (const control of [...dayBoxes, byMonthday, byWeekday, monthday, nth, nthDay, endNever, endUntil, endCount]) control.addEventListener("change", edited);
  for (const radio of [endUntil, endCount]) {
    radio.addEventListener("change", () => {
      if (radio === endUntil && radio.checked) until.focus();
      if (radio === endCount && radio.checked) count.focus();
    });
  }

  // ---- the preview ----
  let sequence = 0;
  async function refreshPreview() {
    const mine = ++sequence;
    const current = effectiveLines();
    if (current.length === 0) {
      previewList.replaceChildren();
      previewStatus.textContent = "Does not repeat.";
      preview.dataset.state = "none";
      return;
    }
    const when = whenOf(element, record);
    if (!when.start_date || !when.end_date) {
      previewList.replaceChildren();
      previewStatus.textContent = "Set the start and the end to see the occurrences.";
      preview.dataset.state = "incomplete";
      return;
    }
    previewStatus.textContent = "Loading the occurrences…";
    preview.dataset.state = "loading";
    const query = { recurrence: current, start_date: when.start_date, end_date: when.end_date, timezone: when.timezone || undefined, count: PREVIEW_COUNT };
    if (when.all_day) query.all_day = true;
    let res;
    try {
      res = await ctx.api("GET", PREVIEW_ROUTE, { query });
    } catch {
      res = null;
    }
    if (mine !== sequence) return;
    if (!res || !res.ok) {
      previewList.replaceChildren();
      const params = res?.body?.data?.params;
      const message = params && typeof params.recurrence === "string" ? params.recurrence : params && typeof Object.values(params)[0] === "string" ? Object.values(params)[0] : res ? apiMessage(res, "The preview failed.") : "The preview failed: the server did not answer.";
      previewStatus.textContent = `No preview: ${message}`;
      preview.dataset.state = "error";
      return;
    }
    const occurrences = Array.isArray(res.body?.occurrences) ? res.body.occurrences : [];
    previewList.replaceChildren(
      ...occurrences.map((o) => {
        const day = String(o.start_date ?? "").slice(0, 10);
        const sameDay = String(o.end_date ?? "").slice(0, 10) === day;
        const text = when.all_day
          ? sameDay
            ? wallText(o.start_date, false)
            : `${wallText(o.start_date, false)} – ${wallText(o.end_date, false)}`
          : `${wallText(o.start_date)} – ${sameDay ? String(o.end_date).slice(11, 16) : wallText(o.end_date)}`;
        return h(
          "li",
          { class: "cal-preview-item", dataset: { start: o.start_date ?? "" } },
          h("time", { datetime: `${String(o.start_date).replace(" ", "T")}` }, text),
          " ",
          h("button", { type: "button", class: "cal-button cal-small", "aria-label": `Skip ${wallText(o.start_date, false)}`, onclick: () => exdates.addDay(day) }, "Skip"),
        );
      }),
    );
    const total = typeof res.body?.total_known === "number" ? res.body.total_known : null;
    const bounded = res.body?.bounded === true;
    let text = occurrences.length === 0 ? "No occurrences." : `The first ${occurrences.length}`;
    if (occurrences.length > 0) {
      if (total !== null) text += ` of ${total} in all.`;
      else text += bounded ? " (too many to count)." : "; the series has no end.";
    }
    previewStatus.textContent = `${text} Times are the event's own (${when.timezone || "site time zone"}).`;
    preview.dataset.state = "ready";
  }
  const previewSoon = debounce(refreshPreview, 400);

  // The When group's changes (dates, zone) move the preview and the defaults.
  const onWhen = (event) => {
    if (!element.isConnected) {
      // A When group on the page that is not of this form: this form is gone for good.
      if (event.target instanceof Node && event.target.isConnected) document.removeEventListener(WHEN_EVENT, onWhen);
      return;
    }
    const mine = element.closest("form");
    if (mine && event.target instanceof Node && !mine.contains(event.target)) return;
    fillDefaults();
    writeForm();
    show();
    previewSoon();
  };
  document.addEventListener(WHEN_EVENT, onWhen);

  writeForm();
  show();
  queueMicrotask(() => previewSoon());

  return {
    element,
    value() {
      readForm();
      const current = lines();
      if (ctx.mode === "create" || !record) return current.length > 0 ? { recurrence: current } : {};
      return !touched || sameLines(current, initialLines) ? {} : { recurrence: current };
    },
    showErrors(params) {
      const message = typeof params?.recurrence === "string" ? params.recurrence : "";
      errors.show("recurrence", message);
      // "recurrence[2]: …" names a line: one of the other lines moves focus (and the mark) to their box.
      const index = /^recurrence\[(\d+)\]/.exec(message);
      const formLines = lines().length - model.advanced.length;
      errorInAdvanced = index !== null && Number(index[1]) >= formLines && model.advanced.length > 0;
      if (errorInAdvanced) {
        advancedBox.open = true;
        advanced.setAttribute("aria-invalid", "true");
      } else advanced.removeAttribute("aria-invalid");
    },
    focus() {
      (errorInAdvanced ? advanced : freq).focus();
      return true;
    },
  };
}

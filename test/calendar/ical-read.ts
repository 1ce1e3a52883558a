/** Reading an iCalendar feed back in tests, as a calendar app would: its VTIMEZONEs registered, its VEVENTs. */
import ICAL from "ical.js";

export function feedEvents(text: string): Array<InstanceType<typeof ICAL.Component>> {
  const calendar = new ICAL.Component(ICAL.parse(text));
  ICAL.TimezoneService.reset();
  for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(vtimezone);
  return calendar.getAllSubcomponents("vevent");
}

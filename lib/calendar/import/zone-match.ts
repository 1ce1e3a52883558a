/**
 * The IANA zone an imported event keeps when its TZID is a zone only the
 * file defines (Outlook's and Exchange's Windows names, "Customized Time
 * Zone", "(UTC+07:00) Bangkok, Hanoi, Jakarta"...).
 *
 * An event's zone must be one the API knows (an IANA name): its series is
 * expanded in it, and editors see and change its wall clocks in it. So the
 * file's VTIMEZONE rules are matched against IANA zones, and the first
 * candidate whose offsets are the file's over the event's span is kept:
 *
 * 1. over the whole years the event covers (the zone's rules agree with the
 *    file's, so DST and the weekday after a change come out as the file
 *    means, and later occurrences past the horizon too);
 * 2. else at every instant the event starts or ends (a file whose rules
 *    differ from every zone's in other years, such as an Outlook VTIMEZONE
 *    that applies today's US rules to 2005: the occurrences are still
 *    exactly the file's, and the import report says which zone was used).
 *
 * Never UTC for a zone with offset changes: a series kept in UTC would
 * lose its DST and move by an hour after every change.
 *
 * Agreement is checked at every change of the file's zone (just before and
 * at it) and at one instant a day: two zones whose offsets agree daily and
 * at each of the file's changes can differ only by a change and its undoing
 * within the same day, which no zone has.
 */
import { IANAZone } from "luxon";
import { WINDOWS_ZONE_CANDIDATES } from "./windows-zones";

/** The offset (seconds east of UTC) a file's zone has at an instant (Unix seconds). */
export type OffsetAt = (utc: number) => number;

const DAY = 86_400;

/**
 * Today's tz database names for the older ones CLDR and ICU still list
 * first (Intl names Asia/Kolkata "Asia/Calcutta"): an event shows the name
 * its editors know. Used only where the runtime knows the new name.
 */
const MODERN_NAMES: Readonly<Record<string, string>> = {
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Dacca": "Asia/Dhaka",
  "Asia/Thimbu": "Asia/Thimphu",
  "Asia/Ulan_Bator": "Asia/Ulaanbaatar",
  "Europe/Kiev": "Europe/Kyiv",
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Mendoza": "America/Argentina/Mendoza",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Godthab": "America/Nuuk",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Pacific/Truk": "Pacific/Chuuk",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Africa/Asmera": "Africa/Asmara",
};

/** A zone under its current tz database name, if the runtime knows it. */
export function modernZone(zone: string): string {
  const modern = MODERN_NAMES[zone];
  return modern !== undefined && IANAZone.isValidZone(modern) ? modern : zone;
}

/** Every IANA zone this runtime knows, and its zones of record first (CLDR's golden zones, most used). */
let allZones: string[] | undefined;

function zonesInOrder(): string[] {
  if (allZones !== undefined) return allZones;
  const golden = Object.values(WINDOWS_ZONE_CANDIDATES).map((list) => list.split(" ")[0] as string);
  const intl = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  allZones = [...new Set([...golden, ...intl].map(modernZone))].filter((z) => IANAZone.isValidZone(z));
  return allZones;
}

/** IANA zones whose last name part is a word of the TZID ("(UTC+07:00) Bangkok, Hanoi, Jakarta": Asia/Bangkok, Asia/Jakarta). */
function zonesNamedIn(tzid: string): string[] {
  const words = new Set(
    tzid
      .split(/[^A-Za-z ._-]+|,/)
      .map((w) => w.trim().replace(/ /g, "_").toLowerCase())
      .filter((w) => w.length > 2),
  );
  return zonesInOrder().filter((z) => words.has((z.split("/").pop() ?? "").toLowerCase()));
}

/**
 * The zones a TZID may stand for, most likely first: a Windows name's
 * zones (CLDR), the VTIMEZONE's X-LIC-LOCATION (Lightning, Evolution), zones
 * a city of the TZID names, then every zone the runtime knows.
 */
export function candidateZones(tzid: string, location: string | null): string[] {
  const windows = WINDOWS_ZONE_CANDIDATES[tzid.trim()]?.split(" ") ?? [];
  const named = location !== null && IANAZone.isValidZone(location.trim()) ? [location.trim()] : [];
  return [...new Set([...windows, ...named, ...zonesNamedIn(tzid), ...zonesInOrder()].map(modernZone))].filter((z) => IANAZone.isValidZone(z));
}

/**
 * The most instants a span is sampled at besides the file's changes: a
 * finite series may cover thousands of years, and the samples (not the
 * file) must not decide how long a match takes or how much it holds.
 */
const MAX_SAMPLES = 20_000;

/**
 * The instants that tell whether a zone agrees with the file's over [from, to): each change of the file's (just before
 * and at it), then one a day, or evenly fewer days apart for a span longer than MAX_SAMPLES days. The changes are
 * bounded by the file's VTIMEZONE budget (zones.ts).
 */
export function spanInstants(from: number, to: number, changes: readonly number[]): number[] {
  const out: number[] = [];
  for (const at of changes) out.push(at - 1, at);
  const step = Math.max(1, Math.ceil((to - from) / DAY / MAX_SAMPLES)) * DAY;
  for (let t = from; t < to; t += step) out.push(t);
  return out;
}

function agrees(zone: string, offsetAt: OffsetAt, instants: readonly number[]): boolean {
  const iana = IANAZone.create(zone);
  for (const t of instants) if (iana.offset(t * 1000) * 60 !== offsetAt(t)) return false;
  return true;
}

/**
 * The first of `candidates` whose offsets are the file zone's at every one
 * of `instants`. The few instants that rule out most zones (the changes and
 * the span's ends) are tried on every candidate first.
 */
export function firstAgreeing(candidates: readonly string[], offsetAt: OffsetAt, instants: readonly number[]): string | null {
  if (instants.length === 0) return null;
  const quick = [...instants.slice(0, 8), instants[instants.length - 1] as number];
  for (const zone of candidates) {
    if (agrees(zone, offsetAt, quick) && agrees(zone, offsetAt, instants)) return zone;
  }
  return null;
}

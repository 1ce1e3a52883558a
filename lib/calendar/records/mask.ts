import type { Json, JsonObject } from "./context";

/**
 * What a password-protected record shows without access (calendar-api.md
 * §1.3). The original masks every key of these names at any depth, which
 * also blanks a venue's or organizer's own name member.
 */
const MASK: Record<string, () => Json> = {
  description: () => "",
  excerpt: () => "",
  cost: () => "",
  website: () => "",
  phone: () => "",
  email: () => "",
  address: () => "",
  city: () => "",
  country: () => "",
  province: () => "",
  state: () => "",
  zip: () => "",
  stateprovince: () => "",
  image: () => false,
  all_day: () => null,
  show_map: () => null,
  show_map_link: () => null,
  hide_from_listings: () => null,
  sticky: () => null,
  featured: () => null,
  categories: () => [],
  tags: () => [],
  venue: () => [],
  organizer: () => [],
  custom_fields: () => [],
  cost_details: () => ({ currency_symbol: "", currency_position: "", currency_code: "", values: [] }),
  geo_lat: () => 0,
  geo_lng: () => 0,
};

export function maskProtected(record: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) {
    const mask = MASK[key];
    if (mask) out[key] = mask();
    else out[key] = maskDeep(value);
  }
  return out;
}

function maskDeep(value: Json): Json {
  if (Array.isArray(value)) return value.map(maskDeep);
  if (value && typeof value === "object") return maskProtected(value);
  return value;
}

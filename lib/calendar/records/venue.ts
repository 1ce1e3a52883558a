import type { LoadedPost } from "../../posts/types";
import { plainText } from "../../format/plain-text";
import { wanted, type JsonObject, type RecordContext } from "./context";
import { globalIds, omitEmpty, postHeader, renderedTexts, str } from "./common";
import { imageRecord } from "./image";
import { hasContentAccess, isPublicPage } from "./access";
import { maskProtected } from "./mask";

const US = new Set(["us", "united states", "usa", "united states of america"]);

/** The state for US (or country-less) addresses, else the province (calendar-api.md §2.2). */
export function deriveStateProvince(f: LoadedPost["fields"]): string {
  const stored = f.stateprovince;
  if (typeof stored === "string" && stored !== "") return stored;
  const state = str(f.state);
  const country = str(f.country).trim().toLowerCase();
  if (state !== "" && (country === "" || US.has(country))) return state;
  return str(f.province);
}

export function venueRecord(post: LoadedPost, ctx: RecordContext): JsonObject {
  const f = post.fields;
  const texts = renderedTexts(post);
  const hasGeo = typeof f.geo_lat === "number" && typeof f.geo_lng === "number";
  const record: JsonObject = {
    ...postHeader(post, ctx),
    venue: texts.title,
    description: texts.description,
    excerpt: texts.excerpt,
    slug: post.slug,
    image: imageRecord(ctx.related.attachments.get(Number(f.image_id))),
    show_map: f.show_map !== false,
    show_map_link: f.show_map_link !== false,
    address: str(f.address),
    city: str(f.city),
    country: str(f.country),
    province: str(f.province),
    state: str(f.state),
    zip: str(f.zip),
    phone: str(f.phone),
    website: str(f.website),
    stateprovince: deriveStateProvince(f),
    ...(hasGeo ? { geo_lat: f.geo_lat as number, geo_lng: f.geo_lng as number } : {}),
    ...globalIds(post, ctx),
  };
  if (ctx.single && isPublicPage(post) && wanted(ctx, "json_ld")) record.json_ld = venueJsonLd(record);
  const kept = omitEmpty(record, ["show_map", "show_map_link", "global_id", "global_id_lineage"]);
  return hasContentAccess(post, ctx) ? kept : maskProtected(kept);
}

/** JSON-LD `Place`s of kept embedded venue records (see ./embedded.ts), kept with them. */
const placesOfKept = new WeakMap<JsonObject, JsonObject>();

/** `venueJsonLd` of an embedded venue record, computed once per record object (shared records serve many events and requests). */
export function keptVenueJsonLd(record: JsonObject): JsonObject {
  let place = placesOfKept.get(record);
  if (place === undefined) {
    place = venueJsonLd(record);
    placesOfKept.set(record, place);
  }
  return place;
}

export function venueJsonLd(record: JsonObject): JsonObject {
  const address: JsonObject = { "@type": "PostalAddress" };
  const parts: Array<[string, string]> = [
    ["streetAddress", str(record.address)],
    ["addressLocality", str(record.city)],
    ["addressRegion", str(record.stateprovince)],
    ["postalCode", str(record.zip)],
    ["addressCountry", str(record.country)],
  ];
  // JSON-LD members are plain text: stored address parts (older ones may hold markup) go through plainText like the name.
  for (const [k, v] of parts) {
    const text = plainText(v);
    if (text !== "") address[k] = text;
  }
  const ld: JsonObject = {
    "@context": "http://schema.org",
    "@type": "Place",
    name: plainText(str(record.venue)),
    description: plainText(str(record.description)),
    url: str(record.url),
    address,
  };
  if (typeof record.geo_lat === "number" && typeof record.geo_lng === "number") {
    ld.geo = { "@type": "GeoCoordinates", latitude: record.geo_lat, longitude: record.geo_lng };
  }
  if (plainText(str(record.phone)) !== "") ld.telephone = plainText(str(record.phone));
  if (str(record.website) !== "") ld.sameAs = str(record.website);
  return ld;
}

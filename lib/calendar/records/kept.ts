/**
 * How an event record is kept for reuse (lib/cache/records.ts): under which
 * key, and as which text. Its categories and tags are kept apart, as parts:
 * a term's `count` moves with every event published in it, and with the
 * terms in the text each such event voided every record of its category.
 */
import type { EngineApi } from "../../engine-api";
import { termTag } from "../../db/cache-tags";
import { recordHole, type KeptRecord, type PartSource } from "../../cache/records";
import { encodeJson, RawJson } from "../../routes/json";
import type { RestRequest } from "../../routes/types";
import { NAMESPACE } from "../common/args";
import type { LoadedPost, Occurrence } from "../../posts/types";
import type { Json, JsonObject } from "./context";
import { embeddedTermRecord } from "./term";
import { occurrenceFrom, type InstanceSource, type RecordUrls, type SeriesShape } from "./event";

/**
 * Whether this request's event records are the ones every anonymous reader
 * gets, whole, so that they may be kept and reused: no user, no password,
 * not the edit context, no `_fields` (which builds records in part) and no
 * `_pretty` (kept texts are compact).
 */
export function keepsRecords(req: RestRequest): boolean {
  return req.user === null && req.param("password") === undefined && req.params.context !== "edit" && req.param("_fields") === undefined && req.param("_pretty") === undefined;
}

/** A kept event record's key: what else than the event it depends on (the language, and the URLs it is written with). */
export function recordKey(req: RestRequest, id: number, language: string | undefined): string {
  return `calendar-event\u0000${id}\u0000${language ?? ""}\u0000${req.urls.home}\u0000${req.urls.root}`;
}

/**
 * The key of what a single read adds to an event's kept record: its
 * `json_ld` (or `null`). Kept by a single read, and by a list for the events
 * it builds, only where the event passes `readableEvent` for every anonymous
 * reader (a list also keeps records of events a single read refuses, such
 * as those with a password): while it is proved good the event is
 * unchanged, so a single read may be answered from the two texts
 * (`singleText`).
 */
export function singleKey(req: RestRequest, id: number, language: string | undefined): string {
  return `calendar-single\u0000${id}\u0000${language ?? ""}\u0000${req.urls.home}\u0000${req.urls.root}`;
}

/** What `singleKey` keeps for a single read's record: its `json_ld`'s text, or `null` where it has none. */
export function singleOwnText(jsonLd: Json | undefined): Buffer {
  return Buffer.from(jsonLd === undefined ? "null" : encodeJson(jsonLd));
}

/**
 * A single read's answer from the kept record (its terms pasted in) and
 * `singleOwnText`: `encodeJson` of the built record byte for byte, since
 * `json_ld` is its last member (eventRecord). Undefined for a text that is
 * not an object's.
 */
export function singleText(record: Buffer, own: Buffer): Buffer | undefined {
  if (record.length < 2 || record[0] !== 0x7b || record[record.length - 1] !== 0x7d) return undefined;
  if (own.equals(NULL_TEXT)) return record;
  return Buffer.concat([record.subarray(0, record.length - 1), JSON_LD_MEMBER, own, CLOSE]);
}

const NULL_TEXT = Buffer.from("null");
const JSON_LD_MEMBER = Buffer.from(',"json_ld":');
const CLOSE = Buffer.from("}");

/** A kept term part's key: the term and the URLs it is written with (an embedded term shows no language). */
function termPartKey(req: RestRequest, id: number): string {
  return `calendar-term\u0001${id}\u0001${req.urls.root}`;
}

/** The members of an event record that embed terms (eventRecord, embeddedTermRecord). */
const TERM_MEMBERS = ["categories", "tags"] as const;

/**
 * The text an event record (as lists show it) is kept as: each embedded
 * term a hole (`recordHole`) for its part, which `termParts` builds.
 * Pasted back, the text is `encodeJson(record)` byte for byte: a term's
 * part is its object's own JSON text.
 */
export function keptText(req: RestRequest, record: JsonObject): Buffer {
  const out: Record<string, unknown> = { ...record };
  for (const member of TERM_MEMBERS) {
    const terms = record[member];
    if (Array.isArray(terms)) out[member] = terms.map((t) => (isTerm(t) ? new RawJson(recordHole(termPartKey(req, t.id))) : t));
  }
  return Buffer.from(encodeJson(out));
}

function isTerm(value: Json): value is JsonObject & { id: number } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof value.id === "number";
}

/** Builds the term parts of kept event records (`keptText`) as of now, for this request's URLs. */
export function termParts(engine: EngineApi, req: RestRequest): PartSource {
  const ns = `${req.urls.root}${NAMESPACE}`;
  return async (keys) => {
    const ids = new Map<string, number>();
    for (const key of keys) {
      const id = Number(key.split("\u0001")[1]);
      // Only this request's keys: a text kept for other URLs is never asked for here (recordKey names them).
      if (Number.isInteger(id) && termPartKey(req, id) === key) ids.set(key, id);
    }
    const terms = await engine.terms.getMany([...new Set(ids.values())]);
    const parts: KeptRecord[] = [];
    for (const [key, id] of ids) {
      const term = terms.get(id);
      if (term !== undefined) parts.push({ key, bytes: Buffer.from(encodeJson(embeddedTermRecord(term, { ns }))), tags: [termTag(id)] });
    }
    return parts;
  };
}

/** A kept series' key: what the records of its occurrences are made from (`keptSeries`), for one language and URLs. */
export function seriesKey(req: RestRequest, seriesId: number, language: string | undefined): string {
  return `calendar-series\u0000${seriesId}\u0000${language ?? ""}\u0000${req.urls.home}\u0000${req.urls.root}`;
}

/** What a kept series holds besides a record: what an occurrence's own members are made from, and the record's tags. */
interface SeriesHead {
  post: Pick<InstanceSource, "id" | "type" | "status" | "slug" | "parent">;
  shape: SeriesShape;
  tags: number[];
}

/**
 * A series kept for its occurrences (issue 43): the record of one of them
 * (`post`, at that occurrence; as `keptText` keeps it, terms as holes), with
 * what the others' own members are made from (`occurrenceFrom`). Kept under
 * the record's tags: the series' post tag covers its occurrence rows too
 * (their triggers bump it), so an occurrence made from a kept series is as
 * fresh as the series and its own row read after it.
 */
export function keptSeries(req: RestRequest, post: LoadedPost, record: JsonObject, shape: SeriesShape, tags: Iterable<number>, language: string | undefined): KeptRecord {
  const head: SeriesHead = { post: { id: post.id, type: post.type, status: post.status, slug: post.slug, parent: post.parent }, shape, tags: [...tags] };
  const bytes = Buffer.concat([Buffer.from(`{"series":${encodeJson(head)},"record":`), keptText(req, record), Buffer.from("}")]);
  return { key: seriesKey(req, post.id, language), bytes, tags: head.tags };
}

/** A kept series read back (`keptSeries`): one occurrence's record and what the others' are made from. */
export interface KeptSeries {
  readonly series: SeriesHead;
  readonly record: JsonObject;
}

/** A kept series' text (its holes filled) read once for every occurrence made from it; undefined where it is not one. */
export function readKeptSeries(text: Buffer): KeptSeries | undefined {
  let kept: unknown;
  try {
    kept = JSON.parse(text.toString("utf8"));
  } catch {
    return undefined;
  }
  return isObject(kept) && isObject(kept.record) && isHead(kept.series) ? { series: kept.series, record: kept.record } : undefined;
}

/**
 * The record of `occurrence` made from its series, kept (`readKeptSeries`),
 * and the tags to keep it under; undefined where that is another post's.
 */
export function occurrenceFromKept(kept: KeptSeries, occurrence: Occurrence, urls: RecordUrls): { record: JsonObject; tags: number[] } | undefined {
  const { post, shape, tags } = kept.series;
  if (post.id !== occurrence.postId) return undefined;
  const fields = { start_local: occurrence.start_local, end_local: occurrence.end_local, start_utc: occurrence.start_utc, end_utc: occurrence.end_utc };
  return { record: occurrenceFrom(kept.record, { ...post, fields, occurrence }, urls, shape), tags };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isHead(value: unknown): value is SeriesHead {
  if (!isObject(value) || !isObject(value.post) || !isObject(value.shape) || !Array.isArray(value.tags)) return false;
  const { post, shape } = value;
  return (
    typeof post.id === "number" && typeof post.type === "string" && typeof post.status === "string" && typeof post.slug === "string" && typeof post.parent === "number" &&
    typeof shape.zone === "string" && typeof shape.websiteIsUrl === "boolean" && typeof shape.masked === "boolean" &&
    value.tags.every((t) => typeof t === "number")
  );
}

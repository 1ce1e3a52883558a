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
import type { Json, JsonObject } from "./context";
import { embeddedTermRecord } from "./term";

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

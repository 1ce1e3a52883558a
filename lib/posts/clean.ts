import { EngineError } from "../engine-errors";
import { isTextKind, sanitizeField, type TextKind } from "../format/sanitize";
import type { TaxonomyConfig, TermPatch } from "../taxonomy/types";
import { keepsHtml, type Actor } from "../users/actor";
import type { FieldDef, FieldValue, PostPatch, PostTypeConfig } from "./types";

/*
 * The engine's cleaning of what a write stores: every post and term write
 * passes here (write.ts, taxonomy/terms.ts, and the fixtures' bulk path),
 * whoever calls it — a route of the calendar, of a host plugin, an
 * in-process caller. Each text is cleaned by the kind its type or taxonomy
 * declares (defaults below, WordPress's), for the actor (lib/users/actor.ts):
 * HTML kinds are kept as written only for an actor with `unfiltered_html`
 * (or the operator); every other kind is cleaned for everyone. Slugs are
 * sanitize_title()d where they are made (slugs.ts), and a post's password
 * is kept as written, as WordPress keeps it.
 *
 * Every sanitiser is idempotent, so a caller that cleaned a value itself
 * (the calendar, which needs cleaned names to find duplicates) stores the
 * same value.
 */

type PostColumn = "title" | "content" | "excerpt";

/**
 * WordPress's cleaning of the core columns for a user without
 * `unfiltered_html` (kses.php kses_init_filters: `title_save_pre` →
 * wp_filter_kses, `content_save_pre` and `excerpt_save_pre` →
 * wp_filter_post_kses).
 */
export const DEFAULT_POST_TEXT_KINDS: Readonly<Record<PostColumn, TextKind>> = { title: "basic-html", content: "html", excerpt: "html" };

/** Post meta WordPress leaves alone unless registered; calpress cleans a value as plain text unless the type names its key. */
export const DEFAULT_META_KIND: TextKind = "text";

/**
 * WordPress's term filters (default-filters.php): `pre_term_name` is
 * sanitize_text_field (then wp_filter_kses, a no-op on text without tags,
 * and _wp_specialchars, which entity-encodes `&<>`: calpress stores the
 * text and escapes it where it prints it); `pre_term_description` is
 * wp_filter_kses. WordPress runs the latter for administrators too;
 * calpress keeps the HTML of users with `unfiltered_html` here as
 * everywhere.
 */
export const DEFAULT_TERM_TEXT_KINDS: Readonly<Record<"name" | "description", TextKind>> = { name: "text", description: "basic-html" };

function checkKind(what: string, kind: unknown): TextKind {
  if (!isTextKind(kind)) throw new EngineError("invalid_field", `${what}: unknown text kind ${String(kind)}`);
  return kind;
}

/** A typed field's kind, checked, its default filled in: `text` for a string, `textarea` for a text; other types hold no text. */
export function declaredFieldKind(what: string, def: FieldDef): TextKind | undefined {
  const fallback = def.type === "string" ? "text" : def.type === "text" ? "textarea" : undefined;
  if (fallback === undefined) {
    if (def.kind !== undefined) throw new EngineError("invalid_field", `${what}: only string and text fields have a kind`);
    return undefined;
  }
  return checkKind(what, def.kind ?? fallback);
}

/** A post type's `textKinds` (every column, defaults filled in) and `metaKinds`, checked. */
export function declaredPostKinds(name: string, config: PostTypeConfig): Required<Pick<PostTypeConfig, "textKinds" | "metaKinds">> {
  const column = (c: PostColumn): TextKind => checkKind(`${name} ${c}`, config.textKinds?.[c] ?? DEFAULT_POST_TEXT_KINDS[c]);
  return {
    textKinds: { title: column("title"), content: column("content"), excerpt: column("excerpt") },
    metaKinds: Object.fromEntries(Object.entries(config.metaKinds ?? {}).map(([key, kind]) => [key, checkKind(`${name} meta ${key}`, kind)])),
  };
}

/** A taxonomy's `textKinds`, checked, defaults filled in. */
export function declaredTermKinds(name: string, config: TaxonomyConfig): NonNullable<TaxonomyConfig["textKinds"]> {
  return {
    name: checkKind(`${name} name`, config.textKinds?.name ?? DEFAULT_TERM_TEXT_KINDS.name),
    description: checkKind(`${name} description`, config.textKinds?.description ?? DEFAULT_TERM_TEXT_KINDS.description),
  };
}

/** A post write's title, content, excerpt, typed string/text fields and meta values, cleaned as the type declares. */
export function cleanPostWrite<T extends PostPatch>(type: PostTypeConfig, input: T, actor: Actor): T {
  const keep = keepsHtml(actor);
  const clean = (kind: TextKind, value: string): string => sanitizeField(kind, value, keep);
  const column = (c: PostColumn): TextKind => type.textKinds?.[c] ?? DEFAULT_POST_TEXT_KINDS[c];
  const out: T = { ...input };
  if (typeof input.title === "string") out.title = clean(column("title"), input.title);
  if (typeof input.content === "string") out.content = clean(column("content"), input.content);
  if (typeof input.excerpt === "string") out.excerpt = clean(column("excerpt"), input.excerpt);
  if (input.fields) {
    const fields: Record<string, FieldValue> = {};
    for (const [name, value] of Object.entries(input.fields)) {
      const kind = type.fields?.[name]?.kind;
      // Unknown fields are refused by the writer; values that are not strings are checked against their type there.
      fields[name] = kind !== undefined && typeof value === "string" ? clean(kind, value) : value;
    }
    out.fields = fields;
  }
  if (input.meta) {
    const meta: Record<string, string | null> = {};
    for (const [key, value] of Object.entries(input.meta)) {
      meta[key] = typeof value === "string" ? clean(type.metaKinds?.[key] ?? DEFAULT_META_KIND, value) : value;
    }
    out.meta = meta;
  }
  return out;
}

/** A term write's name and description, cleaned as the taxonomy declares (see cleanPostWrite). */
export function cleanTermWrite<T extends TermPatch>(tax: TaxonomyConfig, input: T, actor: Actor): T {
  const keep = keepsHtml(actor);
  const out: T = { ...input };
  if (typeof input.name === "string") out.name = sanitizeField(tax.textKinds?.name ?? DEFAULT_TERM_TEXT_KINDS.name, input.name, keep);
  if (typeof input.description === "string") {
    out.description = sanitizeField(tax.textKinds?.description ?? DEFAULT_TERM_TEXT_KINDS.description, input.description, keep);
  }
  return out;
}

/**
 * `?_fields=` response filtering, as WordPress `rest_filter_response_fields()`
 * does it: top-level names and dotted paths into nested objects; a list
 * body is filtered item by item; a list inside an object is not descended
 * into (so `events.id` leaves `events` an empty list).
 */
import { wpParseList } from "./coerce";
import { isPlainObject } from "./json";

export type FieldTree = { [name: string]: FieldTree | true };

/** The `_fields` value (comma/space separated string or list) → a tree of wanted names; `undefined` when empty. */
export function parseFields(value: unknown): FieldTree | undefined {
  let names: string[];
  if (typeof value === "string") names = wpParseList(value);
  else if (Array.isArray(value)) names = value.filter((v): v is string => typeof v === "string").flatMap(wpParseList);
  else return undefined;
  if (names.length === 0) return undefined;
  const tree: FieldTree = Object.create(null) as FieldTree;
  for (const field of names) {
    const parts = field.trim().split(".");
    const last = parts.pop() ?? "";
    let node = tree;
    let covered = false;
    for (const part of parts) {
      const next = node[part];
      // Skip sub-fields when the parent is already wanted whole.
      if (next === true) {
        covered = true;
        break;
      }
      node = next ?? (node[part] = Object.create(null) as FieldTree);
    }
    if (!covered) node[last] = true;
  }
  return tree;
}

/**
 * Whether a body filtered by `tree` can still show anything at the dotted
 * `path` (`venue`, `events.venue.city`), so that a route may skip building
 * what the filter would drop. No tree: everything is shown. A path under a
 * name wanted whole is shown; a name of which only members are wanted is
 * shown in part (a list there is emptied by the filter, which stays exact
 * when the route builds it anyway).
 */
export function fieldWanted(tree: FieldTree | undefined, path: string): boolean {
  if (tree === undefined) return true;
  let node: FieldTree = tree;
  for (const part of path.split(".")) {
    const next: FieldTree | true | undefined = node[part];
    if (next === undefined) return false;
    if (next === true) return true;
    node = next;
  }
  return true;
}

function pick(value: Record<string, unknown>, tree: FieldTree): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const wanted = tree[key];
    if (wanted === undefined) continue;
    if (wanted === true) out[key] = item;
    else if (isPlainObject(item)) out[key] = pick(item, wanted);
    // PHP intersects a list's integer keys with the names, which leaves nothing.
    else if (Array.isArray(item)) out[key] = [];
    else out[key] = item;
  }
  return out;
}

/** Filters a successful response body. The body is first reduced to plain JSON data. */
export function filterFields(data: unknown, tree: FieldTree): unknown {
  if (data === undefined) return data;
  const plain: unknown = JSON.parse(JSON.stringify(data));
  if (Array.isArray(plain)) return plain.map((item) => (isPlainObject(item) ? pick(item, tree) : item));
  return isPlainObject(plain) ? pick(plain, tree) : plain;
}

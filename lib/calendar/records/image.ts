import type { LoadedPost } from "../../posts/types";
import type { JsonObject } from "./context";

/** The path of a stored URL; a URL that does not parse (stored by other means than an image import) is read as text. */
function urlPath(url: string): string {
  try {
    return new URL(url, "http://x/").pathname;
  } catch {
    return url.replace(/[?#].*$/, "");
  }
}

/** calendar-api.md §1.1; calpress has no resized copies, so no `sizes`. */
export function imageRecord(attachment: LoadedPost | undefined): JsonObject | false {
  if (!attachment) return false;
  const url = String(attachment.fields.url ?? "");
  if (url === "") return false;
  const record: JsonObject = { url, id: attachment.id };
  const ext = /\.([a-z0-9]+)$/i.exec(urlPath(url))?.[1];
  if (ext) record.extension = ext.toLowerCase();
  for (const key of ["width", "height", "filesize"] as const) {
    const v = attachment.fields[key];
    if (typeof v === "number" && v > 0) record[key] = v;
  }
  return record;
}

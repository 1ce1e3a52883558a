import type { EngineApi } from "../../engine-api";
import type { CurrentUser } from "../../users/types";
import { escUrlRaw } from "../../format/sanitize";
import { isWpInteger } from "../../routes/coerce";
import { checkUrlShape, safeFetch, type FetchOptions } from "../../net/safe-fetch";
import { ATTACHMENT, postTypes } from "../post-types";

/**
 * The `image` field of venues and organizers (and of events, same rules,
 * calendar-api.md §4.3): the ID of an image attachment, or a URL. A URL is
 * reused when an attachment already has it; otherwise it must answer 200
 * with an image content type and becomes a new attachment (calpress keeps
 * the remote URL, it stores no files). Only users who may upload files may
 * give a URL, and it is fetched under the site's fetch policy
 * (lib/net/safe-fetch.ts: public hosts only). `""` or `0` means "no image".
 */

export type ImagePlan =
  | { action: "none" }
  | { action: "clear" }
  | { action: "attach"; id: number }
  | { action: "import"; url: string; mimeType: string };

/** Enough of an answer to tell an image from an error page; the file itself is never downloaded. */
const IMAGE_CHECK_MAX_BYTES = 1024;

/** The attachment's `url` column: a longer URL cannot be stored, so it is refused as input. */
const MAX_IMAGE_URL_LENGTH = postTypes[ATTACHMENT]?.fields?.url?.length ?? 2048;

/** A media type as an attachment stores it (`image/png`, `image/svg+xml`); anything else is no image. */
const IMAGE_TYPE = /^image\/[a-z0-9][a-z0-9.+-]{0,80}$/;

export function isEmptyImage(value: unknown): boolean {
  return value === "" || value === 0 || value === "0" || value === false;
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
  } catch {
    return false;
  }
}

async function imageAttachment(engine: EngineApi, id: number): Promise<boolean> {
  const post = await engine.posts.get(id);
  return post !== undefined && post.type === ATTACHMENT && String(post.fields.mime_type ?? "").startsWith("image/");
}

/** The shape check every caller can run without a user: an existing image attachment ID, an http(s) URL, or empty. */
export async function checkImageValue(value: unknown, engine: EngineApi): Promise<string | null> {
  if (isEmptyImage(value)) return null;
  if (isWpInteger(value)) {
    return (await imageAttachment(engine, Number(value))) ? null : "The image must be the ID of an image attachment.";
  }
  if (typeof value === "string" && isHttpUrl(value.trim())) {
    return [...value.trim()].length > MAX_IMAGE_URL_LENGTH ? `The image URL must be at most ${MAX_IMAGE_URL_LENGTH} characters long.` : null;
  }
  return "The image must be an attachment ID or an image URL.";
}

async function attachmentByUrl(engine: EngineApi, url: string): Promise<number | undefined> {
  const found = await engine.posts.find({ type: ATTACHMENT, where: [{ field: "url", op: "=", value: url }], perPage: 1, noTotal: true, orderBy: [{ field: "id", dir: "asc" }] });
  return found.posts[0]?.id;
}

/** The content type of a reachable image URL, or why it is not one. */
async function remoteImageType(url: string, fetch: FetchOptions): Promise<{ mimeType: string } | { error: string }> {
  const notImage = { error: "The image URL does not answer with an image." };
  const fetched = await safeFetch(url, { ...fetch, maxBytes: Math.min(fetch.maxBytes ?? IMAGE_CHECK_MAX_BYTES, IMAGE_CHECK_MAX_BYTES) });
  // The reason is safeFetch's fixed text, never the connection error's own message.
  if (!fetched.ok) return { error: fetched.kind === "refused" ? `The image URL is not allowed: ${fetched.reason}.` : `The image URL cannot be fetched: ${fetched.reason}.` };
  if (fetched.response.status !== 200) return notImage;
  const type = String(fetched.response.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  return IMAGE_TYPE.test(type) ? { mimeType: type } : notImage;
}

/**
 * An attachment title from the URL's file name (`a%20b.png` → `a b`): a
 * malformed escape is kept as written, control characters (`%00`) dropped.
 */
function titleFromUrl(url: string): string {
  const file = new URL(url).pathname.split("/").pop() ?? "";
  let decoded = file;
  try {
    decoded = decodeURIComponent(file);
  } catch {
    // A lone `%` or a bad UTF-8 sequence: the raw name is still a fine title.
  }
  // eslint-disable-next-line no-control-regex
  return decoded.replace(/[\u0000-\u001f\u007f]/g, "").replace(/\.[^.]*$/, "") || "image";
}

/**
 * Decides what to do with an `image` value for this user, doing any network
 * check now so that no database transaction waits on it. Returns a plan or
 * an error message.
 */
export async function planImage(
  engine: EngineApi,
  value: unknown,
  user: CurrentUser | null,
  fetch: FetchOptions = {},
): Promise<{ plan: ImagePlan } | { error: string }> {
  if (value === undefined || value === null) return { plan: { action: "none" } };
  if (isEmptyImage(value)) return { plan: { action: "clear" } };
  const shape = await checkImageValue(value, engine);
  if (shape !== null) return { error: shape };
  if (isWpInteger(value)) return { plan: { action: "attach", id: Number(value) } };
  // As the attachment stores it (its `url` field is an esc_url_raw() URL), so that the lookup below finds it again.
  const url = escUrlRaw(String(value).trim());
  // The original sideloads URLs through media_sideload_image, which needs upload_files.
  if (!user || !user.can("upload_files")) return { error: "You are not allowed to add images by URL." };
  // A URL the policy refuses on its face is refused even when an attachment already has it.
  const checked = checkUrlShape(url, fetch);
  if ("reason" in checked) return { error: `The image URL is not allowed: ${checked.reason}.` };
  const existing = await attachmentByUrl(engine, url);
  if (existing !== undefined) return { plan: { action: "attach", id: existing } };
  const remote = await remoteImageType(url, fetch);
  if ("error" in remote) return remote;
  return { plan: { action: "import", url, mimeType: remote.mimeType } };
}

/** Carries out a plan inside the write: the attachment ID to store, `null` to clear, `undefined` to leave as is. */
export async function applyImagePlan(engine: EngineApi, plan: ImagePlan, user: CurrentUser | null): Promise<number | null | undefined> {
  switch (plan.action) {
    case "none":
      return undefined;
    case "clear":
      return null;
    case "attach":
      return plan.id;
    case "import": {
      // Another request may have imported the same URL meanwhile.
      const existing = await attachmentByUrl(engine, plan.url);
      if (existing !== undefined) return existing;
      const attachment = await engine.posts.create(
        {
          type: ATTACHMENT,
          status: "publish",
          title: titleFromUrl(plan.url),
          author: user?.id ?? 0,
          fields: { url: plan.url, mime_type: plan.mimeType },
        },
        user,
      );
      return attachment.id;
    }
  }
}

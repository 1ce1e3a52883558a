import type { LoadedPost } from "../../posts/types";
import { plainText } from "../../format/plain-text";
import { wanted, type JsonObject, type RecordContext } from "./context";
import { globalIds, omitEmpty, postHeader, renderedTexts, str } from "./common";
import { imageRecord } from "./image";
import { hasContentAccess, isPublicPage } from "./access";
import { maskProtected } from "./mask";

export function organizerRecord(post: LoadedPost, ctx: RecordContext): JsonObject {
  const f = post.fields;
  const texts = renderedTexts(post);
  const record: JsonObject = {
    ...postHeader(post, ctx),
    organizer: texts.title,
    description: texts.description,
    excerpt: texts.excerpt,
    slug: post.slug,
    image: imageRecord(ctx.related.attachments.get(Number(f.image_id))),
    phone: str(f.phone),
    website: str(f.website),
    email: str(f.email),
    ...globalIds(post, ctx),
  };
  if (ctx.single && isPublicPage(post) && wanted(ctx, "json_ld")) {
    const ld: JsonObject = {
      "@context": "http://schema.org",
      "@type": "Person",
      name: plainText(texts.title),
      description: plainText(texts.description),
    };
    if (str(f.website) !== "") {
      ld.url = str(f.website);
      ld.sameAs = str(f.website);
    }
    if (plainText(str(f.phone)) !== "") ld.telephone = plainText(str(f.phone));
    if (plainText(str(f.email)) !== "") ld.email = plainText(str(f.email));
    record.json_ld = ld;
  }
  const kept = omitEmpty(record, []);
  return hasContentAccess(post, ctx) ? kept : maskProtected(kept);
}

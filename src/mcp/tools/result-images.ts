/**
 * An MCP result's image blocks → ImageParts a vision model is sent, through the same decoder, downscaling and size
 * cap as the user's images (agent/images/load-image.ts). One the runtime cannot decode, or still too large, is left
 * out: the result's text describes every image (`[image: mime, size]`), so the model still knows it was there.
 */
import type { ImagePart } from "../../protocol/message.ts";
import { encodeImage, MAX_FILE_BYTES } from "../../agent/images/load-image.ts";

/** More than this many images in one result are described only (each costs as much as a page of text). */
export const MAX_RESULT_IMAGES = 8;

export async function capResultImages(raw: ReadonlyArray<{ mediaType: string; base64: string }>): Promise<ImagePart[]> {
  const out: ImagePart[] = [];
  for (const r of raw.slice(0, MAX_RESULT_IMAGES)) {
    if (!/^image\//i.test(r.mediaType) || (r.base64.length * 3) / 4 > MAX_FILE_BYTES) continue;
    const bytes = Buffer.from(r.base64, "base64");
    if (bytes.byteLength === 0) continue;
    const loaded = await encodeImage(bytes, r.mediaType);
    if (loaded.ok) out.push(loaded.part);
  }
  return out;
}

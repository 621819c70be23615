/**
 * An image file → the ImagePart sent to a vision model, with Bun.Image (built into the runtime: JPEG, PNG, WebP,
 * GIF, BMP, TIFF decode; JPEG/PNG/WebP encode; no extra dependency). Limits, applied before anything is sent:
 * - a file over MAX_FILE_BYTES is not read at all;
 * - the long side is capped at MAX_SIDE pixels (aspect kept, never enlarged);
 * - the encoded image must be at most MAX_ENCODED_BYTES (the strictest provider limit, Anthropic's 5 MB per image):
 *   a PNG still over it is re-encoded as JPEG, and one still over is refused.
 * PNG, JPEG and WebP that need no change are sent byte for byte; other formats are converted to PNG.
 */
import { readFileSync, statSync } from "node:fs";
import type { ImagePart } from "../../protocol/message.ts";
import { t } from "../../i18n/i18n.ts";

export const MAX_FILE_BYTES = 20 * 1024 * 1024;
export const MAX_SIDE = 2000;
export const MAX_ENCODED_BYTES = 5 * 1024 * 1024;

export const IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff"];
const IMAGE_EXT_RE = new RegExp(`\\.(?:${IMAGE_EXTENSIONS.join("|")})$`, "i");

export function isImagePath(p: string): boolean {
  return IMAGE_EXT_RE.test(p);
}

export type LoadedImage = { ok: true; part: ImagePart; notice: string } | { ok: false; notice: string };

const SENT_AS_IS: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

export async function loadImage(absPath: string, token: string): Promise<LoadedImage> {
  let size: number;
  try {
    size = statSync(absPath).size;
  } catch (err) {
    return { ok: false, notice: t("image.unreadable", { token, error: (err as Error).message }) };
  }
  if (size > MAX_FILE_BYTES) return { ok: false, notice: t("image.tooLarge", { token, mb: (size / 1048576).toFixed(1), limit: MAX_FILE_BYTES / 1048576 }) };
  const bytes = readFileSync(absPath);
  return encodeImage(bytes, token);
}

export async function encodeImage(bytes: Uint8Array, token: string): Promise<LoadedImage> {
  let meta: { width: number; height: number; format: string };
  try {
    meta = await new Bun.Image(bytes).metadata();
  } catch (err) {
    return { ok: false, notice: t("image.unreadable", { token, error: (err as Error).message }) };
  }
  const long = Math.max(meta.width, meta.height);
  const asIs = SENT_AS_IS[meta.format];
  if (asIs && long <= MAX_SIDE && bytes.byteLength <= MAX_ENCODED_BYTES) {
    const kb = Math.round(bytes.byteLength / 1024);
    return { ok: true, part: { mediaType: asIs, base64: Buffer.from(bytes).toString("base64") }, notice: t("image.attached", { token, width: meta.width, height: meta.height, kb }) };
  }
  try {
    const scale = Math.min(1, MAX_SIDE / long);
    const width = Math.max(1, Math.round(meta.width * scale));
    const height = Math.max(1, Math.round(meta.height * scale));
    const pipeline = () => new Bun.Image(bytes).resize(width, height, { fit: "inside", withoutEnlargement: true });
    let out = meta.format === "jpeg" ? await pipeline().jpeg({ quality: 85 }).bytes() : await pipeline().png().bytes();
    let mediaType = meta.format === "jpeg" ? "image/jpeg" : "image/png";
    if (out.byteLength > MAX_ENCODED_BYTES) {
      out = await pipeline().jpeg({ quality: 80 }).bytes();
      mediaType = "image/jpeg";
    }
    if (out.byteLength > MAX_ENCODED_BYTES) return { ok: false, notice: t("image.stillTooLarge", { token, limit: MAX_ENCODED_BYTES / 1048576 }) };
    const kb = Math.round(out.byteLength / 1024);
    const notice =
      width !== meta.width || height !== meta.height
        ? t("image.downscaled", { token, fromW: meta.width, fromH: meta.height, width, height, kb })
        : t("image.attached", { token, width, height, kb });
    return { ok: true, part: { mediaType, base64: Buffer.from(out).toString("base64") }, notice };
  } catch (err) {
    return { ok: false, notice: t("image.unreadable", { token, error: (err as Error).message }) };
  }
}

/**
 * Ctrl+V: an image in the system clipboard becomes an `@path` attachment in the prompt. The image is read with
 * wl-paste (Wayland), xclip (X11) or, on macOS, Bun.Image.fromClipboard, saved under the temp directory and named
 * in the prompt (the core loads, scales and sends it like any `@image.png`). Text in the clipboard is left to the
 * terminal's own paste.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { t } from "../../i18n/i18n.ts";

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif", "image/bmp"];
const EXT: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif", "image/bmp": "bmp" };

export type ClipboardImage = { ok: true; path: string } | { ok: false; message: string };

let count = 0;

export async function pasteClipboardImage(env: Record<string, string | undefined> = process.env, platform = process.platform): Promise<ClipboardImage> {
  const got = await readClipboard(env, platform);
  if (!got.ok) return got;
  const dir = join(env.TMPDIR || tmpdir(), `chatcli-clipboard-${process.pid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `clipboard-${++count}.${EXT[got.type] ?? "png"}`);
  writeFileSync(path, got.bytes, { mode: 0o600 });
  return { ok: true, path };
}

type Read = { ok: true; bytes: Uint8Array; type: string } | { ok: false; message: string };

async function readClipboard(env: Record<string, string | undefined>, platform: string): Promise<Read> {
  if (platform === "darwin") {
    const img = Bun.Image.fromClipboard();
    if (!img) return { ok: false, message: t("image.clipboardNone", { tool: "macOS" }) };
    return { ok: true, bytes: await img.png().bytes(), type: "image/png" };
  }
  const which = (cmd: string) => Bun.which(cmd, { PATH: env.PATH ?? "" });
  if (env.WAYLAND_DISPLAY && which("wl-paste")) {
    return viaTool(env, "wl-paste", ["wl-paste", "--list-types"], (type) => ["wl-paste", "--no-newline", "--type", type]);
  }
  if (env.DISPLAY && which("xclip")) {
    return viaTool(env, "xclip", ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"], (type) => ["xclip", "-selection", "clipboard", "-t", type, "-o"]);
  }
  return { ok: false, message: t("image.clipboardNoTool") };
}

async function viaTool(env: Record<string, string | undefined>, tool: string, list: string[], get: (type: string) => string[]): Promise<Read> {
  const none: Read = { ok: false, message: t("image.clipboardNone", { tool }) };
  const types = await run(list, env);
  if (!types) return none;
  const offered = new TextDecoder().decode(types).split(/\s+/);
  const type = IMAGE_TYPES.find((x) => offered.includes(x));
  if (!type) return none;
  const bytes = await run(get(type), env);
  return bytes && bytes.byteLength ? { ok: true, bytes, type } : none;
}

/** stdout of a short command, or undefined when it fails or takes over 3 s. */
async function run(argv: string[], env: Record<string, string | undefined>): Promise<Uint8Array | undefined> {
  try {
    const p = Bun.spawn(argv, { env: env as Record<string, string>, stdout: "pipe", stderr: "ignore", stdin: "ignore" });
    const timer = setTimeout(() => p.kill(), 3000);
    const [out, code] = await Promise.all([new Response(p.stdout).bytes(), p.exited]);
    clearTimeout(timer);
    return code === 0 ? out : undefined;
  } catch {
    return undefined;
  }
}

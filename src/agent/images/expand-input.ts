/**
 * A prompt as it enters the history: `@path` text attachments (at-mentions.ts) plus images — `@shot.png`, and an
 * image path pasted on its own (a file dragged into the terminal arrives as `/home/u/Shot 1.png`, quoted
 * `'/home/u/Shot 1.png'`, with escaped spaces, or as a `file://` URL). Images are loaded, scaled and capped by
 * load-image.ts; the text for the model names each one (`[image: shot.png]`) so it can refer to them.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import type { ImagePart } from "../../protocol/message.ts";
import { expandAtMentions, type AtMentionOptions } from "../at-mentions.ts";
import { IMAGE_EXTENSIONS, loadImage } from "./load-image.ts";

export interface InputWithImages {
  text: string;
  notices: string[];
  /** Informational lines (an image attached, scaled down). */
  infos: string[];
  images: ImagePart[];
}

const EXT = IMAGE_EXTENSIONS.join("|");
// An absolute, home-relative or file:// path ending in an image extension, alone between spaces or in quotes.
const PASTED_RE = new RegExp(
  `(?:^|\\s)(?:'((?:/|~/|file://)[^']+\\.(?:${EXT}))'|"((?:/|~/|file://)[^"]+\\.(?:${EXT}))"|((?:/|~/|file://)(?:\\\\ |[^\\s])+\\.(?:${EXT})))(?=\\s|$)`,
  "gi",
);

export async function expandInputWithImages(text: string, opts: AtMentionOptions): Promise<InputWithImages> {
  const r = expandAtMentions(text, opts);
  const wanted = [...r.images];
  const seen = new Set(wanted.map((w) => w.absPath));
  for (const p of pastedImagePaths(text)) {
    if (seen.has(p.absPath)) continue;
    seen.add(p.absPath);
    wanted.push(p);
  }
  const infos: string[] = [];
  const notices = [...r.notices];
  const images: ImagePart[] = [];
  const names: string[] = [];
  for (const w of wanted) {
    const loaded = await loadImage(w.absPath, w.token);
    if (!loaded.ok) {
      notices.push(loaded.notice);
      continue;
    }
    images.push(loaded.part);
    infos.push(loaded.notice);
    names.push(basename(w.absPath));
  }
  const marker = names.length ? `\n\n${names.map((n) => `[image: ${n}]`).join("\n")}` : "";
  return { text: `${r.text}${marker}`, notices, infos, images };
}

/** Image files named by a bare pasted path that exist (a path that is not a file is left as text). */
export function pastedImagePaths(text: string): Array<{ token: string; absPath: string }> {
  const out: Array<{ token: string; absPath: string }> = [];
  for (const m of text.matchAll(PASTED_RE)) {
    const raw = (m[1] ?? m[2] ?? m[3] ?? "").replaceAll("\\ ", " ");
    let path = raw;
    if (raw.startsWith("file://")) {
      try {
        path = fileURLToPath(raw);
      } catch {
        continue;
      }
    } else if (raw.startsWith("~/")) path = `${homedir()}${raw.slice(1)}`;
    if (!existsSync(path)) continue;
    try {
      const real = realpathSync(path);
      if (statSync(real).isFile()) out.push({ token: raw, absPath: real });
    } catch {
      // vanished or unreadable: left as text
    }
  }
  return out;
}

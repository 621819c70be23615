/**
 * `@path` in a prompt attaches that file's content to the message sent to the model (the transcript keeps the
 * prompt as typed). Paths go through the project's path policy like any tool read. A mention that does not
 * resolve to a readable text file leaves the prompt unchanged and yields a notice; words like `@coder` or
 * `@someone` that do not look like paths are left alone silently.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { safeHead } from "../util/text.ts";
import { t } from "../i18n/i18n.ts";
import { createPathPolicy, PathError, realpathLenient, type PathPolicy } from "../tool/workspace.ts";
import { isImagePath } from "./images/load-image.ts";

export const AT_MENTION_CAP = 50_000;

export interface AtMentionOptions {
  projectRoot: string;
  /** Defaults to a policy rooted at `projectRoot` with no extra paths. */
  paths?: PathPolicy;
  /** Per-file character cap. */
  cap?: number;
}

export interface Attachment {
  /** As mentioned (relative to the project when inside it). */
  path: string;
  absPath: string;
  chars: number;
  truncated: boolean;
}

export interface ExpandedInput {
  text: string;
  attachments: Attachment[];
  notices: string[];
  /** Image files mentioned: not read here (images/expand-input.ts loads and scales them). */
  images: Array<{ token: string; absPath: string }>;
}

// `@` at the start or after whitespace/an opening bracket, so e-mail addresses are not mentions.
const MENTION_RE = /(^|[\s(["'])@((?:\\ |[^\s"'`])+)/g;
const TRAILING_PUNCT = /[,;:!?.)\]]+$/;

export function expandAtMentions(text: string, opts: AtMentionOptions): ExpandedInput {
  const cap = opts.cap ?? AT_MENTION_CAP;
  const paths = opts.paths ?? createPathPolicy({ projectRoot: opts.projectRoot, extraReadPaths: [] });
  const attachments: Attachment[] = [];
  const notices: string[] = [];
  const blocks: string[] = [];
  const images: ExpandedInput["images"] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(MENTION_RE)) {
    const token = m[2]!.replaceAll("\\ ", " ");
    const r = resolveMention(token, paths);
    if (r.kind === "ignore") continue;
    if (r.kind === "error") {
      notices.push(r.message);
      continue;
    }
    if (seen.has(r.abs)) continue;
    seen.add(r.abs);
    if (isImagePath(r.abs)) {
      images.push({ token: r.token, absPath: r.abs });
      continue;
    }
    let content: string;
    try {
      content = readFileSync(r.abs, "utf8");
    } catch (err) {
      notices.push(`@${r.token}: cannot read (${(err as Error).message}); not attached.`);
      continue;
    }
    if (content.includes("\u0000")) {
      notices.push(`@${r.token}: binary file; not attached.`);
      continue;
    }
    const shown = displayPath(r.abs, opts.projectRoot);
    const truncated = content.length > cap;
    const body = truncated
      ? `${safeHead(content, cap)}\n[... truncated: showing the first ${cap} of ${content.length} characters; read the file for the rest]`
      : content;
    if (truncated) notices.push(`@${r.token}: attached the first ${cap} of ${content.length} characters (file cut to the size cap).`);
    attachments.push({ path: shown, absPath: r.abs, chars: content.length, truncated });
    blocks.push(`<attached_file path="${shown}">\n${body.replace(/\n$/, "")}\n</attached_file>`);
  }
  if (!blocks.length) return { text, attachments, notices, images };
  return { text: `${text}\n\n${blocks.join("\n\n")}`, attachments, notices, images };
}

type Resolved = { kind: "file"; abs: string; token: string } | { kind: "error"; message: string } | { kind: "ignore" };

function resolveMention(raw: string, paths: PathPolicy): Resolved {
  // Try the token as written, then without trailing punctuation ("see @a.ts, then…").
  const candidates = [raw];
  const stripped = raw.replace(TRAILING_PUNCT, "");
  if (stripped && stripped !== raw) candidates.push(stripped);
  let firstError: string | undefined;
  for (const token of candidates) {
    let abs: string;
    try {
      abs = paths.resolveRead(token);
    } catch (err) {
      // An image the user named (a screenshot in ~/Pictures) may live anywhere outside system directories: the
      // person typed it, no model chose it, and only its pixels are sent.
      const outside = err instanceof PathError && err.code === "outside_project" ? outsideImage(token) : undefined;
      if (outside) return { kind: "file", abs: outside, token };
      firstError ??= `@${token}: ${(err as Error).message} Not attached.`;
      continue;
    }
    let st;
    try {
      st = statSync(abs);
    } catch {
      continue;
    }
    if (st.isDirectory()) return { kind: "error", message: t("mention.directory", { token }) };
    if (st.isFile()) return { kind: "file", abs, token };
  }
  if (firstError) return { kind: "error", message: firstError };
  if (!looksLikePath(stripped || raw)) return { kind: "ignore" };
  return { kind: "error", message: t("mention.missing", { token: stripped || raw }) };
}

function outsideImage(token: string): string | undefined {
  if (!isImagePath(token)) return undefined;
  const expanded = token === "~" || token.startsWith("~/") ? join(homedir(), token.slice(1)) : token;
  if (!isAbsolute(expanded)) return undefined;
  try {
    const real = realpathSync(expanded);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

function looksLikePath(s: string): boolean {
  return s.includes("/") || s.includes("\\") || /\.[A-Za-z0-9]{1,8}$/.test(s) || s.startsWith("~");
}

function displayPath(abs: string, projectRoot: string): string {
  const rel = relative(realpathLenient(projectRoot), abs);
  return rel && !rel.startsWith("..") ? rel : abs;
}

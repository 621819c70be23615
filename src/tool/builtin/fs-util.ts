/** File helpers for the write tools: atomic replace, and "what is there now". */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, rm, stat, writeFile, readFile } from "node:fs/promises";
import path from "node:path";
import { realpathLenient } from "../workspace.ts";
import { looksBinary } from "./walk.ts";
import type { FileAccess } from "../file-access.ts";

/**
 * Write via a temp file in the same directory and rename over the target, so readers never see a half-written
 * file. The existing file's permission bits are kept. Parent directories are created.
 */
export async function atomicWrite(target: string, content: string): Promise<void> {
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = (await stat(target)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const tmp = path.join(dir, `.${path.basename(target)}.chatcli-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(tmp, content, "utf8");
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

export type Existing = { kind: "missing" } | { kind: "dir" } | { kind: "binary"; bytes: number } | { kind: "text"; text: string };

/**
 * What is at `file` now. With `files` (an editor's buffers), the kind still comes from the disk (a missing file, a
 * directory or a binary file is never asked for) and the text from `files`.
 */
export async function readExisting(file: string, files?: FileAccess): Promise<Existing> {
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(file);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return { kind: "missing" };
    throw err;
  }
  if (st.isDirectory()) return { kind: "dir" };
  const bytes = await readFile(file);
  if (looksBinary(bytes)) return { kind: "binary", bytes: bytes.length };
  if (files?.readText) return { kind: "text", text: await files.readText(file) };
  return { kind: "text", text: bytes.toString("utf8") };
}

/** Writes the whole text: through `files` when it writes (parent directories created here first), else atomically. */
export async function writeText(target: string, content: string, files?: FileAccess): Promise<void> {
  if (!files?.writeText) return atomicWrite(target, content);
  await mkdir(path.dirname(target), { recursive: true });
  await files.writeText(target, content);
}

/** Path as shown to the model: relative to the project root when inside it. */
export function displayPath(abs: string, projectRoot: string): string {
  const rel = path.relative(realpathLenient(path.resolve(projectRoot)), abs);
  if (rel === "") return ".";
  if (rel.startsWith("..") || path.isAbsolute(rel)) return abs;
  return rel.split(path.sep).join("/");
}

/** A tool error with a code, thrown inside execute and turned into an error ToolOutput by `run`. */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Named context sets (`/context create|attach|detach|list`): a set is a list of project paths stored in
 * `<chatcliHome>/contexts/<name>.json` (paths relative to the project root, so a set moves with the project).
 * Attached sets go into the system prompt as separate cacheable parts, in attach order: attaching another set
 * appends a part and keeps the earlier prefix byte-identical for provider prompt caching. File contents are
 * cached by mtime and size, so unchanged files are not re-read every turn (`reads` counts disk reads).
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { safeHead } from "../util/text.ts";
import { createPathPolicy, realpathLenient, type PathPolicy } from "../tool/workspace.ts";

export const CONTEXT_NAME_RE = /^[a-zA-Z0-9][a-zA-Z0-9_\-.]{0,63}$/;
export const CONTEXT_FILE_CAP = 50_000;
export const CONTEXT_TOTAL_CAP = 200_000;
const MAX_FILES_PER_SET = 200;
const SKIP_DIRS = new Set(["node_modules", ".git", "dist", "build", "target", "vendor"]);

const contextSetSchema = z.object({
  version: z.literal(1),
  name: z.string(),
  paths: z.array(z.string()),
  createdAt: z.number(),
});
export type ContextSet = z.infer<typeof contextSetSchema>;

export interface ContextManagerOptions {
  /** `<chatcliHome>/contexts`. */
  dir: string;
  projectRoot: string;
  paths?: PathPolicy;
  now?: () => number;
}

interface CacheEntry {
  mtimeMs: number;
  size: number;
  content: string;
}

export class ContextManager {
  private readonly attachedNames: string[] = [];
  private readonly cache = new Map<string, CacheEntry>();
  private readonly paths: PathPolicy;
  reads = 0;

  constructor(private readonly opts: ContextManagerOptions) {
    this.paths = opts.paths ?? createPathPolicy({ projectRoot: opts.projectRoot, extraReadPaths: [] });
  }

  /** Saves a set; every path must exist inside the project. Returns a message for the user. */
  create(name: string, paths: string[]): { ok: true; message: string } | { ok: false; message: string } {
    if (!CONTEXT_NAME_RE.test(name)) return { ok: false, message: `Invalid context name "${name}": letters, digits, "_", "-" and ".".` };
    if (!paths.length) return { ok: false, message: "Usage: /context create <name> <paths…>" };
    const rels: string[] = [];
    for (const p of paths) {
      let abs: string;
      try {
        abs = this.paths.resolveRead(p);
        statSync(abs);
      } catch (err) {
        return { ok: false, message: `Context "${name}" not saved: ${p}: ${(err as Error).message}` };
      }
      const rel = relative(realpathLenient(this.opts.projectRoot), abs) || ".";
      if (!rels.includes(rel)) rels.push(rel);
    }
    const set: ContextSet = { version: 1, name, paths: rels, createdAt: (this.opts.now ?? Date.now)() };
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    const file = this.fileOf(name);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(set, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
    chmodSync(file, 0o600);
    return { ok: true, message: `Context "${name}" saved with ${rels.length} path(s): ${rels.join(", ")}. Attach it with /context attach ${name}.` };
  }

  get(name: string): ContextSet | undefined {
    if (!CONTEXT_NAME_RE.test(name)) return undefined;
    try {
      const p = contextSetSchema.safeParse(JSON.parse(readFileSync(this.fileOf(name), "utf8")));
      return p.success ? p.data : undefined;
    } catch {
      return undefined;
    }
  }

  list(): Array<ContextSet & { attached: boolean }> {
    let files: string[];
    try {
      files = readdirSync(this.opts.dir).filter((f) => f.endsWith(".json"));
    } catch {
      return [];
    }
    return files
      .map((f) => this.get(f.slice(0, -".json".length)))
      .filter((s): s is ContextSet => s !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((s) => ({ ...s, attached: this.attachedNames.includes(s.name) }));
  }

  delete(name: string): boolean {
    if (!this.get(name)) return false;
    rmSync(this.fileOf(name), { force: true });
    this.detach(name);
    return true;
  }

  attach(name: string): string | undefined {
    if (!this.get(name)) return `No context named "${name}". Create it with /context create ${name} <paths…>.`;
    if (!this.attachedNames.includes(name)) this.attachedNames.push(name);
    return undefined;
  }

  /** Detaches one set, or all of them without a name. Returns the names detached. */
  detach(name?: string): string[] {
    if (name === undefined) return this.attachedNames.splice(0, this.attachedNames.length);
    const i = this.attachedNames.indexOf(name);
    return i < 0 ? [] : this.attachedNames.splice(i, 1);
  }

  attached(): string[] {
    return [...this.attachedNames];
  }

  /** The attached sets' contents for the system prompt, in attach order. */
  parts(): Array<{ name: string; content: string }> {
    const out: Array<{ name: string; content: string }> = [];
    let total = 0;
    for (const name of this.attachedNames) {
      const set = this.get(name);
      if (!set) continue;
      const blocks: string[] = [];
      for (const rel of this.expand(set.paths)) {
        let content = this.read(join(this.opts.projectRoot, rel));
        if (content === undefined) {
          blocks.push(`<file path="${rel}" missing="true"/>`);
          continue;
        }
        if (content.length > CONTEXT_FILE_CAP) content = `${safeHead(content, CONTEXT_FILE_CAP)}\n[... truncated: ${content.length - CONTEXT_FILE_CAP} more characters]`;
        if (total + content.length > CONTEXT_TOTAL_CAP) {
          blocks.push(`<file path="${rel}" omitted="total context size cap reached"/>`);
          continue;
        }
        total += content.length;
        blocks.push(`<file path="${rel}">\n${content.replace(/\n$/, "")}\n</file>`);
      }
      out.push({ name, content: blocks.join("\n\n") });
    }
    return out;
  }

  private fileOf(name: string): string {
    return join(this.opts.dir, `${name}.json`);
  }

  /** Directories expand to their files (sorted, recursive, hidden and build dirs skipped). */
  private expand(rels: string[]): string[] {
    const out: string[] = [];
    const walk = (rel: string): void => {
      if (out.length >= MAX_FILES_PER_SET) return;
      const abs = join(this.opts.projectRoot, rel);
      let st;
      try {
        this.paths.resolveRead(abs);
        st = statSync(abs);
      } catch {
        out.push(rel); // rendered as missing
        return;
      }
      if (st.isFile()) {
        if (!out.includes(rel)) out.push(rel);
        return;
      }
      if (!st.isDirectory()) return;
      let names: string[];
      try {
        names = readdirSync(abs).sort();
      } catch {
        return;
      }
      for (const n of names) {
        if (n.startsWith(".") || SKIP_DIRS.has(n)) continue;
        walk(rel === "." ? n : join(rel, n));
      }
    };
    for (const r of rels) walk(r);
    return out;
  }

  private read(abs: string): string | undefined {
    let st;
    try {
      st = statSync(abs);
    } catch {
      this.cache.delete(abs);
      return undefined;
    }
    const hit = this.cache.get(abs);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.content;
    try {
      this.reads++;
      const content = readFileSync(abs, "utf8");
      this.cache.set(abs, { mtimeMs: st.mtimeMs, size: st.size, content });
      return content;
    } catch {
      return undefined;
    }
  }
}

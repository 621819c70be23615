/**
 * Finds plugins: each entry of `~/.chatcli/plugins/` and `<project>/.chatcli/plugins/` (dotfiles skipped) is
 *   - a `.ts` / `.js` / `.mts` / `.mjs` file, or a folder with `index.ts` / `index.js` (…): a module plugin;
 *   - any other executable file: an external plugin (ChatCLI's protocol: `--metadata` answers JSON).
 * A missing directory costs one failed readdir.
 */
import { accessSync, constants, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";

export type PluginKind = "module" | "external";

export interface PluginEntry {
  kind: PluginKind;
  source: "user" | "project";
  /** The file to import or run. */
  entry: string;
  /** The file or folder in the plugins directory. */
  path: string;
  name: string;
}

const MODULE_EXTS = new Set([".ts", ".js", ".mts", ".mjs"]);
const INDEX_FILES = ["index.ts", "index.js", "index.mts", "index.mjs"];

export function discoverPlugins(dir: string, source: "user" | "project"): PluginEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith(".")).sort();
  } catch {
    return [];
  }
  const out: PluginEntry[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (st.isDirectory()) {
      const index = INDEX_FILES.map((f) => join(path, f)).find((f) => isFile(f));
      if (index) out.push({ kind: "module", source, entry: index, path, name });
      continue;
    }
    if (!st.isFile()) continue;
    const ext = extname(name);
    if (name.endsWith(".d.ts") || ext === ".json" || ext === ".md" || ext === ".txt") continue;
    if (MODULE_EXTS.has(ext)) out.push({ kind: "module", source, entry: path, path, name: name.slice(0, -ext.length) });
    else if (isExecutable(path)) out.push({ kind: "external", source, entry: path, path, name });
  }
  return out;
}

/** Every file of the project's plugins with its content (what the trust hash covers); bounded. */
export function pluginFilesForTrust(dir: string): Array<{ path: string; content: string }> {
  const out: Array<{ path: string; content: string }> = [];
  const walk = (d: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (out.length >= 500 || n === "node_modules" || n === ".git") continue;
      const p = join(d, n);
      try {
        const st = statSync(p);
        if (st.isDirectory() && depth < 6) walk(p, depth + 1);
        else if (st.isFile() && st.size <= 5_000_000) out.push({ path: p, content: readFileSync(p, "utf8") });
      } catch {
        // unreadable: left out of the hash, and the loader will report it
      }
    }
  };
  walk(dir, 0);
  return out;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

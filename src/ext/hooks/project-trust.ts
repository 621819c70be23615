/**
 * Trust for a project's hooks and plugins: they come with the repository, so they run only after the user trusted
 * exactly this set once (`<chatcli home>/trusted-projects.json`, keyed by project root, holding a hash of the
 * project's `hooks` block and plugin files). A changed block or plugin changes the hash: untrusted again.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../util/atomic-write.ts";

const storeSchema = z.object({ projects: z.record(z.string(), z.object({ hash: z.string(), trustedAt: z.string().optional() })) });

export type TrustState = "none" | "trusted" | "untrusted" | "changed";

export interface ProjectExtensions {
  /** The project settings' raw `hooks` block (undefined: none). */
  hooks: unknown;
  /** Plugin files (path + content) under `<project>/.chatcli/plugins/`. */
  plugins: Array<{ path: string; content: string }>;
}

export function trustFile(home: string): string {
  return join(home, "trusted-projects.json");
}

export function extensionsHash(x: ProjectExtensions): string {
  const h = createHash("sha256");
  h.update(JSON.stringify(x.hooks ?? null));
  for (const p of [...x.plugins].sort((a, b) => a.path.localeCompare(b.path))) h.update(`\0${p.path}\0${p.content}`);
  return h.digest("hex");
}

export function isEmpty(x: ProjectExtensions): boolean {
  const noHooks = x.hooks === undefined || x.hooks === null || (typeof x.hooks === "object" && Object.keys(x.hooks as object).length === 0);
  return noHooks && x.plugins.length === 0;
}

export function trustState(home: string, projectRoot: string, x: ProjectExtensions): TrustState {
  if (isEmpty(x)) return "none";
  const entry = readStore(home).projects[projectRoot];
  if (!entry) return "untrusted";
  return entry.hash === extensionsHash(x) ? "trusted" : "changed";
}

export function trustProject(home: string, projectRoot: string, x: ProjectExtensions): void {
  const store = readStore(home);
  store.projects[projectRoot] = { hash: extensionsHash(x), trustedAt: new Date().toISOString() };
  writeFileAtomic(trustFile(home), `${JSON.stringify(store, null, 2)}\n`);
}

function readStore(home: string): z.infer<typeof storeSchema> {
  try {
    const parsed = storeSchema.safeParse(JSON.parse(readFileSync(trustFile(home), "utf8")));
    return parsed.success ? parsed.data : { projects: {} };
  } catch {
    return { projects: {} };
  }
}

// Migration of a legacy MEMORY.md (the seed's under memory/, ours at the home root) into facts, with a backup;
// the generated MEMORY.md view is never imported again; undo takes the migration back.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrateLegacy } from "../../src/memory/migrate.ts";
import { GENERATED_MARKER } from "../../src/memory/markdown-view.ts";
import { tempMemory } from "./helpers.ts";

let cleanup: () => void = () => undefined;
afterEach(() => cleanup());

const SEED = "# Long-term memory\n\n- User works mostly in Go\n- Prefers concise answers\n\n## 2026-02-01\n\n- debugged a flaky test today\n\n## User profile\n\n* Name: Ada\n";

describe("migration", () => {
  test("the seed's memory/MEMORY.md becomes facts, with a backup; the view replaces it and is not imported twice", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    mkdirSync(m.store.paths.userDir, { recursive: true });
    writeFileSync(join(m.store.paths.userDir, "MEMORY.md"), SEED);
    const r = migrateLegacy(m.store);
    expect(r).toHaveLength(1);
    expect(readFileSync(r[0]!.backup, "utf8")).toBe(SEED);
    const facts = m.store.facts();
    expect(facts.map((f) => [f.category, f.text]).sort()).toEqual([
      ["longterm", "Prefers concise answers"],
      ["longterm", "User works mostly in Go"],
      ["profile", "Name: Ada"],
    ]);
    expect(facts.every((f) => f.source.kind === "migration" && f.scope === "user")).toBe(true);
    expect(readFileSync(join(m.store.paths.userDir, "MEMORY.md"), "utf8").startsWith(GENERATED_MARKER)).toBe(true);
    expect(migrateLegacy(m.store)).toHaveLength(0);
    m.store.undo();
    expect(m.store.facts()).toHaveLength(0);
  });

  test("ours (<home>/MEMORY.md, sent whole before) is imported and moved aside with a backup", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    mkdirSync(m.home, { recursive: true });
    writeFileSync(join(m.home, "MEMORY.md"), "- Always run the linter before committing\n");
    const r = migrateLegacy(m.store);
    expect(r).toHaveLength(1);
    expect(existsSync(join(m.home, "MEMORY.md"))).toBe(false);
    expect(readdirSync(m.home).some((n) => n.startsWith("MEMORY.md.bak-"))).toBe(true);
    expect(m.store.facts().map((f) => [f.text, f.confidence])).toEqual([["Always run the linter before committing", 0.9]]);
  });
});

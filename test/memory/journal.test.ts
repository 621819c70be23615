// The journal: every change is recorded with its before/after; undoing transactions restores the files exactly
// (property test over random sequences of adds, edits, deletes, profile and daily changes, in both scopes).
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { newFactId } from "../../src/memory/memory-store.ts";
import { scopeDir } from "../../src/memory/paths.ts";
import type { Fact, Scope } from "../../src/memory/types.ts";
import { tempMemory } from "./helpers.ts";

let cleanup: () => void = () => undefined;
afterEach(() => cleanup());

/** A tiny seeded PRNG so a failure names its seed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function snapshot(store: ReturnType<typeof tempMemory>["store"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const scope of ["user", "project"] as Scope[]) {
    const dir = scopeDir(store.paths, scope);
    for (const name of ["facts.json", "profile.json", "topics.json", "projects.json"]) {
      const p = join(dir, name);
      // An emptied document and an absent one hold the same: compare the parsed content.
      const parsed = existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as Record<string, unknown>) : {};
      const body = parsed.facts ?? parsed.profile ?? parsed.items ?? (name === "facts.json" ? [] : {});
      out[`${scope}/${name}`] = JSON.stringify(body);
    }
    const daily = join(dir, "daily");
    for (const d of existsSync(daily) ? readdirSync(daily).sort() : []) out[`${scope}/daily/${d}`] = readFileSync(join(daily, d), "utf8");
  }
  return out;
}

/** One random transaction; its number of real changes (a transaction that changed nothing is not journaled). */
function randomTxn(store: ReturnType<typeof tempMemory>["store"], r: () => number, n: number): number {
  return store.transact(`op${n}`, (tx) => {
    const ops = 1 + Math.floor(r() * 3);
    for (let i = 0; i < ops; i++) {
      const scope: Scope = r() < 0.5 ? "user" : "project";
      const facts = tx.facts(scope);
      const k = r();
      if (k < 0.4 || !facts.length) {
        const f: Fact = { id: newFactId(1_000 + n * 10 + i), text: `fact ${n}.${i} ${Math.floor(r() * 1e6)}`, category: "longterm", scope, confidence: 0.6, created: 1_000 + n, uses: 0, source: { kind: "user" }, status: r() < 0.5 ? "active" : "proposed" };
        tx.putFact(f);
      } else if (k < 0.6) {
        const f = facts[Math.floor(r() * facts.length)]!;
        tx.putFact({ ...f, text: `${f.text} edited`, confidence: Math.round(r() * 100) / 100 });
      } else if (k < 0.75) {
        tx.removeFact(facts[Math.floor(r() * facts.length)]!);
      } else if (k < 0.85) {
        tx.set("user", "profile", `key${Math.floor(r() * 3)}`, r() < 0.3 ? null : { value: `v${n}`, updated: n });
      } else {
        const day = `2026-03-0${1 + Math.floor(r() * 3)}`;
        tx.set(scope, "daily", day, r() < 0.3 ? null : `# ${day}\n\n- note ${n}\n`);
      }
    }
  }).changes;
}

describe("journal and undo", () => {
  test("property: after any sequence of changes, undoing k of them restores the state before those k", () => {
    for (let seed = 1; seed <= 25; seed++) {
      const m = tempMemory();
      try {
        const r = rng(seed);
        const states: Array<Record<string, string>> = [snapshot(m.store)];
        const ops = 3 + Math.floor(r() * 8);
        for (let i = 0; i < ops; i++) if (randomTxn(m.store, r, i) > 0) states.push(snapshot(m.store));
        const n = states.length - 1;
        const k = 1 + Math.floor(r() * n);
        for (let i = 0; i < k; i++) expect(m.store.undo()).toBeDefined();
        expect({ seed, state: snapshot(m.store) }).toEqual({ seed, state: states[n - k]! });
      } finally {
        m.cleanup();
      }
    }
  });

  test("undo with nothing left says so; an undo is not itself undone by the next undo", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    expect(m.store.undo()).toBeUndefined();
    m.store.transact("a", (tx) => tx.putFact({ id: "f1", text: "one", category: "longterm", scope: "user", confidence: 0.9, created: 1, uses: 0, source: { kind: "user" }, status: "active" }));
    m.store.transact("b", (tx) => tx.putFact({ id: "f2", text: "two", category: "longterm", scope: "user", confidence: 0.9, created: 2, uses: 0, source: { kind: "user" }, status: "active" }));
    expect(m.store.undo()!.reason).toBe("b");
    expect(m.store.undo()!.reason).toBe("a");
    expect(m.store.facts()).toHaveLength(0);
    expect(m.store.undo()).toBeUndefined();
  });

  test("a corrupt facts.json is quarantined with a warning, never silently emptied", async () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    m.store.transact("a", (tx) => tx.putFact({ id: "f1", text: "one", category: "longterm", scope: "user", confidence: 0.9, created: 1, uses: 0, source: { kind: "user" }, status: "active" }));
    const path = join(m.store.paths.userDir, "facts.json");
    await Bun.write(path, '{"version":1,"facts":[{"id":');
    expect(m.store.facts("user")).toEqual([]);
    expect(m.warnings.join("\n")).toContain("corrupt");
    const quarantined = readdirSync(m.store.paths.userDir).filter((n) => n.startsWith("facts.json.corrupt-"));
    expect(quarantined).toHaveLength(1);
    expect(readFileSync(join(m.store.paths.userDir, quarantined[0]!), "utf8")).toBe('{"version":1,"facts":[{"id":');
  });
});

describe("two processes writing at once", () => {
  test("no fact is lost", async () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    const script = join(import.meta.dir, "concurrent-writer.ts");
    const procs = [0, 1].map((w) => Bun.spawn([process.execPath, script, m.home, m.project, String(w), "40"], { stdout: "pipe", stderr: "pipe" }));
    const codes = await Promise.all(procs.map((p) => p.exited));
    const errs = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    expect({ codes, errs }).toEqual({ codes: [0, 0], errs: ["", ""] });
    const texts = m.store.facts().map((f) => f.text).sort();
    expect(texts).toHaveLength(80);
    expect(new Set(texts).size).toBe(80);
  }, 60_000);
});

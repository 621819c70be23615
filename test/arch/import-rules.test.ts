// Enforces the layer rule of docs/architecture.md by reading the sources:
// core layers never import ui/ or cli/, and only src/ui/tui imports @opentui/core.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const SRC = join(import.meta.dir, "../../src");

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (/\.(ts|tsx)$/.test(name)) out.push(p);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs: string[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;
  for (const m of text.matchAll(re)) specs.push(m[1] ?? m[2] ?? m[3] ?? "");
  return specs.filter(Boolean);
}

const files = walk(SRC).map((f) => ({ file: f, rel: relative(SRC, f).replaceAll("\\", "/") }));
const CORE = ["protocol/", "llm/", "tool/", "sandbox/", "agent/", "util/", "config/", "store/", "i18n/", "mcp/", "ext/", "memory/", "k8s/", "server/"];
// sandbox/ sits beside tool/: exec and the agent's tool host use it; it must not reach up into agent/.
// The extension capabilities (mcp/, ext/, memory/, k8s/) sit beside agent/; server/ puts a session on the wire, above it.
const ORDER: Record<string, number> = { "util/": 0, "protocol/": 1, "llm/": 2, "tool/": 3, "sandbox/": 3, "agent/": 4, "mcp/": 4, "ext/": 4, "memory/": 4, "k8s/": 4, "server/": 5 };
// Protocol libraries cost start-up time: only `await import()` may load them, so a session that never uses one
// starts as fast as before (a type-only import is erased and allowed).
const LAZY_ONLY = ["@modelcontextprotocol/sdk", "@agentclientprotocol/sdk", "@kubernetes/client-node", "yaml"];

function staticValueImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const re = /^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s*["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;
  return [...text.matchAll(re)].map((m) => m[1] ?? m[2] ?? "").filter(Boolean);
}

function layerOf(rel: string): string | undefined {
  return Object.keys(ORDER).find((l) => rel.startsWith(l));
}

function resolveSpec(fromRel: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const parts = fromRel.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

describe("architecture import rules", () => {
  test("the source tree is scanned", () => {
    expect(files.length).toBeGreaterThan(10);
    expect(files.some((f) => f.rel === "main.ts")).toBe(true);
  });

  test("core layers never import ui/ or cli/", () => {
    const bad: string[] = [];
    for (const { file, rel } of files) {
      if (!CORE.some((c) => rel.startsWith(c))) continue;
      for (const spec of importsOf(file)) {
        const target = resolveSpec(rel, spec);
        if (target && (target.startsWith("ui/") || target.startsWith("cli/") || target === "main.ts")) bad.push(`${rel} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("lower layers never import higher ones (protocol ← llm ← tool ← agent)", () => {
    const bad: string[] = [];
    for (const { file, rel } of files) {
      const from = layerOf(rel);
      if (!from) continue;
      for (const spec of importsOf(file)) {
        const target = resolveSpec(rel, spec);
        if (!target) continue;
        const to = layerOf(`${target}/`) ?? layerOf(target);
        if (to && ORDER[to]! > ORDER[from]!) bad.push(`${rel} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("only src/ui/tui imports @opentui/core", () => {
    const bad = files.filter(({ file, rel }) => !rel.startsWith("ui/tui/") && importsOf(file).some((s) => s.startsWith("@opentui/"))).map((f) => f.rel);
    expect(bad).toEqual([]);
  });

  test("protocol libraries are only loaded lazily (await import)", () => {
    const bad: string[] = [];
    for (const { file, rel } of files) {
      for (const spec of staticValueImports(file)) if (LAZY_ONLY.some((l) => spec === l || spec.startsWith(`${l}/`))) bad.push(`${rel} → ${spec}`);
    }
    expect(bad).toEqual([]);
  });

  test("the checker itself catches a violation", () => {
    expect(resolveSpec("agent/loop.ts", "../ui/tui/app.ts")).toBe("ui/tui/app.ts");
    expect(importsOf(join(SRC, "main.ts")).some((s) => s.includes("ui/"))).toBe(true);
  });
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionWorkspace } from "../../src/store/session-workspace.ts";

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "chatcli-ws-test-"));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const mode = (p: string): number => statSync(p).mode & 0o777;

describe("createSessionWorkspace", () => {
  test("creates chatcli-agent-<random>/ with scratch/ and tool-results/, all 0700", () => {
    const ws = createSessionWorkspace({ env: {}, tmpRoot: base });
    expect(ws.root.startsWith(join(base, "chatcli-agent-"))).toBe(true);
    expect(ws.scratchDir).toBe(join(ws.root, "scratch"));
    expect(ws.toolResultsDir).toBe(join(ws.root, "tool-results"));
    for (const d of [ws.root, ws.scratchDir, ws.toolResultsDir]) {
      expect(statSync(d).isDirectory()).toBe(true);
      expect(mode(d)).toBe(0o700);
    }
    ws.cleanup();
  });

  test("returns the child-process env addition without touching process.env", () => {
    const before = process.env.CHATCLI_AGENT_TMPDIR;
    const ws = createSessionWorkspace({ env: {}, tmpRoot: base });
    expect(ws.childEnv).toEqual({ CHATCLI_AGENT_TMPDIR: ws.scratchDir });
    expect(process.env.CHATCLI_AGENT_TMPDIR).toBe(before);
    ws.cleanup();
  });

  test("defaults to $TMPDIR from the given env", () => {
    const ws = createSessionWorkspace({ env: { TMPDIR: base } });
    expect(ws.root.startsWith(join(base, "chatcli-agent-"))).toBe(true);
    ws.cleanup();
  });

  test("two workspaces never share a directory", () => {
    const a = createSessionWorkspace({ env: {}, tmpRoot: base });
    const b = createSessionWorkspace({ env: {}, tmpRoot: base });
    expect(a.root).not.toBe(b.root);
    a.cleanup();
    b.cleanup();
  });

  test("cleanup removes everything and can be called twice", () => {
    const ws = createSessionWorkspace({ env: {}, tmpRoot: base });
    writeFileSync(join(ws.toolResultsDir, "budget_a_1.txt"), "x");
    expect(ws.cleanup()).toEqual({ removed: true, kept: false });
    expect(existsSync(ws.root)).toBe(false);
    expect(ws.cleanup().removed).toBe(true);
  });

  test("CHATCLI_AGENT_KEEP_TMPDIR=true (any case) keeps it; other values do not", () => {
    for (const v of ["true", "TRUE", " True "]) {
      const ws = createSessionWorkspace({ env: { CHATCLI_AGENT_KEEP_TMPDIR: v }, tmpRoot: base });
      expect(ws.cleanup()).toEqual({ removed: false, kept: true });
      expect(existsSync(ws.toolResultsDir)).toBe(true);
    }
    for (const v of ["false", "1", "yes", ""]) {
      const ws = createSessionWorkspace({ env: { CHATCLI_AGENT_KEEP_TMPDIR: v }, tmpRoot: base });
      expect(ws.cleanup().removed).toBe(true);
      expect(existsSync(ws.root)).toBe(false);
    }
  });

  test("throws when the parent directory is unusable", () => {
    const file = join(base, "not-a-dir");
    writeFileSync(file, "");
    expect(() => createSessionWorkspace({ env: {}, tmpRoot: file })).toThrow();
  });

  test("parallel processes get their own workspace, removed on exit unless kept", async () => {
    const script = join(base, "child.ts");
    const mod = join(import.meta.dir, "../../src/store/session-workspace.ts");
    writeFileSync(
      script,
      `import { createSessionWorkspace } from ${JSON.stringify(mod)};
const ws = createSessionWorkspace({ env: process.env, tmpRoot: ${JSON.stringify(base)} });
process.on("exit", () => ws.cleanup());
await Bun.write(ws.toolResultsDir + "/budget_x_1.txt", "data");
console.log(ws.root);
`,
    );
    const run = (env: Record<string, string>) =>
      Bun.spawn([process.execPath, script], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    const [p1, p2, p3] = [run({}), run({}), run({ CHATCLI_AGENT_KEEP_TMPDIR: "true" })];
    const roots = await Promise.all([p1, p2, p3].map(async (p) => {
      const out = (await new Response(p.stdout).text()).trim();
      expect(await p.exited).toBe(0);
      return out;
    }));
    expect(new Set(roots).size).toBe(3);
    expect(existsSync(roots[0]!)).toBe(false);
    expect(existsSync(roots[1]!)).toBe(false);
    expect(readdirSync(join(roots[2]!, "tool-results"))).toEqual(["budget_x_1.txt"]);
  });
});

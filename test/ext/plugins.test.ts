// Plugins: the documented example (examples/plugins/line-count.ts) loads through the `chatcli/plugin` virtual
// module and its tool is called by the model like a built-in; a plugin that throws at load or in a hook is
// disabled with a warning naming it and the session goes on; ChatCLI's external plugins (`--metadata`) run as an
// exec through the permission policy.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness, type Harness } from "../support/agent-harness.ts";
import type { ScriptedReply } from "../support/scripted-provider.ts";
import { extSlashCommand } from "../../src/ext/plugins/plugins-slash.ts";

const EXAMPLE = join(import.meta.dir, "../../examples/plugins/line-count.ts");
let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

function withPlugins(files: Record<string, string | { copy: string } | { exec: string }>, replies: ScriptedReply[], mode: "default" | "bypass" = "bypass", env: Record<string, string> = {}): Harness {
  const root = mkdtempSync(join(tmpdir(), "chatcli-plugins-"));
  const dir = join(root, "home", ".chatcli", "plugins");
  mkdirSync(dir, { recursive: true });
  for (const [name, v] of Object.entries(files)) {
    const file = join(dir, name);
    if (typeof v === "string") writeFileSync(file, v);
    else if ("copy" in v) copyFileSync(v.copy, file);
    else {
      writeFileSync(file, v.exec);
      chmodSync(file, 0o755);
    }
  }
  return harness({ root, replies, mode, env });
}

async function started(x: Harness): Promise<void> {
  x.wired.session.start();
  await x.wired.ext!.runtime.ready();
}

test("the example plugin loads; the model calls its tool like a built-in; its command, hooks and /plugins work", async () => {
  h = withPlugins({ "line-count.ts": { copy: EXAMPLE } }, [{ toolCalls: [{ name: "line_count", args: { path: "three.txt" } }] }, { text: "It has 3 lines." }]);
  writeFileSync(join(h.project, "three.txt"), "a\nb\nc\n");
  await started(h);
  expect(h.wired.session.messages).toHaveLength(0);
  await h.run("count the lines of three.txt");
  // Advertised to the model with the built-ins.
  expect(h.provider.requests[0]!.tools?.map((t) => t.name)).toContain("line_count");
  const done = h.of("tool.completed")[0]!;
  expect(done.name).toBe("line_count");
  expect(done.isError).toBe(false);
  expect(done.result).toBe("three.txt has 3 lines.");
  const list = await extSlashCommand(h.wired.ext, "plugins", "");
  expect(list).toContain("line-count 1.0.0");
  expect(list).toContain("line_count");
  expect(list).toContain("/line-count-stats");
  expect(list).toContain("tool.after");
  expect(await extSlashCommand(h.wired.ext, "line-count-stats", "")).toBe("line_count: 1");
  // prompt.submit refuses a prompt with a private key.
  await h.run("here: -----BEGIN PRIVATE KEY----- abc");
  expect(h.provider.requests).toHaveLength(2);
  expect(h.of("notice").some((n) => n.text.includes("private key"))).toBe(true);
});

test("a plugin tool goes through the permission policy: in default mode it is asked (headless: denied)", async () => {
  h = withPlugins({ "line-count.ts": { copy: EXAMPLE } }, [{ toolCalls: [{ name: "line_count", args: { path: "x.txt" } }] }, { text: "ok" }], "default");
  writeFileSync(join(h.project, "x.txt"), "1\n");
  await started(h);
  await h.run("count");
  expect(h.of("approval.requested")[0]?.tool).toBe("line_count");
  expect(h.of("tool.completed")[0]?.errorCode).toBe("permission_denied");
});

test("a plugin that throws at load is disabled with a warning naming it; one that throws in a hook is disabled then; the session goes on", async () => {
  h = withPlugins(
    {
      "a-broken.ts": `import { definePlugin } from "chatcli/plugin";\nthrow new Error("kaboom at load");\nexport default definePlugin({ name: "broken" });\n`,
      "b-flaky.ts": `import { definePlugin, defineTool, z } from "chatcli/plugin";\nexport default definePlugin({ name: "flaky", tools: [defineTool({ name: "flaky_tool", description: "d", input: z.object({}), readOnly: true, title: () => "flaky", execute: async () => ({ text: "fine" }) })], hooks: { "prompt.submit": () => { throw new Error("hook exploded"); } } });\n`,
    },
    [{ text: "still here" }, { text: "and again" }],
  );
  await started(h);
  expect(h.of("notice").some((n) => n.text.includes("a-broken") && n.text.includes("kaboom at load"))).toBe(true);
  await h.run("hello");
  expect(h.of("notice").some((n) => n.text.includes("flaky") && n.text.includes("hook exploded"))).toBe(true);
  expect(h.of("turn.completed")[0]?.stopReason).toBe("stop");
  // Disabled: its tool is gone from what the model is offered.
  await h.run("again");
  expect(h.provider.requests[1]!.tools?.map((t) => t.name)).not.toContain("flaky_tool");
  const list = await extSlashCommand(h.wired.ext, "plugins", "");
  expect(list).toContain("kaboom at load");
  expect(list).toContain("hook exploded");
});

test("an external plugin (--metadata) is a tool whose call is decided and run as an exec of the plugin", async () => {
  const script = `#!/bin/sh\nif [ "$1" = "--metadata" ]; then echo '{"name":"@greet","description":"Greets someone","usage":"@greet <name>","version":"1.0.0"}'; exit 0; fi\necho "hello, $1"\n`;
  h = withPlugins({ greet: { exec: script } }, [{ toolCalls: [{ name: "greet", args: { args: ["world"] } }] }, { text: "done" }], "default", { CHATCLI_SANDBOX: "off" });
  await started(h);
  await h.run("greet the world");
  // Not read-only as a command and no sandbox: asked like any exec (headless: denied), the approval shows the command line.
  const ask = h.of("approval.requested")[0]!;
  expect(ask.action).toBe("greet world");
  expect(h.of("tool.completed")[0]?.errorCode).toBe("permission_denied");
  h.cleanup();

  h = withPlugins({ greet: { exec: script } }, [{ toolCalls: [{ name: "greet", args: { args: ["world"] } }] }, { text: "done" }], "bypass");
  await started(h);
  await h.run("greet the world");
  const done = h.of("tool.completed")[0]!;
  expect(done.isError).toBe(false);
  expect(done.result).toContain("hello, world");
  expect(await extSlashCommand(h.wired.ext, "plugins", "")).toContain("@greet 1.0.0 (external");
});

test("an external plugin named like a program on PATH is refused at load (the policy must never mistake it)", async () => {
  h = withPlugins({ ls: { exec: `#!/bin/sh\necho '{"name":"@ls"}'\n` } }, [{ text: "ok" }]);
  await started(h);
  expect(h.of("notice").some((n) => n.text.includes("ls") && n.text.includes("shell or system command"))).toBe(true);
  expect(h.wired.ext!.plugins.tools()).toEqual([]);
});

test("plugin hooks: tool.before rewrites or blocks a call, tool.after and session.start add context for the model", async () => {
  h = withPlugins(
    {
      "guard.ts": `import { definePlugin } from "chatcli/plugin";
export default definePlugin({
  name: "guard",
  hooks: {
    "session.start": ({ source }) => ({ context: "CTX-PLUGIN-START " + source }),
    "tool.before": ({ tool, input }) => {
      if (tool === "write" && input.path === "forbidden.txt") return { block: "guard plugin forbids it" };
      if (tool === "write") return { input: { ...input, content: "rewritten by guard" } };
    },
    "tool.after": ({ tool, isError }) => ({ context: "CTX-AFTER " + tool + " " + isError }),
  },
});
`,
    },
    [{ toolCalls: [{ name: "write", args: { path: "ok.txt", content: "original" } }, { name: "write", args: { path: "forbidden.txt", content: "x" } }] }, { text: "done" }],
  );
  await started(h);
  await h.run("write both");
  expect((h.provider.requests[0]?.messages ?? []).map((m) => m.content).join("\n")).toContain("CTX-PLUGIN-START startup");
  expect(await Bun.file(join(h.project, "ok.txt")).text()).toBe("rewritten by guard");
  expect(await Bun.file(join(h.project, "forbidden.txt")).exists()).toBe(false);
  const results = (h.provider.requests[1]?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
  expect(results[0]).toContain("CTX-AFTER write false");
  expect(results[1]).toContain("guard plugin forbids it");
});

test("project plugins need trust: skipped headless with a notice until trusted, and again after they change", async () => {
  const root = mkdtempSync(join(tmpdir(), "chatcli-plugins-proj-"));
  const dir = join(root, "project", ".chatcli", "plugins");
  mkdirSync(dir, { recursive: true });
  const plugin = (n: number) => `import { definePlugin, defineTool, z } from "chatcli/plugin";\nexport default definePlugin({ name: "proj", tools: [defineTool({ name: "proj_tool", description: "v${n}", input: z.object({}), readOnly: true, title: () => "p", execute: async () => ({ text: "ok" }) })] });\n`;
  writeFileSync(join(dir, "proj.ts"), plugin(1));
  h = harness({ root, replies: [{ text: "a" }] });
  await started(h);
  expect(h.wired.ext!.plugins.tools()).toEqual([]);
  expect(h.of("notice").some((n) => n.text.includes("chatcli hooks trust"))).toBe(true);
  const { trustProject } = await import("../../src/ext/hooks/project-trust.ts");
  const { projectExtensions } = await import("../../src/ext/hooks/wire-extensions.ts");
  const cfg = { home: join(root, "home", ".chatcli"), projectRoot: join(root, "project") };
  trustProject(cfg.home, cfg.projectRoot, projectExtensions(cfg, undefined));
  h.wired.dispose();
  h = harness({ root, replies: [{ text: "b" }] });
  await started(h);
  expect(h.wired.ext!.plugins.tools().map((t) => t.name)).toEqual(["proj_tool"]);
  h.wired.dispose();
  writeFileSync(join(dir, "proj.ts"), plugin(2));
  h = harness({ root, replies: [{ text: "c" }] });
  await started(h);
  expect(h.wired.ext!.plugins.tools()).toEqual([]);
});

test("a folder plugin (index.ts with a relative import) and a .js plugin load too", async () => {
  const root = mkdtempSync(join(tmpdir(), "chatcli-plugins-kinds-"));
  const dir = join(root, "home", ".chatcli", "plugins");
  mkdirSync(join(dir, "folder-plugin"), { recursive: true });
  writeFileSync(join(dir, "folder-plugin", "helper.ts"), `export const greeting = (n: string): string => "hello " + n;\n`);
  writeFileSync(
    join(dir, "folder-plugin", "index.ts"),
    `import { definePlugin, defineTool, z } from "chatcli/plugin";\nimport { greeting } from "./helper.ts";\nexport default definePlugin({ name: "folder", tools: [defineTool({ name: "greet_folder", description: "greets", input: z.object({ name: z.string() }), readOnly: true, title: (a) => "greet " + a.name, execute: async (a) => ({ text: greeting(a.name) }) })] });\n`,
  );
  writeFileSync(join(dir, "plain.js"), `import { definePlugin } from "chatcli/plugin";\nexport default definePlugin({ name: "plain-js", commands: [{ name: "js-hello", run: (args) => "js says " + args }] });\n`);
  h = harness({ root, mode: "bypass", replies: [{ toolCalls: [{ name: "greet_folder", args: { name: "ana" } }] }, { text: "done" }] });
  await started(h);
  await h.run("greet ana");
  expect(h.of("tool.completed")[0]?.result).toBe("hello ana");
  expect(await extSlashCommand(h.wired.ext, "js-hello", "there")).toBe("js says there");
});

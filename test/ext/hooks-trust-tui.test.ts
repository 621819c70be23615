// Project hooks are repository content: the TUI asks on first sight (listing the commands), "always" trusts them
// until they change; headless runs skip untrusted ones with a one-line notice; a change makes them untrusted again.
import { afterEach, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hookedSession, type HookedSession } from "../support/hooked-session.ts";
import { hooksBlock } from "../support/hook-scripts.ts";
import { useTuiHarness } from "../ui/tui/tui-harness.ts";
import { startingExtensionsOnSubscribe } from "../../src/ext/hooks/start-on-subscribe.ts";
import { trustFile } from "../../src/ext/hooks/project-trust.ts";

const tui = useTuiHarness("chatcli-hooks-tui-");
let h: HookedSession | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

test("TUI: the trust question lists the project's hook commands; `a` trusts them; then they fire and block a write on screen", async () => {
  h = hookedSession({
    project: true,
    interactive: true,
    answer: null,
    hooks: (s) =>
      hooksBlock([
        { event: "SessionStart", command: s.command("start", {}) },
        { event: "PreToolUse", matcher: "write", command: s.command("guard", { stderr: "the guard hook says no", exit: 2 }) },
      ]),
    replies: [{ toolCalls: [{ name: "write", args: { path: "x.txt", content: "x" } }] }, { text: "ok, not writing" }],
  });
  // No stand-in person: the TUI's own approval box answers.
  const session = startingExtensionsOnSubscribe(h.wired.session, h.wired.ext, "startup");
  const { setup } = await tui.start({ session, provider: "SCRIPTED", model: "scripted-model" }, { width: 120, height: 40 });
  const asked = await tui.frame((f) => f.includes("Permission required"));
  expect(asked).toContain("hooks or plugins that run commands");
  expect(asked).toContain("guard.sh");
  expect(h.scripts.inputs("start")).toHaveLength(0);
  await Bun.sleep(300); // the approval box ignores keys for a moment after it shows
  setup.mockInput.pressKey("a");
  await h.wired.ext!.runtime.ready();
  expect(existsSync(trustFile(join(h.home, ".chatcli")))).toBe(true);
  expect(h.scripts.inputs("start")).toHaveLength(1);
  await setup.mockInput.typeText("write x");
  setup.mockInput.pressEnter();
  await h.provider.requested(2);
  await h.wired.session.idle();
  const f = await tui.frame((x) => x.includes("ok, not writing"));
  expect(f).toContain("the guard hook says no");
  expect(existsSync(join(h.project, "x.txt"))).toBe(false);
});

test("headless: untrusted project hooks are skipped with one notice; trusted they run; changed they are skipped again", async () => {
  const hooks = (s: import("../support/hook-scripts.ts").HookScripts) => hooksBlock([{ event: "UserPromptSubmit", command: s.command("ups", {}) }]);
  h = hookedSession({ project: true, hooks, replies: [{ text: "a" }] });
  await h.start();
  await h.run("hi");
  expect(h.scripts.inputs("ups")).toHaveLength(0);
  const notices = h.of("notice").filter((n) => n.text.includes("chatcli hooks trust"));
  expect(notices).toHaveLength(1);
  const root = h.root;
  h.cleanup = () => undefined; // keep the dirs for the next sessions
  const { trustProject } = await import("../../src/ext/hooks/project-trust.ts");
  const { projectExtensions, readSettingsHooks } = await import("../../src/ext/hooks/wire-extensions.ts");
  const { loadConfig } = await import("../../src/config/load-config.ts");
  const env = { HOME: join(root, "home"), CHATCLI_HOME: join(root, "home", ".chatcli"), PATH: process.env.PATH ?? "" };
  const cfg = loadConfig({ cwd: join(root, "project"), env, flags: {} });
  trustProject(cfg.home, cfg.projectRoot, projectExtensions(cfg, readSettingsHooks(cfg).projectRaw));

  const { harness } = await import("../support/agent-harness.ts");
  const h2 = harness({ root, replies: [{ text: "b" }] });
  h2.wired.session.start();
  await h2.wired.ext!.runtime.ready();
  await h2.run("again");
  expect(h.scripts.inputs("ups").map((i) => i.prompt)).toEqual(["again"]);
  h2.wired.dispose();

  // The project changes its hooks: untrusted again.
  writeFileSync(join(root, "project", ".chatcli", "settings.json"), JSON.stringify({ hooks: hooksBlock([{ event: "UserPromptSubmit", command: `${h.scripts.command("ups", {})} # changed` }]) }));
  const h3 = harness({ root, replies: [{ text: "c" }] });
  h3.wired.session.start();
  await h3.wired.ext!.runtime.ready();
  await h3.run("third");
  expect(h.scripts.inputs("ups").map((i) => i.prompt)).toEqual(["again"]);
  expect(h3.of("notice").some((n) => n.text.includes("changed"))).toBe(true);
  h3.cleanup();
});

// Subagents in a wired session (the real tool host, policy, recorder): tokens attributed to the child, `/agents`,
// approvals labelled with the child and denied headless, the children listed again after --resume.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../../src/store/session-file.ts";
import { withSubagentCommands } from "../../../src/cli/subagent-commands.ts";
import type { SlashHandler } from "../../../src/cli/slash-commands.ts";
import { harness, type Harness } from "../../support/agent-harness.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const track = (h: Harness) => (cleanups.push(() => h.cleanup()), h);
const none: SlashHandler = { commands: [], handle: () => undefined };

describe("subagents in a session", () => {
  test("the child's tokens are its own in the ledger; /agents lists it; a resumed session lists it again", async () => {
    const h = track(
      harness({
        replies: [
          { toolCalls: [{ name: "agent", args: { agent: "explore", description: "find the port", prompt: "Which port does config.ini set?" } }], inputTokens: 50, outputTokens: 5 },
          { toolCalls: [{ name: "read", args: { path: "config.ini" } }], inputTokens: 200, outputTokens: 20 },
          { text: "port 8080 (config.ini:1)", inputTokens: 300, outputTokens: 30 },
          { text: "The port is 8080.", inputTokens: 60, outputTokens: 6 },
        ],
      }),
    );
    writeFileSync(join(h.project, "config.ini"), "port=8080\n");
    const agents = withSubagentCommands(none, h.wired.subagents, h.wired.session);
    await h.run("what port?");
    const result = h.of("tool.completed").find((e) => e.name === "agent")!;
    expect(result.result).toBe("port 8080 (config.ini:1)");
    const byAgent = h.wired.usage.byAgent();
    expect(byAgent["explore (agent_1)"]).toMatchObject({ calls: 2, inputTokens: 500, outputTokens: 50 });
    expect(byAgent.main).toMatchObject({ calls: 2, inputTokens: 110, outputTokens: 11 });
    expect(h.wired.usage.formatStats()).toContain("explore (agent_1)");
    const list = await agents.handle("agents", "")!;
    expect(list).toContain("explore (agent_1)");
    expect(list).toContain("find the port");
    expect(list).toContain("2 turns");

    h.wired.session.submit({ type: "shutdown" });
    await h.wired.session.idle();
    const loaded = loadSession(h.wired.recorder!.file);
    const again = withSubagentCommands(none, h.wired.subagents, h.wired.session, loaded.viewEvents);
    expect(await again.handle("agents", "")!).toContain("explore (agent_1) · find the port");

    // --resume: the saved child is listed, and a new child's id follows it.
    const second = harness({
      root: h.root,
      resume: loaded,
      replies: [{ toolCalls: [{ name: "agent", args: { agent: "explore", description: "again", prompt: "Look again." } }] }, { text: "second child" }, { text: "ok" }],
    });
    cleanups.push(() => second.wired.dispose());
    const resumedList = withSubagentCommands(none, second.wired.subagents, second.wired.session, loaded.viewEvents);
    await second.run("once more");
    expect(second.of("subagent.started")[0]!.agentId).toBe("agent_2");
    const text = await resumedList.handle("agents", "")!;
    expect(text).toContain("explore (agent_1) · find the port");
    expect(text).toContain("explore (agent_2) · again");
  });

  test("the child's own transcript is saved in the session file (a subagent record) and survives --resume", async () => {
    const h = track(
      harness({
        replies: [
          { toolCalls: [{ name: "agent", args: { agent: "explore", description: "find the port", prompt: "Which port does config.ini set?" } }] },
          { toolCalls: [{ name: "read", args: { path: "config.ini" } }] },
          { text: "port 8080 (config.ini:1)" },
          { text: "The port is 8080." },
        ],
      }),
    );
    writeFileSync(join(h.project, "config.ini"), "port=8080\n");
    await h.run("what port?");
    h.wired.session.submit({ type: "shutdown" });
    await h.wired.session.idle();
    const file = h.wired.recorder!.file;
    const records = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; event?: { type: string; messages?: unknown } });
    // The view record of the child's end carries no copy of the messages: they are in the subagent record only.
    const done = records.find((r) => r.type === "view" && r.event?.type === "subagent.completed")!;
    expect(done.event!.messages).toBeUndefined();
    const loaded = loadSession(file);
    expect(loaded.children).toHaveLength(1);
    const child = loaded.children[0]!;
    expect(child).toMatchObject({ agentId: "agent_1", parentId: "main", agent: "explore", description: "find the port", status: "completed" });
    expect(child.messages[0]).toMatchObject({ role: "user", content: "Which port does config.ini set?" });
    expect(child.messages.some((m) => m.role === "tool" && m.content.includes("port=8080"))).toBe(true);
    expect(child.messages.at(-1)).toMatchObject({ role: "assistant", content: "port 8080 (config.ini:1)" });
    // The main history does not contain the child's messages.
    expect(loaded.history.some((m) => m.content === "Which port does config.ini set?")).toBe(false);

    // --resume and a new turn: the earlier child's transcript is still in the file, next to the new one.
    const second = harness({ root: h.root, resume: loaded, replies: [{ text: "ok" }] });
    cleanups.push(() => second.wired.dispose());
    await second.run("thanks");
    second.wired.session.submit({ type: "shutdown" });
    await second.wired.session.idle();
    expect(loadSession(second.wired.recorder!.file).children.map((c) => c.agentId)).toEqual(["agent_1"]);
    // The resumed session's /agents picker opens the saved child's transcript.
    const resumed = withSubagentCommands(none, second.wired.subagents, second.wired.session, loaded.viewEvents, loaded.children);
    const flow = resumed.picker()!;
    expect(flow.items.map((i) => i.value)).toEqual(["agent_1"]);
    const actions = (await flow.pick("agent_1")) as { items: Array<{ value: string }>; pick(v: string): Promise<unknown> };
    expect(actions.items.map((i) => i.value)).toEqual(["show"]);
    const shown = (await actions.pick("show")) as { notice: string };
    expect(shown.notice).toContain("› Which port does config.ini set?");
    expect(shown.notice).toContain("⎿ read: ");
    expect(shown.notice).toContain("port=8080");
    expect(shown.notice).toContain("port 8080 (config.ini:1)");
  });

  test("a child's write needs approval like the parent's: headless it is denied", async () => {
    const h = track(
      harness({
        replies: [
          { toolCalls: [{ name: "agent", args: { agent: "general", description: "make a file", prompt: "Create out.txt with hi." } }] },
          { toolCalls: [{ name: "write", args: { path: "out.txt", content: "hi" } }] },
          { text: "could not write" },
          { text: "The child could not write." },
        ],
      }),
    );
    await h.run("make out.txt");
    expect(existsSync(join(h.project, "out.txt"))).toBe(false);
    expect(h.denied.length).toBe(1);
    const result = h.of("tool.completed").find((e) => e.name === "agent")!;
    expect(result.result).toBe("could not write");
  });

  test("a child's approval comes to the parent's UI labelled with the child; approving it lets the write happen", async () => {
    const h = track(
      harness({
        interactive: true,
        replies: [
          { toolCalls: [{ name: "agent", args: { agent: "general", description: "make a file", prompt: "Create out.txt with hi." } }] },
          { toolCalls: [{ name: "write", args: { path: "out.txt", content: "hi" } }] },
          { text: "wrote out.txt" },
          { text: "Done." },
        ],
      }),
    );
    const reasons: string[] = [];
    h.wired.session.subscribe((e) => {
      if (e.type !== "approval.requested") return;
      reasons.push(e.reason);
      queueMicrotask(() => h.wired.session.submit({ type: "approval", requestId: e.requestId, decision: "once" }));
    });
    await h.run("make out.txt");
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain("subagent general (agent_1)");
    expect(existsSync(join(h.project, "out.txt"))).toBe(true);
  });
});

// SubagentStart / SubagentStop hooks fire around a child (the hooks runtime of issue 19): Start's context reaches
// the child's first message; Stop sees the agent id and type.
import { afterEach, describe, expect, test } from "bun:test";
import { hookedSession, type HookedSession } from "../../support/hooked-session.ts";
import { hooksBlock } from "../../support/hook-scripts.ts";

let h: HookedSession | undefined;
afterEach(async () => {
  await h?.end();
  h?.cleanup();
  h = undefined;
});

describe("subagent hooks", () => {
  test("SubagentStart adds its context to the child's task; SubagentStop fires with the child's id and type", async () => {
    h = hookedSession({
      hooks: (s) =>
        hooksBlock([
          { event: "SubagentStart", matcher: "explore", command: s.command("sstart", { stdout: { hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "CTX-FOR-CHILD" } } }) },
          { event: "SubagentStop", command: s.command("sstop", {}) },
        ]),
      replies: [{ toolCalls: [{ name: "agent", args: { agent: "explore", description: "look", prompt: "Look around." } }] }, { text: "child report" }, { text: "parent answer" }],
    });
    await h.start();
    await h.run("delegate");
    expect(h.scripts.inputs("sstart")[0]).toMatchObject({ hook_event_name: "SubagentStart", agent_id: "agent_1", agent_type: "explore" });
    expect(h.scripts.inputs("sstop")[0]).toMatchObject({ hook_event_name: "SubagentStop", agent_id: "agent_1", agent_type: "explore" });
    expect(h.requestText(1)).toContain("CTX-FOR-CHILD");
    expect(h.requestText(1)).toContain("Look around.");
  });
});

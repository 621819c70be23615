// The pure half of `chatcli acp`: events and history → session/update, permission options and answers, stop
// reasons, prompt blocks, MCP servers.
import { describe, expect, test } from "bun:test";
import { decisionFor, eventToUpdates, historyToUpdates, mcpConfigFor, newMappingState, permissionOptions, promptText, stopReasonFor, toolKind } from "../../src/server/acp/acp-mapping.ts";

const names = { allowOnce: "Allow once", allowAlways: "Always allow", rejectOnce: "Reject", rejectAlways: "Always reject" };

describe("acp mapping", () => {
  test("tool kinds", () => {
    expect(["read", "write", "edit", "exec", "search", "glob", "fetch", "mcp__x__y"].map(toolKind)).toEqual(["read", "edit", "edit", "execute", "search", "search", "fetch", "other"]);
  });

  test("a tool call's life: pending with absolute locations and a diff, output, completion; the prompt is echoed only in replay", () => {
    const st = newMappingState("/proj");
    expect(eventToUpdates({ type: "turn.started", turnId: "t", input: "hi" }, st)).toEqual([]);
    expect(eventToUpdates({ type: "turn.started", turnId: "t", input: "hi" }, st, true)).toEqual([{ sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } }]);
    const [call] = eventToUpdates({ type: "tool.started", callId: "c1", name: "edit", args: { path: "src/a.ts", old_string: "a", new_string: "b" }, title: "edit src/a.ts", batchId: "b" }, st);
    expect(call).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "c1", kind: "edit", status: "pending", locations: [{ path: "/proj/src/a.ts" }], content: [{ type: "diff", path: "/proj/src/a.ts", oldText: "a", newText: "b" }] });
    expect(st.open.get("c1")).toBe("edit");
    expect(eventToUpdates({ type: "tool.updated", callId: "c1", output: "..." }, st)[0]).toMatchObject({ sessionUpdate: "tool_call_update", status: "in_progress" });
    const [done] = eventToUpdates({ type: "tool.completed", callId: "c1", name: "edit", isError: true, result: "no match", durationMs: 1, batchId: "b" }, st);
    expect(done).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "failed" });
    expect(st.open.size).toBe(0);
  });

  test("text, thinking, plan and mode", () => {
    const st = newMappingState("/p");
    expect(eventToUpdates({ type: "message.delta", messageId: "m", text: "a", thinking: "t" }, st).map((u) => u.sessionUpdate)).toEqual(["agent_thought_chunk", "agent_message_chunk"]);
    expect(eventToUpdates({ type: "todo.updated", items: [{ content: "x", status: "done" }, { content: "y", status: "in_progress" }] }, st)).toEqual([
      { sessionUpdate: "plan", entries: [{ content: "x", priority: "medium", status: "completed" }, { content: "y", priority: "medium", status: "in_progress" }] },
    ]);
    expect(eventToUpdates({ type: "permission_mode.changed", mode: "plan" }, st)).toEqual([{ sessionUpdate: "current_mode_update", currentModeId: "plan" }]);
    expect(eventToUpdates({ type: "permission_mode.changed", mode: "bypass" }, st)).toEqual([]);
  });

  test("history replays user text, answers, tool calls and their results; system and context messages are skipped", () => {
    const ups = historyToUpdates(
      [
        { role: "system", content: "sys" },
        { role: "user", content: "ctx", meta: { kind: "context" } },
        { role: "user", content: "do it" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "write", arguments: '{"path":"f.txt","content":"x"}' }] },
        { role: "tool", toolCallId: "c1", name: "write", content: "Created f.txt" },
        { role: "assistant", content: "done" },
      ],
      "/p",
    );
    expect(ups.map((u) => u.sessionUpdate)).toEqual(["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
    expect(ups[1]).toMatchObject({ kind: "edit", locations: [{ path: "/p/f.txt" }], content: [{ type: "diff", newText: "x" }] });
    expect(ups[2]).toMatchObject({ toolCallId: "c1", status: "completed" });
  });

  test("permission options and answers fail closed", () => {
    const all = permissionOptions(false, names);
    expect(all.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
    const noAlways = permissionOptions(true, names);
    expect(noAlways.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    expect(decisionFor({ outcome: "selected", optionId: "allow_once" }, all)).toBe("once");
    expect(decisionFor({ outcome: "selected", optionId: "allow_always" }, all)).toBe("always");
    expect(decisionFor({ outcome: "selected", optionId: "reject_always" }, all)).toBe("deny_always");
    expect(decisionFor({ outcome: "selected", optionId: "allow_always" }, noAlways)).toBe("deny"); // not offered
    expect(decisionFor({ outcome: "cancelled" }, all)).toBe("deny");
    expect(decisionFor(undefined, all)).toBe("deny");
  });

  test("stop reasons", () => {
    expect(["stop", "interrupted", "max_turns", "content_filter", "length", "error", "stagnation"].map(stopReasonFor)).toEqual(["end_turn", "cancelled", "max_turn_requests", "refusal", "max_tokens", "error", "end_turn"]);
  });

  test("prompt blocks: text, embedded resources, file links; images are refused in words", () => {
    expect(promptText([{ type: "text", text: "look at" }, { type: "resource", resource: { uri: "file:///p/a.ts", text: "code" } }])).toContain("file:///p/a.ts:\n```\ncode\n```");
    expect(promptText([{ type: "resource_link", uri: "file:///p/my%20file.ts", name: "my file.ts" }])).toBe("@/p/my file.ts");
    expect(promptText([{ type: "image", data: "AAAA", mimeType: "image/png" }])).toContain("image not supported");
  });

  test("MCP servers → --mcp-config JSON (stdio, http, sse; names made safe)", () => {
    expect(mcpConfigFor([])).toBeUndefined();
    const json = JSON.parse(
      mcpConfigFor([
        { name: "my server", command: "node", args: ["s.js"], env: [{ name: "K", value: "v" }] },
        { type: "http", name: "web", url: "http://127.0.0.1:1/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] },
        { type: "sse", name: "old", url: "http://127.0.0.1:2/sse", headers: [] },
      ])!,
    ) as { mcpServers: Record<string, unknown> };
    expect(json.mcpServers).toEqual({
      my_server: { type: "stdio", command: "node", args: ["s.js"], env: { K: "v" } },
      web: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer x" } },
      old: { type: "sse", url: "http://127.0.0.1:2/sse" },
    });
  });
});

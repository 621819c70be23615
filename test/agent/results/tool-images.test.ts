// Tool results with images in the result pipeline: microcompact drops an old result's images when it clears its
// text (and only then); the token estimate counts them; on the chat-completions wire they follow the run of tool
// messages with the task anchor still folded into the last tool result.
import { expect, test } from "bun:test";
import type { Message, ToolMessage } from "../../../src/protocol/message.ts";
import type { LlmRequest } from "../../../src/protocol/llm.ts";
import { DEFAULT_MICROCOMPACT_CONFIG, applyMicrocompact } from "../../../src/agent/results/microcompact.ts";
import { estimateMessageTokens } from "../../../src/agent/compaction/tokens.ts";
import { toOpenAiMessages } from "../../../src/llm/providers/openai-chat.ts";
import { strictWireError } from "../../support/strict-wire.ts";
import { assistant, tool, user } from "./history-builders.ts";

const PNG = { mediaType: "image/png", base64: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==" };
const pictured = (id: string): ToolMessage => tool(id, "here is the image\n[image: image/png, 70 B]", "mcp__t__image", { images: [PNG] });

function request(messages: Message[], system: LlmRequest["system"], anchor?: string): LlmRequest {
  return { model: "gpt-4o", system, messages, purpose: "main", ...(anchor ? { anchor } : {}) };
}

function session(turns: number): Message[] {
  const h: Message[] = [user("start")];
  for (let k = 1; k <= turns; k++) h.push(assistant(`turn ${k}`, [`c${k}`, "mcp__t__image"]), pictured(`c${k}`));
  return h;
}

test("microcompact: a cleared old result loses its images; recent and truncated-band ones keep them", () => {
  const h = session(6);
  const out = applyMicrocompact(h, DEFAULT_MICROCOMPACT_CONFIG).messages;
  const at = (k: number) => out[2 * k] as ToolMessage;
  for (const k of [6, 5, 4, 3]) expect(at(k).images).toEqual([PNG]);
  for (const k of [2, 1]) {
    expect(at(k).images).toBeUndefined();
    expect(at(k).content).toContain("Old tool result cleared");
    expect(at(k).content).toContain("1 image(s)");
    expect(at(k).meta?.compacted).toBe("summarized");
  }
  // Idempotent: a second pass changes nothing more.
  expect(applyMicrocompact(out, DEFAULT_MICROCOMPACT_CONFIG).messages.slice(1, 5)).toEqual(out.slice(1, 5));
});

test("the token estimate counts a tool result's images", () => {
  const plain = tool("a", "here is the image\n[image: image/png, 70 B]", "mcp__t__image");
  expect(estimateMessageTokens(pictured("a"))).toBeGreaterThan(estimateMessageTokens(plain) + 100);
});

test("chat-completions: images follow the last tool message of each run; ids stay paired; the anchor stays in the tool text", () => {
  const messages: Message[] = [
    user("look"),
    { role: "assistant", content: "", toolCalls: [{ id: "a1", name: "mcp__t__image", arguments: "{}" }, { id: "a2", name: "read_file", arguments: "{}" }] },
    pictured("a1"),
    tool("a2", "file text", "read_file"),
    { role: "assistant", content: "", toolCalls: [{ id: "b1", name: "mcp__t__image", arguments: "{}" }] },
    pictured("b1"),
  ];
  const wire = toOpenAiMessages(request(messages, [{ text: "sys" }], "[task: look]"));
  expect(wire.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "user", "assistant", "tool", "user"]);
  expect(strictWireError("/v1/chat/completions", { messages: wire })).toBeUndefined();
  expect(String(wire[7]!.content)).toEndWith("[task: look]");
  const parts = wire[5]!.content as Array<{ type: string; text?: string }>;
  expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
  expect(parts[0]!.text).toContain("a1");
  // A run without images adds nothing.
  const plain = toOpenAiMessages(request([...messages.slice(0, 2), tool("a1", "x"), tool("a2", "y")], []));
  expect(plain.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
});

test("the strict fakes refuse what the real servers refuse: an image part in a chat-completions tool message, a bad image in a tool_result", () => {
  const url = `data:image/png;base64,${PNG.base64}`;
  const openAi = [
    { role: "assistant", content: null, tool_calls: [{ id: "a1", type: "function", function: { name: "x", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "a1", content: [{ type: "image_url", image_url: { url } }] },
  ];
  expect(strictWireError("/v1/chat/completions", { messages: openAi })).toContain("only text parts");
  const anthropic = (source: Record<string, unknown>) => [
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "x" }, { type: "image", source }] }] },
  ];
  expect(strictWireError("/v1/messages", { messages: anthropic({ type: "base64", media_type: "image/png", data: PNG.base64 }) })).toBeUndefined();
  expect(strictWireError("/v1/messages", { messages: anthropic({ type: "base64", media_type: "image/svg+xml", data: PNG.base64 }) })).toContain("media_type");
});

/**
 * The seed ChatCLI's delegation markup: `<agent_call agent="explore" task="find the config loader"/>` (also with a
 * body as the task: `<agent_call agent="explore">task</agent_call>`). Becomes a call of the `agent` tool
 * (src/agent/subagents/agent-tool.ts reads `agent` and `task`).
 */
import type { Dialect } from "./dialect.ts";
import { decodeAttr, readTagHead } from "../tag-head.ts";

const OPEN = "<agent_call";

export const agentCall: Dialect = {
  id: "agent-call",
  triggers: [OPEN],
  starts: (text, i) => text[i] === "<" && text.slice(i, i + OPEN.length).toLowerCase() === OPEN && /[\s/>]/.test(text[i + OPEN.length] ?? ""),
  scan(text, i) {
    const head = readTagHead(text, i + OPEN.length);
    const args: Record<string, string> = {};
    for (const a of head.attrs) args[a.key.toLowerCase()] = decodeAttr(a);
    let end = head.end;
    if (head.kind === "open") {
      const close = text.toLowerCase().indexOf("</agent_call>", end);
      const body = text.slice(end, close < 0 ? text.length : close).trim();
      if (body && !args.task && !args.prompt) args.task = body;
      end = close < 0 ? text.length : close + "</agent_call>".length;
    }
    const raw = text.slice(i, end);
    if (!args.task && !args.prompt) return { end, candidates: [], errors: [`The <agent_call> tag needs a task: <agent_call agent="explore" task="what to do"/>.`] };
    return { end, candidates: [{ name: "agent", args: { kind: "value", value: args }, raw, repaired: head.kind === "unterminated" }], errors: [] };
  },
};

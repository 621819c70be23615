/**
 * Reads ChatCLI's own session JSON (v2 `{"version":2,"chat_history":[…]}`, or the legacy bare message array)
 * into our Message list. ChatCLI's tool calls carry arguments as a JSON object (or a `raw` string); ours keep the
 * raw JSON text. Its tool results lack the tool name, which is recovered from the matching call.
 */
import { z } from "zod";
import { t } from "../i18n/i18n.ts";
import type { Message, ToolCall } from "../protocol/message.ts";

const v2ToolCall = z.object({
  id: z.string().optional(),
  type: z.string().optional(),
  name: z.string().optional(),
  function: z.object({ name: z.string().optional(), arguments: z.unknown().optional() }).optional(),
  arguments: z.unknown().optional(),
  raw: z.string().optional(),
});

const v2Message = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullish(),
  meta: z.object({ is_summary: z.boolean().optional(), preserve_verbatim: z.boolean().optional() }).nullish(),
  tool_calls: z.array(v2ToolCall).nullish(),
  tool_call_id: z.string().nullish(),
  is_error: z.boolean().nullish(),
  error_code: z.string().nullish(),
  system_parts: z.array(z.unknown()).nullish(),
  images: z.array(z.unknown()).nullish(),
});

const v2File = z.object({
  version: z.number(),
  title: z.string().optional(),
  // Messages are validated one by one below, so one odd entry does not reject the file.
  chat_history: z.array(z.unknown()).nullish(),
  agent_history: z.array(z.unknown()).nullish(),
  coder_history: z.array(z.unknown()).nullish(),
});

export interface ImportedChatcli {
  title?: string;
  messages: Message[];
  /** Messages that could not be converted (unknown shapes are skipped, never fatal). */
  skipped: number;
}

export function parseChatcliSession(text: string): ImportedChatcli | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return t("import.notJson", { error: (err as Error).message });
  }
  let list: unknown[];
  let title: string | undefined;
  if (Array.isArray(raw)) list = raw;
  else {
    const f = v2File.safeParse(raw);
    if (!f.success) return t("import.notSession", { error: f.error.issues[0]?.message ?? "invalid" });
    if (f.data.version > 2) return t("import.badVersion", { version: f.data.version });
    list = [...(f.data.chat_history ?? []), ...(f.data.agent_history ?? []), ...(f.data.coder_history ?? [])];
    title = f.data.title;
  }
  const messages: Message[] = [];
  const callNames = new Map<string, string>();
  let skipped = 0;
  for (const item of list) {
    const p = v2Message.safeParse(item);
    if (!p.success) {
      skipped++;
      continue;
    }
    const m = p.data;
    const content = m.content ?? "";
    const meta = m.meta?.is_summary ? { kind: "summary" as const } : m.meta?.preserve_verbatim ? { verbatim: true } : undefined;
    switch (m.role) {
      case "system":
      case "user":
        messages.push(meta ? { role: m.role, content, meta } : { role: m.role, content });
        break;
      case "assistant": {
        const calls: ToolCall[] = (m.tool_calls ?? []).map((c, i) => {
          const name = c.name ?? c.function?.name ?? "unknown";
          const id = c.id || `imported_${messages.length}_${i}`;
          callNames.set(id, name);
          return { id, name, arguments: argsText(c.raw, c.arguments ?? c.function?.arguments) };
        });
        const a: Message = { role: "assistant", content };
        if (calls.length) a.toolCalls = calls;
        if (meta) a.meta = meta;
        messages.push(a);
        break;
      }
      case "tool": {
        const id = m.tool_call_id ?? "";
        const t: Message = { role: "tool", toolCallId: id, name: callNames.get(id) ?? "tool", content };
        if (m.is_error) t.isError = true;
        if (m.error_code) t.errorCode = m.error_code;
        messages.push(t);
        break;
      }
    }
  }
  return { ...(title ? { title } : {}), messages, skipped };
}

function argsText(raw: string | undefined, args: unknown): string {
  if (typeof args === "string") return args;
  if (args && typeof args === "object") return JSON.stringify(args);
  return raw ?? "{}";
}

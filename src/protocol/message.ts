/**
 * Conversation messages: the one history shared by chat and agent work.
 * Discriminated on `role`. Every message crossing a file boundary (sessions) is parsed with `messageSchema`.
 */
import { z } from "zod";

export const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Raw JSON text of the arguments, exactly as the model produced them (after repair for text protocol). */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const messageMetaSchema = z.object({
  /** Never trimmed or summarized by compaction. */
  verbatim: z.boolean().optional(),
  /** What produced the message when it is not plain conversation. */
  kind: z.enum(["summary", "context", "tool_feedback", "notice", "continuation"]).optional(),
  /** Where a tool result's full text was saved on disk (budget stage). */
  savedPath: z.string().optional(),
  /** Size of a tool result before any truncation/compaction, in characters. */
  originalChars: z.number().optional(),
  /** Line count of a tool result before any truncation/compaction (keeps the cleared-result stub truthful). */
  originalLines: z.number().optional(),
  /** Set once microcompaction has replaced the content. */
  compacted: z.enum(["truncated", "summarized"]).optional(),
  createdAt: z.number().optional(),
});
export type MessageMeta = z.infer<typeof messageMetaSchema>;

export const imagePartSchema = z.object({ mediaType: z.string(), base64: z.string() });
export type ImagePart = z.infer<typeof imagePartSchema>;

export const systemMessageSchema = z.object({
  role: z.literal("system"),
  content: z.string(),
  meta: messageMetaSchema.optional(),
});
export const userMessageSchema = z.object({
  role: z.literal("user"),
  content: z.string(),
  images: z.array(imagePartSchema).optional(),
  meta: messageMetaSchema.optional(),
});
export const assistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string(),
  thinking: z.string().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  meta: messageMetaSchema.optional(),
});
export const toolMessageSchema = z.object({
  role: z.literal("tool"),
  toolCallId: z.string(),
  name: z.string(),
  content: z.string(),
  /** Images the tool returned (an MCP tool's image blocks). Sent only to a vision model; `content` describes them
   * (`[image: image/png, 12.3 KB]`) so a text-only model — or a wire without room for them — still reads something. */
  images: z.array(imagePartSchema).optional(),
  isError: z.boolean().optional(),
  errorCode: z.string().optional(),
  meta: messageMetaSchema.optional(),
});

export const messageSchema = z.discriminatedUnion("role", [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

export type SystemMessage = z.infer<typeof systemMessageSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolMessage = z.infer<typeof toolMessageSchema>;
export type Message = z.infer<typeof messageSchema>;

export function userMessage(content: string, meta?: MessageMeta): UserMessage {
  return meta ? { role: "user", content, meta } : { role: "user", content };
}

export function toolResultMessage(
  toolCallId: string,
  name: string,
  content: string,
  isError = false,
  errorCode?: string,
): ToolMessage {
  const m: ToolMessage = { role: "tool", toolCallId, name, content };
  if (isError) m.isError = true;
  if (errorCode) m.errorCode = errorCode;
  return m;
}

/** OPENAI: chat completions over SSE (`OPENAI_API_KEY`, `OPENAI_BASE_URL`). */
import { registerProvider } from "../registry.ts";
import { OpenAiChatProvider } from "./openai-chat.ts";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

registerProvider({
  id: "OPENAI",
  displayName: "OpenAI",
  envKeys: ["OPENAI_API_KEY"],
  needsAuth: true,
  defaultModel: "gpt-5.4",
  baseUrlEnv: "OPENAI_BASE_URL",
  defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
  capabilities: { streaming: true, nativeTools: true, images: true, promptCaching: true, local: false },
  create: (ctx) =>
    new OpenAiChatProvider({
      id: "OPENAI",
      env: ctx.env,
      fetch: ctx.fetch,
      baseUrl: ctx.baseUrl,
      maxTokensField: "max_completion_tokens",
      auth: async () => ({ headers: ctx.apiKey ? { authorization: `Bearer ${ctx.apiKey}` } : ({} as Record<string, string>) }),
    }),
});

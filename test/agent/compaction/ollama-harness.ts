/** A real Session built by wireSession against the fake Ollama server, in a temp project and home. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../../src/llm/providers/index.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { resolveModel } from "../../../src/cli/resolve-model.ts";
import { wireSession, type WiredSession } from "../../../src/cli/wire-session.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import { startFakeOllama, type FakeModel, type FakeOllama, type FakeReply } from "../../support/fake-ollama.ts";

export interface OllamaHarness {
  root: string;
  project: string;
  home: string;
  fake: FakeOllama;
  wired: WiredSession;
  events: AgentEvent[];
  of<T extends AgentEvent["type"]>(type: T): Array<Extract<AgentEvent, { type: T }>>;
  run(text: string): Promise<void>;
  cleanup(): void;
}

export async function ollamaHarness(opts: {
  replies?: FakeReply[];
  defaultReply?: FakeReply;
  model?: FakeModel;
  env?: Record<string, string>;
  /** Use this server instead of starting one (e.g. a router in front of two fakes). */
  url?: string;
  fake?: FakeOllama;
}): Promise<OllamaHarness> {
  const root = mkdtempSync(join(tmpdir(), "chatcli-compaction-"));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const model = opts.model ?? { name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] };
  const fake = opts.fake ?? startFakeOllama({ models: [model], replies: opts.replies ?? [], ...(opts.defaultReply ? { defaultReply: opts.defaultReply } : {}) });
  const env: Record<string, string> = {
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    TMPDIR: root,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    OLLAMA_HOST: opts.url ?? fake.url,
    LLM_PROVIDER: "OLLAMA",
    OLLAMA_MODEL: model.name,
    MAX_RETRIES: "0",
    ...opts.env,
  };
  const cfg = loadConfig({ cwd: project, env, flags: { provider: "OLLAMA", model: model.name } });
  const resolved = await resolveModel(cfg);
  const wired = wireSession({ cfg, resolved, permissionMode: "bypass", interactive: false, record: false, summaries: false } as Parameters<typeof wireSession>[0]);
  const events: AgentEvent[] = [];
  wired.session.subscribe((e) => events.push(e));
  return {
    root,
    project,
    home,
    fake,
    wired,
    events,
    of: <T extends AgentEvent["type"]>(type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
    run: async (text) => {
      wired.session.submit({ type: "user_input", text });
      await wired.session.idle();
    },
    cleanup: () => {
      wired.dispose();
      if (!opts.fake) fake.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

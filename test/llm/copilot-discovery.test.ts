import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { discoverProviders, formatProvidersTable } from "../../src/llm/discovery.ts";
import { deviceLogin, loadCopilotAuth, saveCopilotAuth, copilotTokenPath, CopilotAuthError } from "../../src/llm/providers/copilot-auth.ts";
import { registerOpenAiCompatibleFromSettings } from "../../src/llm/providers/openai-compatible.ts";
import { createProvider } from "../../src/llm/registry.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { FAST, collect, last, request, text } from "./helpers.ts";

let fake: FakeSseServer | undefined;
const dirs: string[] = [];
afterEach(() => {
  fake?.stop();
  fake = undefined;
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "chatcli-copilot-"));
  dirs.push(d);
  return d;
};

describe("Copilot device login", () => {
  test("polls with the interval, slow_down adds 5 s, token saved 0600", async () => {
    fake = startFakeSse({
      json: {
        "/login/device/code": [{ body: { device_code: "dc1", user_code: "ABCD-1234", verification_uri: "https://github.com/login/device", expires_in: 900, interval: 5 } }],
        "/login/oauth/access_token": [
          { body: { error: "authorization_pending" } },
          { body: { error: "slow_down" } },
          { body: { access_token: "gho_secret", token_type: "bearer", scope: "read:user" } },
        ],
      },
    });
    const home = tmp();
    const tokenPath = join(home, "auth", "copilot.json");
    const sleeps: number[] = [];
    const codes: string[] = [];
    await deviceLogin({
      fetch,
      clientId: "client-x",
      onCode: (code, uri) => codes.push(`${code} ${uri}`),
      tokenPath,
      githubBaseUrl: fake.url,
      sleep: async (ms) => (sleeps.push(ms), true),
    });
    expect(codes).toEqual(["ABCD-1234 https://github.com/login/device"]);
    expect(sleeps).toEqual([5000, 5000, 10000]);
    expect(loadCopilotAuth(tokenPath)?.oauthToken).toBe("gho_secret");
    expect(statSync(tokenPath).mode & 0o777).toBe(0o600);
    const poll = fake.requests.find((r) => r.path === "/login/oauth/access_token");
    expect(poll?.body).toMatchObject({ client_id: "client-x", device_code: "dc1", grant_type: "urn:ietf:params:oauth:grant-type:device_code" });
  });

  test("access_denied ends the login; an abort cancels the wait", async () => {
    fake = startFakeSse({
      json: {
        "/login/device/code": [{ body: { device_code: "d", user_code: "U", verification_uri: "v", interval: 1 } }],
        "/login/oauth/access_token": [{ body: { error: "access_denied" } }],
      },
    });
    const tokenPath = join(tmp(), "copilot.json");
    const base = { fetch, onCode: () => undefined, tokenPath, githubBaseUrl: fake.url };
    await expect(deviceLogin({ ...base, sleep: async () => true })).rejects.toMatchObject({ code: "access_denied" });
    const err = await deviceLogin({ ...base, sleep: async () => false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CopilotAuthError);
    expect((err as CopilotAuthError).code).toBe("aborted");
  });

  test("the provider exchanges the stored token and streams chat completions", async () => {
    fake = startFakeSse({
      json: { "/copilot_internal/v2/token": [{ body: { token: "tid=copilot-xyz", expires_at: Math.floor(Date.now() / 1000) + 1800, refresh_in: 1500 } }] },
      replies: [{ fixture: "openai-text.sse" }],
    });
    const home = tmp();
    const env = { CHATCLI_HOME: home, COPILOT_GITHUB_API_URL: fake.url, COPILOT_BASE_URL: fake.url, ...FAST };
    saveCopilotAuth(copilotTokenPath(env), { oauthToken: "gho_stored" });
    const evs = await collect(createProvider("COPILOT", env).stream(request()));
    expect(text(evs)).toBe("Hello, world!");
    const exch = fake.requests.find((r) => r.path === "/copilot_internal/v2/token");
    expect(exch?.headers.authorization).toBe("token gho_stored");
    const chat = fake.requests.find((r) => r.path === "/chat/completions");
    expect(chat?.headers.authorization).toBe("Bearer tid=copilot-xyz");
    expect(chat?.headers["copilot-integration-id"]).toBeTruthy();
  });

  test("without a login the stream ends in an auth error", async () => {
    const evs = await collect(createProvider("COPILOT", { CHATCLI_HOME: tmp(), ...FAST }).stream(request()));
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "auth" } });
  });
});

describe("OpenAI-compatible family and discovery", () => {
  test("a vendor uses its key, its <ID>_BASE_URL and max_tokens", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse" }] });
    const evs = await collect(createProvider("XAI", { XAI_API_KEY: "xai-k", XAI_BASE_URL: fake.url, ...FAST }).stream(request({ model: "grok-4-1", maxOutputTokens: 10 })));
    expect(last(evs)?.type).toBe("done");
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer xai-k");
    expect(fake.streamBodies()[0]?.max_tokens).toBe(10);
  });

  test("user-defined keyless server: no auth header, discovered by its /models answer", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse" }], json: { "/v1/models": [{ body: { data: [{ id: "local-model" }] } }] } });
    const [def] = registerOpenAiCompatibleFromSettings([{ name: "LM Studio", baseUrl: `${fake.url}/v1`, models: ["local-model"] }]);
    expect(def?.id).toBe("LM_STUDIO");
    expect(def?.defaultModel).toBe("local-model");
    const evs = await collect(createProvider("LM_STUDIO", FAST).stream(request({ model: "local-model" })));
    expect(last(evs)?.type).toBe("done");
    expect(fake.requests.find((r) => r.path === "/v1/chat/completions")?.headers.authorization).toBeUndefined();
    const rows = await discoverProviders({ OPENAI_API_KEY: "x", OLLAMA_HOST: fake.url, CHATCLI_HOME: tmp() });
    const lm = rows.find((r) => r.id === "LM_STUDIO");
    expect(lm).toMatchObject({ available: true, reason: `LM Studio answering at ${fake.url}/v1` });
  });

  test("rows say why: key set, key missing, Ollama answering or not", async () => {
    fake = startFakeSse({ json: { "/api/version": [{ body: { version: "0.12.0" } }] } });
    const env = { OPENAI_API_KEY: "x", GOOGLE_API_KEY: "g", OLLAMA_HOST: fake.url, CHATCLI_HOME: tmp() };
    const rows = await discoverProviders(env);
    const by = (id: string) => rows.find((r) => r.id === id);
    expect(by("OPENAI")).toMatchObject({ available: true, reason: "OPENAI_API_KEY set", defaultModel: "gpt-5.4" });
    expect(by("GOOGLEAI")).toMatchObject({ available: true, reason: "GOOGLE_API_KEY set" });
    expect(by("CLAUDEAI")).toMatchObject({ available: false, reason: "set ANTHROPIC_API_KEY or CLAUDEAI_API_KEY" });
    expect(by("OLLAMA")).toMatchObject({ available: true, reason: `Ollama answering at ${fake.url}` });
    expect(by("COPILOT")?.available).toBe(false);
    const down = await discoverProviders({ ...env, OLLAMA_HOST: "http://127.0.0.1:1" });
    expect(down.find((r) => r.id === "OLLAMA")).toMatchObject({ available: false, reason: "Ollama not reachable at http://127.0.0.1:1" });
    const table = formatProvidersTable(rows);
    expect(table.split("\n")[0]).toContain("PROVIDER");
    expect(table).toContain("set ANTHROPIC_API_KEY or CLAUDEAI_API_KEY");
    expect(table.indexOf("OPENAI")).toBeLessThan(table.indexOf("CLAUDEAI"));
  });
});

import { describe, expect, test } from "bun:test";
import { childEnv, isSecret } from "../../src/sandbox/child-env.ts";
import "../../src/llm/providers/index.ts";
import { listProviderDefinitions } from "../../src/llm/registry.ts";

describe("the exec environment drops secrets", () => {
  const env = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    PWD: "/p",
    LANG: "C.UTF-8",
    OPENAI_API_KEY: "sk-1",
    ANTHROPIC_API_KEY: "sk-ant",
    GITHUB_TOKEN: "ghp_x",
    GH_TOKEN: "ghp_y",
    AWS_SECRET_ACCESS_KEY: "aws",
    AWS_SESSION_TOKEN: "tok",
    AWS_ACCESS_KEY_ID: "AKIA",
    STRIPE_SECRET_KEY: "sk_live",
    DB_PASSWORD: "pw",
    MYSQL_PWD_PASSWD: "pw2",
    GOOGLE_APPLICATION_CREDENTIALS: "/k.json",
    npm_config__authToken_TOKEN: "t",
    SSH_PRIVATE_KEY_FILE: "/k",
    DATABASE_URL: "postgres://app:hunter2@db:5432/x",
    PLAIN_URL: "https://example.com/a:b@c",
    MY_PROVIDER_VAR: "not-a-key-name",
    CHATCLI_AGENT_TMPDIR: "/tmp/x",
  };

  test("by name and by URL password; ordinary variables pass", () => {
    const r = childEnv(env, { secretNames: ["MY_PROVIDER_VAR"] });
    expect(Object.keys(r.env).sort()).toEqual(["CHATCLI_AGENT_TMPDIR", "HOME", "LANG", "PATH", "PLAIN_URL", "PWD"].sort());
    expect(r.dropped).toContain("DATABASE_URL");
    expect(r.dropped).toContain("MY_PROVIDER_VAR");
    expect(r.dropped).toContain("AWS_ACCESS_KEY_ID");
  });

  test("every registered provider's key variable is dropped even without a secret-looking name", () => {
    const names = listProviderDefinitions().flatMap((d) => d.envKeys);
    expect(names.length).toBeGreaterThan(3);
    const r = childEnv(Object.fromEntries(names.map((n) => [n, "v"])), { secretNames: names });
    expect(r.env).toEqual({});
  });

  test("the settings allowlist passes names (and * patterns) anyway", () => {
    const r = childEnv(env, { allow: ["GITHUB_TOKEN", "AWS_*"] });
    expect(r.env.GITHUB_TOKEN).toBe("ghp_x");
    expect(r.env.AWS_SECRET_ACCESS_KEY).toBe("aws");
    expect(r.env.AWS_SESSION_TOKEN).toBe("tok");
    expect(r.env.OPENAI_API_KEY).toBeUndefined();
    expect(r.env.GH_TOKEN).toBeUndefined();
  });

  test("isSecret is case-insensitive on names and never fooled by PWD", () => {
    expect(isSecret("openai_api_key", "x")).toBe(true);
    expect(isSecret("Some_Token", "x")).toBe(true);
    expect(isSecret("PWD", "/x")).toBe(false);
    expect(isSecret("OLDPWD", "/x")).toBe(false);
    expect(isSecret("KEYBOARD", "us")).toBe(false);
  });
});

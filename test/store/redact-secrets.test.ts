import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.ts";
import { createArchiver } from "../../src/agent/compaction/archive.ts";
import { createRedactor, REDACTED } from "../../src/store/redact.ts";
import { SessionStore } from "../../src/store/session-store.ts";
import { Logger } from "../../src/util/logger.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-redact-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// Built at run time so this file does not itself hold key-shaped strings.
const k = (prefix: string, n: number, ch = "a1B2") => prefix + ch.repeat(Math.ceil(n / ch.length)).slice(0, n);
const PEM = `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${"x".repeat(40)}\nabcDEF123\n-----END RSA PRIVATE KEY-----`;

describe("session files keep no secrets", () => {
  test(".env values of any name, URL passwords and key shapes are redacted in a real session file", () => {
    const project = join(dir, "project");
    mkdirSync(project, { recursive: true });
    const dotenv = {
      STRIPE_SECRET_KEY: k("sk_live_", 24),
      API_KEY: "plainApiKeyValue9",
      DATABASE_URL: "postgres://app:pw-Hunter22@db.internal:5432/app",
      MY_WEIRD_NAME: "q8Zr!vX2pL0w",
      NODE_ENV: "development",
      PORT: "3000",
    };
    writeFileSync(join(project, ".env"), Object.entries(dotenv).map(([a, b]) => `${a}=${b}`).join("\n") + "\n");
    const cfg = loadConfig({ cwd: project, env: { HOME: dir, CHATCLI_HOME: join(dir, "home") }, flags: {} });
    const store = new SessionStore({ home: cfg.home, env: cfg.env });
    const shapes = [k("sk-proj-", 30), k("ghp_", 36), k("github_pat_", 50, "aB3_"), k("AKIA", 16, "ABCD2345"), k("xoxb-", 20, "12-ab"), `eyJ${k("", 20)}.eyJ${k("", 20)}.${k("", 30)}`, PEM];
    const said = [
      `the key is ${dotenv.STRIPE_SECRET_KEY} and ${dotenv.API_KEY}`,
      `connect with ${dotenv.DATABASE_URL} or mysql://root:toor1234@localhost/db`,
      `weird ${dotenv.MY_WEIRD_NAME}`,
      ...shapes.map((s) => `found ${s}`),
      "NODE_ENV is development on port 3000",
    ];
    const w = store.writer("s-1");
    w.append({ type: "meta", id: "s-1", title: said[0] as string, cwd: project, projectRoot: project, provider: "X", model: "m", createdAt: 1 });
    for (const content of said) w.append({ type: "message", message: { role: "user", content } });
    w.close();
    const text = readFileSync(store.fileFor("s-1"), "utf8");
    for (const secret of [dotenv.STRIPE_SECRET_KEY, dotenv.API_KEY, "pw-Hunter22", "toor1234", dotenv.MY_WEIRD_NAME, ...shapes, "MIIEowIBAAKCAQEA", "abcDEF123"]) {
      expect({ secret, leaked: text.includes(secret) }).toEqual({ secret, leaked: false });
    }
    expect(text).toContain("mysql://root:[REDACTED]@localhost/db");
    expect(text).toContain("-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----");
    // Ordinary values from the same .env stay readable.
    expect(text).toContain("NODE_ENV is development on port 3000");
  });
});

describe("archives and logs are redacted too", () => {
  test("a compaction archive and a log line", () => {
    const secret = "tok-9f8e7d6c5b4a";
    const redact = createRedactor({ GITHUB_TOKEN: secret }, []);
    const archive = createArchiver(join(dir, "arch"), { sessionId: "s", redact });
    const file = archive([{ role: "user", content: `use ${secret} with https://u:p4ssw0rd@h/x` }]);
    const text = readFileSync(file as string, "utf8");
    expect(text).not.toContain(secret);
    expect(text).not.toContain("p4ssw0rd");
    expect(text).toContain(REDACTED);
    const log = new Logger(join(dir, "logs"));
    log.addScrubber(redact);
    log.info(`calling with ${secret} and ${k("sk_live_", 24)}`);
    const logged = readFileSync(join(dir, "logs", readdirSync(join(dir, "logs"))[0] as string), "utf8");
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain("sk_live_");
  });
});

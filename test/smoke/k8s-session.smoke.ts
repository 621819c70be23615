// The Kubernetes watch inside a session, through the compiled binary (issue 23): settings `k8s.watch` gives a `-p` run
// the read-only k8s_* tools (the scripted model calls k8s_logs and gets the log lines back), and `chatcli watch
// --analyze` asks the model for a diagnosis of the findings. Fake Ollama + the fake HTTPS API server; no Secret asked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { hasOpenssl, makeKubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube } from "../support/fake-kube-api.ts";
import { kubeFixtures } from "../support/kube-fixtures.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";

const TOKEN = "session-token";
const MODEL = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };

type Msg = { role: string; content: string; tool_name?: string };
const toolNames = (req: { tools?: unknown }) => ((req.tools ?? []) as Array<{ function: { name: string } }>).map((x) => x.function.name);

describe.skipIf(!hasOpenssl())("the watch in a session (compiled binary)", () => {
  let b: BinaryEnv;
  let kube: FakeKube;
  let fake: FakeOllama;
  let kc: string;
  const settings = (value: unknown) => {
    mkdirSync(join(b.home, ".chatcli"), { recursive: true });
    writeFileSync(join(b.home, ".chatcli", "settings.json"), JSON.stringify(value));
  };
  beforeAll(() => {
    b = isolatedBinary();
    kube = startFakeKube({ pki: makeKubePki(), token: TOKEN, state: kubeFixtures(Date.now()) });
    fake = startFakeOllama({ models: [MODEL] });
    kc = kube.writeKubeconfig(b.home, { namespace: "shop" });
  }, 60_000);
  afterAll(() => {
    kube?.stop();
    fake?.stop();
    b?.cleanup();
  }, 60_000);

  test("settings k8s.watch: the first request offers the k8s_* tools; k8s_logs brings the previous log lines back", async () => {
    settings({ k8s: { watch: { namespace: "shop", deployment: "api", interval: "30s" } } });
    const before = fake.chatRequests().length;
    fake.enqueue({ toolCalls: [{ name: "k8s_logs", arguments: { pod: "api-crash", previous: true, tail: 5 } }], chunks: [] }, { text: "The api cannot reach its database." });
    const r = await run(b, ["-p", "why does api-crash restart?", "--model", "coder:7b", "--output-format", "json"], { OLLAMA_HOST: fake.url, KUBECONFIG: kc });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", result: "The api cannot reach its database." });
    const [first, second] = fake.chatRequests().slice(before);
    expect(toolNames(first!)).toEqual(expect.arrayContaining(["k8s_get", "k8s_logs", "k8s_events", "k8s_describe"]));
    const system = (first!.messages as Msg[]).find((m) => m.role === "system")!.content;
    expect(system).toContain('Kubernetes watch is active on the cluster context "fake", namespace "shop", deployment "api"');
    expect(system).toContain("kubectl rollout restart");
    const toolMsg = (second!.messages as Msg[]).find((m) => m.role === "tool")!;
    expect(toolMsg.tool_name).toBe("k8s_logs");
    expect(toolMsg.content).toContain("line 80");
    expect(toolMsg.content).toContain("panic: cannot connect to db at db:5432: connection refused");
    expect(kube.requests.some((q) => q.path === "/api/v1/namespaces/shop/pods/api-crash/log" && q.query.previous === "true" && q.query.tailLines === "5")).toBe(true);
    expect(kube.requests.every((q) => !q.path.includes("/secrets"))).toBe(true);
  }, 60_000);

  test("without k8s.watch no k8s_* tool is offered and the cluster is never contacted", async () => {
    settings({});
    const asked = kube.requests.length;
    const before = fake.chatRequests().length;
    fake.enqueue({ text: "Hello." });
    const r = await run(b, ["-p", "hi", "--model", "coder:7b"], { OLLAMA_HOST: fake.url, KUBECONFIG: kc });
    expect(r.code).toBe(0);
    const first = fake.chatRequests()[before]!;
    expect(toolNames(first).some((n) => n.startsWith("k8s_"))).toBe(false);
    expect(kube.requests.length).toBe(asked);
  }, 60_000);

  test("watch --analyze: the findings and the log tail go to the model, which may call the tools; json wraps the diagnosis", async () => {
    settings({});
    const before = fake.chatRequests().length;
    fake.enqueue({ toolCalls: [{ name: "k8s_describe", arguments: { kind: "pod", name: "api-crash" } }], chunks: [] }, { text: "Diagnosis: the database at db:5432 refuses connections; fix the db service." });
    const r = await run(b, ["watch", "--analyze", "--namespace", "shop", "--model", "coder:7b", "--output-format", "json"], { OLLAMA_HOST: fake.url, KUBECONFIG: kc });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", result: expect.stringContaining("Diagnosis: the database") });
    const [first, second] = fake.chatRequests().slice(before);
    const user = (first!.messages as Msg[]).filter((m) => m.role === "user").map((m) => m.content).join("\n");
    expect(user).toContain("CrashLoopBackOff");
    expect(user).toContain("panic: cannot connect to db at db:5432");
    expect(toolNames(first!)).toContain("k8s_describe");
    const toolMsg = (second!.messages as Msg[]).find((m) => m.role === "tool")!;
    expect(toolMsg.content).toContain("container app: Waiting (CrashLoopBackOff)");
    expect(kube.requests.every((q) => !q.path.includes("/secrets"))).toBe(true);
  }, 60_000);

  test("watch --analyze: a usage error is 2, an unreadable kubeconfig is 3", async () => {
    expect((await run(b, ["watch", "--analyze", "--deployment", "a", "--selector", "b=c"], { KUBECONFIG: kc })).code).toBe(2);
    expect((await run(b, ["watch", "--analyze"], { KUBECONFIG: join(b.home, "missing.yaml") })).code).toBe(3);
    // An API server that cannot be reached: 3, said in the words `chatcli watch` and the session use (fault-text.ts).
    const gone = join(b.home, "gone");
    mkdirSync(gone, { recursive: true });
    const r = await run(b, ["watch", "--analyze"], { KUBECONFIG: kube.writeKubeconfig(gone, { namespace: "shop", server: "https://127.0.0.1:1" }) });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("cannot reach the Kubernetes API server https://127.0.0.1:1 (context fake, namespace shop)");
  }, 60_000);

  test.skipIf(!hasTmux())("TUI: settings k8s.watch shows the status segment and the new-findings notice; /watch stop and /watch status", async () => {
    settings({ k8s: { watch: { namespace: "shop", interval: "1m" } } });
    const t = new Tmux(join(b.dir, "..", `tmux-k8s-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, "--model coder:7b", { env: { OLLAMA_HOST: fake.url, KUBECONFIG: kc } }), 160, 40);
    try {
      const up = await t.waitFor((s) => /⎈ fake\/shop · \d+ critical \d+ warning · \d+s ago/.test(s), 20_000);
      expect(up).toContain("new finding(s): [critical]");
      t.sendLiteral("/watch status");
      t.send("Enter");
      const status = await t.waitFor((s) => s.includes("fake · shop · "), 20_000);
      expect(status).toContain("[critical] CrashLoopBackOff pod/api-crash: ");
      t.sendLiteral("/watch stop");
      t.send("Enter");
      const stopped = await t.waitFor((s) => s.includes("The Kubernetes watch stopped."), 20_000);
      expect(stopped).not.toMatch(/⎈ fake\/shop · \d+ critical/);
    } finally {
      t.kill();
    }
    expect(kube.requests.every((q) => !q.path.includes("/secrets"))).toBe(true);
  }, 90_000);
});

// The pod of deploy/kustomize/base (the chart's default pod) run for real, without a cluster: the container's
// command, args and environment from the manifest, with only the places a cluster provides swapped for local ones
// (the PVC → a temp dir, the Secret → a token, port 7433 → a free port, the in-cluster Ollama → the fake one). The
// exec probes from the manifest must pass (and fail with a wrong token), a session must survive a "pod restart"
// (SIGTERM, then a new process on the same volume lists and loads it), and nothing may be written outside the
// volume and TMPDIR (the root filesystem is read-only in the pod).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V1Container, V1Deployment } from "@kubernetes/client-node";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { BUILT_BINARY, isolatedBinary, type BinaryEnv } from "../support/binary.ts";

const root = join(import.meta.dir, "../..");
const TOKEN = "team-token-from-the-secret-0123456789abcdef";

let b: BinaryEnv;
let fake: FakeOllama;
let container: V1Container;
let scratch: string;
// Issue 22's HTTP transport (`serve --probe`) is what this pod runs; a build without it cannot run the pod.
const binary = process.env.CHATCLI_BINARY || BUILT_BINARY;
const hasHttpServe = Bun.spawnSync([binary, "serve", "--help"], { stdout: "pipe", stderr: "pipe" }).stdout.toString().includes("--probe");
// A read-only root and uid 65532 as in the pod, when bubblewrap may create a user namespace here.
const bwrap = Bun.which("bwrap");
const sandboxed = !!bwrap && Bun.spawnSync([bwrap, "--ro-bind", "/", "/", "--unshare-user", "--uid", "65532", "--", "true"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

beforeAll(async () => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] }] });
  const { parse } = await import("yaml");
  const dep = parse(readFileSync(join(root, "deploy/kustomize/base/deployment.yaml"), "utf8")) as V1Deployment;
  container = dep.spec!.template.spec!.containers[0]!;
  scratch = mkdtempSync(join(tmpdir(), "chatcli-pod-"));
});
const running: RunningPod[] = [];
afterAll(async () => {
  // A failed test may leave its pod running.
  for (const pod of running) if (pod.proc.exitCode === null) await pod.stop();
  fake.stop();
  b.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

interface Pod {
  /** The host directory standing in for the PVC (mounted on /data in the container). */
  data: string;
  port: number;
  env: Record<string, string>;
  container: V1Container;
  /** The argv that runs `words` (a manifest command) in this pod's container. */
  argv(words: string[]): string[];
}

/**
 * The manifest's container on this machine. With bubblewrap (user namespaces allowed): a real container — a new root
 * that is read-only, the binary on PATH, `data` on /data, a fresh tmpfs on /tmp, the TLS Secret's files on
 * /etc/chatcli/tls, uid/gid 65532, the host's network (so 127.0.0.1 reaches it) — running the manifest's paths
 * unchanged. Without it: the same process with /data, /tmp and /etc/chatcli/tls rewritten to host directories.
 * Either way port 7433 becomes a free port, the Secret's token is TOKEN and the in-cluster Ollama is the fake one.
 */
function localPod(data: string, port: number, c: V1Container = container, tls?: string): Pod {
  const tmp = mkdtempSync(join(scratch, "tmp-"));
  const swapPaths = (v: string) =>
    sandboxed ? v : v.replace(/^\/(data|tmp)(?=\/|$)/, (_, dir: string) => (dir === "data" ? data : tmp)).replace(/^\/etc\/chatcli\/tls(?=\/)/, tls ?? "/etc/chatcli/tls");
  const swap = (v: string) => swapPaths(v).replace(":7433", `:${port}`).replace("http://ollama:11434", fake.url);
  const env: Record<string, string> = { PATH: sandboxed ? "/opt/chatcli:/usr/local/bin:/usr/bin:/bin" : b.env.PATH!, LANG: "C.UTF-8", LLM_MODEL: "coder:7b" };
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = swap(e.value);
    else if (e.valueFrom?.secretKeyRef) env[e.name] = TOKEN;
  }
  const inContainer = (words: string[]): string[] => {
    if (!sandboxed) return words.map((w) => (w === "chatcli" ? b.bin : w));
    const etc = ["ssl", "ca-certificates", "hosts", "resolv.conf", "nsswitch.conf", "passwd", "group", "localtime"].flatMap((f) => ["--ro-bind-try", `/etc/${f}`, `/etc/${f}`]);
    return [
      bwrap!,
      ...["--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--ro-bind", "/bin", "/bin", "--ro-bind", "/lib", "/lib", "--ro-bind-try", "/lib64", "/lib64", "--ro-bind-try", "/sbin", "/sbin"],
      ...["--tmpfs", "/etc", ...etc, "--ro-bind", b.bin, "/opt/chatcli/chatcli", "--dev", "/dev", "--proc", "/proc", "--bind", data, "/data", "--tmpfs", "/tmp"],
      ...(tls ? ["--ro-bind", tls, "/etc/chatcli/tls"] : []),
      ...["--remount-ro", "/", "--unshare-user", "--uid", "65532", "--gid", "65532", "--chdir", "/data", "--"],
      ...words,
    ];
  };
  return { data, port, env, container: c, argv: (words) => inContainer(words.map((w) => (w === "7433" ? String(port) : swap(w)))) };
}

interface RunningPod {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  stderr: () => string;
  /** SIGTERM to the server (bubblewrap does not forward signals: to its child), then its exit code. */
  stop(): Promise<number>;
}

async function startPod(pod: Pod): Promise<RunningPod> {
  const command = pod.container.command!;
  // tini is PID 1 in the image (it only forwards signals and reaps); here the server runs directly.
  expect(command.slice(0, 2)).toEqual(["/usr/bin/tini", "--"]);
  const proc = Bun.spawn(pod.argv([...command.slice(2), ...pod.container.args!]), { cwd: pod.data, env: pod.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let err = "";
  void (async () => {
    for await (const chunk of proc.stderr) err += new TextDecoder().decode(chunk);
  })();
  const deadline = Date.now() + 20_000;
  while (!/listening on (\S+)/.test(err) && proc.exitCode === null && Date.now() < deadline) await Bun.sleep(50);
  const url = /listening on (\S+)/.exec(err)?.[1];
  if (!url) {
    proc.kill();
    throw new Error(`the pod's server did not start: ${err}`);
  }
  const stop = async (): Promise<number> => {
    if (!sandboxed) {
      proc.kill("SIGTERM");
      return proc.exited;
    }
    const child = Bun.spawnSync(["pgrep", "-P", String(proc.pid)], { stdout: "pipe" }).stdout.toString().trim().split("\n")[0];
    if (child) process.kill(Number(child), "SIGTERM");
    return proc.exited;
  };
  const started: RunningPod = { proc, url: url.replace("0.0.0.0", "127.0.0.1"), stderr: () => err, stop };
  running.push(started);
  return started;
}

async function probe(pod: Pod, kind: "readinessProbe" | "livenessProbe", env: Record<string, string> = {}): Promise<number> {
  const p = Bun.spawn(pod.argv(pod.container[kind]!.exec!.command!), { cwd: pod.data, env: { ...pod.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return p.exited;
}

async function rpc(url: string, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/rpc`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "x-chatcli-client": "pod-test" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** Reads the SSE stream of a session until a turn completes. */
async function untilTurnCompleted(url: string, sessionId: string): Promise<void> {
  const res = await fetch(`${url}/events?sessionId=${sessionId}`, { headers: { authorization: `Bearer ${TOKEN}`, "x-chatcli-client": "pod-test" }, signal: AbortSignal.timeout(30_000) });
  let text = "";
  for await (const chunk of res.body!) {
    text += new TextDecoder().decode(chunk);
    if (text.includes('"turn.completed"')) break;
  }
}

/** Every file under `dir`, relative. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe.skipIf(!hasHttpServe)(`the deploy pod, run without a cluster (compiled binary; ${sandboxed ? "read-only root, uid 65532, via bubblewrap" : "no bubblewrap: paths rewritten"})${hasHttpServe ? "" : " — skipped: this build's chatcli serve has no HTTP transport (--probe)"}`, () => {
  test("probes pass with the Secret's token and fail without it; a session survives a restart on the same volume", async () => {
    const data = join(scratch, "pvc");
    mkdirSync(data, { recursive: true });
    const homeBefore = files(b.home);
    const pod = localPod(data, await freePort());
    const first = await startPod(pod);
    expect(first.stderr()).toMatch(/without TLS/i); // the warning the plain-HTTP variant prints at every start
    expect(await probe(pod, "readinessProbe")).toBe(0);
    expect(await probe(pod, "livenessProbe")).toBe(0);
    expect(await probe(pod, "readinessProbe", { CHATCLI_SERVER_TOKEN: "wrong" })).toBe(1);
    // CHATCLI_HOME as the host sees it (inside the container it is under /data).
    const tokenFile = join(pod.env.CHATCLI_HOME!.replace(/^\/data(?=\/|$)/, data), "server", `${pod.port}.token`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(TOKEN);

    await rpc(first.url, "initialize", { protocolVersion: 1, clientInfo: { name: "pod-test" } });
    const created = await rpc(first.url, "session/new", { cwd: sandboxed ? "/data" : data });
    const sessionId = (created.session as { sessionId: string }).sessionId;
    fake.enqueue({ text: "The codeword is HERON." });
    const turn = untilTurnCompleted(first.url, sessionId);
    await rpc(first.url, "session/prompt", { sessionId, text: "remember the codeword" });
    await turn;

    // The pod is deleted (SIGTERM), a new one mounts the same volume.
    expect(await first.stop()).toBe(0);
    const pod2 = localPod(data, await freePort());
    const second = await startPod(pod2);
    try {
      expect(await probe(pod2, "readinessProbe")).toBe(0);
      await rpc(second.url, "initialize", { protocolVersion: 1 });
      const listed = (await rpc(second.url, "session/list")).sessions as Array<{ sessionId: string }>;
      expect(listed.map((s) => s.sessionId)).toContain(sessionId);
      const loaded = await rpc(second.url, "session/load", { sessionId });
      expect(JSON.stringify(loaded.history)).toContain("HERON");
    } finally {
      await second.stop();
    }
    // Everything the server wrote is on the volume or in TMPDIR: nothing in the (here writable) home of the binary.
    expect(files(b.home)).toEqual(homeBefore);
    expect(files(data).some((f) => f.startsWith(".chatcli/sessions/"))).toBe(true);
  }, 120_000);

  const helm = Bun.which("helm");
  let madePki: KubePki | undefined;
  const pki = (): KubePki => (madePki ??= makeKubePki());
  // tls.crt holding leaf + CA (the default probeCaKey), or a leaf-only tls.crt with the CA in ca.crt (cert-manager).
  for (const [label, probeCaKey, secret] of [
    ["tls.crt with its CA", "tls.crt", (p: KubePki) => ({ "tls.crt": p.certPem + p.caPem, "tls.key": p.keyPem })],
    ["the CA in ca.crt", "ca.crt", (p: KubePki) => ({ "tls.crt": p.certPem, "tls.key": p.keyPem, "ca.crt": p.caPem })],
  ] as const) {
    test.skipIf(!helm || !hasOpenssl())(`the chart's TLS variant (${label}): HTTPS from the Secret's certificate, and the probes trust it${helm ? "" : " — skipped: no helm binary on PATH"}`, async () => {
      const r = Bun.spawnSync([helm!, "template", "team", join(root, "deploy/helm/chatcli"), "--set", `tls.secretName=chatcli-tls,tls.probeCaKey=${probeCaKey}`], { stdout: "pipe", stderr: "pipe" });
      const { parseAllDocuments } = await import("yaml");
      const dep = parseAllDocuments(r.stdout.toString()).map((d) => d.toJSON() as V1Deployment & { kind: string }).find((o) => o?.kind === "Deployment")!;
      const c = dep.spec!.template.spec!.containers[0]!;
      // The kubernetes.io/tls Secret's files, for a certificate valid for 127.0.0.1 (as docs/deploy.md requires).
      const tls = mkdtempSync(join(scratch, "tls-"));
      for (const [name, pem] of Object.entries(secret(pki()))) writeFileSync(join(tls, name), pem);
      const data = mkdtempSync(join(scratch, "pvc-tls-"));
      const pod = localPod(data, await freePort(), c, tls);
      const server = await startPod(pod);
      try {
        expect(server.url).toStartWith("https://");
        expect(server.stderr()).not.toMatch(/without TLS/i);
        expect(await probe(pod, "readinessProbe")).toBe(0);
        expect(await probe(pod, "livenessProbe")).toBe(0);
        expect(await probe(pod, "livenessProbe", { CHATCLI_SERVER_TOKEN: "wrong" })).toBe(1);
      } finally {
        await server.stop();
      }
    }, 60_000);
  }
});

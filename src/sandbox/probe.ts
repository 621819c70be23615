/**
 * Does a sandbox really work here? Runs the backend once with the same kinds of namespaces/profile a command gets
 * (`bwrap` can be installed yet refused: no user namespaces, a seccomp'd container…). Asynchronous and cached per
 * process: main.ts starts it early so it overlaps the model look-up, and the first exec awaits it.
 */
import { t } from "../i18n/i18n.ts";
import { SANDBOX_EXEC } from "./seatbelt.ts";

export type ProbeResult = { ok: true; kind: "bwrap" | "seatbelt"; path: string } | { ok: false; reason: string };

const PROBE_TIMEOUT_MS = 5_000;
let cached: Promise<ProbeResult> | undefined;

export function probeSandbox(platform: NodeJS.Platform = process.platform, env: Record<string, string | undefined> = process.env): Promise<ProbeResult> {
  cached ??= runProbe(platform, env);
  return cached;
}

/** Tests only: forget the cached answer. */
export function resetSandboxProbe(): void {
  cached = undefined;
}

/** The probe itself, uncached. */
export async function runProbe(platform: NodeJS.Platform, env: Record<string, string | undefined>): Promise<ProbeResult> {
  const PATH = env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  const truePath = Bun.which("true", { PATH }) ?? "/bin/true";
  if (platform === "linux") {
    const bwrap = Bun.which("bwrap", { PATH });
    if (!bwrap) return { ok: false, reason: t("sandbox.noBwrap") };
    const args = ["--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", truePath];
    const r = await run([bwrap, ...args]);
    return r.ok ? { ok: true, kind: "bwrap", path: bwrap } : { ok: false, reason: t("sandbox.cannotRun", { program: "bwrap", error: r.reason }) };
  }
  if (platform === "darwin") {
    const r = await run([SANDBOX_EXEC, "-p", "(version 1)(allow default)", "--", truePath]);
    return r.ok ? { ok: true, kind: "seatbelt", path: SANDBOX_EXEC } : { ok: false, reason: t("sandbox.cannotRun", { program: "sandbox-exec", error: r.reason }) };
  }
  return { ok: false, reason: t("sandbox.noPlatform", { platform: platform === "win32" ? "Windows" : platform }) };
}

async function run(argv: string[]): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    const p = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    const timer = setTimeout(() => p.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    clearTimeout(timer);
    if (code === 0) return { ok: true };
    return { ok: false, reason: err.trim().split("\n")[0] || t("sandbox.exitCode", { code }) };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

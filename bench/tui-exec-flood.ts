/**
 * A 50 MB exec output in the TUI (issue 26 #6): the real TuiApp on OpenTUI's headless test renderer (run-tui's
 * frame rates, frames drawn by the renderer's own scheduler) over a real Session (wireSession: real tools,
 * checkpoints, result pipeline, recorder) whose scripted model calls `exec` with `yes | head -c 50000000`.
 * Every chunk of output goes through tool.updated into the view state, as in production. Figures, against the
 * issue's budgets, measured in a child process so they belong to this run alone:
 *  - peak RSS: VmHWM from /proc/self/status (the kernel's high-water mark) ≤ 250 MB;
 *  - key echo while the output floods in: keys typed back to back must each be in the prompt on the next frame;
 *  - the event loop's worst block (timer drift) while the output streams and after the command ends;
 *  - the live output kept in the view state (bounded to a 64 KB tail) and the exec's wall time.
 * Run: bun bench/tui-exec-flood.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const TARGET_FPS = 30; // as run-tui.ts creates the renderer
const MAX_FPS = 60;
const BYTES = 50_000_000;

function vm(key: "VmHWM" | "VmRSS"): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function floodPhase() {
  const { createTestRenderer } = await import("@opentui/core/testing");
  const { TuiApp } = await import("../src/ui/tui/tui-app.ts");
  const { wireSession } = await import("../src/cli/wire-session.ts");
  const { loadConfig } = await import("../src/config/load-config.ts");
  const { ScriptedProvider } = await import("../test/support/scripted-provider.ts");
  const root = mkdtempSync(join(tmpdir(), "tui-flood-"));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(project, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const provider = new ScriptedProvider([{ toolCalls: [{ name: "exec", args: { command: `yes | head -c ${BYTES}` } }] }, { text: "FLOOD-DONE" }]);
  const wired = wireSession({
    cfg: loadConfig({ cwd: project, env, flags: {} }),
    resolved: { providerId: "SCRIPTED", provider, baseUrl: "scripted://", model: "scripted-model", info: { id: "scripted-model", contextWindow: 200_000, supportsTools: true } },
    permissionMode: "bypass",
    interactive: false,
    summaries: false,
  });
  const setup = await createTestRenderer({ width: 100, height: 40, nativeSceneVerify: false, exitOnCtrlC: false, targetFps: TARGET_FPS, maxFps: MAX_FPS });
  const app = new TuiApp(setup.renderer, {
    session: wired.session, provider: "scripted", model: "scripted-model", cwd: project, inline: false, permissionMode: "bypass",
    historyFile: join(root, "h.jsonl"), displayMode: "full", onExit: () => {},
  });
  let frames = 0;
  const frameWaiters: Array<() => void> = [];
  setup.renderer.on("frame", () => {
    frames++;
    for (const w of frameWaiters.splice(0)) w();
  });
  const nextFrame = () => new Promise<void>((r) => frameWaiters.push(r));
  setup.renderer.start();

  let updates = 0;
  let maxLiveChars = 0;
  let execRunning = false;
  let execStarted = 0;
  let execMs = 0;
  wired.session.subscribe((e) => {
    if (e.type === "tool.started") {
      execRunning = true;
      execStarted = performance.now();
    }
    if (e.type === "tool.updated") updates++;
    if (e.type === "tool.completed") {
      execRunning = false;
      execMs = performance.now() - execStarted;
    }
  });

  const echoes: { ms: number; frames: number }[] = [];
  let typed = "";
  const echoProbe = async () => {
    const ch = String.fromCharCode(97 + (echoes.length % 26));
    typed += ch;
    const t0 = performance.now();
    const f0 = frames + (setup.renderer.getSchedulerState().isRendering ? 1 : 0);
    setup.mockInput.pressKey(ch);
    for (;;) {
      await nextFrame();
      const row = setup.captureCharFrame().split("\n").findLast((l) => l.includes("│› "));
      if (row?.includes(typed.slice(-20)) || frames - f0 > 30) {
        if (process.env.DEBUG_FLOOD && frames - f0 > 30) console.error(setup.captureCharFrame());
        break;
      }
    }
    echoes.push({ ms: performance.now() - t0, frames: frames - f0 });
  };

  // Timer drift over the whole run: how long the event loop was blocked at worst, and when.
  const drift = { exec: 0, after: 0 };
  let expected = performance.now() + 10;
  const driftTimer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - expected);
    if (execRunning) drift.exec = Math.max(drift.exec, late);
    else if (execMs) drift.after = Math.max(drift.after, late);
    expected = now + 10;
  }, 10);
  wired.session.submit({ type: "user_input", text: "flood" });
  while (!execRunning) await Bun.sleep(1);
  // Probes back to back while the output floods in (the command itself takes well under a second).
  while (execRunning) {
    maxLiveChars = Math.max(maxLiveChars, app.state.live.tools?.calls[0]?.output.length ?? 0);
    await echoProbe();
    await Bun.sleep(20);
  }
  const duringExec = echoes.length;
  await wired.session.idle();
  clearInterval(driftTimer);
  let shown = false;
  for (let i = 0; i < 100 && !shown; i++) {
    await nextFrame();
    shown = setup.captureCharFrame().includes("FLOOD-DONE");
  }
  const result = {
    peakRssMB: vm("VmHWM"),
    echoMaxFrames: duringExec ? Math.max(...echoes.slice(0, duringExec).map((e) => e.frames)) : NaN,
    echoMaxMs: duringExec ? Math.max(...echoes.slice(0, duringExec).map((e) => e.ms)) : NaN,
    echoProbes: duringExec,
    lastProbeMs: echoes.at(-1)?.ms ?? NaN,
    driftExecMs: drift.exec,
    driftAfterMs: drift.after,
    updates,
    maxLiveChars,
    execS: execMs / 1000,
    frames,
    answerShown: shown,
  };
  app.destroy();
  await setup.dispose();
  wired.dispose();
  rmSync(root, { recursive: true, force: true });
  return result;
}

if (process.argv.includes("--phase")) {
  const r = await floodPhase();
  process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
  process.exit(0);
}

const p = Bun.spawnSync([process.execPath, import.meta.path, "--phase", "flood"], { stdout: "pipe", stderr: "inherit" });
const line = p.stdout.toString().split("\n").find((l) => l.startsWith("RESULT "));
if (!line) throw new Error(`the flood phase failed (exit ${p.exitCode}): ${p.stdout.toString()}`);
const r = JSON.parse(line.slice(7)) as Awaited<ReturnType<typeof floodPhase>>;
const row = (name: string, value: number, budget: number, unit: string, digits = 1) =>
  console.log(`${value <= budget ? "PASS" : "FAIL"}  ${name.padEnd(40)} ${value.toFixed(digits).padStart(9)} ${unit.padEnd(6)} (budget ≤ ${budget} ${unit})`);
const info = (name: string, value: string) => console.log(`      ${name.padEnd(40)} ${value}`);
console.log(`exec flood: \`yes | head -c ${BYTES}\` in the TUI over a real session`);
row("peak RSS (VmHWM)", r.peakRssMB, 250, "MB");
row("keypress echo (frames, worst)", r.echoMaxFrames, 1, "frame", 0);
info("keypress echo (ms, worst)", `${r.echoMaxMs.toFixed(1)} ms over ${r.echoProbes} probes while the output streams (a frame is ${(1000 / TARGET_FPS).toFixed(1)} ms at ${TARGET_FPS} fps)`);
info("event loop blocked at worst (timer drift)", `${r.driftExecMs.toFixed(0)} ms while the output streams; ${r.driftAfterMs.toFixed(0)} ms after the command ended (result pipeline, history, checkpoint, session file)`);
row("live output kept in the view state", r.maxLiveChars / 1024, 64, "KB");
info("tool.updated events", `${r.updates} in ${r.execS.toFixed(2)} s of exec; ${r.frames} frames drawn`);
info("the answer after it on screen", r.answerShown ? "yes" : "NO");

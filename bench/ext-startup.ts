/**
 * Issue 18's start-up budget: 200 skills + 50 agent definitions + 50 custom commands on disk add ≤ 20 ms to the
 * first frame. The compiled binary (build it first: `bun scripts/build.ts`) is started in tmux against the fake
 * Ollama server, alternately in an empty project and in one holding those files (a tenth of them with block-scalar
 * front matter, so the lazy `yaml` import is paid too); the clock runs from `tmux new-session` until the prompt and
 * the model are on screen (polled every 5 ms). Prints the median of each and the difference against the budget,
 * plus the in-process cost of the discovery itself (cold, then cached).
 * With `--baseline BIN` (a binary built without this feature, e.g. main's dist/chatcli) the same two projects are
 * also timed with it, interleaved: on a busy machine the honest figure is what the feature adds in the project
 * with the files (this binary − baseline), since a larger project can cost other start-up work too.
 * Run: bun bench/ext-startup.ts [--runs N] [--baseline path/to/chatcli]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { hasTmux, isolatedBinary, Tmux } from "../test/support/binary.ts";
import { discoverExtensions, forgetDiscovery } from "../src/ext/ext-discovery.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 7;
const BUDGET_MS = 20;
const baseArg = process.argv.indexOf("--baseline");
const BASELINE = baseArg >= 0 ? process.argv[baseArg + 1] : undefined;

function populate(project: string): void {
  for (let i = 0; i < 200; i++) {
    const base = i % 2 ? ".claude" : ".chatcli";
    const dir = join(project, base, "skills", `skill-${i}`);
    mkdirSync(dir, { recursive: true });
    const description = i % 10 === 0 ? `>-\n  Skill ${i}: a folded description that needs the real YAML parser,\n  spread over two lines.` : `Skill ${i}: does task number ${i} when the user asks for it.`;
    writeFileSync(join(dir, "SKILL.md"), `---\nname: skill-${i}\ndescription: ${description}\ntriggers: [word${i}, other${i}]\npaths:\n  - "area${i}/**"\n---\n# Skill ${i}\n\n${"Step text for the instructions. ".repeat(40)}\n`);
  }
  mkdirSync(join(project, ".chatcli", "agents"), { recursive: true });
  mkdirSync(join(project, ".chatcli", "commands"), { recursive: true });
  for (let i = 0; i < 50; i++) {
    writeFileSync(join(project, ".chatcli", "agents", `agent-${i}.md`), `---\nname: agent-${i}\ndescription: Agent ${i} for one kind of task.\ntools: read, search, glob\nmodel: inherit\n---\nYou are agent ${i}. ${"Role text. ".repeat(60)}\n`);
    writeFileSync(join(project, ".chatcli", "commands", `cmd-${i}.md`), `---\ndescription: Command ${i}\nargument-hint: [thing]\n---\nDo command ${i} with $ARGUMENTS.\n`);
  }
}

async function inProcess(project: string, home: string): Promise<void> {
  forgetDiscovery();
  const t0 = performance.now();
  const c = await discoverExtensions({ projectRoot: project, chatcliHome: join(home, ".chatcli") });
  const cold = performance.now() - t0;
  const t1 = performance.now();
  await discoverExtensions({ projectRoot: project, chatcliHome: join(home, ".chatcli") });
  const cached = performance.now() - t1;
  console.log(`      in-process discovery: ${c.skills.length} skills, ${c.agents.length} agents (with built-ins), ${c.commands.length} commands in ${cold.toFixed(1)} ms cold (asynchronous reads; includes the yaml import), ${cached.toFixed(2)} ms cached`);
}

if (!hasTmux()) {
  console.log("SKIP  tmux is not installed");
  process.exit(0);
}

const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "ok" } });
const b = isolatedBinary();
const base = BASELINE ? isolatedBinary(BASELINE) : undefined;
const scratch = mkdtempSync(join(tmpdir(), "chatcli-ext-bench-"));
const empty = join(scratch, "empty");
const full = join(scratch, "full");
mkdirSync(join(empty, ".git"), { recursive: true });
mkdirSync(join(full, ".git"), { recursive: true });
populate(full);
const times: Record<"empty" | "full" | "baseEmpty" | "baseFull", number[]> = { empty: [], full: [], baseEmpty: [], baseFull: [] };
/** CPU (utime+stime, ms) the process used until the prompt: what the machine's load does not inflate. */
const cpu: Record<keyof typeof times, number[]> = { empty: [], full: [], baseEmpty: [], baseFull: [] };
let lastCpu = NaN;

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

async function startOnce(dir: string, tag: string, bin = b): Promise<number> {
  const envs = Object.entries({ ...bin.env, OLLAMA_HOST: fake.url }).map(([k, v]) => `${k}='${v}'`).join(" ");
  const t0 = performance.now();
  const tmux = new Tmux(join(scratch, `tmux-${tag}.sock`), `cd '${dir}' && exec env ${envs} '${bin.bin}' --model qwen3:8b`);
  try {
    const pid = Number(tmux.display("#{pane_pid}"));
    while (performance.now() - t0 < 10_000) {
      const s = tmux.capture();
      if (s.includes("Ask anything") && s.includes("qwen3:8b")) {
        const at = performance.now() - t0;
        lastCpu = cpuMs(pid);
        return at;
      }
      await Bun.sleep(5);
    }
    return Infinity;
  } finally {
    tmux.send("C-c");
    await Bun.sleep(50);
    tmux.send("C-c");
    await Bun.sleep(200);
    tmux.kill();
  }
}

try {
  await startOnce(empty, "warm"); // page cache and tmux server warm-up, not counted
  for (let i = 0; i < RUNS; i++) {
    times.empty.push(await startOnce(empty, `e${i}`));
    cpu.empty.push(lastCpu);
    times.full.push(await startOnce(full, `f${i}`));
    cpu.full.push(lastCpu);
    if (base) {
      times.baseEmpty.push(await startOnce(empty, `be${i}`, base));
      cpu.baseEmpty.push(lastCpu);
      times.baseFull.push(await startOnce(full, `bf${i}`, base));
      cpu.baseFull.push(lastCpu);
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const e = median(times.empty);
  const f = median(times.full);
  const delta = f - e;
  console.log(`compiled binary in tmux, ${RUNS} runs each, alternating`);
  console.log(`      start → prompt, empty project:                 median ${e.toFixed(1)} ms`);
  console.log(`      start → prompt, 200 skills + 50 agents + 50 commands: median ${f.toFixed(1)} ms`);
  console.log(`      CPU until the prompt (median, 10 ms ticks): empty ${median(cpu.empty)} ms, with the files ${median(cpu.full)} ms${base ? `; baseline: empty ${median(cpu.baseEmpty)} ms, with the files ${median(cpu.baseFull)} ms` : ""}`);
  console.log(`      load average now: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} on ${navigator.hardwareConcurrency} CPUs (wall times on a loaded machine are noisy; CPU is not)`);
  if (base) {
    const be = median(times.baseEmpty);
    const bf = median(times.baseFull);
    console.log(`      baseline binary: empty ${be.toFixed(1)} ms, with the files ${bf.toFixed(1)} ms (the files cost it ${(bf - be).toFixed(1)} ms without the feature)`);
    console.log(`      this binary − baseline: empty project ${(e - be).toFixed(1)} ms`);
    const added = f - bf;
    console.log(`${added <= BUDGET_MS ? "PASS" : "FAIL"}  added to the first frame by the feature, with the files on disk: ${added.toFixed(1)} ms (budget ≤ ${BUDGET_MS} ms)`);
  } else console.log(`${delta <= BUDGET_MS ? "PASS" : "FAIL"}  added to the first frame: ${delta.toFixed(1)} ms (budget ≤ ${BUDGET_MS} ms)`);
  await inProcess(full, b.home);
} finally {
  fake.stop();
  b.cleanup();
  base?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
}

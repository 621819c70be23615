/**
 * The test command (`npm test`): type-check, then `bun test` with HOME/XDG/CHATCLI_HOME pointed at a temp
 * dir so nothing escapes, then a closing `N passed, N failed` line (tsc counts as one check).
 * Extra args are passed to `bun test` (e.g. `npm test -- test/llm`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const extra = process.argv.slice(2);
const sandbox = mkdtempSync(join(tmpdir(), "chatcli-test-home-"));
const env = {
  ...process.env,
  HOME: sandbox,
  CHATCLI_HOME: join(sandbox, ".chatcli"),
  XDG_DATA_HOME: join(sandbox, "xdg-data"),
  XDG_CONFIG_HOME: join(sandbox, "xdg-config"),
  XDG_CACHE_HOME: join(sandbox, "xdg-cache"),
  BUN_INSTALL_CACHE_DIR: join(sandbox, "bun-cache"),
  BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
  NO_COLOR: "1",
  LLM_PROVIDER: "",
  LLM_MODEL: "",
};

let passed = 0;
let failed = 0;

const tsc = Bun.spawnSync([join(root, "node_modules/.bin/tsc"), "--noEmit", "-p", root], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
const tscOut = tsc.stdout.toString() + tsc.stderr.toString();
if (tsc.exitCode === 0) {
  passed++;
  process.stdout.write("typecheck: ok\n");
} else {
  failed++;
  process.stdout.write(`typecheck: FAILED\n${tscOut}\n`);
}

const bunBin = process.execPath;
const proc = Bun.spawn([bunBin, "test", ...extra], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
const [out, err] = await Promise.all([pipeThrough(proc.stdout, process.stdout), pipeThrough(proc.stderr, process.stderr)]);
const code = await proc.exited;
const all = out + err;
const p = all.match(/^\s*(\d+) pass\s*$/m);
const f = all.match(/^\s*(\d+) fail\s*$/m);
passed += p ? Number(p[1]) : 0;
failed += f ? Number(f[1]) : 0;
if (code !== 0 && !f) failed++;

rmSync(sandbox, { recursive: true, force: true });
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);

async function pipeThrough(stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream): Promise<string> {
  const decoder = new TextDecoder();
  let acc = "";
  for await (const chunk of stream) {
    sink.write(chunk);
    acc += decoder.decode(chunk, { stream: true });
  }
  return acc;
}

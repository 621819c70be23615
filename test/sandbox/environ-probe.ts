/**
 * Run by bwrap.test.ts as a child process whose environment holds SANDBOX_PARENT_CANARY: runs
 * `cat /proc/$PPID/environ` (and every /proc/<pid>/environ it can see) once sandboxed and once not, and prints
 * both outputs as JSON. Not a test file itself.
 */
import { execTool } from "../../src/tool/builtin/exec.ts";
import { sandboxFixture } from "./support.ts";

const f = await sandboxFixture();
const command = "cat /proc/$PPID/environ | tr '\\0' '\\n'; for e in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$e\"; done 2>/dev/null; true";
const sandboxed = await f.exec(command);
const sandbox = f.runtime.exec();
const plain = await execTool.run({ command }, { projectRoot: f.project, cwd: f.project, paths: (await import("../../src/tool/workspace.ts")).createPathPolicy({ projectRoot: f.project, extraReadPaths: [] }), signal: new AbortController().signal, callId: "c2", env: { PATH: process.env.PATH } });
process.stdout.write(JSON.stringify({ active: sandbox !== undefined, sandboxed: sandboxed.text, plain: plain.text }));
f.cleanup();

import { expect, test } from "bun:test";
import { toolErrorLine } from "../../../src/ui/shared/tool-error-line.ts";

test("each model-addressed error code has its own human line; a tool's own error is left alone", () => {
  expect(toolErrorLine({ name: "write", errorCode: "permission_denied", details: { action: "app.txt", deniedBy: "user" } })).toBe("Denied: write app.txt");
  expect(toolErrorLine({ name: "exec", errorCode: "permission_denied", details: { action: "rm -rf /", deniedBy: "policy" } })).toBe("Blocked by the permission policy: exec rm -rf /");
  expect(toolErrorLine({ name: "exec", errorCode: "permission_denied", details: { action: "make", deniedBy: "interrupted" } })).toBe("Not run (interrupted): exec make");
  expect(toolErrorLine({ name: "exec", errorCode: "ExitCode:1", details: { action: "curl x", rerunOutsideSandbox: false, sandboxFailure: { kind: "network", evidence: "could not resolve host" } } })).toBe(
    "Blocked by the sandbox (could not resolve host), not run outside it: exec curl x",
  );
  expect(toolErrorLine({ name: "frob", errorCode: "unknown_tool" })).toContain("frob");
  expect(toolErrorLine({ name: "read", errorCode: "invalid_args" })).toContain("read");
  expect(toolErrorLine({ name: "read", errorCode: "ENOENT", details: { path: "x" } })).toBeUndefined();
  expect(toolErrorLine({ name: "exec", errorCode: "ExitCode:2" })).toBeUndefined();
});

test("notes the agent added for the model (details.modelNote) are left out of what a person sees", async () => {
  const { withModelNote } = await import("../../../src/agent/model-note.ts");
  const { toolResultForPeople } = await import("../../../src/ui/shared/tool-error-line.ts");
  const base = { text: "line 1\nline 2", isError: false };
  const noted = withModelNote(withModelNote(base, "[for the model, after]", "after"), "[for the model, before]", "before");
  expect(noted.text).toBe("[for the model, before]\nline 1\nline 2\n[for the model, after]");
  expect(toolResultForPeople({ name: "exec", isError: false, result: noted.text, details: noted.details! })).toBe("line 1\nline 2");
  const rerun = { ...noted, details: { ...noted.details, rerunOutsideSandbox: true } };
  expect(toolResultForPeople({ name: "exec", isError: false, result: rerun.text, details: rerun.details })).toBe("(run again outside the sandbox, as you approved)\nline 1\nline 2");
});

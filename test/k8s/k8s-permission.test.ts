// The permission policy and the watch's tools (issue 23): the k8s_* reads are allowed in every mode (plan included)
// because they change nothing and never read Secrets; the user's deny and ask rules still win. Mutations stay exec.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionPolicy } from "../../src/tool/permission.ts";

const dir = mkdtempSync(join(tmpdir(), "chatcli-k8s-perm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const project = (rules: { pattern: string; action: string }[]) => {
  const root = mkdtempSync(join(dir, "p-"));
  mkdirSync(join(root, ".chatcli"), { recursive: true });
  if (rules.length) writeFileSync(join(root, ".chatcli", "coder_policy.json"), JSON.stringify({ rules }));
  return root;
};

test("k8s_* reads are allowed in default and plan mode; other unknown tools still ask", () => {
  const root = project([]);
  for (const mode of ["default", "plan", "accept-edits"] as const) {
    const p = createPermissionPolicy({ homeDir: join(dir, "home"), projectRoot: root, userHome: "/home/tester", mode });
    for (const tool of ["k8s_get", "k8s_logs", "k8s_events", "k8s_describe"]) expect(p.decide({ tool, args: { pod: "x" } }).action).toBe("allow");
    expect(p.decide({ tool: "k8s_delete", args: {} }).action).toBe("ask");
  }
});

test("a deny or ask rule for a k8s tool wins over the default allow; kubectl mutations through exec ask", () => {
  const root = project([
    { pattern: "k8s_logs", action: "deny" },
    { pattern: "k8s_describe", action: "ask" },
  ]);
  const p = createPermissionPolicy({ homeDir: join(dir, "home"), projectRoot: root, userHome: "/home/tester", mode: "default" });
  expect(p.decide({ tool: "k8s_logs", args: {} }).action).toBe("deny");
  expect(p.decide({ tool: "k8s_describe", args: {} }).action).toBe("ask");
  expect(p.decide({ tool: "k8s_get", args: {} }).action).toBe("allow");
  for (const command of ["kubectl rollout restart deployment/api -n shop", "kubectl scale deployment/api --replicas=0", "kubectl delete pod api-crash"]) expect(p.decide({ tool: "exec", args: { command } }).action).not.toBe("allow");
});

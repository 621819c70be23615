// A permission decision's reason is read by two audiences: the model (English, in the denial text) and a person
// (the approval box, -p's denial line) in their language. Same decision, two renderings, nothing English in pt-BR.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render, setLang } from "../../src/i18n/i18n.ts";
import { createPermissionPolicy, denialMessage, type PermissionRequest } from "../../src/tool/permission.ts";

let dir: string;
let project: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-reason-i18n-"));
  project = join(dir, "project");
  mkdirSync(project, { recursive: true });
});
afterEach(() => {
  setLang("en");
  rmSync(dir, { recursive: true, force: true });
});

const policy = (mode: "default" | "plan" = "default") => createPermissionPolicy({ homeDir: join(dir, "home"), projectRoot: project, userHome: "/home/tester", mode });
const exec = (command: string): PermissionRequest => ({ tool: "exec", args: { command } });

test("a dangerous command: English for the model, Portuguese (nested finding too) for the person", () => {
  setLang("pt-BR");
  const d = policy().decide(exec("rm -rf /"));
  expect(d.action).toBe("deny");
  expect(d.reason).toBe("dangerous command blocked (recursive delete of /); it is forbidden regardless of policy rules and permission mode");
  expect(denialMessage(d.reason)).toStartWith("Permission denied: dangerous command blocked");
  expect(render(d.reasonText!)).toBe("comando perigoso bloqueado (remoção recursiva de /); é proibido sejam quais forem as regras da política e o modo de permissão");
});

test("a protected path in an exec and a write that asks: both reasons in pt-BR", () => {
  setLang("pt-BR");
  const prot = policy().decide(exec("echo x > .git/hooks/pre-commit"));
  expect(prot.action).toBe("ask");
  expect(prot.reason).toContain("it names git's configuration or hooks");
  expect(render(prot.reasonText!)).toContain("cita a configuração ou os hooks do git");
  expect(render(prot.reasonText!)).toContain("sempre precisam de aprovação");
  const write = policy().decide({ tool: "write", args: { path: join(project, "a.txt"), content: "x" } });
  expect(write.reason).toBe("write changes files");
  expect(render(write.reasonText!)).toBe("write altera arquivos");
});

test("plan mode's denial of a write reads in pt-BR; English stays the model's", () => {
  setLang("pt-BR");
  const d = policy("plan").decide({ tool: "write", args: { path: join(project, "a.txt"), content: "x" } });
  expect(d.action).toBe("deny");
  expect(d.reason).toBe("plan mode is on: write is not allowed until the plan is approved");
  expect(render(d.reasonText!)).toBe("o modo plan está ativo: write não é permitido até o plano ser aprovado");
  setLang("en");
  expect(render(d.reasonText!)).toBe(d.reason);
});

test("a command that is not read-only: the read-only check's own reason is Portuguese too", () => {
  setLang("pt-BR");
  const d = policy().decide(exec("echo hi > out.txt"));
  expect(d.reason).toBe("not a read-only command: it redirects output to out.txt");
  expect(render(d.reasonText!)).toBe("não é um comando só de leitura: redireciona a saída para out.txt");
});

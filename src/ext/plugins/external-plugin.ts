/**
 * ChatCLI's external plugins as tools: an executable that answers `--metadata` with JSON
 * (`{"name": "@kind", "description": "…", "usage": "@kind <subcommand> [--flag value]", "version": "1.0.0"}`) and is
 * then called with arguments. The tool's call is an exec of `<file name> <args…>` in every respect: the permission
 * policy decides it as that command line (`asExec`; allow rules like `exec kind *` apply), it runs through the exec
 * tool (sandbox, timeout, live output, result cap) with the plugins directory first on PATH, and the approval
 * shows the command. (Named by its full path, every call would be a question about chatcli's protected home.)
 * So that the policy can never mistake a plugin for another program, a file name that is a program on PATH, a
 * shell builtin or a command the read-only allowlist knows is refused at load.
 */
import { spawn } from "node:child_process";
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tool/tool.ts";
import { execTool } from "../../tool/builtin/exec.ts";
import { shellQuoteWord } from "../../tool/builtin/argv-command.ts";
import { READ_ONLY_COMMANDS } from "../../tool/permission/read-only-commands.ts";
import { basename, delimiter, dirname } from "node:path";
import { killProcessGroup } from "../../util/kill-group.ts";

const SHELL_WORDS = new Set(
  "alias bg bind break builtin case cd command compgen complete continue declare dirs disown echo enable eval exec exit export false fc fg for function getopts hash help history if jobs kill let local logout popd printf pushd pwd read readonly return select set shift shopt source suspend test time times trap true type typeset ulimit umask unalias unset until wait while".split(" "),
);

/** Why `program` cannot be an external plugin's command name, or undefined. */
function programClash(program: string, pathEnv: string | undefined): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(program)) return `the file name "${program}" must be letters, digits, ".", "_" or "-"`;
  if (SHELL_WORDS.has(program) || program in READ_ONLY_COMMANDS) return `the file name "${program}" is a shell or system command; rename the plugin file`;
  const found = Bun.which(program, { PATH: pathEnv ?? "" });
  if (found) return `the file name "${program}" is also the program ${found}; rename the plugin file`;
  return undefined;
}

const metadataSchema = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  usage: z.string().optional(),
  version: z.string().optional(),
});
export type ExternalMetadata = z.infer<typeof metadataSchema>;

const METADATA_TIMEOUT_MS = 5_000;

export async function readExternalMetadata(file: string, env: Record<string, string | undefined>): Promise<ExternalMetadata> {
  const out = await runFor(file, ["--metadata"], env, METADATA_TIMEOUT_MS);
  let json: unknown;
  try {
    json = JSON.parse(out.trim());
  } catch {
    throw new Error(`--metadata did not print JSON: ${out.trim().slice(0, 120) || "(nothing)"}`);
  }
  const parsed = metadataSchema.safeParse(json);
  if (!parsed.success) throw new Error(`--metadata JSON lacks a name: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  return parsed.data;
}

/** The tool for an external plugin: its name is the metadata name without `@` (`@kind` → `kind`). */
export function externalPluginTool(file: string, meta: ExternalMetadata, pathEnv: string | undefined): ToolDefinition & { asExec(args: Record<string, unknown>): string } {
  const program = basename(file);
  const clash = programClash(program, pathEnv);
  if (clash) throw new Error(clash);
  const name = meta.name.replace(/^@/, "").replace(/[^A-Za-z0-9_-]/g, "_");
  const input = z.object({
    args: z.union([z.array(z.string()), z.string()]).optional().describe(`Arguments for the plugin, as a list of words${meta.usage ? `. Usage: ${meta.usage}` : ""}`),
  });
  const commandLine = (args: { args?: string[] | string | undefined }): string => {
    const words = Array.isArray(args.args) ? args.args : typeof args.args === "string" && args.args.trim() ? [args.args] : [];
    return [program, ...words].map(shellQuoteWord).join(" ");
  };
  const tool = defineTool({
    name,
    description: `${meta.description || `External plugin ${meta.name}`}${meta.usage ? ` Usage: ${meta.usage}` : ""}`,
    input,
    readOnly: false,
    title: (a) => `${meta.name} ${Array.isArray(a.args) ? a.args.join(" ") : (a.args ?? "")}`.trim(),
    execute: async (a, ctx) => execTool.run({ command: commandLine(a) }, { ...ctx, env: { ...ctx.env, PATH: `${dirname(file)}${delimiter}${ctx.env.PATH ?? pathEnv ?? ""}` } }),
  });
  return { ...tool, asExec: (args) => commandLine(args as { args?: string[] | string }) };
}

function runFor(file: string, args: string[], env: Record<string, string | undefined>, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      killProcessGroup(child);
      reject(new Error(`--metadata did not answer within ${timeoutMs / 1000}s`));
    }, timeoutMs);
    child.stdout?.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`could not run: ${e.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`--metadata exited ${code}${err.trim() ? `: ${err.trim().split("\n").at(-1)}` : ""}`));
    });
  });
}

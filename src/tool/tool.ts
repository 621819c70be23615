/**
 * The tool contract: `defineTool({...})` turns a zod schema plus an `execute` function into a ToolDefinition
 * the agent loop can advertise (`spec()`) and call (`run()`).
 *
 * Contracts of `run()`:
 * - it never throws: invalid arguments, thrown errors and aborts all become error ToolOutputs;
 * - the text for the model is capped at the tool's `maxResultChars` (a real cap: the result is at most the cap plus
 *   one marker line), cut on code-point boundaries, head and tail kept; when it cuts, the full text is handed to
 *   `ctx.saveOverflow` and the marker names the saved file, so nothing a tool produced is lost.
 */
import { z } from "zod";
import type { ToolSpec } from "../protocol/llm.ts";
import type { ImagePart } from "../protocol/message.ts";
import { safeHead, safeTail } from "../util/text.ts";
import type { PathPolicy } from "./workspace.ts";
import type { ExecSandbox } from "../sandbox/types.ts";
import type { FileAccess } from "./file-access.ts";

export type { PathPolicy } from "./workspace.ts";

export const DEFAULT_MAX_RESULT_CHARS = 30_000;

export interface ToolContext {
  projectRoot: string;
  /** Directory relative commands run in (exec); file paths resolve against the project root via `paths`. */
  cwd: string;
  paths: PathPolicy;
  signal: AbortSignal;
  callId: string;
  env: Record<string, string | undefined>;
  /** Live output for the UI (exec streams stdout/stderr chunks here). */
  onUpdate?(chunk: string): void;
  /** Persist an over-cap result; returns the saved file's path (or undefined when saving failed). */
  saveOverflow?(fullText: string): string | undefined;
  /** exec runs its command through this when present (a working OS sandbox); absent = unsandboxed. */
  sandbox?: ExecSandbox;
  /** read/write/edit go through this when present (an editor's buffers, file-access.ts); absent = the disk. */
  files?: FileAccess;
}

export interface ToolOutput {
  /** What the model sees. */
  text: string;
  isError?: boolean;
  /** Machine-readable failure kind: `invalid_args`, `ENOENT`, `outside_project`, `ExitCode:1`, `Timeout`, `Canceled`, … */
  errorCode?: string;
  /** Structured data for the UI (path, diff, exitCode, lines, …). Never re-parse `text` for these. */
  details?: Record<string, unknown>;
  /** Images for a vision model, capped like user images (agent/images). `text` must describe them: a model without
   * vision gets the text alone. */
  images?: ImagePart[];
}

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

export interface ToolConfig<S extends AnyObjectSchema> {
  name: string;
  description: string;
  input: S;
  /** Cap on the text for the model; default 30,000 chars. */
  maxResultChars?: number;
  /** Share of the kept text taken from the head when cutting (default 0.7; exec prefers the tail). */
  headShare?: number;
  readOnly: boolean;
  /**
   * Alternative argument names models commonly use (`file_path` → `path`). Applied before validation, only when
   * the canonical key is absent. Not advertised in the JSON schema.
   */
  argAliases?: Record<string, string>;
  /**
   * Rewrites argument values a model wrote in another agent's shape into ours (an argv array → a command line),
   * after `argAliases`, before validation. Must return its input when there is nothing to rewrite.
   */
  normalizeArgs?: (args: Record<string, unknown>) => Record<string, unknown>;
  /** Short human line for the UI, e.g. `read src/main.ts:10-40`. */
  title(args: z.output<S>): string;
  execute(args: z.output<S>, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * For tools that change a file: the file's text before and after the call, computed the same way `execute` will
   * (the approval box shows this diff). Must not write anything; reads asynchronously.
   */
  preview?(args: z.output<S>, ctx: PreviewContext): Promise<FilePreview | undefined>;
}

export interface PreviewContext {
  projectRoot: string;
  paths: PathPolicy;
  files?: FileAccess;
}

export interface FilePreview {
  /** Absolute path of the file that would change. */
  path: string;
  before: string;
  after: string;
}

/** Arguments after JSON decoding, alias normalisation and validation: what policy, preview and execution all see. */
export type PreparedArgs = Record<string, unknown>;

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly readOnly: boolean;
  readonly maxResultChars: number;
  readonly input: AnyObjectSchema;
  spec(): ToolSpec;
  /** Title for raw (unvalidated) args; falls back to the tool name when they do not parse. */
  describe(rawArgs: unknown): string;
  /**
   * Decodes, applies `argAliases` and validates once (`filename` → `path`). The host hands the result to the
   * permission policy, the checkpoint snapshot, `preview` and `run`, so all of them see the same arguments;
   * `run` accepts prepared arguments unchanged (validation is idempotent).
   */
  prepare(rawArgs: unknown): { ok: true; args: PreparedArgs } | { ok: false; message: string };
  /** The before/after text of the file a call would change, when the tool defines `preview`. */
  preview(args: PreparedArgs, ctx: PreviewContext): Promise<FilePreview | undefined>;
  run(rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * A tool that runs a program (an external plugin): the command line the call amounts to. The tool host then
   * decides and runs the call as that exec (policy, approval, sandbox, config guard). Absent for ordinary tools.
   */
  asExec?(args: PreparedArgs): string;
  /** What the approval shows for a call (default: the path, the command or the name and arguments). */
  approvalAction?(args: PreparedArgs): string;
  /** A tool an MCP server provides (src/mcp/): its server and its own name there. */
  readonly mcp?: { server: string; tool: string };
}

export function errorOutput(text: string, errorCode: string, details?: Record<string, unknown>): ToolOutput {
  return details ? { text, isError: true, errorCode, details } : { text, isError: true, errorCode };
}

export function defineTool<S extends AnyObjectSchema>(config: ToolConfig<S>): ToolDefinition {
  const maxResultChars = config.maxResultChars && config.maxResultChars > 0 ? config.maxResultChars : DEFAULT_MAX_RESULT_CHARS;
  let cachedSpec: ToolSpec | undefined;

  const parse = (rawArgs: unknown): { ok: true; args: z.output<S> } | { ok: false; message: string } => {
    const decoded = decodeArgs(rawArgs);
    if (!decoded.ok) return decoded;
    const aliased = applyAliases(decoded.value, config.argAliases);
    const withAliases = config.normalizeArgs && typeof aliased === "object" && aliased !== null && !Array.isArray(aliased) ? config.normalizeArgs(aliased as Record<string, unknown>) : aliased;
    const result = config.input.safeParse(withAliases);
    if (result.success) return { ok: true, args: result.data as z.output<S> };
    return { ok: false, message: formatIssues(config.name, result.error.issues, config.input) };
  };

  return {
    name: config.name,
    description: config.description,
    readOnly: config.readOnly,
    maxResultChars,
    input: config.input,
    spec() {
      cachedSpec ??= { name: config.name, description: config.description, parameters: toParametersSchema(config.input) };
      return cachedSpec;
    },
    describe(rawArgs) {
      const parsed = parse(rawArgs);
      if (!parsed.ok) return config.name;
      try {
        return config.title(parsed.args);
      } catch {
        return config.name;
      }
    },
    prepare(rawArgs) {
      const parsed = parse(rawArgs);
      return parsed.ok ? { ok: true, args: parsed.args as PreparedArgs } : parsed;
    },
    async preview(args, ctx) {
      if (!config.preview) return undefined;
      const parsed = parse(args);
      if (!parsed.ok) return undefined;
      try {
        return await config.preview(parsed.args, ctx);
      } catch {
        return undefined;
      }
    },
    async run(rawArgs, ctx) {
      if (ctx.signal.aborted) return errorOutput("Canceled before it started.", "Canceled");
      const parsed = parse(rawArgs);
      if (!parsed.ok) return errorOutput(parsed.message, "invalid_args");
      let out: ToolOutput;
      try {
        out = await config.execute(parsed.args, ctx);
      } catch (err) {
        out = thrownToOutput(err);
      }
      return capOutput(out, maxResultChars, ctx, config.headShare);
    },
  };
}

/** Arguments arrive as a parsed object or as the raw JSON string of a native tool call. */
function decodeArgs(rawArgs: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (rawArgs === undefined || rawArgs === null) return { ok: true, value: {} };
  if (typeof rawArgs !== "string") return { ok: true, value: rawArgs };
  if (rawArgs.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(rawArgs) as unknown };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `The arguments are not valid JSON (${why}). Send a JSON object with the tool's parameters.` };
  }
}

function applyAliases(value: unknown, aliases: Record<string, string> | undefined): unknown {
  if (!aliases || typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const obj: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [alias, canonical] of Object.entries(aliases)) {
    if (alias in obj && !(canonical in obj)) {
      obj[canonical] = obj[alias];
      delete obj[alias];
    }
  }
  return obj;
}

function formatIssues(tool: string, issues: readonly z.core.$ZodIssue[], schema: AnyObjectSchema): string {
  const lines = issues.map((issue) => {
    const field = issue.path.length ? issue.path.map(String).join(".") : "(arguments)";
    return `- ${field}: ${issue.message}`;
  });
  const shape = schema.shape;
  const params = Object.keys(shape).map((k) => {
    const field = shape[k];
    const optional = field ? z.safeParse(field, undefined).success : false;
    return optional ? `${k}?` : k;
  });
  return `Invalid arguments for tool "${tool}":\n${lines.join("\n")}\nExpected parameters: ${params.join(", ")}. Fix the fields above and call the tool again.`;
}

function thrownToOutput(err: unknown): ToolOutput {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return errorOutput(err.message || err.name, typeof code === "string" && code ? code : "tool_error");
  }
  return errorOutput(String(err), "tool_error");
}

/** JSON schema of the arguments, trimmed to what every provider's function-calling dialect accepts. */
export function toParametersSchema(schema: AnyObjectSchema): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return cleanSchema(json) as Record<string, unknown>;
}

function cleanSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleanSchema);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k === "$schema") continue;
    // zod writes int bounds as ±MAX_SAFE_INTEGER; they are noise to a model and some APIs reject them.
    if ((k === "maximum" || k === "minimum") && typeof v === "number" && Math.abs(v) >= Number.MAX_SAFE_INTEGER) continue;
    out[k] = cleanSchema(v);
  }
  return out;
}

/**
 * The per-tool cap. Keeps `headShare` of `max` from the head and the rest from the tail; the marker says how much
 * was omitted and, when the full text could be saved, where.
 */
export function capText(
  text: string,
  max: number,
  saveOverflow?: (fullText: string) => string | undefined,
  headShare = 0.7,
): { text: string; truncated: boolean; omitted: number; savedPath?: string } {
  if (text.length <= max) return { text, truncated: false, omitted: 0 };
  const head = safeHead(text, Math.floor(max * headShare));
  const tail = safeTail(text, Math.max(0, max - head.length));
  const omitted = text.length - head.length - tail.length;
  const kept = head.length + tail.length;
  let savedPath: string | undefined;
  try {
    savedPath = saveOverflow?.(text);
  } catch {
    savedPath = undefined;
  }
  // The marker itself stays exactly `[TRUNCATED N chars omitted, M kept]`; the saved file follows it on the same line.
  const where = savedPath ? ` [full output saved to ${savedPath}]` : "";
  const marker = `\n[TRUNCATED ${omitted} chars omitted, ${kept} kept]${where}\n`;
  return savedPath
    ? { text: head + marker + tail, truncated: true, omitted, savedPath }
    : { text: head + marker + tail, truncated: true, omitted };
}

function capOutput(out: ToolOutput, max: number, ctx: ToolContext, headShare: number | undefined): ToolOutput {
  const capped = capText(out.text, max, ctx.saveOverflow, headShare);
  if (!capped.truncated) return out;
  const details: Record<string, unknown> = { ...(out.details ?? {}), truncated: true, originalChars: out.text.length };
  if (capped.savedPath) details.savedPath = capped.savedPath;
  return { ...out, text: capped.text, details };
}

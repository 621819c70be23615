/**
 * An example chatcli plugin. Copy this file to ~/.chatcli/plugins/ (or <project>/.chatcli/plugins/, which needs
 * `chatcli hooks trust`) and start chatcli: no npm install, no build step. `/plugins` shows it.
 *
 * It adds:
 *   - a tool, `line_count`, the model can call (it goes through the permission policy like any built-in tool);
 *   - a slash command, `/line-count-stats`;
 *   - two hooks: `tool.after` (counts the calls of every tool) and `prompt.submit` (refuses prompts that hold a
 *     private key, before they reach the model).
 */
import { definePlugin, defineTool, z } from "chatcli/plugin";
import { readFile } from "node:fs/promises";

const calls = new Map<string, number>();

const lineCount = defineTool({
  name: "line_count",
  description: "Count the lines of a text file in the project.",
  input: z.object({ path: z.string().describe("File path, relative to the project root") }),
  readOnly: true,
  title: (a) => `line_count ${a.path}`,
  async execute(args, ctx) {
    // The path policy every built-in tool uses: inside the project (or an allowed read root) only.
    const file = ctx.paths.resolveRead(args.path);
    const text = await readFile(file, "utf8");
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return { text: `${args.path} has ${lines} lines.`, details: { lines } };
  },
});

export default definePlugin({
  name: "line-count",
  version: "1.0.0",
  description: "Counts lines; an example of every part of the plugin API",
  tools: [lineCount],
  commands: [
    {
      name: "line-count-stats",
      description: "how many times each tool was called in this session",
      run: () => (calls.size ? [...calls].map(([tool, n]) => `${tool}: ${n}`).join("\n") : "no tool calls yet"),
    },
  ],
  hooks: {
    "tool.after": ({ tool }) => {
      calls.set(tool, (calls.get(tool) ?? 0) + 1);
    },
    "prompt.submit": ({ prompt }) => (prompt.includes("-----BEGIN PRIVATE KEY-----") ? { block: "the prompt holds a private key" } : undefined),
  },
});

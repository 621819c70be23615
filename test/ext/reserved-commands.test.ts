/**
 * Custom commands and skills may not shadow a built-in slash command. RESERVED_COMMANDS (src/ext) is kept by hand
 * because ext/ cannot import the UI's lists; this test collects every name the TUI and the slash handlers know and
 * fails when one is missing from it. It reads the real lists, then the names that are only written in dispatch
 * code (`case "quit":`, `name === "stats"`) in the files that route slash commands.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { RESERVED_COMMANDS } from "../../src/ext/ext-discovery.ts";
import { BUILTIN_COMMANDS } from "../../src/ui/tui/completion.ts";
import { SLASH_COMMANDS } from "../../src/cli/slash-commands.ts";
import { DAILY_COMMANDS, plainHelpText } from "../../src/cli/daily-commands.ts";
import { extSlashList } from "../../src/ext/plugins/plugins-slash.ts";
import { MEMORY_SLASH_COMMAND } from "../../src/cli/commands/memory.ts";

const SRC = join(import.meta.dir, "..", "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Files that route slash commands: a SlashHandler, the TUI's and plain mode's own dispatch, main.ts's chain. */
function dispatchFiles(): string[] {
  return sourceFiles(SRC).filter((f) => /SlashHandler\b|onSlashCommand|function runSlashCommand|function extSlash\w*\(|_SLASH_COMMANDS?\b/.test(readFileSync(f, "utf8")));
}

function namesInDispatchCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of dispatchFiles()) {
    const text = readFileSync(file, "utf8");
    const rel = file.slice(SRC.length + 1);
    const patterns = [/\b(?:name|cmd) === "([a-z][a-z0-9-]*)"/g, /\{\s*name: "([a-z][a-z0-9-]*)"/g, /\btranslated(?:Command)?\("([a-z][a-z0-9-]*)"/g];
    // The TUI's own switch is over command names (other files switch over sub-commands and events).
    if (rel === join("ui", "tui", "slash-command-runner.ts")) patterns.push(/\bcase "([a-z][a-z0-9-]*)":/g);
    for (const re of patterns) for (const m of text.matchAll(re)) found.set(m[1]!, rel);
  }
  return found;
}

describe("RESERVED_COMMANDS", () => {
  test("holds every built-in command of the completion list and the slash handlers", () => {
    const lists = [...BUILTIN_COMMANDS, ...SLASH_COMMANDS, ...DAILY_COMMANDS, ...extSlashList(undefined), MEMORY_SLASH_COMMAND].map((c) => c.name);
    const plainHelp = [...plainHelpText([]).matchAll(/^\/(\S+)/gm)].map((m) => m[1]!);
    expect(lists.length).toBeGreaterThan(15);
    expect(plainHelp).toContain("exit");
    const missing = [...new Set([...lists, ...plainHelp])].filter((n) => !RESERVED_COMMANDS.includes(n));
    expect(missing).toEqual([]);
  });

  test("holds every command name written in the dispatch code (TUI, plain mode, main.ts, mcp, ext, plugins)", () => {
    const found = namesInDispatchCode();
    // The scan must see the routes it is meant to guard, or it guards nothing.
    for (const n of ["quit", "mcp", "agent", "skills", "plugins", "stats", "session", "diff"]) expect(found.has(n)).toBe(true);
    const missing = [...found].filter(([n]) => !RESERVED_COMMANDS.includes(n)).map(([n, f]) => `${n} (${f})`);
    expect(missing).toEqual([]);
  });
});

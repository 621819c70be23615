import { describe, expect, test } from "bun:test";
import { parseArgs, UsageError } from "../../src/cli/args.ts";

const parse = (...argv: string[]) => parseArgs(argv, "0.0.0 (test)");

function usageError(argv: string[]): string {
  try {
    parse(...argv);
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error(`no usage error for ${argv.join(" ")}`);
}

describe("parseArgs", () => {
  test("no arguments: the interactive TUI", () => {
    expect(parse()).toMatchObject({ kind: "interactive", noTui: false, inline: false, flags: {} });
  });

  test("-p / --prompt: one-shot with provider and model flags", () => {
    expect(parse("-p", "hello", "--provider", "ollama", "-m", "qwen3:8b")).toMatchObject({ kind: "oneshot", prompt: "hello", outputFormat: "text", flags: { provider: "ollama", model: "qwen3:8b" } });
    expect(parse("--prompt", "hi", "--model", "m", "--output-format", "stream-json")).toMatchObject({ kind: "oneshot", prompt: "hi", outputFormat: "stream-json", flags: { model: "m" } });
  });

  test("--sandbox MODE; a mode that does not exist is a usage error", () => {
    expect(parse("-p", "x", "--sandbox", "off")).toMatchObject({ kind: "oneshot", flags: { sandbox: "off" } });
    expect(parse("--sandbox", "read-only")).toMatchObject({ kind: "interactive", flags: { sandbox: "read-only" } });
    expect(usageError(["--sandbox", "open"])).toContain("sandbox");
  });

  test("models, --no-tui, update --version X", () => {
    expect(parse("models", "--json")).toMatchObject({ kind: "models", json: true });
    expect(parse("--no-tui")).toMatchObject({ kind: "interactive", noTui: true });
    expect(parse("update", "--version", "1.2.3")).toMatchObject({ kind: "update", version: "1.2.3", check: false });
  });

  test("--rewind without --resume or --continue is a usage error naming both", () => {
    const msg = usageError(["--rewind", "1"]);
    expect(msg).toContain("--resume");
    expect(msg).toContain("--continue");
    expect(usageError(["-p", "x", "--rewind", "2"])).toContain("--resume");
    expect(parse("--resume", "abc", "--rewind", "1")).toMatchObject({ kind: "interactive", resume: "abc", rewind: 1 });
    expect(parse("--continue", "--rewind", "1")).toMatchObject({ kind: "interactive", continue: true, rewind: 1 });
  });

  test("bad usage is a UsageError naming what was wrong", () => {
    expect(usageError(["--output-format", "xml", "-p", "x"])).toContain("xml");
    expect(usageError(["frobnicate"])).toContain("frobnicate");
    expect(usageError(["--max-turns", "0", "-p", "x"])).toContain("--max-turns");
  });

  test("an unknown --no-X flag is named as typed, once", () => {
    expect(usageError(["--no-such-flag"])).toBe("Unknown argument: no-such-flag");
    expect(usageError(["--bogus-thing", "--other"])).toBe("Unknown arguments: bogus-thing, other");
  });
});

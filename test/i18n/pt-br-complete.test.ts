// Issue 15 item 10: nothing English is reachable in pt-BR through the table. Walks the English table: every key
// has a pt-BR value that differs from the English one unless it is listed below as the same in both languages,
// and no pt-BR value carries common English words (a half-translated or pasted string).
import { describe, expect, test } from "bun:test";
import { en, ptBR, type MessageKey } from "../../src/i18n/messages.ts";

/** The same in both languages on purpose. Keep it short; every entry says why. */
const IDENTICAL: Partial<Record<MessageKey, string>> = {
  "tui.welcome": "program name, version, provider and model names only",
  "acp.log": "the subcommand's name before a log line (the log itself is English)",
  "protect.word": "a reason (translated itself) and the shell word it is about",
  "danger.command": "a command line only (\"nft flush\"), quoted as the user would type it",
  "hooks.configWarning": "the feature's name (hooks, a settings key) and a warning about a settings key",
  "plugins.heading": "\"Plugins\" is the same word in Portuguese, and a count",
  "plugins.hooks": "\"hooks\" is the feature's name (the settings key) in both languages",
  "shell.indicator": "`! shell`: the prefix a person types and the word for a shell, the same in both languages",
  "vim.normal": "vim's own mode name, as vim shows it in every language",
  "mcp.warning": "a prefix and an English detail from the MCP runtime",
  "mcp.approveLine": "a server name and its command line or url",
  "mcp.line": "names, a scope and parts translated themselves",
  "mcp.reason": "a separator and a reason",
  "connect.list.id": "the column heading ID, the same abbreviation in Portuguese",
};

// Whole words only (not "is" inside "ilegível(is)"); text in quotes/backticks, flags, paths and placeholders is
// code or data, not prose, and is left out before looking.
const ENGLISH = /(?:^|\s)(the|is|are|was|were|cannot|could|not|with|and|of|to|from|this|that|you|your|run|press|failed|denied|allowed|file|files|session|only|must|needs?|unknown|invalid|missing)(?=[\s.,;:!?)]|$)/i;

function prose(s: string): string {
  return s
    .replace(/\{\w+\}/g, "")
    .replace(/`[^`]*`/g, "")
    .replace(/"[^"]*"/g, "")
    .replace(/(^|\s)--?[\w-]+/g, " ")
    .replace(/[\w.~$-]*\/[\w./<>|-]*/g, "");
}

describe("pt-BR translates every English message", () => {
  const keys = Object.keys(en) as MessageKey[];

  test("the walk covers the table", () => {
    expect(keys.length).toBeGreaterThan(300);
  });

  test("no key is missing in pt-BR and pt-BR has no key English lacks", () => {
    expect(keys.filter((k) => typeof ptBR[k] !== "string" || ptBR[k] === "")).toEqual([]);
    expect(Object.keys(ptBR).filter((k) => !(k in en))).toEqual([]);
  });

  test("no pt-BR message equals the English one unless listed as identical on purpose", () => {
    expect(keys.filter((k) => ptBR[k] === en[k] && !(k in IDENTICAL))).toEqual([]);
    // A stale allowlist entry would hide a future untranslated string under the same key.
    expect((Object.keys(IDENTICAL) as MessageKey[]).filter((k) => ptBR[k] !== en[k])).toEqual([]);
  });

  test("no pt-BR message has English words in its prose", () => {
    const found = keys.filter((k) => ENGLISH.test(prose(ptBR[k]))).map((k) => `${k}: ${ptBR[k]}`);
    expect(found).toEqual([]);
  });

  test("the English-word check itself sees English", () => {
    expect(ENGLISH.test(prose("Permission denied: the file is outside {root}"))).toBe(true);
    expect(ENGLISH.test(prose("Permissão negada: o arquivo está fora de {root}"))).toBe(false);
  });
});

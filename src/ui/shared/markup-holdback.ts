/**
 * Streams an answer to a plain-text sink without showing tool-call markup. Models on the text protocol write
 * their calls into the answer (`<tool_call name=… />`, `{"tool_call": …}`, a ```json block); once the message
 * is complete the parser has separated prose from calls (`displayText`), but streamed bytes cannot be taken
 * back. So text is written as it arrives up to the first place a call could begin; from there it is held,
 * and at completion only the rest of the displayed text is written. Nothing shown is ever lost, only delayed.
 */
import { DIALECT_TRIGGERS, LINE_START_TRIGGERS } from "../../agent/toolcall/dialects/registry.ts";
import { bareCallNames } from "../../agent/toolcall/dialects/known-names.ts";

const BASE_TRIGGERS = ["<tool_call", "<function", "```json", "```tool", "```xml", '{"tool_call"', '{"name"', "@coder", "<|", "<｜", "[tool", "[function", "<invoke"];
/**
 * Starts that need a pattern: a JSON object whose first key is a call key or one of our tool names
 * (`{\n  "name":`), and a line-start python call (`[ tree(`, `functions.read(`). `TAILS` are the forms a
 * delta may end in that could still grow into one of them; such a tail is held until the next delta.
 */
const CALL_KEY = `(?:name|tool|tool_name|tool_call|tool_calls|function|functioncall|function_call|role|type|cmd|${bareCallNames().join("|")})`;
const PATTERNS = [new RegExp(`\\{\\s*["']${CALL_KEY}(?:["']\\s*:|\\s*=)`, "i"), new RegExp(`\\n[ \\t]*\\[?[ \\t]*(?:functions\\.)?(?:${bareCallNames().join("|")})\\(`, "i")];
const JSON_TAIL = /\{\s*(?:["'][\w]*(?:["']\s*)?)?$/;
const LINE_TAIL = /\n(?=[ \t[\w.])[ \t]*\[?[ \t]*(?:functions\.)?([\w.]*)$/;
const CALL_NAMES = bareCallNames();

/** Length of a tail that may still grow into a call start: `{"na`, or a line that so far is a prefix of a tool name. */
function openTail(lower: string): number {
  const tail = lower.slice(-48);
  const j = JSON_TAIL.exec(tail);
  const l = LINE_TAIL.exec(tail);
  const word = l?.[1] ?? "";
  const lineOk = l !== null && (word === "" || "functions.".startsWith(word) || CALL_NAMES.some((n) => n.startsWith(word)));
  return Math.max(j ? j[0].length : 0, lineOk && l ? l[0].length : 0);
}
/** Every dialect's markers (agent/toolcall/dialects), Cline-style `<read_file>` elements and line-start python calls. */
const TRIGGERS = [...new Set([...BASE_TRIGGERS, ...DIALECT_TRIGGERS, ...LINE_START_TRIGGERS])];
/** The first trigger anywhere, in one scan (an indexOf per trigger cost ~0.4 s per 20,000 deltas). */
const TRIGGER_RE = new RegExp(TRIGGERS.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));

export class MarkupHoldback {
  private printed = "";
  private buffer = "";
  private holding = false;
  /** `printed` is empty or ends with "\n" (kept here: `printed` is a long rope, and endsWith flattens it per delta). */
  private atLine = true;

  constructor(private readonly write: (s: string) => void) {}

  /** A text delta of the current message. */
  push(text: string): void {
    if (this.holding) return;
    this.buffer += text;
    // a leading "\n" stands for the line start the buffer begins at, so line-start triggers match there too
    const atLine = this.atLine;
    const lower = (atLine ? "\n" : "") + this.buffer.toLowerCase();
    const shift = atLine ? 1 : 0;
    let cut = TRIGGER_RE.exec(lower)?.index ?? -1;
    for (const re of PATTERNS) {
      const m = re.exec(lower);
      if (m && (cut === -1 || m.index < cut)) cut = m.index;
    }
    if (cut !== -1) cut = Math.max(0, cut - shift);
    if (cut !== -1) {
      this.holding = true;
      this.emit(this.buffer.slice(0, cut));
      this.buffer = "";
      return;
    }
    // Keep back a tail that could be the start of a trigger split across deltas.
    let keep = partialTriggerSuffix(lower);
    keep = Math.max(keep, openTail(lower));
    keep = Math.min(this.buffer.length, keep);
    // a held tail's leading line break can go out: the next push treats a printed "\n" as a line start
    if (keep > 0 && this.buffer[this.buffer.length - keep] === "\n") keep--;
    this.emit(this.buffer.slice(0, this.buffer.length - keep));
    this.buffer = this.buffer.slice(this.buffer.length - keep);
  }

  /** The message is complete: write what is left of the text a person should see; returns what was written in all. */
  complete(shown: string): string {
    if (shown.startsWith(this.printed)) this.emit(shown.slice(this.printed.length));
    const all = this.printed;
    this.printed = "";
    this.buffer = "";
    this.holding = false;
    this.atLine = true;
    return all;
  }

  private emit(s: string): void {
    if (!s) return;
    this.printed += s;
    this.atLine = s.endsWith("\n");
    this.write(s);
  }
}

/** Every proper prefix of every trigger, so a held tail is found with one lookup per length (not one per trigger). */
const TRIGGER_PREFIXES = new Set(TRIGGERS.flatMap((t) => Array.from({ length: t.length - 1 }, (_, n) => t.slice(0, n + 1))));
const LONGEST_PREFIX = Math.max(0, ...TRIGGERS.map((t) => t.length - 1));

const TRIGGER_FIRSTS = new Set(TRIGGERS.map((t) => t.charCodeAt(0)));

/** The longest tail of `lower` that is the start of a trigger (it may complete in the next delta). */
function partialTriggerSuffix(lower: string): number {
  for (let p = Math.max(0, lower.length - LONGEST_PREFIX); p < lower.length; p++) {
    if (TRIGGER_FIRSTS.has(lower.charCodeAt(p)) && TRIGGER_PREFIXES.has(lower.slice(p))) return lower.length - p;
  }
  return 0;
}

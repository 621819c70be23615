/**
 * Saves the messages a compaction level removed, as JSON Lines, so the summary can say where the originals
 * are and the `read` tool can open them. The directory is passed in; failures return undefined (the
 * compaction goes on, and the summary then does not promise a file).
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "../../protocol/message.ts";

export function createArchiver(
  dir: string,
  opts: { sessionId: string; now?: () => number; redact?: (text: string) => string } = { sessionId: "session" },
): (messages: Message[]) => string | undefined {
  const redact = opts.redact ?? ((t: string) => t);
  let seq = 0;
  const now = opts.now ?? Date.now;
  return (messages) => {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      seq++;
      const stamp = new Date(now()).toISOString().replace(/[:.]/g, "-");
      const file = join(dir, `${opts.sessionId}-${stamp}-${seq}.jsonl`);
      writeFileSync(file, messages.map((m) => redact(JSON.stringify(m))).join("\n") + "\n", { flag: "wx", mode: 0o600 });
      chmodSync(file, 0o600);
      return file;
    } catch {
      return undefined;
    }
  };
}

/**
 * File logger: `~/.chatcli/logs/chatcli-YYYY-MM-DD.log`. Never writes to the terminal. Values that look
 * like API keys are scrubbed before anything is written.
 */
import { appendFileSync, chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const SECRET_PATTERNS = [/\b(sk-[A-Za-z0-9_-]{10,})/g, /\b(sk-ant-[A-Za-z0-9_-]{10,})/g, /\b(AIza[0-9A-Za-z_-]{20,})/g, /\b(gh[pousr]_[A-Za-z0-9]{20,})/g, /\b(xai-[A-Za-z0-9]{20,})/g];

export class Logger {
  readonly file: string;
  private ready = false;
  private secrets: string[] = [];
  private scrubbers: Array<(s: string) => string> = [];

  constructor(dir: string, now = new Date()) {
    this.file = join(dir, `chatcli-${now.toISOString().slice(0, 10)}.log`);
  }

  /** Register literal secret values (API keys from env) to scrub. */
  addSecrets(values: Array<string | undefined>): void {
    for (const v of values) if (v && v.length >= 8) this.secrets.push(v);
  }

  /** Adds a redactor (store/redact.ts: .env values, URL passwords, key shapes) run on every line. */
  addScrubber(fn: (s: string) => string): void {
    this.scrubbers.push(fn);
  }

  scrub(s: string): string {
    let out = s;
    for (const fn of this.scrubbers) out = fn(out);
    for (const v of this.secrets) out = out.split(v).join("[REDACTED]");
    for (const re of SECRET_PATTERNS) out = out.replace(re, "[REDACTED]");
    return out;
  }

  write(level: "debug" | "info" | "warn" | "error", msg: string): void {
    try {
      if (!this.ready) {
        mkdirSync(join(this.file, ".."), { recursive: true, mode: 0o700 });
        this.ready = true;
      }
      appendFileSync(this.file, `${new Date().toISOString()} ${level.toUpperCase()} ${this.scrub(msg)}\n`, { mode: 0o600 });
      chmodSync(this.file, 0o600);
    } catch {
      // Logging must never break the app.
    }
  }

  info(msg: string): void {
    this.write("info", msg);
  }
  warn(msg: string): void {
    this.write("warn", msg);
  }
  error(msg: string): void {
    this.write("error", msg);
  }
}

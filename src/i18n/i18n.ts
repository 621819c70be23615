/** Language selection (`CHATCLI_LANG`, then `LC_ALL`/`LANG`) and message formatting. */
import { en, ptBR, type MessageKey } from "./messages.ts";

export type Lang = "en" | "pt-BR";

let current: Lang = "en";

export function detectLang(env: Record<string, string | undefined>): Lang {
  const v = (env.CHATCLI_LANG || env.LC_ALL || env.LANG || "").toLowerCase();
  return v.startsWith("pt") ? "pt-BR" : "en";
}

export function setLang(lang: Lang): void {
  current = lang;
}

/** The language `t` writes in now (for libraries that take a locale of their own: yargs, zod). */
export function currentLang(): Lang {
  return current;
}

export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  const table = current === "pt-BR" ? ptBR : en;
  const template: string = table[key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

export type { MessageKey };

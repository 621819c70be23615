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
  return tIn(current, key, params);
}

/** `t` in a given language: English text that also goes to the model is rendered with "en" (see Localized). */
export function tIn(lang: Lang, key: MessageKey, params: Record<string, string | number> = {}): string {
  const table = lang === "pt-BR" ? ptBR : en;
  const template: string = table[key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

/**
 * A message not yet rendered: a key and its params, which may be messages themselves. For text both a person and
 * the model read (a permission decision's reason): the model gets `render(m, "en")`, the person `render(m)`.
 */
export interface Localized {
  key: MessageKey;
  params?: Record<string, string | number | Localized>;
}

export function msg(key: MessageKey, params?: Localized["params"]): Localized {
  return params ? { key, params } : { key };
}

export function render(m: Localized, lang: Lang = current): string {
  const params: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(m.params ?? {})) params[k] = typeof v === "object" ? render(v, lang) : v;
  return tIn(lang, m.key, params);
}

export type { MessageKey };

import { describe, expect, test } from "bun:test";
import { detectLang, setLang, t } from "../../src/i18n/i18n.ts";
import { en, ptBR } from "../../src/i18n/messages.ts";

describe("i18n", () => {
  test("pt-BR has every key and keeps every placeholder", () => {
    for (const key of Object.keys(en) as Array<keyof typeof en>) {
      expect(ptBR[key]).toBeString();
      const ph = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(ph(ptBR[key])).toEqual(ph(en[key]));
    }
  });

  test("language from CHATCLI_LANG, then LANG", () => {
    expect(detectLang({ CHATCLI_LANG: "pt-BR" })).toBe("pt-BR");
    expect(detectLang({ LANG: "pt_BR.UTF-8" })).toBe("pt-BR");
    expect(detectLang({ CHATCLI_LANG: "en", LANG: "pt_BR.UTF-8" })).toBe("en");
    expect(detectLang({})).toBe("en");
  });

  test("t fills placeholders in the active language", () => {
    setLang("pt-BR");
    expect(t("ollama.down", { host: "http://x:1" })).toContain("Não foi possível conectar ao Ollama em http://x:1");
    setLang("en");
    expect(t("ollama.down", { host: "http://x:1" })).toContain("Cannot reach Ollama at http://x:1");
  });
});

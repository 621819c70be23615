/** pt-BR messages of the daily-driver features (issue 25): the same keys as messages-en-daily-b.ts. */
import type { enDailyB } from "./messages-en-daily-b.ts";

export const ptBRDailyB: Record<keyof typeof enDailyB, string> = {
  "args.offline": "Sem rede além do provedor: sem a ferramenta fetch, sem rede no sandbox, sem verificação de atualizações",
  "offline.update": "--offline: `chatcli update` precisa da rede; rode-o sem --offline.",
  "image.attached": "@{token}: imagem anexada ({width}×{height}, {kb} KB).",
  "image.downscaled": "@{token}: imagem reduzida de {fromW}×{fromH} para {width}×{height} ({kb} KB).",
  "image.tooLarge": "@{token}: a imagem tem {mb} MB, acima do limite de {limit} MB; não anexada.",
  "image.unreadable": "@{token}: não é uma imagem que o chatcli consiga ler ({error}); não anexada.",
  "image.stillTooLarge": "@{token}: a imagem continua acima de {limit} MB mesmo reduzida; não anexada.",
  "image.noVision": "{model} não enxerga imagens (sem suporte a visão): {count} imagem(ns) não enviada(s). Troque para um modelo com visão (/model) para usá-las.",
  "image.clipboardNone": "Nenhuma imagem na área de transferência (procurada com {tool}).",
  "image.clipboardNoTool": "Colar uma imagem requer wl-paste (Wayland), xclip (X11) ou macOS; nenhum foi encontrado.",
  "image.clipboardSaved": "Imagem da área de transferência anexada como {path}.",
  "theme.set": "Tema: {theme}{detected}.",
  "theme.detected": " (fundo {bg} detectado)",
  "theme.usage": "Uso: /theme light|dark|auto",
  "vim.on": "Modo vim ligado: Esc para o modo normal, i para inserir.",
  "vim.off": "Modo vim desligado.",
  "vim.normal": "NORMAL",
  "vim.insert": "INSERIR",
  "help.imagePaste": "Ctrl+V — anexa uma imagem da área de transferência (wl-paste, xclip ou macOS); @arquivo.png anexa um arquivo de imagem",
  "cmd.theme": "Paleta de cores: light, dark ou auto (pelo fundo do terminal)",
  "cmd.vim": "Liga/desliga as teclas do vim no prompt (modos normal/inserção)",
  "help.vimKeys": "Modo vim (/vim, \"editor\": {\"vim\": true}): Esc → NORMAL: h j k l w b e 0 $ movem; i a A I o O inserem; x dd cw editam; u desfaz",
};

/**
 * The one message table. Every user-facing string goes through `t(key, params)`.
 * English is the source; pt-BR must have every key (a test checks).
 */
export const en = {
  "ollama.down": "Cannot reach Ollama at {host}. Start it with `ollama serve` (or open the Ollama app), or point OLLAMA_HOST at a running server.",
  "ollama.noModels": "Ollama at {host} has no models installed. Install one with `ollama pull qwen3:8b`, then try again.",
  "model.usingFirst": "Using model {model} (the first installed; choose one with --model or LLM_MODEL).",
  "model.notFound": "Model \"{model}\" is not available on {provider}. Installed models: {list}.",
  "model.notFoundNoList": "Model \"{model}\" is not available on {provider}.",
  "model.none": "No model chosen for {provider}. Pass --model or set LLM_MODEL.",
  "provider.unknown": "Unknown provider \"{provider}\". Known providers: {list}.",
  "provider.noKey": "{provider} needs an API key: set {keys}.",
  "provider.error": "{provider} error: {message}",
  "usage.promptEmpty": "The prompt is empty: pass text with -p \"...\" or pipe it on stdin.",
  "stdin.noInput": "no input on stdin after {seconds} s; going on without it (redirect stdin from /dev/null to skip the wait).",
  "models.header": "Models on {provider} ({host}):",
  "models.none": "No models.",
  "tui.placeholder": "Type a message. Enter sends, Shift+Enter adds a line. Ctrl+C twice quits.",
  "tui.welcome": "chatcli {version} — {provider} · {model}",
  "tui.quitHint": "Press Ctrl+C again to quit.",
  "error.unexpected": "Unexpected error: {message}. Details are in {log}.",
  "retry.waiting": "{provider}: {kind}, retrying in {seconds}s (attempt {attempt}).",
  "interrupted": "Interrupted.",
} as const;

export type MessageKey = keyof typeof en;

export const ptBR: Record<MessageKey, string> = {
  "ollama.down": "Não foi possível conectar ao Ollama em {host}. Inicie-o com `ollama serve` (ou abra o app do Ollama), ou aponte OLLAMA_HOST para um servidor ativo.",
  "ollama.noModels": "O Ollama em {host} não tem modelos instalados. Instale um com `ollama pull qwen3:8b` e tente de novo.",
  "model.usingFirst": "Usando o modelo {model} (o primeiro instalado; escolha outro com --model ou LLM_MODEL).",
  "model.notFound": "O modelo \"{model}\" não está disponível em {provider}. Modelos instalados: {list}.",
  "model.notFoundNoList": "O modelo \"{model}\" não está disponível em {provider}.",
  "model.none": "Nenhum modelo escolhido para {provider}. Use --model ou defina LLM_MODEL.",
  "provider.unknown": "Provedor desconhecido \"{provider}\". Provedores conhecidos: {list}.",
  "provider.noKey": "{provider} precisa de uma chave de API: defina {keys}.",
  "provider.error": "Erro de {provider}: {message}",
  "usage.promptEmpty": "O prompt está vazio: passe texto com -p \"...\" ou pela entrada padrão.",
  "stdin.noInput": "nada chegou pela entrada padrão em {seconds} s; seguindo sem ela (redirecione de /dev/null para não esperar).",
  "models.header": "Modelos em {provider} ({host}):",
  "models.none": "Nenhum modelo.",
  "tui.placeholder": "Digite uma mensagem. Enter envia, Shift+Enter nova linha. Ctrl+C duas vezes sai.",
  "tui.welcome": "chatcli {version} — {provider} · {model}",
  "tui.quitHint": "Pressione Ctrl+C de novo para sair.",
  "error.unexpected": "Erro inesperado: {message}. Detalhes em {log}.",
  "retry.waiting": "{provider}: {kind}, nova tentativa em {seconds}s (tentativa {attempt}).",
  "interrupted": "Interrompido.",
};

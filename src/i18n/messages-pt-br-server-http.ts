/** pt-BR messages of `chatcli serve` over HTTP: the same keys as messages-en-server-http.ts. */
import type { enServerHttp } from "./messages-en-server-http.ts";

export const ptBRServerHttp: Record<keyof typeof enServerHttp, string> = {
  "serve.http.listening": "chatcli serve: escutando em {url}",
  "serve.http.insecure": "chatcli serve: AVISO: --insecure: servindo {url} SEM TLS em um endereço que não é loopback; o token e cada prompt atravessam a rede em texto puro",
  "serve.http.needsAllowRemote": "serve: {host} não é um endereço de loopback; escutar nele exige --allow-remote (e --tls-cert/--tls-key ou --insecure)",
  "serve.http.needsTls": "serve: --allow-remote em {host} exige TLS (--tls-cert F --tls-key F) ou um --insecure explícito",
  "serve.http.tlsPair": "serve: --tls-cert e --tls-key andam juntos",
  "serve.http.badPort": "serve: --port deve ser um número de 0 a 65535",
  "serve.http.badOrigin": "serve: --allow-origin precisa de uma origem como https://app.example.com (recebeu {origin})",
  "serve.http.cannotRead": "serve: não foi possível ler {file}: {error}",
  "serve.http.emptyToken": "serve: o token de {source} está vazio",
  "serve.http.cannotListen": "serve: não foi possível escutar em {host}:{port}: {error}",
  "serve.http.tokenFileFailed": "serve: não foi possível gravar o arquivo de token {file}: {error}",
  "serve.http.stopping": "chatcli serve: encerrando ({signal}), salvando {count} sessão(ões)",
  "serve.http.stdioFlag": "serve: {flag} é do transporte HTTP, não de --stdio",
  "serve.probe.ok": "chatcli serve: {url} está no ar",
  "serve.probe.failed": "chatcli serve: a sonda de {url} falhou: {error}",
  "serve.probe.status": "resposta HTTP {status}",
  "serve.probe.noToken": "sem token (defina CHATCLI_SERVER_TOKEN, passe --token-file F ou rode o servidor nesta máquina: {file})",
};

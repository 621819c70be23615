/**
 * The one-shot loopback server of an OAuth login (RFC 8252): listens on 127.0.0.1 only, takes the first callback
 * whose `state` matches the request in progress, answers the browser with a short page, and closes. A callback
 * with a wrong state is refused (400) and the wait goes on; one carrying `error` ends the wait with that error.
 */
import { createServer, type Server } from "node:http";
import { t } from "../../i18n/i18n.ts";
import { CALLBACK_PATH } from "./oauth-provider.ts";

export interface Loopback {
  redirectUrl: string;
  port: number;
  /** The authorization code of the first callback whose state matches (also one that came before this call). Rejects on `error`, timeout or abort. */
  waitForCode(opts: { timeoutMs: number; signal?: AbortSignal }): Promise<string>;
  close(): void;
}

export class OAuthCallbackError extends Error {
  override name = "OAuthCallbackError";
}

/**
 * Listens on `preferredPort` (the last login's, so the registered redirect URI still matches), else any free port.
 * `expectedState()` is the state of the authorization request in progress (read when a callback arrives).
 */
export async function startLoopback(preferredPort: number | undefined, expectedState: () => string | undefined): Promise<Loopback> {
  let outcome: { code: string } | { error: Error } | undefined;
  let notify: (() => void) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const answer = url.pathname === CALLBACK_PATH && !outcome ? onCallback(url) : { status: 404, body: "" };
    res.writeHead(answer.status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", connection: "close" });
    res.end(answer.body);
  });
  const settle = (o: { code: string } | { error: Error }) => {
    outcome = o;
    notify?.();
  };
  const onCallback = (url: URL): { status: number; body: string } => {
    const state = url.searchParams.get("state") ?? undefined;
    const expected = expectedState();
    if (!expected || state !== expected) return { status: 400, body: page(t("mcp.login.pageBadState")) };
    const error = url.searchParams.get("error");
    if (error) {
      const why = url.searchParams.get("error_description") ?? error;
      settle({ error: new OAuthCallbackError(t("mcp.login.denied", { error: why })) });
      return { status: 200, body: page(t("mcp.login.pageFailed", { error: why })) };
    }
    const code = url.searchParams.get("code");
    if (!code) return { status: 400, body: page(t("mcp.login.pageBadState")) };
    settle({ code });
    return { status: 200, body: page(t("mcp.login.pageDone")) };
  };
  const port = await listen(server, preferredPort).catch(() => listen(server, 0));
  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    port,
    close: () => {
      server.close();
      server.closeAllConnections?.();
    },
    waitForCode: ({ timeoutMs, signal }) =>
      new Promise<string>((resolve, reject) => {
        const finish = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          if (!outcome) return;
          if ("code" in outcome) resolve(outcome.code);
          else reject(outcome.error);
        };
        const timer = setTimeout(() => settle({ error: new OAuthCallbackError(t("mcp.login.timeout", { seconds: Math.round(timeoutMs / 1000) })) }), timeoutMs);
        const onAbort = () => settle({ error: new OAuthCallbackError(t("mcp.login.cancelled")) });
        signal?.addEventListener("abort", onAbort, { once: true });
        notify = finish;
        if (signal?.aborted) onAbort();
        else if (outcome) finish();
      }),
  };
}

function listen(server: Server, port: number | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(port ?? 0, "127.0.0.1", () => {
      server.off("error", onError);
      const addr = server.address();
      resolve(typeof addr === "object" && addr ? addr.port : 0);
    });
  });
}

function page(text: string): string {
  const escaped = text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
  return `<!doctype html><meta charset="utf-8"><title>chatcli</title><p>${escaped}</p>\n`;
}

/**
 * fetch: a URL → readable Markdown (HTML converted, other text as it is), for documentation and issue pages. The
 * download stops at DEFAULT_MAX_BYTES; the text for the model is capped like every tool's (overflow saved) and then
 * goes through the result budget. Non-text content is described, not returned. Never registered when web fetch is
 * off (`"webFetch": false`, `--offline`). It is not a read tool for the permission policy: every call asks unless a
 * rule allows `fetch` (safe-fetch.ts for which addresses it refuses on its own).
 */
import { z } from "zod";
import { defineTool, errorOutput, type ToolDefinition } from "../tool.ts";
import { htmlToMarkdown } from "./html-to-markdown.ts";
import { DEFAULT_MAX_BYTES, safeFetch } from "./safe-fetch.ts";

export const FETCH_MAX_RESULT_CHARS = 40_000;

export interface FetchToolOptions {
  allowPrivateNetworks: boolean;
  /** The DNS boundary, replaced in tests. */
  lookup?: (host: string) => Promise<string[]>;
  maxBytes?: number;
}

const input = z.object({
  url: z.string().min(1).describe("The http(s) URL to fetch."),
});

export function createFetchTool(o: FetchToolOptions): ToolDefinition {
  return defineTool({
    name: "fetch",
    description:
      "Fetch a web page or text file by URL and return it as readable Markdown (HTML converted; JSON and plain text as they are). " +
      "For documentation, issues, API references. Only public http(s) addresses; binary content is not returned.",
    input,
    readOnly: true,
    maxResultChars: FETCH_MAX_RESULT_CHARS,
    argAliases: { uri: "url", link: "url", href: "url" },
    title: (args) => `fetch ${args.url}`,
    async execute(args, ctx) {
      const r = await safeFetch(args.url, {
        allowPrivateNetworks: o.allowPrivateNetworks,
        env: ctx.env,
        signal: ctx.signal,
        ...(o.lookup ? { lookup: o.lookup } : {}),
        maxBytes: o.maxBytes ?? DEFAULT_MAX_BYTES,
      });
      if (!r.ok) return errorOutput(r.message, r.code === "canceled" ? "Canceled" : r.code === "timeout" ? "Timeout" : r.code);
      const type = r.contentType.split(";")[0]!.trim().toLowerCase();
      const details = { url: r.url, status: r.status, contentType: type, bytes: r.body.byteLength, truncated: r.truncated };
      if (!isText(type, r.body)) {
        const size = r.totalBytes ?? r.body.byteLength;
        return errorOutput(`${r.url} returned ${type || "content of unknown type"} (${size} bytes), which is not text; nothing to show. Only HTML and text can be fetched.`, "unsupported_content", details);
      }
      const raw = decode(r.body, r.contentType);
      const page = type === "text/html" || type === "application/xhtml+xml" || (!type && /<html[\s>]/i.test(raw)) ? htmlToMarkdown(raw, r.url) : { markdown: raw };
      const head = [`URL: ${r.url}`, ...(page.title ? [`Title: ${page.title}`] : []), ...(r.status >= 400 ? [`HTTP status: ${r.status}`] : [])].join("\n");
      const cut = r.truncated ? `\n\n[... download stopped at ${r.body.byteLength} bytes (size cap)${r.totalBytes ? ` of ${r.totalBytes}` : ""}]` : "";
      const text = `${head}\n\n${page.markdown}${cut}`;
      if (r.status >= 400) return errorOutput(text, `HTTP:${r.status}`, details);
      return { text, details };
    },
  });
}

const TEXTY = /(^text\/)|json|xml|javascript|ecmascript|yaml|toml|markdown|csv|x-sh$|x-python/;

function isText(type: string, body: Uint8Array): boolean {
  if (type) return TEXTY.test(type);
  return !body.subarray(0, 1024).includes(0);
}

function decode(body: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder((charset ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

// The fetch tool against a real HTTP server on 127.0.0.1: the refusal of loopback by default, redirects into it,
// DNS answers, allowPrivateNetworks, HTML → Markdown, the size cap, non-text content and HTTP(S)_PROXY.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createFetchTool } from "../../../src/tool/web/fetch-tool.ts";
import { nonPublicReason } from "../../../src/tool/web/address-policy.ts";
import { proxyFor } from "../../../src/tool/web/safe-fetch.ts";
import type { ToolContext } from "../../../src/tool/tool.ts";
import { createPathPolicy } from "../../../src/tool/workspace.ts";

let server: ReturnType<typeof Bun.serve>;
let base: string;
const seen: Array<{ url: string; host: string | null }> = [];

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ url: req.url, host: req.headers.get("host") });
      switch (url.pathname) {
        case "/page":
          return new Response(
            `<html><head><title>Docs &amp; more</title><script>var secret = 1;</script></head><body><nav>menu</nav><main><h1>Install</h1><p>Run <code>bun i</code> then <a href="/next">continue</a>.</p><ul><li>one</li><li>two</li></ul></main></body></html>`,
            { headers: { "content-type": "text/html; charset=utf-8" } },
          );
        case "/json":
          return Response.json({ hello: "world" });
        case "/big":
          return new Response("x".repeat(300_000), { headers: { "content-type": "text/plain" } });
        case "/png":
          return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), { headers: { "content-type": "image/png" } });
        case "/to-loopback":
          return new Response(null, { status: 302, headers: { location: `${base}/page` } });
        case "/loop":
          return new Response(null, { status: 302, headers: { location: "/loop" } });
        case "/missing":
          return new Response("<p>no such page</p>", { status: 404, headers: { "content-type": "text/html" } });
        default:
          // Acting as an HTTP proxy: the request line carries the absolute URL of another host.
          if (url.hostname === "public.example") {
            if (url.pathname === "/hop") return new Response(null, { status: 302, headers: { location: `${base}/page` } });
            if (url.pathname === "/meta") return new Response(null, { status: 301, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
            return new Response(`via proxy: ${url.href}`, { headers: { "content-type": "text/plain" } });
          }
          return new Response("not found", { status: 404 });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

function ctx(env: Record<string, string | undefined> = {}): ToolContext {
  return { projectRoot: "/", cwd: "/", paths: createPathPolicy({ projectRoot: "/tmp", extraReadPaths: [] }), signal: new AbortController().signal, callId: "c1", env };
}

const closed = createFetchTool({ allowPrivateNetworks: false });
const open = createFetchTool({ allowPrivateNetworks: true });

describe("fetch: private networks are refused by default", () => {
  test("a loopback URL is refused before any connection", async () => {
    const before = seen.length;
    for (const url of [`${base}/page`, `http://localhost:${server.port}/page`, `http://[::1]:${server.port}/`, `http://[::ffff:127.0.0.1]:${server.port}/`, `http://2130706433:${server.port}/`]) {
      const r = await closed.run({ url }, ctx());
      expect(r.isError).toBe(true);
      expect(r.errorCode).toBe("refused");
      expect(r.text).toContain("allowPrivateNetworks");
    }
    expect(seen.length).toBe(before);
  });

  test("a name whose DNS answers include a private address is refused", async () => {
    const tool = createFetchTool({ allowPrivateNetworks: false, lookup: async () => ["93.184.216.34", "10.0.0.7"] });
    const r = await tool.run({ url: "http://intranet.example/" }, ctx());
    expect(r.errorCode).toBe("refused");
    expect(r.text).toContain("10.0.0.7");
  });

  test("a redirect to loopback is refused (through a proxy, so the first hop is allowed)", async () => {
    const r = await closed.run({ url: "http://public.example/hop" }, ctx({ HTTP_PROXY: base }));
    expect(r.errorCode).toBe("refused");
    expect(r.text).toContain("127.0.0.1");
  });

  test("a redirect to the cloud metadata address is refused; so is a name that resolves to loopback", async () => {
    const r = await closed.run({ url: "http://public.example/meta" }, ctx({ HTTP_PROXY: base }));
    expect(r.errorCode).toBe("refused");
    expect(r.text).toContain("169.254.169.254");
    const tool = createFetchTool({ allowPrivateNetworks: false, lookup: async () => ["127.0.0.1"] });
    const r2 = await tool.run({ url: "http://site.example/" }, ctx());
    expect(r2.errorCode).toBe("refused");
  });
});

describe("fetch: allowed with allowPrivateNetworks", () => {
  test("HTML becomes Markdown: title, headings, links made absolute, lists; scripts and navigation dropped", async () => {
    const r = await open.run({ url: `${base}/page` }, ctx());
    expect(r.isError).toBeUndefined();
    expect(r.text).toContain("Title: Docs & more");
    expect(r.text).toContain("# Install");
    expect(r.text).toContain("Run `bun i` then [continue](" + base + "/next).");
    expect(r.text).toContain("- one\n- two");
    expect(r.text).not.toContain("secret");
    expect(r.text).not.toContain("menu");
  });

  test("the resolved address is the one connected to: Host keeps the name", async () => {
    const tool = createFetchTool({ allowPrivateNetworks: true, lookup: async () => ["127.0.0.1"] });
    const before = seen.length;
    const r = await tool.run({ url: `http://docs.example:${server.port}/json` }, ctx());
    expect(r.text).toContain('"hello":"world"');
    expect(seen[before]?.host).toBe(`docs.example:${server.port}`);
  });

  test("redirects are followed and bounded", async () => {
    const r = await open.run({ url: `${base}/to-loopback` }, ctx());
    expect(r.text).toContain(`URL: ${base}/page`);
    const loop = await open.run({ url: `${base}/loop` }, ctx());
    expect(loop.errorCode).toBe("redirects");
  });

  test("the download stops at the size cap and says so", async () => {
    const tool = createFetchTool({ allowPrivateNetworks: true, maxBytes: 10_000 });
    const r = await tool.run({ url: `${base}/big` }, ctx());
    expect(r.text).toContain("download stopped at 10000 bytes");
    expect(r.text.length).toBeLessThan(11_000);
    expect(r.details?.truncated).toBe(true);
  });

  test("the result is capped for the model (tool cap) even under the download cap", async () => {
    const r = await open.run({ url: `${base}/big` }, ctx());
    expect(r.text.length).toBeLessThan(45_000);
  });

  test("non-text content is described, not returned", async () => {
    const r = await open.run({ url: `${base}/png` }, ctx());
    expect(r.errorCode).toBe("unsupported_content");
    expect(r.text).toContain("image/png");
    expect(r.text).not.toContain("PNG");
  });

  test("an HTTP error is an error result with the page text", async () => {
    const r = await open.run({ url: `${base}/missing` }, ctx());
    expect(r.errorCode).toBe("HTTP:404");
    expect(r.text).toContain("no such page");
  });

  test("only http and https", async () => {
    const r = await open.run({ url: "file:///etc/passwd" }, ctx());
    expect(r.errorCode).toBe("bad_url");
  });
});

describe("fetch: HTTP(S)_PROXY", () => {
  test("the proxy is used for a name only it resolves", async () => {
    const r = await closed.run({ url: "http://public.example/readme" }, ctx({ HTTP_PROXY: base }));
    expect(r.text).toContain("via proxy: http://public.example/readme");
  });

  test("NO_PROXY and the scheme pick the proxy", () => {
    expect(proxyFor(new URL("https://a.example/"), { HTTPS_PROXY: "http://p:1" })).toBe("http://p:1");
    expect(proxyFor(new URL("http://a.example/"), { HTTPS_PROXY: "http://p:1" })).toBeUndefined();
    expect(proxyFor(new URL("https://x.corp.example/"), { https_proxy: "http://p:1", NO_PROXY: "corp.example" })).toBeUndefined();
    expect(proxyFor(new URL("https://a.example/"), { HTTPS_PROXY: "http://p:1", NO_PROXY: "*" })).toBeUndefined();
  });
});

test("address policy: private, loopback, link-local, unique-local and IPv4-in-IPv6 forms", () => {
  const refused = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2002:7f00:1::", "fec0::1", "not-an-ip"];
  for (const ip of refused) expect([ip, nonPublicReason(ip)]).toEqual([ip, expect.any(String)]);
  const allowed = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"];
  for (const ip of allowed) expect([ip, nonPublicReason(ip)]).toEqual([ip, undefined]);
});

test("the permission policy asks before a fetch by default; a rule can allow it; bypass allows it", async () => {
  const { mkdtempSync, rmSync, mkdirSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { createPermissionPolicy } = await import("../../../src/tool/permission.ts");
  const dir = mkdtempSync(join(tmpdir(), "chatcli-fetch-perm-"));
  try {
    const project = join(dir, "p");
    mkdirSync(project);
    const req = { tool: "fetch", args: { url: "https://example.com/" } };
    for (const mode of ["default", "accept-edits", "plan"] as const) {
      expect(createPermissionPolicy({ homeDir: join(dir, "h"), projectRoot: project, mode }).decide(req).action).toBe("ask");
    }
    expect(createPermissionPolicy({ homeDir: join(dir, "h"), projectRoot: project, mode: "bypass" }).decide(req).action).toBe("allow");
    mkdirSync(join(dir, "h"));
    writeFileSync(join(dir, "h", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "fetch", action: "allow" }] }));
    expect(createPermissionPolicy({ homeDir: join(dir, "h"), projectRoot: project }).decide(req).action).toBe("allow");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

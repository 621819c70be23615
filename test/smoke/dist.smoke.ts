/**
 * The compiled binary's `update` against a fake release server on 127.0.0.1: `--check` reports the newer
 * version, then `update` replaces the (isolated copy of the) binary with the release's artifact.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

const NEW_BODY = `#!/bin/sh\necho "fake chatcli 99.0.0 $*"\n`;
const hostTarget = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

let b: BinaryEnv;
let server: ReturnType<typeof Bun.serve>;
let served: string[] = [];

beforeAll(() => {
  b = isolatedBinary();
  const sha = createHash("sha256").update(NEW_BODY).digest("hex");
  // Offer the new "binary" under every Linux x64 flavour so the test does not depend on the host's libc.
  const targets = [hostTarget, `${hostTarget}-musl`];
  const manifest = { version: "99.0.0", commit: "feedface", artifacts: targets.map((t) => ({ version: "99.0.0", target: t, file: `chatcli-${t}`, size: NEW_BODY.length, sha256: sha })) };
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      served.push(path);
      if (path === "/latest/manifest.json") return Response.json(manifest);
      if (path === "/latest/SHA256SUMS") return new Response(targets.map((t) => `${sha}  chatcli-${t}\n`).join(""));
      if (targets.some((t) => path === `/latest/chatcli-${t}`)) return new Response(NEW_BODY);
      return new Response("not found", { status: 404 });
    },
  });
});
afterAll(() => {
  server?.stop(true);
  b?.cleanup();
});

test("update --check reports a newer version; update replaces the binary", async () => {
  const env = { CHATCLI_RELEASE_URL: `http://127.0.0.1:${server.port}` };
  const version = await run(b, ["--version"]);
  const current = version.stdout.trim().split(" ")[0]!;

  const check = await run(b, ["update", "--check"], env);
  expect(check.stderr).toBe("");
  expect(check.code).toBe(0);
  expect(check.stdout).toContain(`A newer version is available: 99.0.0 (you have ${current})`);
  expect(served).toEqual(["/latest/manifest.json"]);

  const upd = await run(b, ["update"], env);
  expect(upd.stderr).toBe("");
  expect(upd.code).toBe(0);
  expect(upd.stdout).toContain(`Updated chatcli ${current} → 99.0.0`);
  expect(readFileSync(b.bin, "utf8")).toBe(NEW_BODY);
  const after = await run(b, ["--version"]);
  expect(after.stdout).toBe("fake chatcli 99.0.0 --version\n");
});

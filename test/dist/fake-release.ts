/** Fake release artifacts for the distribution tests: tiny shell scripts named like the real binaries. */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ALL_TARGETS = ["linux-x64", "linux-x64-musl", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"] as const;

export function artifactFile(target: string): string {
  return `chatcli-${target}${target.startsWith("windows") ? ".exe" : ""}`;
}

/** A "binary" that prints which artifact it is, its version and its arguments. */
export function fakeBinary(target: string, version: string): string {
  return `#!/bin/sh\necho "fake ${artifactFile(target)} ${version} $*"\nexit "\${FAKE_EXIT:-0}"\n`;
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Writes one release folder (binaries, SHA256SUMS, manifest.json) the way scripts/build.ts --release does. */
export function writeRelease(dir: string, version: string, targets: readonly string[] = ALL_TARGETS): void {
  mkdirSync(dir, { recursive: true });
  const artifacts = targets.map((target) => {
    const file = artifactFile(target);
    const body = fakeBinary(target, version);
    writeFileSync(join(dir, file), body, { mode: 0o755 });
    return { version, target, file, size: Buffer.byteLength(body), sha256: sha256(body) };
  });
  writeFileSync(join(dir, "SHA256SUMS"), artifacts.map((a) => `${a.sha256}  ${a.file}\n`).join(""));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ version, commit: "abc123", artifacts, skipped: [] }, null, 2));
}

/** A base folder with `latest/` (= newest) and one `<version>/` folder per version. */
export function writeReleaseTree(versions: string[]): string {
  const base = mkdtempSync(join(tmpdir(), "chatcli-release-"));
  for (const v of versions) writeRelease(join(base, v), v);
  writeRelease(join(base, "latest"), versions[versions.length - 1]!);
  return base;
}

/** Replaces an artifact's bytes without touching SHA256SUMS/manifest (a corrupted or tampered download). */
export function corrupt(dir: string, target: string): void {
  const p = join(dir, artifactFile(target));
  writeFileSync(p, `${readFileSync(p, "utf8")}echo tampered\n`, { mode: 0o755 });
}

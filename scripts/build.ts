/**
 * Builds the native executable with `bun build --compile`.
 *   bun scripts/build.ts            → dist/chatcli for this machine
 *   bun scripts/build.ts --release  → dist/chatcli-<os>-<arch>[.exe] for every target + dist/SHA256SUMS + dist/manifest.json
 *       [--targets=linux-x64,…]      only these targets (CI builds one per native runner)
 *       [--tag=v1.2.3]               refuse unless package.json's version is 1.2.3 (the pushed tag)
 *   bun scripts/build.ts --merge=DIR → dist/release/: the per-target outputs found under DIR (each a folder with
 *                                      manifest.json, SHA256SUMS, binaries) checked and merged into one release
 * A target whose native OpenTUI package is not installed (and cannot be installed from the registry) is
 * reported as skipped with the reason. Bunfig and .env autoloading are off in the binary, so a user's
 * project files cannot change it.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; dependencies: Record<string, string> };
const opentuiVersion = pkg.dependencies["@opentui/core"] ?? "";

interface Target {
  name: string; // e.g. linux-x64
  bunTarget: string; // e.g. bun-linux-x64
  nativePkg: string; // @opentui/core-linux-x64
  libc: "glibc" | "musl" | "none";
  exe: boolean;
}

export const TARGETS: Target[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", nativePkg: "@opentui/core-linux-x64", libc: "glibc", exe: false },
  { name: "linux-x64-musl", bunTarget: "bun-linux-x64-musl", nativePkg: "@opentui/core-linux-x64-musl", libc: "musl", exe: false },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", nativePkg: "@opentui/core-linux-arm64", libc: "glibc", exe: false },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", nativePkg: "@opentui/core-darwin-x64", libc: "none", exe: false },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", nativePkg: "@opentui/core-darwin-arm64", libc: "none", exe: false },
  { name: "windows-x64", bunTarget: "bun-windows-x64", nativePkg: "@opentui/core-win32-x64", libc: "none", exe: true },
];

/** The commit the binary reports: CHATCLI_BUILD_COMMIT when set (a container build has no .git), else git's. */
export function gitCommit(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.CHATCLI_BUILD_COMMIT?.trim();
  if (fromEnv) return fromEnv;
  const r = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? r.stdout.toString().trim() : "unknown";
}

function hostTarget(): Target {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const musl = os === "linux" && existsSync("/lib") && readdirSync("/lib").some((f) => f.startsWith("ld-musl-"));
  const name = `${os}-${process.arch}${musl ? "-musl" : ""}`;
  const t = TARGETS.find((x) => x.name === name);
  if (!t) throw new Error(`unsupported build host ${name}`);
  return t;
}

function compile(target: Target, outfile: string, host: boolean): { ok: boolean; log: string } {
  const commit = gitCommit();
  const args = [
    process.execPath,
    "build",
    join(root, "src/main.ts"),
    "--compile",
    "--minify",
    // Precompiled bytecode: the binary skips parsing its ~300 bundled modules at every start (cold start to
    // the TUI prompt went from ~0.23 s to ~0.15 s, docs/performance.md). --bytecode requires ESM output.
    "--bytecode",
    "--format=esm",
    // Code behind `await import()` (the MCP SDK, yaml, memory, …) becomes its own chunk inside the binary, loaded
    // when first imported: idle RSS of a session that uses none of it went from ~90 to ~86 MB (bench/tui-startup.ts).
    "--splitting",
    "--outfile",
    outfile,
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--define",
    `process.env.CHATCLI_BUILD_COMMIT=${JSON.stringify(commit)}`,
    // `chatcli update` downloads the artifact of exactly this target.
    "--define",
    `process.env.CHATCLI_BUILD_TARGET=${JSON.stringify(target.name)}`,
  ];
  if (!host) args.push(`--target=${target.bunTarget}`);
  // OpenTUI picks its native package from process.env.OPENTUI_LIBC at run time; fold it to a constant so
  // the other libc's package is not needed at build time.
  if (target.libc !== "none") args.push("--define", `process.env.OPENTUI_LIBC=${JSON.stringify(target.libc)}`);
  // Other platforms' native packages are never loaded on this target.
  for (const other of TARGETS) if (other.nativePkg !== target.nativePkg) args.push("-e", other.nativePkg);
  const r = Bun.spawnSync(args, { cwd: root, stdout: "pipe", stderr: "pipe" });
  return { ok: r.exitCode === 0, log: r.stdout.toString() + r.stderr.toString() };
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

function nativeAvailable(t: Target): { ok: boolean; reason?: string } {
  if (existsSync(join(root, "node_modules", t.nativePkg, "package.json"))) return { ok: true };
  // Try to fetch it for cross-compiling; report why not when the registry does not have it.
  const r = Bun.spawnSync(["npm", "install", "--no-save", "--force", "--ignore-scripts", `${t.nativePkg}@${opentuiVersion}`], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode === 0 && existsSync(join(root, "node_modules", t.nativePkg, "package.json"))) return { ok: true };
  // npm's first error line is only a code (ETARGET); the next one says why ("No matching version found …").
  const lines = [...r.stderr.toString().matchAll(/^npm error (.+)$/gm)].map((m) => m[1]!.trim());
  const code = lines.find((l) => l.startsWith("code "))?.slice(5);
  const why = lines.find((l) => !l.startsWith("code ") && !/complete log/i.test(l))?.replace(/^[a-z]+ (?=[A-Z])/, "");
  const err = [code, why].filter(Boolean).join(": ") || "install failed";
  return { ok: false, reason: `${t.nativePkg}@${opentuiVersion} cannot be installed here (${err})` };
}

async function main(): Promise<number> {
  mkdirSync(dist, { recursive: true });
  const mergeDir = process.argv.find((a) => a.startsWith("--merge="))?.slice(8);
  if (mergeDir) return merge(mergeDir, join(dist, "release"));
  const tag = process.argv.find((a) => a.startsWith("--tag="))?.slice(6);
  if (tag && tag.replace(/^v/, "") !== pkg.version) {
    process.stderr.write(`tag ${tag} does not match package.json version ${pkg.version}: bump the version before tagging\n`);
    return 1;
  }
  const release = process.argv.includes("--release");
  if (!release) {
    const out = join(dist, "chatcli");
    const r = compile(hostTarget(), out, true);
    if (!r.ok) {
      process.stderr.write(r.log);
      return 1;
    }
    process.stdout.write(`built ${out} (${(statSync(out).size / 1e6).toFixed(1)} MB)\n`);
    return 0;
  }
  const only = process.argv.find((a) => a.startsWith("--targets="))?.slice(10).split(",");
  const unknown = only?.filter((n) => !TARGETS.some((t) => t.name === n)) ?? [];
  if (unknown.length) {
    process.stderr.write(`unknown target(s) ${unknown.join(", ")}; known: ${TARGETS.map((t) => t.name).join(", ")}\n`);
    return 1;
  }
  const host = hostTarget();
  const sums: string[] = [];
  const manifest: Array<{ version: string; target: string; file: string; size: number; sha256: string }> = [];
  const skipped: string[] = [];
  for (const t of TARGETS) {
    if (only && !only.includes(t.name)) continue;
    const avail = nativeAvailable(t);
    if (!avail.ok) {
      skipped.push(`${t.name}: skipped — ${avail.reason}`);
      continue;
    }
    const file = `chatcli-${t.name}${t.exe ? ".exe" : ""}`;
    const out = join(dist, file);
    const r = compile(t, out, t.name === host.name);
    if (!r.ok) {
      const why = r.log.split("\n").find((l) => /error/i.test(l)) ?? "bun build failed";
      skipped.push(`${t.name}: skipped — ${why.trim()}`);
      continue;
    }
    const hash = sha256(out);
    const size = statSync(out).size;
    sums.push(`${hash}  ${file}`);
    manifest.push({ version: pkg.version, target: t.name, file, size, sha256: hash });
    process.stdout.write(`built ${file} (${(size / 1e6).toFixed(1)} MB)\n`);
  }
  writeFileSync(join(dist, "SHA256SUMS"), sums.length ? `${sums.join("\n")}\n` : "");
  writeFileSync(join(dist, "manifest.json"), `${JSON.stringify({ version: pkg.version, commit: gitCommit(), artifacts: manifest, skipped }, null, 2)}\n`);
  for (const s of skipped) process.stdout.write(`${s}\n`);
  process.stdout.write(`wrote dist/SHA256SUMS and dist/manifest.json (${manifest.length} built, ${skipped.length} skipped)\n`);
  return manifest.length ? 0 : 1;
}

interface ManifestFile {
  version: string;
  commit: string;
  artifacts: Array<{ version: string; target: string; file: string; size: number; sha256: string }>;
  skipped: string[];
}

/** Merges per-target build outputs (one folder each, anywhere under `from`) into one checked release folder. */
export function merge(from: string, out: string): number {
  const folders: string[] = [];
  const walk = (d: string): void => {
    if (existsSync(join(d, "manifest.json"))) folders.push(d);
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
  };
  walk(from);
  const parts = folders.map((d) => ({ dir: d, m: JSON.parse(readFileSync(join(d, "manifest.json"), "utf8")) as ManifestFile }));
  if (!parts.length) {
    process.stderr.write(`no manifest.json found under ${from}\n`);
    return 1;
  }
  const first = parts[0]!.m;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const byTarget = new Map<string, ManifestFile["artifacts"][number]>();
  for (const { dir, m } of parts) {
    if (m.version !== first.version || m.commit !== first.commit) {
      process.stderr.write(`${dir}: built from ${m.version} (${m.commit}), others from ${first.version} (${first.commit})\n`);
      return 1;
    }
    for (const a of m.artifacts) {
      const src = join(dir, a.file);
      if (!existsSync(src) || sha256(src) !== a.sha256) {
        process.stderr.write(`${src}: missing or its sha256 does not match its manifest\n`);
        return 1;
      }
      copyFileSync(src, join(out, a.file));
      byTarget.set(a.target, a);
    }
  }
  const artifacts = TARGETS.flatMap((t) => byTarget.get(t.name) ?? []);
  const built = new Set(artifacts.map((a) => a.target));
  const skipped = [...new Set(parts.flatMap((p) => p.m.skipped))].filter((s) => !built.has(s.split(":")[0] ?? ""));
  writeFileSync(join(out, "SHA256SUMS"), artifacts.map((a) => `${a.sha256}  ${a.file}\n`).join(""));
  writeFileSync(join(out, "manifest.json"), `${JSON.stringify({ version: first.version, commit: first.commit, artifacts, skipped }, null, 2)}\n`);
  process.stdout.write(`merged ${artifacts.length} artifact(s) of ${first.version} into ${out}: ${artifacts.map((a) => a.target).join(", ")}\n`);
  return 0;
}

if (import.meta.main) process.exit(await main());

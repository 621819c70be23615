// deploy/Dockerfile, checked statically (stages, base, user, entrypoint, the build commands are the release
// workflow's), then its build step run for real on a copy of exactly the build context .dockerignore lets through;
// `docker build` itself only when a Docker daemon answers (none here: skipped with the reason).
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitCommit, TARGETS } from "../../scripts/build.ts";

const root = join(import.meta.dir, "../..");
const dockerfile = readFileSync(join(root, "deploy/Dockerfile"), "utf8");
const workflow = readFileSync(join(root, ".github/workflows/release.yml"), "utf8");

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  steps: Instruction[];
}

/** Dockerfile → stages of instructions (comments dropped, `\` continuations joined). */
function stages(text: string): Stage[] {
  const logical = text
    .split("\n")
    .filter((l) => !/^\s*#/.test(l))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const out: Stage[] = [];
  for (const line of logical) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!op) continue;
    const upper = op.toUpperCase();
    if (upper === "FROM") {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args!.trim());
      out.push({ from: m![1]!, ...(m![2] ? { name: m![2] } : {}), steps: [] });
    } else if (upper !== "ARG" || out.length) out.at(-1)?.steps.push({ op: upper, args: args!.trim() });
  }
  return out;
}

const all = stages(dockerfile);
const build = all.find((s) => s.name === "build");
const final = all.at(-1)!;
const runs = (s: Stage | undefined) => (s?.steps ?? []).filter((i) => i.op === "RUN").map((i) => i.args.replace(/\s+/g, " "));
const last = (s: Stage, op: string) => s.steps.filter((i) => i.op === op).at(-1)?.args;

describe("deploy/Dockerfile", () => {
  test("two stages: a build stage and a glibc runtime stage that copies only the binary from it", () => {
    expect(all.length).toBe(2);
    expect(build).toBeDefined();
    expect(final).not.toBe(build);
    // The compiled binary links glibc (libc, libm, libpthread, libdl): no musl or static base.
    expect(final.from).toMatch(/^(debian:[a-z]+-slim|gcr\.io\/distroless\/cc)/);
    const copies = final.steps.filter((i) => i.op === "COPY");
    expect(copies).toEqual([{ op: "COPY", args: "--from=build /out/chatcli /usr/local/bin/chatcli" }]);
  });

  test("the build stage runs the release workflow's install and build commands (scripts/build.ts), nothing hand-rolled", () => {
    const install = /run: (npm install[^\n]*)/.exec(workflow)![1]!.trim();
    const release = /run: (npm run release -- --targets=)/.exec(workflow)![1]!;
    const buildRuns = runs(build).join("\n");
    expect(buildRuns).toContain(install);
    expect(buildRuns).toContain(release);
    expect(dockerfile).not.toMatch(/bun build|--compile/);
    // What the RUN picks per architecture is a glibc release target of scripts/build.ts.
    const picked = [...buildRuns.matchAll(/\) target=([a-z0-9-]+) ;;/g)].map((m) => m[1]!);
    expect(picked.sort()).toEqual(["linux-arm64", "linux-x64"]);
    for (const name of picked) expect(TARGETS.find((t) => t.name === name)?.libc).toBe("glibc");
  });

  test("the runtime runs as uid 65532, keeps its state on /data and its scratch in TMPDIR, and starts chatcli serve", () => {
    expect(last(final, "USER")).toBe("65532:65532");
    const env = final.steps.filter((i) => i.op === "ENV").map((i) => i.args).join(" ");
    expect(env).toContain("HOME=/data");
    expect(env).toMatch(/CHATCLI_HOME=\/data\/\S+/);
    expect(env).toContain("TMPDIR=/tmp");
    expect(last(final, "VOLUME")).toBe('["/data"]');
    expect(last(final, "EXPOSE")).toBe("7433");
    const entry = JSON.parse(last(final, "ENTRYPOINT")!) as string[];
    expect(entry.slice(-2)).toEqual(["/usr/local/bin/chatcli", "serve"]);
    // The default command never listens in plaintext: TLS files or nothing.
    const cmd = JSON.parse(last(final, "CMD")!) as string[];
    expect(cmd).toEqual(expect.arrayContaining(["--allow-remote", "--tls-cert", "--tls-key"]));
    expect(cmd).not.toContain("--insecure");
    // Nothing in the runtime stage writes outside /data at run time: the user cannot write the root filesystem.
    expect(runs(final).join(" ")).toContain("chown 65532:65532 /data");
  });

  test("a build commit can be given to scripts/build.ts (the context has no .git)", () => {
    expect(gitCommit({ CHATCLI_BUILD_COMMIT: "feedc0de" })).toBe("feedc0de");
    expect(gitCommit({ CHATCLI_BUILD_COMMIT: "  " })).not.toBe("  ");
    expect(dockerfile).toContain('CHATCLI_BUILD_COMMIT="$CHATCLI_BUILD_COMMIT" npm run release');
  });
});

/** The build context .dockerignore lets through: it is an allowlist (`*`, then `!name` lines). */
function contextEntries(): string[] {
  const lines = readFileSync(join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  if (lines[0] !== "*" || !lines.slice(1).every((l) => /^![\w.-]+\/?$/.test(l))) throw new Error(".dockerignore is no longer a plain allowlist: update this test's emulation of it");
  return lines.slice(1).map((l) => l.slice(1).replace(/\/$/, ""));
}

const hostTarget = process.platform === "linux" && (process.arch === "x64" || process.arch === "arm64") && !readdirSync("/lib").some((f) => f.startsWith("ld-musl-")) ? `linux-${process.arch}` : undefined;

describe("the image's build step on its build context", () => {
  test("the context is an allowlist that keeps the lockfile and leaves out node_modules, dist and .git", () => {
    const entries = contextEntries();
    expect(entries).toEqual(expect.arrayContaining(["package.json", "package-lock.json", "src", "scripts"]));
    for (const left of ["node_modules", "dist", ".git", "test"]) expect(entries).not.toContain(left);
  });

  test.skipIf(!hostTarget)(
    `npm run release on exactly that context builds a working binary${hostTarget ? "" : " — skipped: not a linux glibc x64/arm64 host"}`,
    () => {
      const ctx = mkdtempSync(join(tmpdir(), "chatcli-docker-ctx-"));
      try {
        for (const e of contextEntries()) if (existsSync(join(root, e))) cpSync(join(root, e), join(ctx, e), { recursive: true });
        // Stands in for the image's `npm install` (same lockfile, already installed here).
        symlinkSync(realpathSync(join(root, "node_modules")), join(ctx, "node_modules"));
        const r = Bun.spawnSync(["npm", "run", "release", "--", `--targets=${hostTarget}`], { cwd: ctx, env: { ...process.env, CHATCLI_BUILD_COMMIT: "ctx-check" }, stdout: "pipe", stderr: "pipe" });
        expect(r.stderr.toString() + r.stdout.toString()).toContain(`built chatcli-${hostTarget}`);
        const v = Bun.spawnSync([join(ctx, "dist", `chatcli-${hostTarget}`), "--version"], { stdout: "pipe" });
        expect(v.stdout.toString()).toContain("(ctx-check)");
      } finally {
        rmSync(ctx, { recursive: true, force: true });
      }
    },
    180_000,
  );
});

const docker = Bun.which("docker");
const daemon = docker ? Bun.spawnSync([docker, "info"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0 : false;
const skipDocker = !docker ? "no docker CLI" : !daemon ? "no Docker daemon answers (docker info fails)" : "";

describe.skipIf(!daemon)(`docker build${skipDocker ? ` — skipped: ${skipDocker}` : ""}`, () => {
  test(
    "the image builds and its binary answers --version as uid 65532 on a read-only root filesystem",
    () => {
      const tag = `chatcli-deploy-test:${process.pid}`;
      try {
        const b = Bun.spawnSync([docker!, "build", "-f", "deploy/Dockerfile", "-t", tag, "."], { cwd: root, stdout: "pipe", stderr: "pipe" });
        expect(b.exitCode).toBe(0);
        const r = Bun.spawnSync([docker!, "run", "--rm", "--read-only", "--tmpfs", "/tmp", "--entrypoint", "/usr/local/bin/chatcli", tag, "--version"], { stdout: "pipe", stderr: "pipe" });
        expect(r.stdout.toString()).toMatch(/^\d+\.\d+\.\d+/);
        const id = Bun.spawnSync([docker!, "run", "--rm", "--entrypoint", "id", tag, "-u"], { stdout: "pipe" });
        expect(id.stdout.toString().trim()).toBe("65532");
      } finally {
        Bun.spawnSync([docker!, "rmi", "-f", tag], { stdout: "ignore", stderr: "ignore" });
      }
    },
    1_800_000,
  );
});

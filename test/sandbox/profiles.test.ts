// The generated backend configurations: the Seatbelt profile (no macOS here, so its text is what is tested) and
// the bwrap argument order (checked for real in bwrap.test.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fsPlan } from "../../src/sandbox/fs-plan.ts";
import { quote, seatbeltProfile } from "../../src/sandbox/seatbelt.ts";
import { bwrapArgs } from "../../src/sandbox/bwrap.ts";

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));

function roots() {
  base = realpathSync(mkdtempSync(join(tmpdir(), "chatcli-plan-")));
  const project = join(base, "proj");
  const home = join(base, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(home, ".ssh"), { recursive: true });
  mkdirSync(join(base, "ws/scratch"), { recursive: true });
  writeFileSync(join(home, ".netrc"), "machine x password y\n");
  return { projectRoot: project, cwd: project, chatcliHome: join(home, ".chatcli"), userHome: home, workspace: { root: join(base, "ws"), scratchDir: join(base, "ws/scratch") } };
}

describe("fs plan", () => {
  test("workspace-write: project + scratch writable; .git, .chatcli, ~/.chatcli, .env protected; credential stores masked", () => {
    const r = roots();
    const plan = fsPlan({ mode: "workspace-write", roots: r });
    expect(plan.writable).toEqual([r.projectRoot, r.workspace.scratchDir]);
    const prot = plan.protected.map((p) => p.path);
    for (const p of [join(r.projectRoot, ".git"), join(r.projectRoot, ".chatcli"), r.chatcliHome, join(r.projectRoot, ".env"), join(r.userHome, ".bashrc")]) expect(prot).toContain(p);
    const masks = plan.masks.map((m) => m.path);
    for (const p of [".ssh", ".aws", ".gnupg", ".config/gh", ".netrc"]) expect(masks).toContain(join(r.userHome, p));
    expect(masks).toContain(join(r.chatcliHome, "auth"));
  });

  test("the .env CHATCLI_DOTENV names is protected too", () => {
    const r = roots();
    const plan = fsPlan({ mode: "workspace-write", roots: { ...r, configFiles: [join(r.projectRoot, "config/dev.env")] } });
    expect(plan.protected).toContainEqual({ path: join(r.projectRoot, "config/dev.env"), kind: "file" });
  });

  test("read-only: only the scratch dir is writable", () => {
    const r = roots();
    expect(fsPlan({ mode: "read-only", roots: r }).writable).toEqual([r.workspace.scratchDir]);
  });
});

describe("bwrap arguments", () => {
  test("the private /tmp comes before the writable binds (the project may live under /tmp); protections and masks after", () => {
    const r = roots();
    const { args, created } = bwrapArgs(fsPlan({ mode: "workspace-write", roots: r }), { cwd: r.projectRoot, network: false }, { emptyFile: "/dev/null" });
    const at = (...xs: string[]) => args.findIndex((_, i) => xs.every((x, j) => args[i + j] === x));
    expect(at("--unshare-net")).toBeGreaterThan(-1);
    for (const f of ["--new-session", "--die-with-parent", "--unshare-pid"]) expect(args).toContain(f);
    const tmp = at("--tmpfs", "/tmp");
    const project = at("--bind", r.projectRoot, r.projectRoot);
    const git = at("--ro-bind", join(r.projectRoot, ".git"), join(r.projectRoot, ".git"));
    const ssh = at("--tmpfs", join(r.userHome, ".ssh"));
    const netrc = at("--ro-bind", "/dev/null", join(r.userHome, ".netrc"));
    expect(at("--ro-bind", "/", "/")).toBeLessThan(tmp);
    expect(tmp).toBeLessThan(project);
    expect(project).toBeLessThan(git);
    expect(git).toBeLessThan(ssh);
    expect(netrc).toBeGreaterThan(project);
    // The missing <project>/.chatcli and .env get read-only placeholders.
    expect(created.map((c) => c.path).sort()).toEqual([join(r.projectRoot, ".chatcli"), join(r.projectRoot, ".env")].sort());
    expect(args.slice(-2)).toEqual(["--chdir", r.projectRoot]);
  });

  test("network: true leaves the network namespace alone", () => {
    const r = roots();
    const { args } = bwrapArgs(fsPlan({ mode: "workspace-write", roots: r }), { cwd: r.projectRoot, network: true }, { emptyFile: "/dev/null" });
    expect(args).not.toContain("--unshare-net");
  });
});

describe("Seatbelt profile", () => {
  test("deny by default; writes only below the writable roots and never below protected paths; masks unreadable", () => {
    const r = roots();
    const profile = seatbeltProfile(fsPlan({ mode: "workspace-write", roots: r }), { network: false });
    expect(profile.startsWith("(version 1)\n(deny default)\n")).toBe(true);
    const write = profile.split("\n").find((l) => l.startsWith("(allow file-write* (require-all"))!;
    expect(write).toContain(`(require-any (subpath "${r.projectRoot}") (subpath "${r.workspace.scratchDir}"))`);
    expect(write).toContain(`(require-not (subpath "${join(r.projectRoot, ".git")}"))`);
    expect(write).toContain(`(require-not (subpath "${join(r.projectRoot, ".chatcli")}"))`);
    expect(write).toContain(`(require-not (subpath "${r.chatcliHome}"))`);
    const read = profile.split("\n").find((l) => l.startsWith("(allow file-read*"))!;
    expect(read).toContain(`(require-not (subpath "${join(r.userHome, ".ssh")}"))`);
    expect(profile).not.toContain("network");
  });

  test("network only when opened; read-only mode writes only the scratch dir", () => {
    const r = roots();
    expect(seatbeltProfile(fsPlan({ mode: "workspace-write", roots: r }), { network: true })).toContain("(allow network*)");
    const ro = seatbeltProfile(fsPlan({ mode: "read-only", roots: r }), { network: false });
    expect(ro).toContain(`(require-any (subpath "${r.workspace.scratchDir}"))`);
    expect(ro).not.toContain(`(subpath "${r.projectRoot}") (subpath`);
  });

  test("paths are quoted; a control character is refused", () => {
    expect(quote('/a "b"\\c')).toBe('"/a \\"b\\"\\\\c"');
    expect(() => quote("/a\nb")).toThrow();
  });
});

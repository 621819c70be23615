/**
 * The filesystem rules every sandbox backend enforces, computed once from the roots (pure but for realpath):
 * - `writable`: the project root (workspace-write only) and the session scratch dir;
 * - `protected`: read-only even inside a writable root: `.git` (hooks, config, commondir…), `<project>/.chatcli`,
 *   chatcli's home, the `.env` files chatcli loads at start (they can set CHATCLI_HOME, provider URLs…), and the
 *   shell/git start-up files of the user's home (they matter when the project is the home itself);
 * - `masks`: credential stores hidden behind an empty directory/file (ssh, cloud CLIs, gh, the copilot token…),
 *   and the sockets of privileged daemons (docker, containerd, podman, D-Bus, the user's runtime dir): a unix socket
 *   on a read-only mount can still be connected to, and the docker socket alone is root on the host.
 * A protected path that does not exist yet must still be impossible to create (`<project>/.chatcli/settings.json`
 * with `"permissionMode": "bypass"` would be read at the next start), so backends get its kind too.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, join, relative, isAbsolute } from "node:path";
import type { SandboxSpec } from "./types.ts";

export interface PlannedPath {
  path: string;
  kind: "dir" | "file";
}

export interface FsPlan {
  writable: string[];
  /** Visible read-only (they may sit under the private /tmp). */
  readable: string[];
  protected: PlannedPath[];
  masks: PlannedPath[];
}

const HOME_START_FILES = [".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".gitconfig", ".config/git", ".config/fish", ".inputrc"];

/** Credential stores (relative to the user's home). `dir` entries get an empty tmpfs, `file` ones an empty file. */
const CREDENTIAL_STORES: PlannedPath[] = [
  { path: ".ssh", kind: "dir" },
  { path: ".aws", kind: "dir" },
  { path: ".gnupg", kind: "dir" },
  { path: ".config/gh", kind: "dir" },
  { path: ".config/gcloud", kind: "dir" },
  { path: ".azure", kind: "dir" },
  { path: ".kube", kind: "dir" },
  { path: ".docker", kind: "dir" },
  { path: ".password-store", kind: "dir" },
  { path: ".netrc", kind: "file" },
  { path: ".git-credentials", kind: "file" },
  { path: ".npmrc", kind: "file" },
  { path: ".pypirc", kind: "file" },
  { path: ".cargo/credentials", kind: "file" },
  { path: ".cargo/credentials.toml", kind: "file" },
];

/** Daemon sockets (and the directories holding them), absolute; `/var/run` is usually a link to `/run`. */
const DAEMON_SOCKETS = [
  "/run/docker.sock",
  "/var/run/docker.sock",
  "/run/containerd",
  "/run/podman",
  "/run/dbus",
  "/var/run/dbus",
  "/run/user",
  "/run/snapd.socket",
  "/run/snapd-snap.socket",
  "/run/libvirt",
  "/run/systemd/private",
  "/run/systemd/userdb",
];

export function fsPlan(spec: SandboxSpec): FsPlan {
  const r = spec.roots;
  const project = real(r.projectRoot);
  const home = real(r.userHome);
  const chatcliHome = real(r.chatcliHome);
  const writable = unique([...(spec.mode === "workspace-write" ? [project] : []), ...(r.workspace ? [real(r.workspace.scratchDir)] : [])]);
  // The home and the project stay visible (read-only at least) even under /tmp, which the private /tmp would hide.
  const readable = unique([home, project, ...(r.workspace ? [real(r.workspace.root)] : []), ...(r.readable ?? []).map(real)]);
  const prot: PlannedPath[] = [
    { path: join(project, ".git"), kind: "dir" },
    { path: join(project, ".chatcli"), kind: "dir" },
    { path: chatcliHome, kind: "dir" },
    { path: join(project, ".env"), kind: "file" },
    { path: join(real(r.cwd), ".env"), kind: "file" },
    ...(r.configFiles ?? []).map((f) => ({ path: real(f), kind: "file" as const })),
    ...HOME_START_FILES.map((f) => ({ path: join(home, f), kind: (f.startsWith(".config/") ? "dir" : "file") as PlannedPath["kind"] })),
  ];
  const masks: PlannedPath[] = [
    ...CREDENTIAL_STORES.map((c) => ({ path: join(home, c.path), kind: c.kind })),
    // The copilot OAuth token (llm/providers/copilot-auth.ts keeps it under <home>/auth/).
    { path: join(chatcliHome, "auth"), kind: "dir" },
    // The tokens of running `chatcli serve` instances: a command the agent runs must not drive the server.
    { path: join(chatcliHome, "server"), kind: "dir" },
    ...DAEMON_SOCKETS.map((p) => ({ path: real(p), kind: "file" as const })),
  ];
  return { writable, readable, protected: uniqueBy(prot), masks: uniqueBy(masks) };
}

/** `p` is `root` or below it. */
export function isWithin(p: string, root: string): boolean {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** realpath of the path, or of its nearest existing ancestor with the rest appended (macOS: /tmp → /private/tmp). */
export function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = dirname(p);
    return parent === p ? p : join(real(parent), basename(p));
  }
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

function uniqueBy(xs: PlannedPath[]): PlannedPath[] {
  const seen = new Set<string>();
  return xs.filter((x) => !seen.has(x.path) && seen.add(x.path));
}

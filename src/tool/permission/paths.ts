/** Path classifications shared by the dangerous and safety-immune checks. Inputs are shell words (unexpanded). */
import { posix } from "node:path";
import { segmentCouldBe, segmentsOf, type WordSegment } from "./word-pattern.ts";
import { msg, type Localized } from "../../i18n/i18n.ts";

const SYSTEM_DIRS = new Set([
  "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc", "/root", "/sbin",
  "/srv", "/sys", "/usr", "/var", "/mnt", "/media", "/snap", "/System", "/Library", "/Applications", "/Users",
  "/private", "/Volumes", "/usr/bin", "/usr/lib", "/usr/local", "/usr/sbin", "/usr/share", "/var/lib", "/var/log",
]);
const HOME_SENTINEL = "/\u0000home";

/**
 * True for `/`, `/*`, top-level system directories, a user's home (`~`, `$HOME`, `${HOME}`, `/home/x`, the given
 * userHome) and those followed by `/` or `/*`: targets whose recursive deletion or chmod wrecks the machine.
 */
export function isCriticalPath(word: string, userHome?: string): boolean {
  let p = word.trim();
  if (p === "") return false;
  for (const prefix of ["${HOME}", "$HOME", "~"]) {
    if (p === prefix || p.startsWith(prefix + "/")) {
      p = HOME_SENTINEL + p.slice(prefix.length);
      break;
    }
  }
  if (userHome && userHome !== "/" && (p === userHome || p.startsWith(userHome + "/"))) {
    p = HOME_SENTINEL + p.slice(userHome.length);
  }
  if (!p.startsWith("/")) return false;
  p = posix.normalize(p);
  for (;;) {
    const before = p;
    p = p.replace(/\/+$/, "").replace(/\/\.?\*+$/, "");
    if (p === before) break;
  }
  if (p === "" || p === HOME_SENTINEL || SYSTEM_DIRS.has(p)) return true;
  // A glob that can match a critical directory: `/b*`, `/?tc`, `/[eu]*`.
  if (/[*?[]/.test(p)) {
    const re = segmentGlob(p);
    if ([...SYSTEM_DIRS].some((d) => re.test(d)) || re.test(HOME_SENTINEL)) return true;
  }
  // A user's home directory: /home/name, /Users/name.
  const parts = p.split("/").filter(Boolean);
  return parts.length === 2 && (parts[0] === "home" || parts[0] === "Users");
}

function segmentGlob(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) out += "\\[";
      else {
        out += "[" + glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\") + "]";
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\/]/g, "\\$&");
  }
  try {
    return new RegExp(`^${out}$`);
  } catch {
    return /$^/; // an invalid class like [z-a] matches nothing, as in the shell
  }
}

const HARMLESS_DEVICES = new Set([
  "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/full",
]);

/** A device node other than the harmless pseudo-devices: writing to it can destroy a disk. */
export function isDevicePath(word: string): boolean {
  if (!word.startsWith("/dev/")) return false;
  const p = posix.normalize(word);
  if (HARMLESS_DEVICES.has(p)) return false;
  return !p.startsWith("/dev/fd/") && !p.startsWith("/dev/shm/") && !p.startsWith("/dev/pts/") && !p.startsWith("/dev/tcp/") && !p.startsWith("/dev/udp/");
}

/** Files whose overwrite breaks the system or its authentication: writing there is blocked outright. */
export function isSystemWriteTarget(word: string): boolean {
  const p = word.startsWith("/") ? posix.normalize(word) : "";
  return p.startsWith("/etc/") || p.startsWith("/boot/") || p.startsWith("/sys/") || p.startsWith("/proc/") || p.startsWith("/usr/bin/") || p.startsWith("/bin/") || p.startsWith("/sbin/");
}

/** System paths that file tools (read/write/edit…) must always ask about. */
export function isSystemPath(path: string): boolean {
  const p = path.startsWith("/") ? posix.normalize(path) : "";
  return ["/etc", "/boot", "/sys", "/proc", "/dev"].some((d) => p === d || p.startsWith(d + "/"));
}

const SENSITIVE_SEGMENTS = new Set([".ssh", ".gnupg", ".aws", ".azure", ".kube", ".password-store", ".docker"]);
const SENSITIVE_FILES = new Set([".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", "shadow", "gshadow", "shadow-", "gshadow-", "sudoers"]);

const SENSITIVE_NAMES = [...SENSITIVE_SEGMENTS, ...SENSITIVE_FILES];

/**
 * Credentials and login files: `~/.ssh/…`, `.gnupg`, `.aws`, `.kube`, `.docker`, `.config/gcloud`, `.netrc`,
 * shell rc files, another process's environment (`/proc/<pid>/environ`). Matches anywhere in a word
 * (`--key=~/.ssh/id_rsa`, `scp x host:.ssh/`). A word with globs or expansions counts when its literal parts could
 * form such a name (`~/.ss?/id_rsa`, `/proc/[0-9]?/environ`, `.aw$X/credentials`).
 */
export function isSensitivePath(word: string): string | Localized | undefined {
  const parts = word.split(/[/=:]/);
  for (let i = 0; i < parts.length; i++) {
    const seg = parts[i] as string;
    if (SENSITIVE_SEGMENTS.has(seg)) return seg;
    if (SENSITIVE_FILES.has(seg)) return seg;
    if (seg === ".config" && (parts[i + 1] === "gcloud" || parts[i + 1] === "gh")) return `.config/${parts[i + 1]}`;
  }
  const segs = segmentsOf(word);
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as WordSegment;
    if (!seg.literal) {
      const name = SENSITIVE_NAMES.find((n) => segmentCouldBe(seg, n));
      if (name) return name;
    }
    const next = segs[i + 1];
    const last = segs[i + 2];
    if (segmentCouldBe(seg, "proc") && next && last && (segmentCouldBe(last, "environ") || isWild(last))) return msg("immune.procEnviron");
  }
  return undefined;
}

/** A segment with no literal character at all (`*`, `$X`). */
function isWild(seg: WordSegment): boolean {
  return !seg.literal && seg.pieces.every((p) => p.kind !== "lit" || p.text === "");
}

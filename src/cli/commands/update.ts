/**
 * `chatcli update [--check] [--version X]`: the only place chatcli talks to the release server, and only when
 * the user runs it. Reads `<release>/latest/manifest.json` (or `<release>/<X>/`), compares versions, downloads the
 * binary for the target this executable was built for, verifies it against SHA256SUMS and the manifest, then
 * replaces the running executable atomically (temp file next to it, chmod 755, rename). Nothing is replaced
 * unless every check passed.
 */
import { createHash } from "node:crypto";
import { chmodSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { t } from "../../i18n/i18n.ts";

/** Where releases live when CHATCLI_RELEASE_URL is unset (GitHub's release download layout). */
export const DEFAULT_RELEASE_URL = "https://github.com/chatcli/chatcli/releases";

/** Baked in by scripts/build.ts (`--define`); undefined when running from source. */
const BUILD_TARGET: string | undefined = process.env.CHATCLI_BUILD_TARGET;

export interface Writer {
  write(s: string): unknown;
}

export interface UpdateOptions {
  env: Record<string, string | undefined>;
  /** The running version, e.g. "0.1.0". */
  currentVersion: string;
  /** The executable to replace (process.execPath in the compiled binary). */
  execPath: string;
  check: boolean;
  /** Install exactly this version (may be older: an explicit downgrade). */
  version?: string;
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  out: Writer;
  err: Writer;
  /** The release target this executable is, e.g. "linux-x64". undefined → the one baked in at build time; null → not a compiled binary. */
  target?: string | null;
}

const ManifestSchema = z.object({
  version: z.string().min(1),
  commit: z.string().optional(),
  artifacts: z.array(z.object({ target: z.string(), file: z.string(), size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type ReleaseManifest = z.infer<typeof ManifestSchema>;

/** The folder URL holding one release's artifacts: `<base>/latest` or `<base>/<version>` (GitHub's layout for the default). */
export function releaseFolderUrl(env: Record<string, string | undefined>, version?: string): string {
  const v = version?.replace(/^v/, "");
  const custom = env.CHATCLI_RELEASE_URL?.trim();
  if (custom) return `${custom.replace(/\/+$/, "")}/${v ?? "latest"}`;
  return v ? `${DEFAULT_RELEASE_URL}/download/v${v}` : `${DEFAULT_RELEASE_URL}/latest/download`;
}

/** Semver order of "x.y.z[-pre][+build]"; a leading "v" is ignored; a pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const parse = (s: string) => {
    const [core = "", pre] = s.trim().replace(/^v/, "").split("+")[0]!.split(/-(.*)/s);
    return { nums: core.split(".").map((n) => Number.parseInt(n, 10) || 0), pre: pre ? pre.split(".") : [] };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length, 3); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d) return Math.sign(d);
  }
  if (!x.pre.length || !y.pre.length) return x.pre.length === y.pre.length ? 0 : x.pre.length ? -1 : 1;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Math.sign(Number(p) - Number(q));
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

class UpdateFailure extends Error {}

export async function updateCommand(o: UpdateOptions): Promise<number> {
  try {
    return await run(o);
  } catch (e) {
    if (e instanceof UpdateFailure) {
      o.err.write(`chatcli update: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

async function run(o: UpdateOptions): Promise<number> {
  const target = o.target === undefined ? BUILD_TARGET : o.target;
  const folder = releaseFolderUrl(o.env, o.version);
  const manifest = await getManifest(o, folder);
  const cmp = compareVersions(manifest.version, o.currentVersion);

  if (o.version && cmp === 0) {
    o.out.write(`${t("update.alreadyInstalled", { version: o.currentVersion })}\n`);
    return 0;
  }
  if (!o.version && cmp <= 0) {
    o.out.write(`${t("update.upToDate", { version: o.currentVersion, latest: manifest.version })}\n`);
    return 0;
  }
  if (o.check) {
    const command = `chatcli update${o.version ? ` --version ${manifest.version}` : ""}`;
    o.out.write(`${t(cmp > 0 ? "update.newer" : "update.available", { latest: manifest.version, version: o.currentVersion, command })}\n`);
    return 0;
  }
  if (!target) {
    throw new UpdateFailure(t("update.fromSource", { path: o.execPath }));
  }
  const exe = resolveExe(o.execPath);
  if (/[\\/]node_modules[\\/]/.test(exe)) {
    throw new UpdateFailure(t("update.npm", { path: exe, version: manifest.version }));
  }
  const artifact = manifest.artifacts.find((a) => a.target === target);
  if (!artifact) {
    throw new UpdateFailure(t("update.noBuild", { version: manifest.version, target, targets: manifest.artifacts.map((a) => a.target).join(", ") || "none" }));
  }

  const sums = parseSums(await getText(o, `${folder}/SHA256SUMS`));
  const expected = sums.get(artifact.file);
  if (!expected) throw new UpdateFailure(t("update.noSum", { version: manifest.version, file: artifact.file }));
  if (expected !== artifact.sha256) {
    throw new UpdateFailure(t("update.disagree", { version: manifest.version, file: artifact.file }));
  }

  o.out.write(`${t("update.downloading", { version: manifest.version, target, size: (artifact.size / 1e6).toFixed(1) })}\n`);
  const body = await getBytes(o, `${folder}/${artifact.file}`);
  const actual = createHash("sha256").update(body).digest("hex");
  if (actual !== expected) {
    throw new UpdateFailure(t("update.checksum", { file: artifact.file, expected, actual }));
  }

  replaceAtomically(exe, body, target.startsWith("windows"));
  o.out.write(`${t("update.updated", { from: o.currentVersion, to: manifest.version, path: exe })}\n`);
  return 0;
}

function resolveExe(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

async function getManifest(o: UpdateOptions, folder: string): Promise<ReleaseManifest> {
  const url = `${folder}/manifest.json`;
  const res = await request(o, url);
  if (res.status === 404 && o.version) throw new UpdateFailure(t("update.notFound", { version: o.version, url }));
  if (!res.ok) throw new UpdateFailure(t("update.serverStatus", { status: res.status, url }));
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw new UpdateFailure(t("update.invalidJson", { url }));
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw new UpdateFailure(t("update.notManifest", { url, reason: parsed.error.issues[0]?.message ?? "invalid" }));
  return parsed.data;
}

async function getText(o: UpdateOptions, url: string): Promise<string> {
  const res = await request(o, url);
  if (!res.ok) throw new UpdateFailure(t("update.serverStatusNothing", { status: res.status, url }));
  return await readBody(res, url).then((b) => new TextDecoder().decode(b));
}

async function getBytes(o: UpdateOptions, url: string): Promise<Uint8Array> {
  const res = await request(o, url);
  if (!res.ok) throw new UpdateFailure(t("update.serverStatusNothing", { status: res.status, url }));
  return await readBody(res, url);
}

async function request(o: UpdateOptions, url: string): Promise<Response> {
  try {
    return await o.fetch(url, { redirect: "follow" });
  } catch (e) {
    throw new UpdateFailure(t("update.network", { url, error: (e as Error)?.message ?? String(e) }));
  }
}

async function readBody(res: Response, url: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new UpdateFailure(t("update.networkDownload", { url, error: (e as Error)?.message ?? String(e) }));
  }
}

/** `<sha256>  <file>` lines (a `*` before the name marks binary mode in sha256sum output). */
function parseSums(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const hit = /^([0-9a-fA-F]{64})\s+\*?(.+)$/.exec(line.trim());
    if (hit) m.set(hit[2]!.trim(), hit[1]!.toLowerCase());
  }
  return m;
}

/** The temp file sits in the executable's own directory so the rename never crosses file systems. */
function replaceAtomically(exe: string, body: Uint8Array, windows: boolean): void {
  const tmp = join(dirname(exe), `.${basename(exe)}.update-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  try {
    writeFileSync(tmp, body, { mode: 0o755 });
    chmodSync(tmp, 0o755);
    // Windows cannot overwrite a running .exe but can rename it out of the way.
    if (windows) {
      rmSync(`${exe}.old`, { force: true });
      renameSync(exe, `${exe}.old`);
      try {
        renameSync(tmp, exe);
      } catch (e) {
        renameSync(`${exe}.old`, exe);
        throw e;
      }
    } else {
      renameSync(tmp, exe);
    }
  } catch (e) {
    rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException)?.code;
    const hint = code === "EACCES" || code === "EPERM" ? t("update.permissionHint") : "";
    throw new UpdateFailure(t("update.replaceFailed", { path: exe, error: (e as Error)?.message ?? String(e), hint }));
  }
}

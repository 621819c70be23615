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
    o.out.write(`chatcli ${o.currentVersion} is already installed; nothing to do.\n`);
    return 0;
  }
  if (!o.version && cmp <= 0) {
    o.out.write(`chatcli ${o.currentVersion} is up to date (latest release: ${manifest.version}).\n`);
    return 0;
  }
  if (o.check) {
    const what = cmp > 0 ? "A newer version is available" : "Version available";
    o.out.write(`${what}: ${manifest.version} (you have ${o.currentVersion}). Run \`chatcli update${o.version ? ` --version ${manifest.version}` : ""}\` to install it.\n`);
    return 0;
  }
  if (!target) {
    throw new UpdateFailure(
      `this chatcli is running from source (${o.execPath}), not as a compiled binary, so it cannot replace itself.\n` +
        `Update a clone with \`git pull && npm install\`, an npm install with \`npm install -g chatcli@latest\`.`,
    );
  }
  const exe = resolveExe(o.execPath);
  if (/[\\/]node_modules[\\/]/.test(exe)) {
    throw new UpdateFailure(`this chatcli was installed with npm (${exe}); update it with \`npm install -g chatcli@${manifest.version}\`.`);
  }
  const artifact = manifest.artifacts.find((a) => a.target === target);
  if (!artifact) {
    throw new UpdateFailure(`release ${manifest.version} has no build for ${target} (it has: ${manifest.artifacts.map((a) => a.target).join(", ") || "none"}).`);
  }

  const sums = parseSums(await getText(o, `${folder}/SHA256SUMS`));
  const expected = sums.get(artifact.file);
  if (!expected) throw new UpdateFailure(`SHA256SUMS of release ${manifest.version} has no entry for ${artifact.file}; nothing was replaced.`);
  if (expected !== artifact.sha256) {
    throw new UpdateFailure(`SHA256SUMS and manifest.json of release ${manifest.version} disagree about ${artifact.file}; nothing was replaced.`);
  }

  o.out.write(`Downloading chatcli ${manifest.version} (${target}, ${(artifact.size / 1e6).toFixed(1)} MB)…\n`);
  const body = await getBytes(o, `${folder}/${artifact.file}`);
  const actual = createHash("sha256").update(body).digest("hex");
  if (actual !== expected) {
    throw new UpdateFailure(`checksum mismatch for ${artifact.file}: expected ${expected}, got ${actual}. The download is corrupt or was tampered with; nothing was replaced.`);
  }

  replaceAtomically(exe, body, target.startsWith("windows"));
  o.out.write(`Updated chatcli ${o.currentVersion} → ${manifest.version} (${exe}).\n`);
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
  if (res.status === 404 && o.version) throw new UpdateFailure(`version ${o.version} was not found (${url} → 404).`);
  if (!res.ok) throw new UpdateFailure(`the release server answered ${res.status} for ${url}.`);
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw new UpdateFailure(`${url} is not valid JSON.`);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw new UpdateFailure(`${url} is not a chatcli release manifest (${parsed.error.issues[0]?.message ?? "invalid"}).`);
  return parsed.data;
}

async function getText(o: UpdateOptions, url: string): Promise<string> {
  const res = await request(o, url);
  if (!res.ok) throw new UpdateFailure(`the release server answered ${res.status} for ${url}; nothing was replaced.`);
  return await readBody(res, url).then((b) => new TextDecoder().decode(b));
}

async function getBytes(o: UpdateOptions, url: string): Promise<Uint8Array> {
  const res = await request(o, url);
  if (!res.ok) throw new UpdateFailure(`the release server answered ${res.status} for ${url}; nothing was replaced.`);
  return await readBody(res, url);
}

async function request(o: UpdateOptions, url: string): Promise<Response> {
  try {
    return await o.fetch(url, { redirect: "follow" });
  } catch (e) {
    throw new UpdateFailure(`network error: could not reach ${url} (${(e as Error)?.message ?? String(e)}). Check your connection or CHATCLI_RELEASE_URL.`);
  }
}

async function readBody(res: Response, url: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new UpdateFailure(`network error while downloading ${url} (${(e as Error)?.message ?? String(e)}); nothing was replaced.`);
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
    const hint = code === "EACCES" || code === "EPERM" ? " (permission denied: rerun with permission to write there, or reinstall with install.sh)" : "";
    throw new UpdateFailure(`could not replace ${exe}: ${(e as Error)?.message ?? String(e)}${hint}. The installed version was left as it was.`);
  }
}

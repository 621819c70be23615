/**
 * Produces the npm packages from release artifacts (the output of `npm run release`, or a merged release):
 *   bun scripts/npm-packages.ts [--from=dist] [--out=dist/npm]
 * → <out>/chatcli/            the wrapper (`npm install -g chatcli`): launcher + optionalDependencies
 *   <out>/<target>/           @chatcli/<target>: one binary, with os/cpu(/libc) so npm installs only the matching one
 * Every binary is checked against SHA256SUMS and manifest.json first. Publish the platform packages before the
 * wrapper (`npm publish <out>/<target>` …, then `npm publish <out>/chatcli`).
 */
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const root = join(import.meta.dir, "..");
const templateDir = join(root, "npm");

const PlatformSchema = z.object({ target: z.string(), os: z.string(), cpu: z.string(), libc: z.enum(["glibc", "musl"]).optional(), file: z.string(), bin: z.string() });
const ManifestSchema = z.object({
  version: z.string().min(1),
  artifacts: z.array(z.object({ target: z.string(), file: z.string(), sha256: z.string() })),
});
const WrapperSchema = z.looseObject({ name: z.string(), version: z.string(), optionalDependencies: z.record(z.string(), z.string()).optional() });

export interface NpmPackagesResult {
  version: string;
  /** Folders written, platform packages first, the wrapper last (the order to publish in). */
  packages: Array<{ name: string; dir: string }>;
  /** Known platforms with no artifact in this release. */
  missing: string[];
}

export function buildNpmPackages(opts: { from: string; out: string }): NpmPackagesResult {
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(join(opts.from, "manifest.json"), "utf8")));
  const sums = new Map<string, string>();
  for (const line of readFileSync(join(opts.from, "SHA256SUMS"), "utf8").split(/\r?\n/)) {
    const m = /^([0-9a-f]{64})\s+\*?(\S.*)$/.exec(line.trim());
    if (m) sums.set(m[2]!, m[1]!);
  }
  const platforms = z.array(PlatformSchema).parse(JSON.parse(readFileSync(join(templateDir, "platforms.json"), "utf8")));
  const wrapper = WrapperSchema.parse(JSON.parse(readFileSync(join(templateDir, "package.json"), "utf8")));
  const version = manifest.version;

  rmSync(opts.out, { recursive: true, force: true });
  const packages: NpmPackagesResult["packages"] = [];
  const missing: string[] = [];
  const optionalDependencies: Record<string, string> = {};
  for (const p of platforms) {
    const artifact = manifest.artifacts.find((a) => a.target === p.target);
    if (!artifact) {
      missing.push(p.target);
      continue;
    }
    const src = join(opts.from, artifact.file);
    if (!existsSync(src)) throw new Error(`${src} is listed in manifest.json but missing`);
    const hash = createHash("sha256").update(readFileSync(src)).digest("hex");
    if (hash !== artifact.sha256 || hash !== sums.get(artifact.file)) throw new Error(`${src}: sha256 ${hash} does not match manifest.json / SHA256SUMS`);

    const name = `@chatcli/${p.target}`;
    const dir = join(opts.out, p.target);
    mkdirSync(join(dir, "bin"), { recursive: true });
    copyFileSync(src, join(dir, "bin", p.bin));
    chmodSync(join(dir, "bin", p.bin), 0o755);
    const pkg = {
      name,
      version,
      description: `The chatcli binary for ${p.target}; installed by the chatcli package.`,
      license: "MIT",
      os: [p.os],
      cpu: [p.cpu],
      ...(p.libc ? { libc: [p.libc] } : {}),
      files: ["bin/"],
      preferUnplugged: true,
    };
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe chatcli ${version} binary for ${p.target}. Install \`chatcli\` instead; it depends on this package.\n`);
    optionalDependencies[name] = version;
    packages.push({ name, dir });
  }
  if (!packages.length) throw new Error(`no known platform in ${join(opts.from, "manifest.json")}`);

  const wdir = join(opts.out, "chatcli");
  mkdirSync(join(wdir, "bin"), { recursive: true });
  copyFileSync(join(templateDir, "bin", "chatcli"), join(wdir, "bin", "chatcli"));
  chmodSync(join(wdir, "bin", "chatcli"), 0o755);
  copyFileSync(join(templateDir, "platforms.json"), join(wdir, "platforms.json"));
  writeFileSync(join(wdir, "package.json"), `${JSON.stringify({ ...wrapper, version, optionalDependencies }, null, 2)}\n`);
  const readme = join(root, "README.md");
  if (existsSync(readme)) copyFileSync(readme, join(wdir, "README.md"));
  packages.push({ name: wrapper.name, dir: wdir });
  return { version, packages, missing };
}

if (import.meta.main) {
  const arg = (k: string, d: string) => process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3) ?? d;
  try {
    const r = buildNpmPackages({ from: arg("from", join(root, "dist")), out: arg("out", join(root, "dist", "npm")) });
    for (const p of r.packages) process.stdout.write(`${p.name}@${r.version} → ${p.dir}\n`);
    for (const m of r.missing) process.stdout.write(`@chatcli/${m}: no artifact in this release, left out of optionalDependencies\n`);
  } catch (e) {
    process.stderr.write(`npm-packages: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

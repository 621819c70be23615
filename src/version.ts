/** Version from package.json; the git commit is baked in by scripts/build.ts (`dev` from source). */
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
export const COMMIT: string = process.env.CHATCLI_BUILD_COMMIT || "dev";

export function versionString(): string {
  return `${VERSION} (${COMMIT})`;
}

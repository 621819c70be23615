/**
 * Opens a URL in the user's browser when there is one to open; never waits for it and never fails: the URL is
 * always printed too. `BROWSER` (the usual convention: a command, `%s` replaced by the URL, else the URL appended;
 * the first of a `:`-separated list) wins; otherwise `open` on macOS, the URL handler on Windows, `xdg-open` in a
 * Linux desktop session (DISPLAY / WAYLAND_DISPLAY). CHATCLI_NO_BROWSER=1 (or `--no-browser`) turns it off.
 */
import { spawn } from "node:child_process";

export function openBrowser(url: string, env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): boolean {
  if (env.CHATCLI_NO_BROWSER && env.CHATCLI_NO_BROWSER !== "0") return false;
  const argv = browserCommand(url, env, platform);
  if (!argv) return false;
  try {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: "ignore", detached: true, env: env as NodeJS.ProcessEnv });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export function browserCommand(url: string, env: Record<string, string | undefined>, platform: NodeJS.Platform): string[] | undefined {
  const custom = env.BROWSER?.split(":")[0]?.trim();
  if (custom) {
    const words = custom.split(/\s+/);
    return words.some((w) => w.includes("%s")) ? words.map((w) => w.replaceAll("%s", url)) : [...words, url];
  }
  if (platform === "darwin") return ["open", url];
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler", url];
  return env.DISPLAY || env.WAYLAND_DISPLAY ? ["xdg-open", url] : undefined;
}

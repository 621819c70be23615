/**
 * Opens a URL in the user's browser when there is one to open (a desktop session); never waits for it and never
 * fails: the URL is always printed too. CHATCLI_NO_BROWSER=1 (or `--no-browser`) turns it off.
 */
import { spawn } from "node:child_process";

export function openBrowser(url: string, env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): boolean {
  if (env.CHATCLI_NO_BROWSER && env.CHATCLI_NO_BROWSER !== "0") return false;
  const argv =
    platform === "darwin"
      ? ["open", url]
      : platform === "win32"
        ? ["rundll32", "url.dll,FileProtocolHandler", url]
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ["xdg-open", url]
          : undefined;
  if (!argv) return false;
  try {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

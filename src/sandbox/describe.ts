/** The sandbox's state in words, for the start-up notice, `/status` and the status line (i18n'd). */
import { t } from "../i18n/i18n.ts";
import type { SandboxStatus } from "./types.ts";

export function sandboxStateText(s: SandboxStatus, network: boolean): string {
  switch (s.state) {
    case "active":
      return t("sandbox.stateActive", { mode: s.mode, kind: s.kind === "bwrap" ? "bubblewrap" : "Seatbelt", network: t(network ? "sandbox.networkOpen" : "sandbox.networkClosed") });
    case "pending":
      return t("sandbox.statePending", { mode: s.mode });
    case "off":
      return t("sandbox.stateOff");
    case "unavailable":
      return t("sandbox.stateUnavailable", { reason: s.reason });
  }
}

/** The one notice at start: a warning when no sandbox can run, information otherwise. */
export function sandboxNotice(s: SandboxStatus, network: boolean): { level: "info" | "warn"; text: string } {
  if (s.state === "unavailable") return { level: "warn", text: t("sandbox.noticeUnavailable", { reason: s.reason }) };
  if (s.state === "off") return { level: "info", text: t("sandbox.noticeOff") };
  return { level: "info", text: t("sandbox.noticeActive", { state: sandboxStateText(s, network) }) };
}

/** The status-line segment: only when commands are not contained. */
export function sandboxStatusLabel(s: SandboxStatus): string | undefined {
  if (s.state === "off") return t("status.sandboxOff");
  if (s.state === "unavailable") return t("status.sandboxUnavailable");
  return undefined;
}

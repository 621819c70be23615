/** `/status`: provider, model, permission mode and the sandbox's state (with the reason when there is none). */
import { t } from "../i18n/i18n.ts";
import type { PermissionMode } from "../protocol/events.ts";
import { sandboxStateText } from "../sandbox/describe.ts";
import type { SandboxRuntime } from "../sandbox/sandbox.ts";

export function statusCommandText(o: { provider: string; model: string; mode: PermissionMode; sandbox: Pick<SandboxRuntime, "status" | "network"> | undefined }): string {
  const sandbox = o.sandbox ? sandboxStateText(o.sandbox.status(), o.sandbox.network) : t("sandbox.stateOff");
  return t("slash.status", { provider: o.provider, model: o.model, mode: o.mode, sandbox });
}

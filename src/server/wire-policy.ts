/**
 * What a client on the wire may ask for, whatever the transport. Bypass (no approvals at all) widens the safety
 * settings, and widening belongs to the user (docs/server.md "Security"): the same rule as a repository's
 * settings and `.env` (load-config.ts). A client may request `permissionMode: "bypass"` (session/new) or switch to
 * it (session/setMode) only when the server itself was started with bypass — `chatcli serve --permission-mode
 * bypass`, CHATCLI_PERMISSION_MODE=bypass in its real environment, or the user's own settings. Refused otherwise
 * (-32602), before anything is built or submitted.
 */
import type { Op, PermissionMode } from "../protocol/events.ts";
import { RPC_ERROR } from "./protocol.ts";

export class WirePolicyError extends Error {
  readonly code = RPC_ERROR.invalidParams;
}

export const BYPASS_REFUSED = "permission mode bypass is refused from the wire: start the server with --permission-mode bypass to allow it";

export function checkRequestedMode(mode: PermissionMode | undefined, allowBypass: boolean): void {
  if (mode === "bypass" && !allowBypass) throw new WirePolicyError(BYPASS_REFUSED);
}

export function checkOp(op: Op, allowBypass: boolean): void {
  if (op.type === "set_permission_mode") checkRequestedMode(op.mode, allowBypass);
}

/** Pending approval round trips: `approval.requested` out, the `approval` op back in (or `deny` on interrupt). */
import type { AgentEvent, ApprovalDecision } from "../../protocol/events.ts";
import type { ApprovalRequest } from "../tool-host.ts";
import type { ApprovalAnswer } from "../run-deps.ts";
import type { SessionHooks } from "./session-options.ts";

export type { ApprovalRequest };

export class Approvals {
  private readonly pending = new Map<string, (d: ApprovalDecision) => void>();

  constructor(
    private readonly emit: (e: AgentEvent) => void,
    private readonly newId: (prefix: string) => string,
    private readonly autoApprove: SessionHooks["autoApprove"],
  ) {}

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const auto = this.autoApprove?.(req);
    if (auto) {
      // Headless: the ask and its automatic answer are still events, so a stream-json consumer sees the denial.
      const id = this.newId("approval");
      this.emit(requestedEvent(id, req));
      this.emit({ type: "approval.resolved", requestId: id, decision: auto });
      return Promise.resolve(auto);
    }
    if (signal.aborted) return Promise.resolve("deny");
    const requestId = this.newId("approval");
    return new Promise((resolve) => {
      this.pending.set(requestId, resolve);
      this.emit(requestedEvent(requestId, req));
    });
  }

  /** The `approval` op; an unknown or already answered id is ignored. */
  answer(requestId: string, decision: ApprovalDecision): void {
    const resolve = this.pending.get(requestId);
    if (!resolve) return;
    this.pending.delete(requestId);
    this.emit({ type: "approval.resolved", requestId, decision });
    resolve(decision);
  }

  /** Interrupt: each pending ask is answered `deny` and announced, so a UI drops its approval box at once. */
  denyAll(): void {
    for (const id of [...this.pending.keys()]) this.answer(id, "deny");
  }
}

function requestedEvent(requestId: string, req: ApprovalRequest): AgentEvent {
  return {
    type: "approval.requested",
    requestId,
    tool: req.tool,
    action: req.action,
    reason: req.reason,
    ...(req.diff ? { diff: req.diff } : {}),
    ...(req.outsideProject?.length ? { outsideProject: req.outsideProject } : {}),
    ...(req.noAlways ? { noAlways: true } : {}),
  };
}

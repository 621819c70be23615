/** Content and keys of the approval box. The guard timing lives in the app (it owns the clock). */
import { StyledText, TextAttributes, type BoxRenderable, type KeyEvent, type TextChunk, type TextRenderable } from "@opentui/core";
import type { ApprovalDecision } from "../../protocol/events.ts";
import type { PendingApproval } from "./view-model.ts";
import { chunk } from "./item-chunks.ts";
import { colors } from "./theme.ts";
import { t } from "../../i18n/i18n.ts";
import { outsideProjectLine } from "../shared/outside-project-line.ts";

const MAX_DIFF_LINES = 20;

export function approvalChunks(a: PendingApproval): TextChunk[] {
  const out: TextChunk[] = [
    chunk(`${a.tool}: `, colors.tool, TextAttributes.BOLD),
    chunk(a.action + "\n", colors.text),
  ];
  if (a.outsideProject?.length) out.push(chunk(`${outsideProjectLine(a.outsideProject)}\n`, colors.warn, TextAttributes.BOLD));
  if (a.reason) out.push(chunk(a.reason + "\n", colors.dim));
  if (a.diff) {
    const lines = a.diff.replace(/\n$/, "").split("\n");
    for (const l of lines.slice(0, MAX_DIFF_LINES)) {
      const c = l.startsWith("+") && !l.startsWith("+++") ? colors.user : l.startsWith("-") && !l.startsWith("---") ? colors.error : colors.dim;
      out.push(chunk(l + "\n", c));
    }
    if (lines.length > MAX_DIFF_LINES) out.push(chunk(`${t("approval.moreDiff", { count: lines.length - MAX_DIFF_LINES })}\n`, colors.dim));
  }
  out.push(
    chunk(`${t("approval.once")}  `, colors.user, TextAttributes.BOLD),
    ...(a.noAlways ? [] : [chunk(`${t("approval.always")}  `, colors.accent, TextAttributes.BOLD)]),
    chunk(`${t("approval.deny")}  `, colors.error, TextAttributes.BOLD),
    chunk(t("approval.denyAlways"), colors.error, TextAttributes.BOLD),
  );
  return out;
}

/** `noAlways`: the box offers no "always", so its keys do nothing. */
export function decisionForKey(k: KeyEvent, noAlways = false): ApprovalDecision | null {
  if (k.ctrl || k.meta) return null;
  if (noAlways && (k.name === "a" || k.name === "2")) return null;
  switch (k.name) {
    case "y":
    case "1":
      return "once";
    case "a":
    case "2":
      return "always";
    case "n":
      return k.shift ? "deny_always" : "deny";
    case "3":
      return "deny";
    case "4":
      return "deny_always";
    default:
      return null;
  }
}

/** The approval box above the prompt: shown while an approval is pending, redrawn once per request. */
export class ApprovalPanel {
  private shownId: string | null = null;
  constructor(
    private readonly box: BoxRenderable,
    private readonly text: TextRenderable,
  ) {}

  get visible(): boolean {
    return this.box.visible;
  }

  /** True when a new request was just drawn. */
  sync(a: PendingApproval | null): boolean {
    this.box.visible = a !== null;
    if (!a) {
      this.shownId = null;
      return false;
    }
    if (this.shownId === a.requestId) return false;
    this.shownId = a.requestId;
    this.text.content = new StyledText(approvalChunks(a));
    return true;
  }
}

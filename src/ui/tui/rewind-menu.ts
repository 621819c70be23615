/**
 * The rewind modal (Esc Esc on an empty idle prompt, or /rewind): pick a checkpoint (newest first), then what to
 * restore; restoring code first shows the files that will change, conflicts and files that cannot be restored,
 * and asks before deleting files created after the checkpoint. The result is one `rewind` op for the session.
 * Esc is routed here by the app's key handler (SelectRenderable has no Escape binding) and closes the menu.
 */
import { BoxRenderable, SelectRenderable, SelectRenderableEvents, StyledText, TextRenderable, type CliRenderer, type SelectOption, type TextChunk } from "@opentui/core";
import { isAbsolute, relative } from "node:path";
import type { Op } from "../../protocol/events.ts";
import type { CheckpointSummary, RestorePlan } from "../../agent/checkpoints/schema.ts";
import { chunk } from "./item-chunks.ts";
import { colors, ink, paintSelect, selectColors } from "./theme.ts";
import { t } from "../../i18n/i18n.ts";

export type { CheckpointSummary, RestorePlan };

/** What the TUI needs from the checkpoint store (main.ts passes the session's CheckpointStore). */
export interface CheckpointSource {
  list(): CheckpointSummary[];
  plan(checkpointId: string): RestorePlan | string;
}

type RewindOp = Extract<Op, { type: "rewind" }>;
type Step = "checkpoints" | "mode" | "confirm";
type Mode = RewindOp["mode"];

type Choice =
  | { kind: "checkpoint"; cp: CheckpointSummary }
  | { kind: "mode"; mode: Mode }
  | { kind: "confirm"; deleteCreated: boolean; force: boolean }
  | { kind: "cancel" };

export const MENU_ROWS = 14;

export function formatCheckpoint(cp: CheckpointSummary): string {
  const d = new Date(cp.time);
  const hms = [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  const msgs = cp.messageCount === 1 ? t("rewind.msgsOne") : t("rewind.msgsMany", { count: cp.messageCount });
  const files = cp.files ? `  ${cp.files === 1 ? t("rewind.filesOne") : t("rewind.filesMany", { count: cp.files })}` : "";
  return `${hms}  ${msgs.padStart(8)}  ${cp.label}${files}${cp.conversationOnly ? `  ${t("rewind.conversationOnlyTag")}` : ""}`;
}

export class RewindMenu {
  readonly box: BoxRenderable;
  private readonly info: TextRenderable;
  private readonly select: SelectRenderable;
  private chosen: CheckpointSummary | null = null;
  private mode: Mode = "both";
  private stepName: Step | "closed" = "closed";
  private height = MENU_ROWS;

  constructor(
    private readonly renderer: CliRenderer,
    private readonly source: CheckpointSource,
    private readonly onOp: (op: RewindOp) => void,
    private readonly onClose: () => void,
    private readonly notice: (text: string, level: "info" | "warn" | "error") => void,
    private readonly cwd: string,
  ) {
    this.box = new BoxRenderable(renderer, {
      position: "absolute",
      left: 0,
      top: 0,
      width: "100%",
      height: MENU_ROWS,
      zIndex: 110,
      border: true,
      borderStyle: "rounded",
      borderColor: ink(colors.accent),
      backgroundColor: ink(colors.bg),
      shouldFill: true,
      title: t("rewind.title"),
      visible: false,
      flexDirection: "column",
    });
    this.info = new TextRenderable(renderer, { content: "", flexShrink: 0, paddingLeft: 1 });
    this.select = new SelectRenderable(renderer, { width: "100%", flexGrow: 1, options: [], wrapSelection: true, showDescription: false, ...selectColors() });
    this.box.add(this.info);
    this.box.add(this.select);
    this.select.on(SelectRenderableEvents.ITEM_SELECTED, (_i: number, opt: SelectOption | null) => {
      if (opt) this.onChoice(opt.value as Choice);
    });
  }

  get isOpen(): boolean {
    return this.box.visible;
  }

  get step(): Step | "closed" {
    return this.stepName;
  }

  /** Rows the open menu takes (inline mode grows its footer by this much). */
  get rows(): number {
    return this.isOpen ? this.height : 0;
  }

  /** Opens on the checkpoint list; false (and a notice) when there are none. */
  open(): boolean {
    paintSelect(this.select);
    this.box.borderColor = ink(colors.accent);
    this.box.backgroundColor = ink(colors.bg);
    const list = this.source.list();
    if (!list.length) {
      this.notice(t("rewind.none"), "info");
      return false;
    }
    this.chosen = null;
    this.show(
      "checkpoints",
      t("rewind.select"),
      list.map((cp) => ({ name: formatCheckpoint(cp), description: "", value: { kind: "checkpoint", cp } satisfies Choice })),
    );
    return true;
  }

  close(): void {
    this.box.visible = false;
    this.select.blur();
    this.stepName = "closed";
    this.chosen = null;
    this.onClose();
  }

  private show(step: Step, header: string | StyledText, options: SelectOption[]): void {
    this.stepName = step;
    const info = typeof header === "string" ? new StyledText([chunk(header, colors.dim)]) : header;
    this.info.content = info;
    // Rows as drawn: a trailing newline is a row of its own, and long lines wrap inside the box.
    const inner = Math.max(10, this.renderer.terminalWidth - 3);
    const infoRows = info.chunks
      .map((c) => c.text)
      .join("")
      .split("\n")
      .reduce((n, l) => n + Math.max(1, Math.ceil(l.length / inner)), 0);
    this.height = Math.max(5, Math.min(this.renderer.terminalHeight - 2, infoRows + options.length + 2));
    this.box.height = this.height;
    this.select.options = options;
    this.select.setSelectedIndex(0);
    this.box.visible = true;
    this.select.focus();
  }

  private onChoice(c: Choice): void {
    switch (c.kind) {
      case "cancel":
        return this.close();
      case "checkpoint": {
        this.chosen = c.cp;
        const opts: SelectOption[] = c.cp.conversationOnly
          ? [opt(t("rewind.conversation"), { kind: "mode", mode: "conversation" }), opt(t("rewind.cancel"), { kind: "cancel" })]
          : [
              opt(t("rewind.both"), { kind: "mode", mode: "both" }),
              opt(t("rewind.conversation"), { kind: "mode", mode: "conversation" }),
              opt(t("rewind.code"), { kind: "mode", mode: "code" }),
              opt(t("rewind.cancel"), { kind: "cancel" }),
            ];
        return this.show("mode", t("rewind.to", { checkpoint: formatCheckpoint(c.cp) }), opts);
      }
      case "mode": {
        this.mode = c.mode;
        if (c.mode === "conversation") return this.finish(false, false);
        const plan = this.source.plan(this.chosen!.id);
        if (typeof plan === "string") {
          this.close();
          return this.notice(plan, "warn");
        }
        const nothing = !plan.change.length && !plan.created.length && !plan.conflicts.length;
        if (nothing && !plan.notRestorable.length) return this.finish(false, false);
        return this.show("confirm", planText(plan, this.cwd), confirmOptions(plan));
      }
      case "confirm":
        return this.finish(c.deleteCreated, c.force);
    }
  }

  private finish(deleteCreated: boolean, force: boolean): void {
    const cp = this.chosen;
    if (!cp) return this.close();
    const op: RewindOp = { type: "rewind", checkpointId: cp.id, mode: this.mode };
    if (deleteCreated) op.deleteCreated = true;
    if (force) op.force = true;
    this.close();
    this.onOp(op);
  }
}

function opt(name: string, value: Choice): SelectOption {
  return { name, description: "", value };
}

function planText(plan: RestorePlan, cwd: string): StyledText {
  const out: TextChunk[] = [];
  const show = (p: string) => {
    const r = relative(cwd, p);
    return r && !r.startsWith("..") && !isAbsolute(r) ? r : p;
  };
  const list = (title: string, items: string[], fg: string) => {
    if (!items.length) return;
    const shown = items.slice(0, 3).map((p) => `    ${p}`);
    if (items.length > 3) shown.push(`    ${t("rewind.andMore", { count: items.length - 3 })}`);
    out.push(chunk(`${title}\n`, fg), chunk(`${shown.join("\n")}\n`, colors.text));
  };
  list(t("rewind.willChange", { count: plan.change.length }), plan.change.map(show), colors.accent);
  list(t("rewind.created", { count: plan.created.length }), plan.created.map(show), colors.warn);
  list(t("rewind.conflicts", { count: plan.conflicts.length }), plan.conflicts.map((c) => show(c.path)), colors.error);
  list(t("rewind.notRestorable", { count: plan.notRestorable.length }), plan.notRestorable.map((n) => `${show(n.path)} (${n.reason})`), colors.dim);
  return new StyledText(out);
}

function confirmOptions(plan: RestorePlan): SelectOption[] {
  const out: SelectOption[] = [];
  if (plan.created.length) {
    const del = plan.created.length === 1 ? t("rewind.deleteCreatedOne") : t("rewind.deleteCreatedMany", { count: plan.created.length });
    out.push(opt(del, { kind: "confirm", deleteCreated: true, force: false }));
    out.push(opt(t("rewind.keepCreated"), { kind: "confirm", deleteCreated: false, force: false }));
  } else out.push(opt(t("rewind.restore"), { kind: "confirm", deleteCreated: false, force: false }));
  if (plan.conflicts.length) out.push(opt(t("rewind.overwrite"), { kind: "confirm", deleteCreated: plan.created.length > 0, force: true }));
  out.push(opt(t("rewind.cancel"), { kind: "cancel" }));
  return out;
}

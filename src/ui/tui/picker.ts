/**
 * A modal list picker (models, providers) over the app; Esc closing is routed by the app's key handler.
 * Like every overlay it is opaque (its own background fills the whole box, the full width of the screen, so no
 * transcript shows through or beside it), sized to its items within the screen, and it gives the focus back when
 * it closes: while it is open it is always drawn (inline mode grows the footer by `rows`).
 */
import { BoxRenderable, SelectRenderable, SelectRenderableEvents, type CliRenderer, type SelectOption } from "@opentui/core";
import { colors, ink, paintSelect, selectColors } from "./theme.ts";

export interface PickerItem {
  name: string;
  description: string;
  value: unknown;
}

/** Rows left for an overlay: the screen minus the prompt box (3), the status line and a spare row. */
export function overlayMaxRows(terminalHeight: number): number {
  return Math.max(3, terminalHeight - 5);
}

export class Picker {
  readonly box: BoxRenderable;
  private readonly select: SelectRenderable;
  private onPick: ((value: unknown) => void) | null = null;
  private wanted = 0;

  constructor(
    private readonly renderer: CliRenderer,
    private readonly onClose: () => void,
  ) {
    this.box = new BoxRenderable(renderer, {
      position: "absolute",
      left: 0,
      top: 0,
      width: "100%",
      height: 3,
      zIndex: 100,
      border: true,
      borderStyle: "rounded",
      borderColor: ink(colors.accent),
      backgroundColor: ink(colors.bg),
      shouldFill: true,
      visible: false,
    });
    this.select = new SelectRenderable(renderer, {
      width: "100%",
      flexGrow: 1,
      options: [],
      wrapSelection: true,
      showDescription: false,
      ...selectColors(),
    });
    this.box.add(this.select);
    this.select.on(SelectRenderableEvents.ITEM_SELECTED, (_i: number, opt: SelectOption | null) => {
      const pick = this.onPick;
      this.close();
      if (pick && opt) pick(opt.value);
    });
  }

  get isOpen(): boolean {
    return this.box.visible;
  }

  /** Rows the open picker takes (inline mode grows its footer by this much). */
  get rows(): number {
    return this.isOpen ? this.box.height : 0;
  }

  open(title: string, items: PickerItem[], selected: number, onPick: (value: unknown) => void): void {
    this.onPick = onPick;
    this.box.title = title;
    paintSelect(this.select);
    this.box.borderColor = ink(colors.accent);
    this.box.backgroundColor = ink(colors.bg);
    this.select.options = items.map((i) => ({ name: i.name, description: i.description, value: i.value }));
    this.select.setSelectedIndex(selected);
    this.wanted = items.length + 2;
    this.fit();
    this.box.visible = true;
    this.select.focus();
  }

  /** Keeps the box within the screen (called on every sync, so a resize while open is followed). */
  fit(): void {
    const h = Math.min(this.wanted, overlayMaxRows(this.renderer.terminalHeight));
    if (this.box.height !== h) this.box.height = h;
  }

  close(): void {
    this.onPick = null;
    this.box.visible = false;
    this.select.blur();
    this.onClose();
  }
}

/** A modal list picker (models, providers) over the app; Esc closing is routed by the app's key handler. */
import { BoxRenderable, SelectRenderable, SelectRenderableEvents, type CliRenderer, type SelectOption } from "@opentui/core";
import { colors } from "./theme.ts";

export interface PickerItem {
  name: string;
  description: string;
  value: unknown;
}

export class Picker {
  readonly box: BoxRenderable;
  private readonly select: SelectRenderable;
  private onPick: ((value: unknown) => void) | null = null;

  constructor(renderer: CliRenderer, private readonly onClose: () => void) {
    this.box = new BoxRenderable(renderer, {
      position: "absolute",
      left: 2,
      top: 1,
      width: "60%",
      height: 12,
      zIndex: 100,
      border: true,
      borderStyle: "rounded",
      borderColor: colors.accent,
      backgroundColor: colors.bg,
      visible: false,
    });
    this.select = new SelectRenderable(renderer, { width: "100%", height: "100%", options: [], wrapSelection: true, showDescription: false });
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

  open(title: string, items: PickerItem[], selected: number, onPick: (value: unknown) => void): void {
    this.onPick = onPick;
    this.box.title = title;
    this.select.options = items.map((i) => ({ name: i.name, description: i.description, value: i.value }));
    this.select.setSelectedIndex(selected);
    this.box.visible = true;
    this.select.focus();
  }

  close(): void {
    this.onPick = null;
    this.box.visible = false;
    this.onClose();
  }
}

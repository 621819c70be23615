/** An interval on the renderer's clock that runs only while `set(true)` (the spinner, the watch's age). */
import type { CliRenderer, TimerHandle } from "@opentui/core";

export class Ticker {
  private timer: TimerHandle | null = null;
  constructor(
    private readonly clock: CliRenderer["clock"],
    private readonly ms: number,
    private readonly tick: () => void,
  ) {}

  set(on: boolean): void {
    if (on && this.timer === null) this.timer = this.clock.setInterval(this.tick, this.ms);
    else if (!on && this.timer !== null) this.dispose();
  }

  dispose(): void {
    if (this.timer !== null) this.clock.clearInterval(this.timer);
    this.timer = null;
  }
}

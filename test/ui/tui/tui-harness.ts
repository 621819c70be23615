/**
 * Shared setup of the TuiApp flow tests: a fresh temp dir per test, a TuiApp on the OpenTUI test renderer with
 * the usual defaults (ollama · qwen3:8b, full screen, full display mode, prompt history in the temp dir), and
 * teardown after each test. `useTuiHarness` registers the beforeEach/afterEach hooks, so call it at the top
 * level of a test file.
 */
import { afterEach, beforeEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestRenderer, type TestRendererOptions, type TestRendererSetup } from "@opentui/core/testing";
import { TuiApp, type TuiAppOptions } from "../../../src/ui/tui/tui-app.ts";

/** Everything but the session may be left to the defaults. */
export type TuiStartOptions = Partial<TuiAppOptions> & Pick<TuiAppOptions, "session">;

export interface TuiHarness {
  /** This test's temp dir (made before each test, removed after it). */
  readonly dir: string;
  /** Builds the renderer (80×24 unless `renderer` says otherwise) and the app, and renders one frame. */
  start(options: TuiStartOptions, renderer?: Partial<TestRendererOptions>): Promise<{ setup: TestRendererSetup; app: TuiApp }>;
  /**
   * Markdown renders asynchronously (parser worker) and real sessions emit on their own schedule: sync and
   * render until `pred` holds on the frame, or give up after ~3 s and return the last frame.
   */
  frame(pred?: (f: string) => boolean): Promise<string>;
}

export function useTuiHarness(prefix: string): TuiHarness {
  let dir = "";
  let setup: TestRendererSetup | undefined;
  let app: TuiApp | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    app?.destroy();
    await setup?.dispose();
    app = undefined;
    setup = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  return {
    get dir() {
      return dir;
    },
    async start(options, renderer = {}) {
      setup = await createTestRenderer({ width: 80, height: 24, exitOnCtrlC: false, ...renderer });
      app = new TuiApp(setup.renderer, {
        provider: "ollama",
        model: "qwen3:8b",
        cwd: dir,
        inline: false,
        permissionMode: "default",
        historyFile: join(dir, "history.jsonl"),
        displayMode: "full",
        onExit: () => undefined,
        ...options,
      });
      await setup.renderOnce();
      return { setup, app };
    },
    async frame(pred = () => true) {
      if (!setup || !app) throw new Error("frame() before start()");
      let f = "";
      for (let i = 0; i < 150; i++) {
        app.syncNow();
        await setup.renderOnce();
        f = setup.captureCharFrame();
        if (pred(f)) return f;
        await Bun.sleep(20);
      }
      return f;
    },
  };
}

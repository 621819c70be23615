/**
 * Registers the virtual module `chatcli/plugin` with Bun's runtime (`Bun.plugin` + `build.module`), once per process,
 * before the first plugin is imported. Works in the compiled binary: Bun's runtime transpiler loads a plugin's .ts
 * file from disk, and its `import … from "chatcli/plugin"` resolves to the binary's own objects.
 */
import { plugin } from "bun";
import { pluginModuleExports } from "./plugin-api.ts";

export const PLUGIN_MODULE = "chatcli/plugin";
let registered = false;

export function registerPluginModule(): void {
  if (registered) return;
  registered = true;
  plugin({
    name: "chatcli-plugin-api",
    setup(build) {
      build.module(PLUGIN_MODULE, () => ({ exports: pluginModuleExports, loader: "object" }));
    },
  });
}

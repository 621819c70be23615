// Search (ripgrep and built-in), glob and tree never enter chatcli's secret directories (<home>/server: the tokens of
// running servers; <home>/auth), even when the project is the home itself; the rest of the home is searched.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { globTool } from "../../../src/tool/builtin/glob.ts";
import { createSearchTool } from "../../../src/tool/builtin/search.ts";
import { treeTool } from "../../../src/tool/builtin/tree.ts";
import { makeCtx, tempProject, type TempProject } from "./support.ts";

let proj: TempProject;
beforeAll(() => {
  proj = tempProject("chatcli-secret-walk-");
  proj.file(".chatcli/server/7433.token", "SECRET-TOKEN-VALUE\n");
  proj.file(".chatcli/auth/copilot.token", "SECRET-TOKEN-VALUE\n");
  proj.file(".chatcli/notes.txt", "SECRET-TOKEN-VALUE is not here\n");
});
afterAll(() => proj.cleanup());

const ctx = () => makeCtx(proj.root, { env: { PATH: process.env.PATH, HOME: proj.root, CHATCLI_HOME: join(proj.root, ".chatcli") } });
const text = (out: { text?: string; content?: unknown }) => JSON.stringify(out);

describe("walks skip chatcli's secret dirs", () => {
  for (const engine of [{ name: "ripgrep", useRipgrep: true, skip: Bun.which("rg") === null }, { name: "builtin", useRipgrep: false, skip: false }]) {
    test.skipIf(engine.skip)(`search (${engine.name})`, async () => {
      const out = await createSearchTool({ useRipgrep: engine.useRipgrep }).run({ pattern: "SECRET-TOKEN-VALUE" }, ctx());
      expect(text(out)).toContain("notes.txt");
      expect(text(out)).not.toContain("7433.token");
      expect(text(out)).not.toContain("copilot.token");
    });
  }
  test("glob and tree", async () => {
    const g = await globTool.run({ pattern: "**/*.token" }, ctx());
    expect(g.details).toMatchObject({ count: 0 });
    expect(text(await globTool.run({ pattern: "**/*.txt" }, ctx()))).toContain("notes.txt");
    const t = await treeTool.run({ depth: 5 }, ctx());
    expect(text(t)).toContain("notes.txt");
    expect(text(t)).not.toContain("7433.token");
  });
});

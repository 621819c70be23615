import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { z } from "zod";
import { capText, DEFAULT_MAX_RESULT_CHARS, defineTool, toParametersSchema } from "../../src/tool/tool.ts";
import { PathError } from "../../src/tool/workspace.ts";
import { hasLoneSurrogate, makeCtx, type TempProject, tempProject } from "./builtin/support.ts";

let proj: TempProject;
beforeEach(() => {
  proj = tempProject();
});
afterEach(() => proj.cleanup());

const echo = (text: string, maxResultChars?: number) =>
  defineTool({
    name: "echo",
    description: "Echo",
    input: z.object({ n: z.number().int().min(1), word: z.string().optional() }),
    maxResultChars,
    readOnly: true,
    argAliases: { count: "n" },
    title: (a) => `echo ${a.n}`,
    execute: async () => ({ text }),
  });

describe("spec()", () => {
  test("is a plain JSON schema object without $schema or safe-integer noise", () => {
    const spec = echo("x").spec();
    expect(spec.name).toBe("echo");
    const p = spec.parameters;
    expect(p.$schema).toBeUndefined();
    expect(p.type).toBe("object");
    expect(p.required).toEqual(["n"]);
    const props = p.properties as Record<string, Record<string, unknown>>;
    expect(props.n?.type).toBe("integer");
    expect(props.n?.minimum).toBe(1);
    expect(props.n?.maximum).toBeUndefined();
    expect(JSON.stringify(p)).not.toContain("9007199254740991");
  });

  test("optional fields with defaults are not required", () => {
    const p = toParametersSchema(z.object({ a: z.string(), b: z.boolean().default(false) }));
    expect(p.required).toEqual(["a"]);
  });
});

describe("run()", () => {
  test("invalid args name the field and what is expected", async () => {
    const out = await echo("x").run({ n: "three" }, makeCtx(proj.root));
    expect(out.isError).toBe(true);
    expect(out.errorCode).toBe("invalid_args");
    expect(out.text).toContain("- n:");
    expect(out.text).toContain("expected number");
    expect(out.text).toContain("Expected parameters: n, word?");
  });

  test("missing required field is reported", async () => {
    const out = await echo("x").run({}, makeCtx(proj.root));
    expect(out.errorCode).toBe("invalid_args");
    expect(out.text).toMatch(/- n: .*expected number/);
  });

  test("a raw JSON string is accepted; broken JSON is an invalid_args error", async () => {
    const ok = await echo("hi").run('{"n": 2}', makeCtx(proj.root));
    expect(ok).toEqual({ text: "hi" });
    const bad = await echo("hi").run('{"n": 2', makeCtx(proj.root));
    expect(bad.errorCode).toBe("invalid_args");
    expect(bad.text).toContain("not valid JSON");
  });

  test("argument aliases map onto canonical names", async () => {
    const out = await echo("hi").run({ count: 3 }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(echo("x").describe({ count: 4 })).toBe("echo 4");
    expect(echo("x").describe({ nope: true })).toBe("echo");
  });

  test("a throw becomes an error result carrying the error's code", async () => {
    const t = defineTool({
      name: "boom",
      description: "",
      input: z.object({}),
      readOnly: true,
      title: () => "boom",
      execute: async () => {
        throw new PathError("outside_project", "/x", "Refused: /x");
      },
    });
    const out = await t.run({}, makeCtx(proj.root));
    expect(out).toEqual({ text: "Refused: /x", isError: true, errorCode: "outside_project" });
    const t2 = defineTool({ ...{ name: "b2", description: "", input: z.object({}), readOnly: true, title: () => "" }, execute: async () => Promise.reject("str") });
    expect((await t2.run({}, makeCtx(proj.root))).errorCode).toBe("tool_error");
  });

  test("an already aborted signal cancels before executing", async () => {
    let ran = false;
    const t = defineTool({ name: "t", description: "", input: z.object({}), readOnly: true, title: () => "", execute: async () => ((ran = true), { text: "" }) });
    const ac = new AbortController();
    ac.abort();
    const out = await t.run({}, makeCtx(proj.root, { signal: ac.signal }));
    expect(out.errorCode).toBe("Canceled");
    expect(ran).toBe(false);
  });
});

describe("cap", () => {
  test("default cap is a real cap: head + tail kept, marker, full text saved", async () => {
    const text = `${"h".repeat(50_000)}${"t".repeat(50_000)}`;
    const saved: string[] = [];
    const out = await echo(text).run({ n: 1 }, makeCtx(proj.root, { saveOverflow: (full) => (saved.push(full), "/tmp/ws/out_1.txt") }));
    const marker = out.text.match(/\n\[TRUNCATED (\d+) chars omitted, (\d+) kept\] \[full output saved to \/tmp\/ws\/out_1\.txt\]\n/);
    expect(marker).not.toBeNull();
    expect(out.text.length - (marker?.[0].length ?? 0)).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_CHARS);
    expect(Number(marker?.[1]) + Number(marker?.[2])).toBe(text.length);
    expect(out.text.startsWith("hhh")).toBe(true);
    expect(out.text.endsWith("ttt")).toBe(true);
    expect(saved).toEqual([text]);
    expect(out.details?.savedPath).toBe("/tmp/ws/out_1.txt");
    expect(out.details?.originalChars).toBe(text.length);
  });

  test("short output is untouched and nothing is saved", async () => {
    let calls = 0;
    const out = await echo("short").run({ n: 1 }, makeCtx(proj.root, { saveOverflow: () => (calls++, "p") }));
    expect(out.text).toBe("short");
    expect(calls).toBe(0);
  });

  test("never splits a surrogate pair at either cut", () => {
    for (let max = 90; max < 110; max++) {
      const s = `a${"😀".repeat(200)}`;
      const r = capText(s, max);
      expect(r.truncated).toBe(true);
      expect(hasLoneSurrogate(r.text)).toBe(false);
      const body = r.text.replace(/\n\[TRUNCATED[^\]]*\]\n/, "");
      expect(body.length).toBeLessThanOrEqual(max);
    }
  });

  test("a failing saveOverflow still truncates, without a path", () => {
    const r = capText("x".repeat(500), 100, () => {
      throw new Error("disk full");
    });
    expect(r.text).toContain("[TRUNCATED 400 chars omitted, 100 kept]");
    expect(r.savedPath).toBeUndefined();
  });

  test("per-tool cap overrides the default", async () => {
    const out = await echo("y".repeat(1000), 200).run({ n: 1 }, makeCtx(proj.root));
    expect(out.text).toContain("[TRUNCATED 800 chars omitted, 200 kept]");
  });
});

import { describe, expect, test } from "bun:test";
import { checkFlags, matchLongOption, resolveLong } from "../../../src/tool/permission/flag-spec.ts";

describe("long options as getopt_long reads them", () => {
  const defs = [{ name: "output" }, { name: "only-delimited" }, { name: "reverse" }, { name: "rev" }];
  test("exact beats prefix, a unique prefix resolves, several are ambiguous", () => {
    expect(matchLongOption("rev", defs)).toMatchObject({ kind: "exact", def: { name: "rev" } });
    expect(matchLongOption("reve", defs)).toMatchObject({ kind: "prefix", def: { name: "reverse" } });
    expect(matchLongOption("ou", defs)).toMatchObject({ kind: "prefix", def: { name: "output" } });
    expect(matchLongOption("o", defs).kind).toBe("ambiguous");
    expect(matchLongOption("x", defs).kind).toBe("unknown");
    expect(resolveLong("outp", ["output=", "key="])).toBe("output");
  });
});

describe("checkFlags", () => {
  const sort = { short: "nru", shortValue: "kt", long: ["reverse", "key="], forbid: ["output=", "compress-program="] };
  test("an abbreviation of a forbidden option is refused, with or without a value", () => {
    for (const a of [["--outp=X"], ["--o", "X"], ["--output=X"], ["--comp=sh"]]) expect(checkFlags(a, sort).ok).toBe(false);
  });
  test("short clusters: known letters pass, a value letter takes the rest or the next word", () => {
    expect(checkFlags(["-nr", "-k2,2", "-t", ":", "f"], sort)).toMatchObject({ ok: true, operands: ["f"] });
    expect(checkFlags(["-uo", "X"], sort).ok).toBe(false);
    expect(checkFlags(["-oX"], sort).ok).toBe(false);
  });
  test("`--` ends options; an unknown option fails closed", () => {
    expect(checkFlags(["--", "--output=X"], sort)).toMatchObject({ ok: true, operands: ["--output=X"] });
    expect(checkFlags(["--frobnicate"], sort).ok).toBe(false);
    expect(checkFlags(["--reverse=1"], sort).ok).toBe(false);
  });
  test("value checks see attached and separate values", () => {
    const spec = { shortValue: "e", long: ["expression="], value: (_o: string, v: string) => v === "ok" };
    expect(checkFlags(["-eok", "--expression", "ok", "--expression=ok"], spec).ok).toBe(true);
    expect(checkFlags(["-e", "bad"], spec).ok).toBe(false);
    expect(checkFlags(["--expr=bad"], spec).ok).toBe(false);
  });
});

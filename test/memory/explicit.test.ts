// "remember that …" in the chat, and the scope a statement gets.
import { describe, expect, test } from "bun:test";
import { explicitRemember, scopeOfStatement } from "../../src/memory/explicit.ts";
import { worthExtracting } from "../../src/memory/signals.ts";

describe("explicit requests", () => {
  test("remember that … is recognised; questions and other text are not", () => {
    expect(explicitRemember("remember that I prefer tabs")).toBe("I prefer tabs");
    expect(explicitRemember("Please remember: the staging DB is read-only.")).toBe("The staging DB is read-only");
    expect(explicitRemember("lembre que eu uso vim")).toBe("Eu uso vim");
    expect(explicitRemember("do you remember what we did?")).toBeUndefined();
    expect(explicitRemember("remember me")).toBeUndefined();
    expect(explicitRemember("remember pineapple")).toBeUndefined();
    expect(explicitRemember("keep in mind that the API is v2")).toBe("The API is v2");
    expect(explicitRemember("fix the bug in remember.ts")).toBeUndefined();
  });

  test("scope: the person's facts are user scope, the project's are project scope", () => {
    expect(scopeOfStatement("I prefer tabs")).toBe("user");
    expect(scopeOfStatement("my name is Ada")).toBe("user");
    expect(scopeOfStatement("this project uses pnpm")).toBe("project");
    expect(scopeOfStatement("The staging DB is read-only")).toBe("project");
  });

  test("the local gate: a personal statement is worth a model call, a task is not", () => {
    expect(worthExtracting([{ role: "user", content: "I always indent with tabs" }])).toBe(true);
    expect(worthExtracting([{ role: "user", content: "from now on answer in Portuguese" }])).toBe(true);
    expect(worthExtracting([{ role: "user", content: "read a.txt and b.txt" }, { role: "assistant", content: "I prefer nothing" }])).toBe(false);
    expect(worthExtracting([{ role: "user", content: "What is my name? How should I indent?" }])).toBe(false);
    expect(worthExtracting([{ role: "user", content: "remember pineapple" }])).toBe(false);
    expect(worthExtracting([{ role: "user", content: "Fix the parser. I never use semicolons." }])).toBe(true);
    expect(worthExtracting([{ role: "user", content: "Our team uses pnpm, not npm" }])).toBe(true);
    expect(worthExtracting([{ role: "user", content: "I want short answers" }])).toBe(true);
  });
});

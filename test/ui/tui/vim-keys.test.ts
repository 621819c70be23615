// Vim keys as a pure function: motions, insert entries, edits and undo on (text, cursor).
import { expect, test } from "bun:test";
import { initialVimState, leaveInsert, normalKey, type VimState } from "../../../src/ui/tui/vim-keys.ts";

function keys(text: string, cursor: number, seq: string[], state: VimState = initialVimState("normal")) {
  let b = { text, cursor };
  for (const k of seq) b = normalKey(state, b, k);
  return { ...b, mode: state.mode, state };
}

test("motions h l 0 $ stay on the line; j k keep the column", () => {
  const t = "hello world\nab\nlonger line";
  expect(keys(t, 4, ["h", "h"]).cursor).toBe(2);
  expect(keys(t, 0, ["h"]).cursor).toBe(0);
  expect(keys(t, 9, ["l", "l", "l"]).cursor).toBe(10);
  expect(keys(t, 5, ["0"]).cursor).toBe(0);
  expect(keys(t, 1, ["$"]).cursor).toBe(10);
  expect(keys(t, 7, ["j"]).cursor).toBe(13); // "ab" is shorter: last char
  expect(keys(t, 7, ["j", "j"]).cursor).toBe(16);
  expect(keys(t, 16, ["k"]).cursor).toBe(13);
  expect(keys(t, 3, ["k"]).cursor).toBe(3);
});

test("word motions w b e over words and punctuation", () => {
  const t = "foo.bar baz  qux";
  expect(keys(t, 0, ["w"]).cursor).toBe(3);
  expect(keys(t, 0, ["w", "w"]).cursor).toBe(4);
  expect(keys(t, 0, ["w", "w", "w"]).cursor).toBe(8);
  expect(keys(t, 8, ["w"]).cursor).toBe(13);
  expect(keys(t, 13, ["b"]).cursor).toBe(8);
  expect(keys(t, 8, ["b"]).cursor).toBe(4);
  expect(keys(t, 0, ["e"]).cursor).toBe(2);
  expect(keys(t, 2, ["e"]).cursor).toBe(3);
  expect(keys(t, 8, ["e"]).cursor).toBe(10);
});

test("i a A I o O enter insert mode at the right place", () => {
  const t = "  abc\ndef";
  expect(keys(t, 3, ["i"])).toMatchObject({ cursor: 3, mode: "insert", text: t });
  expect(keys(t, 3, ["a"])).toMatchObject({ cursor: 4, mode: "insert" });
  expect(keys(t, 3, ["A"])).toMatchObject({ cursor: 5, mode: "insert" });
  expect(keys(t, 4, ["I"])).toMatchObject({ cursor: 2, mode: "insert" });
  expect(keys(t, 3, ["o"])).toMatchObject({ text: "  abc\n\ndef", cursor: 6, mode: "insert" });
  expect(keys(t, 7, ["O"])).toMatchObject({ text: "  abc\n\ndef", cursor: 6, mode: "insert" });
});

test("x dd cw edit; u undoes each change, an insert session as one", () => {
  expect(keys("abc", 1, ["x"])).toMatchObject({ text: "ac", cursor: 1 });
  expect(keys("abc", 2, ["x"])).toMatchObject({ text: "ab", cursor: 1 });
  expect(keys("one\ntwo\nthree", 5, ["d", "d"])).toMatchObject({ text: "one\nthree", cursor: 4 });
  expect(keys("one\ntwo", 5, ["d", "d"])).toMatchObject({ text: "one", cursor: 0 });
  expect(keys("one two", 0, ["c", "w"])).toMatchObject({ text: " two", cursor: 0, mode: "insert" });
  expect(keys("one two", 1, ["d", "x"])).toMatchObject({ text: "one two", cursor: 1 }); // d + non-motion cancels
  const s = initialVimState("normal");
  const r = keys("abc def", 0, ["x", "w", "d", "d"], s);
  expect(r.text).toBe("");
  expect(keys(r.text, r.cursor, ["u"], s).text).toBe("bc def");
  expect(keys("bc def", 0, ["u"], s).text).toBe("abc def");
  // An insert session: entering it saves the text; leaving it keeps what was typed; u goes back.
  const s2 = initialVimState("normal");
  const ins = keys("ab", 1, ["a"], s2);
  const typed = leaveInsert(s2, { text: "abXY", cursor: 4 });
  expect(typed).toEqual({ text: "abXY", cursor: 3 });
  expect(s2.mode).toBe("normal");
  expect(ins.mode).toBe("insert");
  expect(keys(typed.text, typed.cursor, ["u"], s2).text).toBe("ab");
});

test("unknown keys in normal mode are swallowed, never typed", () => {
  expect(keys("abc", 1, ["z", "Q", "!"])).toMatchObject({ text: "abc", cursor: 1, mode: "normal" });
});

import { expect, test } from "bun:test";
import { createRedactor } from "../../src/store/redact.ts";
import { titleOf } from "../../src/store/session-file.ts";

test("a secret cut in two by a title's or label's ellipsis is still redacted; ordinary cut text is kept", () => {
  const secret = "tok-zzz-987654321-secret";
  const redact = createRedactor({ MY_SERVICE_TOKEN: secret });
  const title = titleOf(`my key is here and the token is ${secret} ok`, 45);
  expect(title).toContain("tok-zzz-98"); // the cut really lands inside the secret
  const line = redact(JSON.stringify({ title }));
  expect(line).not.toContain("tok-zzz");
  expect(line).toContain("[REDACTED]…");
  expect(redact(JSON.stringify({ title: "a perfectly ordinary title that was cut…" }))).toBe(JSON.stringify({ title: "a perfectly ordinary title that was cut…" }));
  // Known key shapes cut short, and a short prefix of a secret (under 8 chars) that is just text.
  expect(redact("label: use sk-ant-api03-abcd…")).toBe("label: use [REDACTED]…");
  expect(redact("tok-zz…")).toBe("tok-zz…");
  // The whole value anywhere, cut or not, is redacted as before.
  expect(redact(`${secret} and ${secret.slice(0, 12)}…`)).toBe("[REDACTED] and [REDACTED]…");
});

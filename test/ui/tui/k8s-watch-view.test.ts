// Issue 23 in the TUI: the watch's status-line segment (⎈ context/namespace · counts · last check) and a notice
// naming new findings, from `k8s.findings` events; `active: false` (/watch stop) takes the segment away.
import { expect, test } from "bun:test";
import { ManualClock } from "@opentui/core/testing";
import { FakeSession } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-k8s-");

const counts = (critical: number, warning: number) => ({ critical, warning, info: 0 });

test("the status line shows the watch; new findings are a notice; stop removes the segment", async () => {
  const session = new FakeSession();
  const { app } = await tui.start({ session }, { width: 140, height: 30 });
  session.emit({ type: "k8s.findings", active: true, context: "prod", namespace: "shop", counts: counts(0, 0), appeared: [] });
  let f = await tui.frame((x) => x.includes("⎈ prod/shop"));
  expect(f).toContain("⎈ prod/shop · 0 critical 0 warning · checking…");
  session.emit({
    type: "k8s.findings",
    active: true,
    context: "prod",
    namespace: "shop",
    checkedAt: Date.now(),
    counts: counts(1, 1),
    appeared: [
      { kind: "CrashLoopBackOff", severity: "critical", object: "pod/api-crash", summary: "restarting" },
      { kind: "NodePressure", severity: "warning", object: "node/node-a", summary: "memory pressure" },
    ],
  });
  f = await tui.frame((x) => x.includes("1 critical"));
  expect(f).toMatch(/⎈ prod\/shop · 1 critical 1 warning · \ds ago/);
  expect(f).toContain("⎈ 2 new finding(s): [critical] CrashLoopBackOff pod/api-crash, [warning] NodePressure node/node-a");
  // A later check with nothing new: counts and age change, no second notice.
  session.emit({ type: "k8s.findings", active: true, context: "prod", namespace: "shop", checkedAt: Date.now(), counts: counts(0, 1), appeared: [] });
  f = await tui.frame((x) => x.includes("0 critical 1 warning"));
  expect(f.split("new finding(s)").length - 1).toBe(1);
  session.emit({ type: "k8s.findings", active: false, context: "prod", namespace: "shop", counts: counts(0, 0), appeared: [] });
  f = await tui.frame((x) => !x.includes("⎈ prod/shop ·"));
  expect(f).not.toContain("⎈ prod/shop ·");
  expect(app.state.status.k8s).toBeUndefined();
});

test("on a narrow terminal the segment shortens before the permission mode goes", async () => {
  const session = new FakeSession();
  await tui.start({ session }, { width: 60, height: 20 });
  session.emit({ type: "k8s.findings", active: true, context: "a-very-long-context-name", namespace: "a-long-namespace", checkedAt: Date.now(), counts: counts(2, 3), appeared: [] });
  const f = await tui.frame((x) => x.includes("⎈"));
  expect(f).toContain("⎈ 2/3");
  expect(f).toContain("default");
});

test("while idle, the age of the last check keeps counting on the UI's clock", async () => {
  const session = new FakeSession();
  const clock = new ManualClock();
  clock.setTime(1_000_000);
  await tui.start({ session }, { width: 140, height: 30, clock });
  session.emit({ type: "k8s.findings", active: true, context: "prod", namespace: "shop", checkedAt: Date.now() - 5_000, counts: counts(0, 0), appeared: [] });
  expect(await tui.frame((x) => /· [5-6]s ago/.test(x))).toMatch(/· [5-6]s ago/);
  clock.advance(3_000);
  expect(await tui.frame((x) => /· [8-9]s ago/.test(x))).toMatch(/· [8-9]s ago/);
});

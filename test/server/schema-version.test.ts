// The server protocol is a public API: its JSON Schema (generated from the zod types, `serve --print-schema`) may
// only change together with SERVER_PROTOCOL_VERSION. Recorded fingerprints: schema-fingerprint.json.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serverSchema } from "../../src/server/json-schema.ts";
import { METHODS, NOTIFICATIONS, SERVER_PROTOCOL_VERSION } from "../../src/server/protocol.ts";

const recorded = JSON.parse(readFileSync(join(import.meta.dir, "schema-fingerprint.json"), "utf8")) as { versions: Record<string, string> };
const fingerprint = () => new Bun.CryptoHasher("sha256").update(JSON.stringify(serverSchema())).digest("hex");

describe("server protocol schema", () => {
  test("the schema matches the fingerprint recorded for SERVER_PROTOCOL_VERSION (a change needs a version bump)", () => {
    const want = recorded.versions[String(SERVER_PROTOCOL_VERSION)];
    const got = fingerprint();
    if (want === undefined) throw new Error(`no fingerprint recorded for protocol version ${SERVER_PROTOCOL_VERSION}: add "${SERVER_PROTOCOL_VERSION}": "${got}"`);
    if (want !== got) {
      const older = Object.entries(recorded.versions).find(([, h]) => h === got);
      throw new Error(older ? `the schema went back to version ${older[0]}'s` : `the server schema changed without a version bump: bump SERVER_PROTOCOL_VERSION and record "${SERVER_PROTOCOL_VERSION + 1}": "${got}"`);
    }
    expect(got).toBe(want);
  });

  test("a recorded version's fingerprint is never reused by another version", () => {
    const hashes = Object.values(recorded.versions);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  test("every method and notification of the issue is in the schema, with params and result", () => {
    const s = serverSchema();
    for (const m of ["session/new", "session/load", "session/list", "session/prompt", "session/interrupt", "session/approve", "session/setModel", "session/compact", "session/rewind", "session/close"]) {
      expect(s.methods[m]).toBeDefined();
      expect(s.methods[m]!.params).toMatchObject({ type: "object" });
    }
    expect(Object.keys(s.methods).sort()).toEqual(Object.keys(METHODS).sort());
    expect(Object.keys(s.notifications).sort()).toEqual(Object.keys(NOTIFICATIONS).sort());
    // The event notification carries the core's AgentEvent union (one branch per event type).
    const event = (s.notifications["session/event"]!.params as { properties: { event: { oneOf?: unknown[]; anyOf?: unknown[] } } }).properties.event;
    expect((event.oneOf ?? event.anyOf ?? []).length).toBeGreaterThan(20);
  });
});

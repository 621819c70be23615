/**
 * The JSON Schema of every server message, generated from the zod types (`chatcli serve --print-schema`).
 * Deterministic for a given protocol: test/server/schema-version.test.ts fingerprints it against the version.
 */
import { z } from "zod";
import { EVENT_SCHEMA_VERSION, METHODS, NOTIFICATIONS, rpcErrorSchema, rpcInboundSchema, SERVER_PROTOCOL_VERSION } from "./protocol.ts";

export interface ServerSchemaDocument {
  $schema: string;
  title: string;
  protocolVersion: number;
  eventSchemaVersion: number;
  envelope: { request: unknown; error: unknown };
  methods: Record<string, { params: unknown; result: unknown }>;
  notifications: Record<string, { params: unknown }>;
}

export function serverSchema(): ServerSchemaDocument {
  const js = (s: z.ZodType) => z.toJSONSchema(s, { unrepresentable: "any", io: "input" });
  const methods: ServerSchemaDocument["methods"] = {};
  for (const [name, m] of Object.entries(METHODS)) methods[name] = { params: js(m.params), result: js(m.result) };
  const notifications: ServerSchemaDocument["notifications"] = {};
  for (const [name, p] of Object.entries(NOTIFICATIONS)) notifications[name] = { params: js(p) };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "chatcli server protocol (JSON-RPC 2.0)",
    protocolVersion: SERVER_PROTOCOL_VERSION,
    eventSchemaVersion: EVENT_SCHEMA_VERSION,
    envelope: { request: js(rpcInboundSchema), error: js(rpcErrorSchema) },
    methods,
    notifications,
  };
}

import { expect, test } from "bun:test";
import { endpointOrigin, isLocalEndpoint } from "../../src/llm/local-endpoint.ts";

test("local: localhost, 127.0.0.0/8, ::1, 0.0.0.0, IPv4-mapped loopback; not local: anything else or unparseable", () => {
  for (const u of ["http://localhost:11434", "http://LOCALHOST:1234/v1", "http://api.localhost/v1", "http://127.0.0.1:8080", "http://127.1.2.3", "http://[::1]:8000/v1", "http://0.0.0.0:11434", "http://[::ffff:127.0.0.1]:1"]) {
    expect([u, isLocalEndpoint(u)]).toEqual([u, true]);
  }
  for (const u of ["https://api.openai.com/v1", "http://192.168.1.10:11434", "http://10.0.0.2:1234", "http://localhost.example.com", "http://128.0.0.1", "not a url", ""]) {
    expect([u, isLocalEndpoint(u)]).toEqual([u, false]);
  }
});

test("endpointOrigin keeps scheme, host and port; drops the path and any credentials", () => {
  expect(endpointOrigin("http://user:pw@127.0.0.1:1234/v1/chat")).toBe("http://127.0.0.1:1234");
  expect(endpointOrigin("https://openrouter.ai/api/v1")).toBe("https://openrouter.ai");
  expect(endpointOrigin("nonsense")).toBe("nonsense");
});

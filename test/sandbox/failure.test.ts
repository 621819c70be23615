import { describe, expect, test } from "bun:test";
import { detectSandboxFailure, sandboxFailureNote } from "../../src/sandbox/failure.ts";

describe("sandbox failure detection", () => {
  test.each([
    ["touch: cannot touch '/etc/x': Read-only file system", "filesystem"],
    ["npm ERR! code EROFS", "filesystem"],
    ["chmod: changing permissions of '/usr/bin/x': Operation not permitted", "filesystem"],
    ["curl: (6) Could not resolve host: example.com", "network"],
    ["ssh: connect to host x port 22: Network is unreachable", "network"],
    ["fatal: unable to access 'https://github.com/a/b/': Could not resolve host: github.com", "network"],
    ["pip: Temporary failure in name resolution", "network"],
    ["Error: getaddrinfo EAI_AGAIN registry.npmjs.org", "network"],
    ["bash: connect: Connection refused", "network"],
  ])("%s → %s", (line, kind) => {
    expect(detectSandboxFailure(`some output\n${line}\nmore`, { network: false })).toEqual({ kind: kind as "filesystem" | "network", evidence: line });
  });

  test("network errors are not blamed on the sandbox when the network was open; ordinary failures are not either", () => {
    expect(detectSandboxFailure("curl: (6) Could not resolve host: x", { network: true })).toBeUndefined();
    expect(detectSandboxFailure("FAIL test/a.test.ts\nexpected 1 to be 2", { network: false })).toBeUndefined();
    expect(detectSandboxFailure("cat: x: No such file or directory", { network: false })).toBeUndefined();
  });

  test("the note says what the sandbox allows and how to ask for the network", () => {
    const note = sandboxFailureNote({ kind: "network", evidence: "Could not resolve host: x" }, { mode: "workspace-write" }, false);
    expect(note).toContain("[sandbox]");
    expect(note).toContain("no network");
    expect(note).toContain('"network": true');
    const fs = sandboxFailureNote({ kind: "filesystem", evidence: "Read-only file system" }, { mode: "read-only" }, false);
    expect(fs).toContain("nothing is writable but the session scratch dir");
  });
});

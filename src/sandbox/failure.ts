/**
 * Did a sandboxed command fail because of the sandbox? A heuristic over its output (it only ever leads to an
 * approval question, never to a silent re-run): a read-only filesystem or a refused write, or no network when the
 * network was closed. The note tells the model exactly what happened; it is English, not in the i18n table.
 */
import type { ExecSandbox } from "./types.ts";

export interface SandboxFailure {
  kind: "filesystem" | "network";
  /** The output line that shows it. */
  evidence: string;
}

const FS = [/Read-only file system/i, /\bEROFS\b/, /Operation not permitted/i, /\bEPERM\b/];
const NET = [
  /Network is unreachable/i,
  /\bENETUNREACH\b/,
  /Could not resolve host/i,
  /Temporary failure in name resolution/i,
  /Name or service not known/i,
  /getaddrinfo\b.*\b(EAI_AGAIN|ENOTFOUND)/i,
  /\b(EAI_AGAIN|ENOTFOUND)\b/,
  /Could not resolve/i,
  /Connection refused/i,
  /\bECONNREFUSED\b/,
  /Failed to connect to/i,
  /Couldn't connect to server/i,
];

export function detectSandboxFailure(output: string, o: { network: boolean }): SandboxFailure | undefined {
  const lines = output.split("\n");
  const find = (res: RegExp[]) => lines.find((l) => res.some((re) => re.test(l)));
  const fs = find(FS);
  if (fs) return { kind: "filesystem", evidence: fs.trim().slice(0, 300) };
  if (o.network) return undefined;
  const net = find(NET);
  return net ? { kind: "network", evidence: net.trim().slice(0, 300) } : undefined;
}

/** What the sandbox allows, for the model. */
export function describeSandbox(sb: Pick<ExecSandbox, "mode">, network: boolean): string {
  const fs =
    sb.mode === "workspace-write"
      ? "only the project directory, the session scratch dir ($CHATCLI_AGENT_TMPDIR) and a private /tmp are writable; .git/, .chatcli/, .env and ~/.chatcli/ are read-only"
      : "nothing is writable but the session scratch dir ($CHATCLI_AGENT_TMPDIR) and a private /tmp";
  return `${fs}; ${network ? "the network is open" : "there is no network"}`;
}

export function sandboxFailureNote(f: SandboxFailure, sb: Pick<ExecSandbox, "mode">, network: boolean): string {
  const what = f.kind === "network" ? "it had no network access" : "it tried to write where the sandbox does not allow it";
  const hint =
    f.kind === "network"
      ? ' If the command needs the network, call exec again with "network": true (the user is asked).'
      : "";
  return `[sandbox] This command ran in chatcli's sandbox (${describeSandbox(sb, network)}) and it failed because ${what}: "${f.evidence}".${hint}`;
}

/**
 * Test-only PKI for the fake Kubernetes API server: a CA and a server certificate for 127.0.0.1, generated with
 * `openssl` into a temp dir at test time (nothing committed). `otherCa` is a second, unrelated CA: a kubeconfig
 * carrying it must make every request fail the TLS check.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface KubePki {
  caPem: string;
  otherCaPem: string;
  certPem: string;
  keyPem: string;
  /** A client certificate signed by the CA (CN=watcher, O=chatcli-readers), for client-certificate kubeconfigs. */
  clientCertPem: string;
  clientKeyPem: string;
}

export function hasOpenssl(): boolean {
  return Bun.spawnSync(["sh", "-c", "command -v openssl"], { stdout: "pipe" }).exitCode === 0;
}

function openssl(dir: string, args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
}

function makeCa(dir: string, name: string): void {
  openssl(dir, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.crt`, "-days", "2", "-subj", `/CN=${name}`, "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
}

let made: KubePki | undefined;

/** One PKI per test process (key generation is slow on a loaded machine); nothing mutates it. */
export function makeKubePki(): KubePki {
  made ??= generate();
  return made;
}

function generate(): KubePki {
  const dir = mkdtempSync(join(tmpdir(), "chatcli-kube-pki-"));
  try {
    makeCa(dir, "ca");
    makeCa(dir, "other-ca");
    openssl(dir, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=kube-apiserver"]);
    writeFileSync(join(dir, "ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
    openssl(dir, ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf"]);
    openssl(dir, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-subj", "/CN=watcher/O=chatcli-readers"]);
    writeFileSync(join(dir, "client.cnf"), "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n");
    openssl(dir, ["x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "client.crt", "-days", "2", "-extfile", "client.cnf"]);
    const read = (f: string) => readFileSync(join(dir, f), "utf8");
    return { caPem: read("ca.crt"), otherCaPem: read("other-ca.crt"), certPem: read("server.crt"), keyPem: read("server.key"), clientCertPem: read("client.crt"), clientKeyPem: read("client.key") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Issue 14 item 4: a file snapshot that holds a secret (a value loaded from .env, a key shape) never reaches the
// snapshot store on disk; it is restorable in this process and reported as not restorable after a restart.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckpointStore, type CheckpointStoreOptions } from "../../src/agent/checkpoints.ts";
import { createRedactor } from "../../src/store/redact.ts";

const SECRET = "sk_live_51HsnapshotSecretValue77";
let root: string;
let project: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "checkpoints-secrets-"));
  project = join(root, "project");
  dir = join(root, "home", "snapshots", "s1");
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const options = (): CheckpointStoreOptions => ({ sessionId: "s1", dir, projectRoot: project, redact: createRedactor({ STRIPE_SECRET_KEY: SECRET }, []) });
const onDisk = () => readdirSync(join(dir, "blobs")).map((n) => readFileSync(join(dir, "blobs", n), "latin1"));

/** A checkpoint, then the agent changes `.env` (holding a secret) and a plain file. */
function changeBoth(): { s: CheckpointStore; cpId: string; env: string; plain: string } {
  const env = join(project, ".env");
  const plain = join(project, "a.txt");
  writeFileSync(env, `STRIPE_SECRET_KEY=${SECRET}\n`);
  writeFileSync(plain, "original\n");
  const s = new CheckpointStore(options());
  const cp = s.save([{ role: "user", content: "edit" }])!;
  s.beforeFileChange(env);
  writeFileSync(env, "STRIPE_SECRET_KEY=rotated\n");
  s.beforeFileChange(plain);
  writeFileSync(plain, "changed\n");
  s.save([{ role: "user", content: "edit" }, { role: "assistant", content: "done" }]);
  return { s, cpId: cp.id, env, plain };
}

test("a secret-bearing file is restorable in memory but never written to the blob store", async () => {
  const { s, cpId, env, plain } = changeBoth();

  const blobs = onDisk();
  expect(blobs.some((b) => b === "original\n")).toBe(true);
  expect(blobs.some((b) => b.includes(SECRET))).toBe(false);

  const r = await s.rewind({ type: "rewind", checkpointId: cpId, mode: "code" }, []);
  if (typeof r === "string") throw new Error(r);
  expect(readFileSync(env, "utf8")).toBe(`STRIPE_SECRET_KEY=${SECRET}\n`);
  expect(readFileSync(plain, "utf8")).toBe("original\n");
});

test("after a restart the secret-bearing snapshot is missing and the rest still restores", async () => {
  const { cpId, env, plain } = changeBoth();
  const again = CheckpointStore.load(options());
  await again.rewind({ type: "rewind", checkpointId: cpId, mode: "code" }, []);
  expect(readFileSync(plain, "utf8")).toBe("original\n");
  expect(readFileSync(env, "utf8")).toBe("STRIPE_SECRET_KEY=rotated\n");
});

test("the asynchronous exec path (pre-exec copies, after-exec refresh) keeps secret-bearing files off the disk too", async () => {
  const env = join(project, ".env");
  writeFileSync(env, `STRIPE_SECRET_KEY=${SECRET}\n`);
  writeFileSync(join(project, "a.txt"), "plain\n");
  const s = new CheckpointStore(options());
  const cp = s.save([{ role: "user", content: "run" }])!;
  const token = await s.aroundExec.before();
  writeFileSync(env, `STRIPE_SECRET_KEY=${SECRET}-rotated\n`);
  await s.aroundExec.after(token);
  const blobs = onDisk();
  expect(blobs.some((b) => b === "plain\n")).toBe(true);
  expect(blobs.some((b) => b.includes(SECRET))).toBe(false);
  const r = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code" }, []);
  if (typeof r === "string") throw new Error(r);
  expect(readFileSync(env, "utf8")).toBe(`STRIPE_SECRET_KEY=${SECRET}\n`);
});

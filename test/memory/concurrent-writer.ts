// Child process of journal.test.ts: adds N facts one transaction at a time, as a second chatcli would.
import { MemoryStore } from "../../src/memory/memory-store.ts";
import { memoryPaths } from "../../src/memory/paths.ts";
import { ingest } from "../../src/memory/reconcile.ts";

const [home, project, worker, count] = process.argv.slice(2);
const store = new MemoryStore(memoryPaths(home!, project!));
for (let i = 0; i < Number(count); i++) {
  const scope = i % 2 ? "user" : "project";
  store.transact("add", (tx) => ingest(tx, [{ text: `writer${worker} wrote distinct item number ${i} zq${worker}x${i}`, category: "longterm", scope, confidence: 0.9, source: { kind: "user" } }], "direct"));
}

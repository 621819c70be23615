/** The tool-call fixture corpus (test/fixtures/toolcalls/*.json, one case a file, and dialects/*.json, arrays). */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

export const CaseSchema = z.object({
  id: z.string(),
  style: z.string(),
  description: z.string(),
  input: z.string(),
  expected: z.object({
    calls: z.array(z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) })),
    text: z.string().optional(),
    errors: z.number().int().optional(),
    repaired: z.array(z.boolean()).optional(),
  }),
});
export type CorpusCase = z.infer<typeof CaseSchema>;

const ROOT = join(import.meta.dir, "../fixtures/toolcalls");

export function loadCorpus(which: "single" | "dialects" | "all" = "all"): CorpusCase[] {
  const out: CorpusCase[] = [];
  if (which !== "dialects") {
    for (const f of readdirSync(ROOT).filter((x) => x.endsWith(".json")).sort()) out.push(CaseSchema.parse(JSON.parse(readFileSync(join(ROOT, f), "utf8"))));
  }
  if (which !== "single") {
    const dir = join(ROOT, "dialects");
    for (const f of readdirSync(dir).filter((x) => x.endsWith(".json")).sort()) out.push(...z.array(CaseSchema).parse(JSON.parse(readFileSync(join(dir, f), "utf8"))));
  }
  return out;
}

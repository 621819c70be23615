/**
 * Pipeline knobs from the environment. Only positive integers are accepted; anything else keeps the default
 * (a typo in an env var must not disable the budget).
 */
import { z } from "zod";
import { DEFAULT_BUDGET_CONFIG, type BudgetConfig } from "./budget.ts";
import { DEFAULT_MICROCOMPACT_CONFIG, type MicrocompactConfig } from "./microcompact.ts";

export interface PipelineOptions {
  budget: BudgetConfig;
  microcompact: MicrocompactConfig;
}

export type EnvLike = Readonly<Record<string, string | undefined>>;

const positiveInt = z
  .string()
  .trim()
  .regex(/^\d+$/)
  .transform(Number)
  .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));

function readInt(env: EnvLike, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined) return fallback;
  const parsed = positiveInt.safeParse(raw);
  return parsed.success ? parsed.data : fallback;
}

export function pipelineOptionsFromEnv(env: EnvLike): PipelineOptions {
  const b = DEFAULT_BUDGET_CONFIG;
  const m = DEFAULT_MICROCOMPACT_CONFIG;
  return {
    budget: {
      perResultMaxChars: readInt(env, "CHATCLI_TOOL_RESULT_MAX_CHARS", b.perResultMaxChars),
      turnBudgetChars: readInt(env, "CHATCLI_TOOL_RESULT_BUDGET_CHARS", b.turnBudgetChars),
      previewHeadChars: b.previewHeadChars,
      previewTailChars: b.previewTailChars,
    },
    microcompact: {
      truncateTurns: readInt(env, "CHATCLI_MICROCOMPACT_TRUNCATE_TURNS", m.truncateTurns),
      summarizeTurns: readInt(env, "CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS", m.summarizeTurns),
      headChars: readInt(env, "CHATCLI_MICROCOMPACT_HEAD_CHARS", m.headChars),
      tailChars: readInt(env, "CHATCLI_MICROCOMPACT_TAIL_CHARS", m.tailChars),
      minContentChars: readInt(env, "CHATCLI_MICROCOMPACT_MIN_CONTENT", m.minContentChars),
    },
  };
}

/**
 * The memory records as they are stored on disk (zod at the file boundary). Times are epoch milliseconds.
 * A fact's `status`: `active` (recalled), `proposed` (in the inbox, waiting for the user), `rejected` (kept so the
 * same extraction is not proposed again), `superseded` (replaced by a newer fact on the same subject; history).
 */
import { z } from "zod";

export const MEMORY_MODES = ["off", "read-only", "propose", "auto"] as const;
export type MemoryMode = (typeof MEMORY_MODES)[number];

export const SCOPES = ["user", "project"] as const;
export type Scope = (typeof SCOPES)[number];

/** DAILY notes, LONGTERM facts, PROFILE_UPDATE, TOPICS, PROJECTS of the extraction, in lower case. */
export const CATEGORIES = ["longterm", "profile", "daily", "topic", "project"] as const;
export type Category = (typeof CATEGORIES)[number];

export const FACT_STATUSES = ["active", "proposed", "rejected", "superseded"] as const;
export type FactStatus = (typeof FACT_STATUSES)[number];

/** Confidence by origin: what the user said outright, a correction of an old fact, what a model extracted. */
export const CONFIDENCE = { userStated: 0.9, correction: 1.0, extracted: 0.6 } as const;

export const sourceSchema = z.object({
  /** `session` (extraction: the session id and the message range [from, to)), `user` (typed), `migration`, `import`. */
  kind: z.enum(["session", "user", "migration", "import"]),
  sessionId: z.string().optional(),
  messages: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).optional(),
  file: z.string().optional(),
});
export type FactSource = z.infer<typeof sourceSchema>;

export const factSchema = z.object({
  id: z.string().min(1),
  text: z.string().min(1),
  category: z.enum(CATEGORIES),
  scope: z.enum(SCOPES),
  confidence: z.number().min(0).max(1),
  created: z.number(),
  lastUsed: z.number().optional(),
  uses: z.number().int().nonnegative(),
  source: sourceSchema,
  status: z.enum(FACT_STATUSES),
  /** What the fact is about ("indentation"), for telling a contradiction from a new fact. */
  subject: z.string().optional(),
  supersedes: z.string().optional(),
  supersededBy: z.string().optional(),
  /** Times an extraction or the user said it again. */
  reinforced: z.number().int().nonnegative().optional(),
});
export type Fact = z.infer<typeof factSchema>;

export const factsFileSchema = z.object({ version: z.literal(1), facts: z.array(factSchema) });

export const profileFileSchema = z.object({
  version: z.literal(1),
  /** key → what the user said about themselves ("editor" → "uses neovim"). */
  profile: z.record(z.string(), z.object({ value: z.string(), updated: z.number(), factId: z.string().optional() })),
});

export const trackerFileSchema = z.object({
  version: z.literal(1),
  items: z.record(z.string(), z.object({ name: z.string(), note: z.string().optional(), count: z.number().int().nonnegative(), lastSeen: z.number() })),
});

export type ProfileFile = z.infer<typeof profileFileSchema>;
export type TrackerFile = z.infer<typeof trackerFileSchema>;

/** One extracted or typed candidate before reconciliation. */
export interface Candidate {
  text: string;
  category: Category;
  scope: Scope;
  confidence: number;
  subject?: string;
  source: FactSource;
}

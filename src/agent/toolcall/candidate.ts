/** What the scanners find before names and arguments are normalized (see toolcall-parser.ts). */

export type CandidateArgs =
  | { kind: "raw"; text: string } // argument text as the model typed it: goes through sanitizeToolArgs
  | { kind: "value"; value: unknown } // already-parsed JSON (a string value is treated as raw text)
  | { kind: "none" };

export interface Candidate {
  name: string;
  args: CandidateArgs;
  /** The markup or JSON the call came from. */
  raw: string;
  /** The markup itself had to be repaired (missing closing tag, truncated JSON, …). */
  repaired: boolean;
  /** Which dialect recognised it (dialects/registry.ts); set by the registry or the parser. */
  dialect?: string;
}

/** A scanner's answer at one position: the calls it found, problems, and where the consumed span ends. */
export interface ScanHit {
  end: number;
  candidates: Candidate[];
  errors: string[];
}

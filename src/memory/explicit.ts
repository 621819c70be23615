/**
 * Explicit requests in the chat: "remember that …" (also "please remember: …", "lembre que …"). What follows is
 * stored at once as a user-stated fact (confidence 0.9), in any mode but `off`. Its scope: the user's when it
 * speaks about the person ("I", "my", "always"), the project's otherwise or when it names the project.
 */
import type { Scope } from "./types.ts";

/** "remember that X" / "remember: X" (a bare "remember pineapple" is a conversation, not a memory request). */
const REMEMBER = /^\s*(?:please\s+|pls\s+|hey[,\s]+)?(?:remember|keep in mind|don't forget|do not forget|lembre(?:-se)?|lembra)(?:\s+that\b|\s*:|\s+(?:de\s+)?que\b)\s*[:,-]?\s*([\s\S]{3,500}?)\s*[.!]?\s*$/i;

export function explicitRemember(text: string): string | undefined {
  const first = text.trim().split(/\n\s*\n/)[0] ?? "";
  const m = REMEMBER.exec(first);
  if (!m) return undefined;
  const body = m[1]!.trim();
  if (!body || /^(?:me|us)\b/i.test(body)) return undefined; // "remember me", "remember us": not a statement
  return body.charAt(0).toUpperCase() + body.slice(1);
}

export function scopeOfStatement(text: string): Scope {
  if (/\b(?:this|the)\s+(?:project|repo|repository|codebase|code base|package|app)\b|\bhere\b|\beste projeto\b|\bneste projeto\b/i.test(text)) return "project";
  if (/\b(?:I|I'm|I've|my|me|mine|always|never|eu|meu|minha|prefiro)\b/i.test(text)) return "user";
  return "project";
}

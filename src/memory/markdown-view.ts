/**
 * The generated, human-readable MEMORY.md of a scope. It is a view: chatcli rewrites it after every change, and
 * the marker on its first line tells the migration that it is ours (not a hand-written file to import).
 */
import type { ScopeDocs } from "./memory-store.ts";
import type { Category, Fact, Scope } from "./types.ts";

export const GENERATED_MARKER = "<!-- chatcli memory view: generated from facts.json; edit with /memory or `chatcli memory` -->";

const HEADINGS: Record<Category, string> = { profile: "Profile", longterm: "Facts", project: "Projects", topic: "Topics", daily: "Daily notes" };

export function renderMemoryMarkdown(scope: Scope, facts: readonly Fact[], docs: ScopeDocs, now: number): string {
  const lines = [GENERATED_MARKER, "", `# Memory (${scope} scope)`, "", `Updated ${new Date(now).toISOString()}.`];
  const active = facts.filter((f) => f.status === "active");
  for (const cat of Object.keys(HEADINGS) as Category[]) {
    const inCat = active.filter((f) => f.category === cat);
    if (!inCat.length) continue;
    lines.push("", `## ${HEADINGS[cat]}`, "");
    for (const f of inCat) lines.push(`- ${oneLine(f.text)} <!-- ${f.id}, confidence ${f.confidence.toFixed(2)} -->`);
  }
  const inbox = facts.filter((f) => f.status === "proposed");
  if (inbox.length) {
    lines.push("", "## Inbox (waiting for your review)", "");
    for (const f of inbox) lines.push(`- ${oneLine(f.text)} <!-- ${f.id} -->`);
  }
  const profile = Object.entries(docs.profile);
  if (profile.length) {
    lines.push("", "## Profile fields", "");
    for (const [k, v] of profile) lines.push(`- ${k}: ${oneLine(v.value)}`);
  }
  for (const [title, items] of [
    ["Topic tracker", docs.topics],
    ["Project tracker", docs.projects],
  ] as const) {
    const list = Object.values(items);
    if (!list.length) continue;
    lines.push("", `## ${title}`, "");
    for (const it of list) lines.push(`- ${oneLine(it.name)}${it.note ? `: ${oneLine(it.note)}` : ""} (seen ${it.count}×)`);
  }
  return `${lines.join("\n")}\n`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** English messages of subagents (issue 20). */
export const enSubagents = {
  "cmd.agents": "list the subagents (`/agents cancel ID` stops one)",
  "usage.byAgent": "By agent:",
  "subagents.none": "No subagents in this session yet.",
  "subagents.title": "Subagents ({running} running, {total} in all):",
  "subagents.cancelled": "Cancelled subagent {id}.",
  "subagents.notRunning": "No running subagent {id}.",
} as const;

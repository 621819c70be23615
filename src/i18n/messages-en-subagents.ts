/** English messages of subagents (issue 20). */
export const enSubagents = {
  "cmd.agents": "the subagents: a picker (transcript, cancel one); `/agents list`, `/agents cancel ID`",
  "usage.byAgent": "By agent:",
  "subagents.none": "No subagents in this session yet.",
  "subagents.title": "Subagents ({running} running, {total} in all):",
  "subagents.cancelled": "Cancelled subagent {id}.",
  "subagents.notRunning": "No running subagent {id}.",
  "subagents.pickerTitle": "Subagents — Enter: open",
  "subagents.showTranscript": "Show its transcript",
  "subagents.cancelOne": "Cancel this subagent",
  "subagents.transcriptTitle": "Transcript of {agent} ({id}) · {description} · {status}",
  "subagents.noTranscript": "(no transcript saved for this subagent)",
  "help.agentsPicker": "/agents        pick a subagent: show its transcript, or cancel it alone while it runs",
} as const;

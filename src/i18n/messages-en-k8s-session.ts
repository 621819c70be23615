/** English messages of the Kubernetes watch inside a session (issue 23: /watch, the status segment, --analyze). */
export const enK8sSession = {
  "k8s.counts": "{critical} critical {warning} warning",
  "k8s.ago": "{seconds}s ago",
  "k8s.checking": "checking…",
  "k8s.newFindings": "⎈ {count} new finding(s): {list}",
  "k8s.moreFindings": "and {count} more",
  "k8s.startFailed": "⎈ The Kubernetes watch could not start: {message}",
  "k8s.started": "⎈ Watching {context}/{namespace}{scope} every {seconds}s. The agent can read the cluster with k8s_get, k8s_logs, k8s_events, k8s_describe.",
  "k8s.stopped": "⎈ The Kubernetes watch stopped.",
  "k8s.notWatching": "No Kubernetes watch is active. Start one: /watch [--context C] [--namespace N] [--deployment D | --selector L] [--interval 30s]",
  "k8s.slashUsage": "Usage: /watch [--context C] [--namespace N] [--deployment D | --selector L] [--interval 30s] | /watch status | /watch stop",
  "cmd.watchArgs": "Watch a Kubernetes namespace or deployment: /watch [--namespace N] [--deployment D] | status | stop",
  "perm.k8sReadOnly": "read-only Kubernetes read of the watched cluster",
  "watch.analyzeNoModel": "watch --analyze needs a model: {message}",
};

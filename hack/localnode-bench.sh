#!/usr/bin/env bash
# End-to-end benchmarks on the node runtime: starts a private control plane,
# the node runtime and the operator (on the host), runs
# BUILD_DIR/bench/etcdcluster_ready_bench (EtcdCluster creation → Ready, with
# the operator's RSS), then BUILD_DIR/bench/postgrescluster_failover_bench
# (primary pod deleted → writes succeed again through the primary Service;
# $QUORUM_BENCH_FAILOVERS times, default 3), and stops everything again.
#
#   hack/localnode-bench.sh BUILD_DIR [BENCH ARGS...]      e.g. --runs 5
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(realpath -m "${1:?usage: $0 BUILD_DIR [ARGS...]}")"; shift
cp="$build/bench-controlplane"
export QUORUM_BUILD_DIR="$build"
op_pid=""

cleanup() {
  if [[ -n "$op_pid" ]] && kill -0 "$op_pid" 2>/dev/null; then
    kill "$op_pid" 2>/dev/null || true
    wait "$op_pid" 2>/dev/null || true
  fi
  "$here/localnode.sh" stop "$cp" || true
  "$here/controlplane.sh" stop "$cp" || true
}
trap cleanup EXIT

QUORUM_OWNER_PID=$$ "$here/controlplane.sh" start "$cp" >/dev/null
# shellcheck source=/dev/null
source "$cp/env"
QUORUM_OWNER_PID=$$ "$here/localnode.sh" start "$cp"
"$QUORUM_BIN/kubectl" apply --server-side --force-conflicts -f "${QUORUM_BENCH_CRDS:-$here/../deploy/crds/}" >/dev/null
"$QUORUM_BIN/kubectl" wait --for condition=established --timeout=60s \
  crd/etcdclusters.etcd.aenix.io crd/postgresclusters.postgres.quorum.dev >/dev/null
"$build/tools/localnode/quorum-localnode" exec --state-dir "$cp/localnode" -- \
  "$build/cmd/quorum-operator" --kubeconfig="$KUBECONFIG" --leader-elect=false \
  --metrics-bind-address=0 --health-probe-bind-address=0 >"$cp/operator.log" 2>&1 &
op_pid=$!
"$build/bench/etcdcluster_ready_bench" --kubeconfig "$KUBECONFIG" --operator-pid "$op_pid" "$@"
"$build/bench/postgrescluster_failover_bench" --kubeconfig "$KUBECONFIG" --operator-pid "$op_pid" \
  --localnode "$build/tools/localnode/quorum-localnode" --state-dir "$cp/localnode" \
  --failovers "${QUORUM_BENCH_FAILOVERS:-3}"

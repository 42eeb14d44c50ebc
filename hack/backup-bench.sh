#!/usr/bin/env bash
# Backup benchmarks on the real node (issue 16), printing figures:
#   * pgBackRest: a full backup of a ~1 GB PostgreSQL database (MB/s) and a
#     point-in-time restore of it into a new cluster (time to Ready);
#   * etcd: a snapshot of ~100 MB of data (EtcdBackup to S3: time and size).
# Starts a control plane, the node, the operator (this build's program) and two
# S3 stores (hack/s3.sh: HTTPS for pgBackRest, reached by the pods through a
# Service without selector; plain HTTP for the etcd snapshot Job), then runs
# BUILD_DIR/bench/backup_bench. Everything is stopped on exit.
#
#   hack/backup-bench.sh BUILD_DIR [BENCH ARGS...]   e.g. --pg-rows 1100000 --etcd-mb 100
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(realpath -m "${1:?usage: $0 BUILD_DIR [ARGS...]}")"; shift
cp="$build/bench-backup-controlplane"
ns="bench-backup"
node_address="10.245.0.1"  # hack/node.sh's bridge: pods reach the host here
op_pid=""

cleanup() {
  if [[ -n "$op_pid" ]] && kill -0 "$op_pid" 2>/dev/null; then
    kill "$op_pid" 2>/dev/null || true
    wait "$op_pid" 2>/dev/null || true
  fi
  "$here/s3.sh" stop "$cp/s3-tls" >/dev/null 2>&1 || true
  "$here/s3.sh" stop "$cp/s3-plain" >/dev/null 2>&1 || true
  "$here/node.sh" stop "$cp" >/dev/null 2>&1 || true
  "$here/controlplane.sh" stop "$cp" >/dev/null 2>&1 || true
}
trap cleanup EXIT
# A fresh test bed: nothing of an earlier run (its objects, volumes) is reused.
cleanup
rm -rf "$cp"

# The operator's image (the etcd snapshot Job runs it) from this build's program.
export QUORUM_OPERATOR_BIN="$build/cmd/quorum-operator"
"$here/images.sh" build operator >/dev/null 2>&1
QUORUM_OWNER_PID=$$ "$here/controlplane.sh" start "$cp" >/dev/null
# shellcheck source=/dev/null
source "$cp/env"
QUORUM_OWNER_PID=$$ "$here/node.sh" start "$cp" >/dev/null
kubectl() { "$QUORUM_BIN/kubectl" "$@"; }
kubectl apply --server-side --force-conflicts -f "$here/../deploy/crds/" >/dev/null
for _ in $(seq 30); do
  kubectl wait --for condition=established --timeout=60s crd/etcdclusters.etcd.aenix.io \
    crd/postgresclusters.postgres.quorum.dev crd/postgresbackups.postgres.quorum.dev \
    crd/etcdbackups.etcd.aenix.io >/dev/null 2>&1 && break
  sleep 1
done
"$here/node.sh" exec "$cp" -- "$build/cmd/quorum-operator" --kubeconfig="$KUBECONFIG" \
  --leader-elect=false --metrics-bind-address=0 --health-probe-bind-address=0 \
  --operator-image="$("$here/images.sh" name operator)" >"$cp/operator.log" 2>&1 &
op_pid=$!

QUORUM_OWNER_PID=$$ QUORUM_S3_ADDRESS="$node_address" QUORUM_S3_DNS_NAMES="s3.$ns.svc" \
  "$here/s3.sh" start "$cp/s3-tls" >/dev/null
QUORUM_OWNER_PID=$$ QUORUM_S3_ADDRESS="$node_address" QUORUM_S3_TLS=0 \
  "$here/s3.sh" start "$cp/s3-plain" >/dev/null
tls_port="$(sed -n "s/^export QUORUM_S3_ENDPOINT='https:\/\/[^:]*:\([0-9]*\)'$/\1/p" "$cp/s3-tls/env")"
plain_endpoint="$(sed -n "s/^export QUORUM_S3_ENDPOINT='\(.*\)'$/\1/p" "$cp/s3-plain/env")"

kubectl create namespace "$ns" >/dev/null
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: s3, namespace: $ns}
spec:
  ports: [{name: https, port: 443}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: s3-host
  namespace: $ns
  labels: {kubernetes.io/service-name: s3}
addressType: IPv4
endpoints: [{addresses: ["$node_address"]}]
ports: [{name: https, port: $tls_port}]
YAML
conf="$(printf '[global]\nrepo1-s3-key=%s\nrepo1-s3-key-secret=%s\n' \
  "$(cat "$cp/s3-tls/credentials/access-key")" "$(cat "$cp/s3-tls/credentials/secret-key")")"
kubectl -n "$ns" create secret generic pgbackrest-s3 --from-literal=s3.conf="$conf" \
  --from-file=ca.crt="$cp/s3-tls/pki/ca.crt" >/dev/null
# From files, as users often make them: the values keep the files' final
# newline (the snapshot Job strips it).
kubectl -n "$ns" create secret generic s3-creds \
  --from-file=AWS_ACCESS_KEY_ID="$cp/s3-plain/credentials/access-key" \
  --from-file=AWS_SECRET_ACCESS_KEY="$cp/s3-plain/credentials/secret-key" >/dev/null

"$build/bench/backup_bench" --kubeconfig "$KUBECONFIG" --namespace "$ns" \
  --exec "$here/node.sh exec $cp --" --etcdctl "$QUORUM_BIN/etcdctl" \
  --etcd-s3-endpoint "$plain_endpoint" "$@"

#!/usr/bin/env bash
# Runs the README's demo the way a newcomer does and checks what it promises:
# both resources Ready, the printed psql command reaches a writable primary,
# and the demo's `down` leaves no process, network namespace, bridge, nft table,
# iptables chain, ipset, cgroup or mount.
#
#   hack/demo-check.sh                    `make demo`, the checks, `make demo-down` (CI: the
#                                         README's commands with their default paths); with
#                                         DEMO_CHECK_FAULT_ROWS=1,3 also `make faults` for those
#                                         rows of the fault table, once each, before the down
#   hack/demo-check.sh BUILD_DIR STATE    the same through hack/node-demo.sh with the
#                                         state in STATE (the e2e test puts it under a hidden
#                                         home directory)
#
# Exit 0 only when every check holds; each failure names what is wrong. Never reads stdin.
set -euo pipefail
exec </dev/null

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
ns=quorum-demo

log() { echo "demo-check: $*" >&2; }
die() { log "FAIL: $*"; exit 1; }

# On a failure after the demo started: what a user would look at, then take it
# down so that a failed check leaves nothing running either.
started=0
on_exit() {
  local rc=$?
  rm -f "$out"
  ((rc != 0 && started)) || return 0
  if [[ -f "$state/env" ]]; then
    # shellcheck source=/dev/null
    source "$state/env"
    log "--- resources, pods and warning events in $ns"
    "$QUORUM_BIN/kubectl" -n "$ns" get etcdclusters,postgresclusters,pods -o wide >&2 || true
    "$QUORUM_BIN/kubectl" -n "$ns" get events --field-selector type=Warning >&2 || true
    log "--- operator log (tail)"
    tail -n 40 "$state/operator.log" >&2 || true
  fi
  log "--- taking the demo down"
  demo_down >&2 || true
}

if (($# == 0)); then
  mode=make
  state="${QUORUM_CACHE:-$HOME/.cache/quorum}/dev-controlplane"
elif (($# == 2)); then
  mode=script
  build="$(realpath -m "$1")"
  state="$(realpath -m "$2")"
else
  die "usage: $0 [BUILD_DIR STATE_DIR]"
fi
out="$(mktemp)"
trap on_exit EXIT

demo_up() {
  if [[ "$mode" == make ]]; then
    (cd "$root" && make demo)
  else
    "$here/node-demo.sh" up "$build" "$state"
  fi
}

demo_down() {
  if [[ "$mode" == make ]]; then
    (cd "$root" && make demo-down)
  else
    "$here/node-demo.sh" down "$state"
  fi
}

# The node's fixed names (hack/node.sh): its bridge, nft tables and cgroup.
bridge=qnode0
nft_tables=("ip quorum-node" "ip kube-proxy" "ip6 kube-proxy")
cgroup=quorum-node

# The network namespaces of the node's pods (CNI names them cni-<id>).
pod_netns() {
  local m
  for m in /var/run/netns/cni-*; do
    [[ -e "$m" ]] || continue
    # The tasks' OCI specs name it (not a recursive grep: it would walk the
    # containers' mounted root file systems).
    grep -qsF "$m" "$state"/node/containerd/state/io.containerd.runtime.v2.task/*/*/config.json &&
      echo "$m"
  done
  return 0
}

# Every process the demo started: the descendants of the control plane, node and
# operator processes, the containerd shims (they leave their parent) and
# everything in the node's cgroups.
demo_pids() {
  local seeds=() f pid
  for f in "$state"/*.pid "$state"/pids/*.pid "$state"/node/pids/*.pid; do
    [[ -f "$f" ]] && seeds+=("$(<"$f")")
  done
  while read -r pid; do [[ -n "$pid" ]] && seeds+=("$pid"); done < <(pgrep -f -- "$state/node/" || true)
  while read -r pid; do [[ -n "$pid" ]] && seeds+=("$pid"); done < <(
    find /sys/fs/cgroup/*/"$cgroup" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u)
  ((${#seeds[@]})) || return 0
  # Walk the process tree downwards from the seeds.
  local -A children=()
  local p pp
  for p in /proc/[0-9]*; do
    pp="$(awk '{print $4}' "$p/stat" 2>/dev/null)" || continue
    children[$pp]+=" ${p#/proc/}"
  done
  local queue=("${seeds[@]}") seen=" "
  while ((${#queue[@]})); do
    p="${queue[0]}"
    queue=("${queue[@]:1}")
    [[ "$seen" == *" $p "* ]] && continue
    seen+="$p "
    echo "$p"
    # shellcheck disable=SC2206
    queue+=(${children[$p]:-})
  done
}

started=1
if ! demo_up 2>&1 | tee "$out"; then
  die "the demo did not come up (output above)"
fi

# shellcheck source=/dev/null
source "$state/env"
kubectl=("$QUORUM_BIN/kubectl")
for r in etcdcluster/demo-etcd postgrescluster/demo-pg; do
  ready="$("${kubectl[@]}" -n "$ns" get "$r" \
    -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')"
  [[ "$ready" == True ]] || die "$r is not Ready (Ready=$ready)"
  log "$r is Ready"
done

# The psql lines exactly as printed, run as a user pasting them would, with SQL
# on stdin: it must reach a primary (not in recovery) and be able to write.
# The printed `kubectl quorum status` lines (the plugin found on PATH by kubectl):
# exit 0 (the cluster is Ready) and a screen that names it.
status_lines="$(sed -n '/^Both clusters on one screen/,/^psql as the app user/p' "$out" | grep '^  [^ ]' || true)"
[[ "$status_lines" == *"quorum status pg/demo-pg"* ]] || die "the demo printed no kubectl quorum status command"
status="$(bash -euo pipefail -c "$status_lines" 2>&1)" ||
  die "the printed kubectl quorum status commands failed: $status"
for name in demo-etcd demo-pg; do
  grep -q "$name" <<<"$status" || die "kubectl quorum status does not show $name: $status"
done
log "the printed kubectl quorum status commands show both clusters"

psql_lines="$(sed -n '/^psql as the app user/,/^Stop everything/p' "$out" | grep '^    ' || true)"
[[ -n "$psql_lines" ]] || die "the demo printed no psql command"
sql="CREATE TABLE IF NOT EXISTS demo_check (id int);
INSERT INTO demo_check VALUES (42);
SELECT 'in_recovery=' || pg_is_in_recovery() AS r;
SELECT 'rows=' || count(*) AS n FROM demo_check WHERE id = 42;"
result="$(printf '%s\n' "$sql" | bash -euo pipefail -c "$psql_lines" 2>&1)" ||
  die "the printed psql command failed: $result"
grep -q 'in_recovery=false' <<<"$result" || die "psql did not reach a writable primary: $result"
grep -Eq 'rows=[1-9]' <<<"$result" || die "the row written through psql is not there: $result"
log "the printed psql command reaches a writable primary"

# An EtcdBackup of the demo's EtcdCluster completes on the node (its Job runs
# the operator image the node has), with aenix's status fields.
"${kubectl[@]}" -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: demo-check-backups}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: etcd.aenix.io/v1alpha1
kind: EtcdBackup
metadata: {name: demo-check}
spec:
  clusterRef: {name: demo-etcd}
  destination: {pvc: {claimName: demo-check-backups}}
YAML
phase=""
for _ in $(seq 150); do
  phase="$("${kubectl[@]}" -n "$ns" get etcdbackup demo-check -o jsonpath='{.status.phase}')"
  [[ "$phase" == Complete || "$phase" == Failed ]] && break
  sleep 2
done
[[ "$phase" == Complete ]] ||
  die "EtcdBackup demo-check is ${phase:-not done} after 300 s: $("${kubectl[@]}" -n "$ns" get etcdbackup demo-check -o jsonpath='{.status.conditions}')"
snapshot="$("${kubectl[@]}" -n "$ns" get etcdbackup demo-check \
  -o jsonpath='{.status.snapshot.sizeBytes} {.status.snapshot.checksum} {.status.snapshot.uri}')"
read -r size_bytes checksum uri <<<"$snapshot"
[[ "$size_bytes" =~ ^[1-9][0-9]*$ && "$checksum" =~ ^sha256:[0-9a-f]{64}$ && -n "$uri" ]] ||
  die "EtcdBackup demo-check's status.snapshot lacks aenix's fields: $snapshot"
log "an EtcdBackup completed on the node: $size_bytes bytes, $checksum at $uri"
"${kubectl[@]}" -n "$ns" delete etcdbackup demo-check --wait=false >/dev/null

# CI's subset of the fault table (docs/reliability.md) against this demo, before
# it is taken down: DEMO_CHECK_FAULT_ROWS=1,3 runs those rows once each.
if [[ -n "${DEMO_CHECK_FAULT_ROWS:-}" ]]; then
  [[ "$mode" == make ]] || die "DEMO_CHECK_FAULT_ROWS needs the make mode (no arguments)"
  log "fault table rows $DEMO_CHECK_FAULT_ROWS (make faults)"
  (cd "$root" && make faults FAULT_ROWS="$DEMO_CHECK_FAULT_ROWS" FAULT_REPEAT=1) ||
    die "fault table rows $DEMO_CHECK_FAULT_ROWS failed (table above)"
  log "fault table rows $DEMO_CHECK_FAULT_ROWS passed"
fi

pids="$(demo_pids | sort -un)"
netns_before="$(pod_netns)"
started=0  # from here on, `down` is what is being checked
declare -A names=()
for p in $pids; do names[$p]="$(cat "/proc/$p/comm" 2>/dev/null || echo gone)"; done
log "$(wc -w <<<"$pids") demo processes before demo-down"
demo_down

# `down` may return while a process it signalled is still exiting: allow a few
# seconds, then whatever still runs (zombies aside) is a leftover.
alive_pids() {
  local p st
  for p in $pids; do
    st="$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" || continue
    [[ "$st" != Z ]] && echo "$p"
  done
  return 0  # a zombie last must not fail `still=$(alive_pids)` under set -e
}
still="$(alive_pids)"
if [[ -n "$still" ]]; then
  log "still running right after demo-down:$(for p in $still; do printf ' %s(%s)' "$p" "${names[$p]:-?}"; done)"
fi
for _ in $(seq 30); do
  [[ -z "$(alive_pids)" ]] && break
  sleep 0.5
done
leftover=()
for p in $(alive_pids); do
  leftover+=("$p ${names[$p]:-?}: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120)")
done
((${#leftover[@]} == 0)) || die "processes left after demo-down: $(printf '\n  %s' "${leftover[@]}")"
left_netns=()
for m in $netns_before; do [[ -e "$m" ]] && left_netns+=("$m"); done
((${#left_netns[@]} == 0)) || die "network namespaces left after demo-down: ${left_netns[*]}"
if ip link show "$bridge" >/dev/null 2>&1; then die "bridge $bridge left after demo-down"; fi
for t in "${nft_tables[@]}"; do
  # shellcheck disable=SC2086
  if nft list table $t >/dev/null 2>&1; then die "nft table $t left after demo-down"; fi
done
# kube-router's NetworkPolicy firewall: its filter chains and ipsets.
if iptables-save -t filter 2>/dev/null | grep -qE '^:KUBE-(ROUTER|POD-FW|NWPLCY)-'; then
  die "kube-router's iptables chains left after demo-down"
fi
sets="$(ipset list -n 2>/dev/null | grep -E '^(inet6:)?KUBE-(SRC|DST)-' || true)"
[[ -z "$sets" ]] || die "kube-router's ipsets left after demo-down: $sets"
cgroups="$(ls -d /sys/fs/cgroup/*/"$cgroup" 2>/dev/null || true)"
[[ -z "$cgroups" ]] || die "cgroups left after demo-down: $cgroups"
mounts="$(grep -F " $state" /proc/mounts || true)"
[[ -z "$mounts" ]] || die "mounts left after demo-down: $mounts"
log "demo-down left no process, network namespace, bridge, nft table, iptables chain, ipset, cgroup or mount"
log "OK"

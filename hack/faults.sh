#!/usr/bin/env bash
# Fault injection on the test bed (the real node, hack/node.sh) for
# the fault table (test/faults/, `make faults`) and for trying things by hand.
#
#   hack/faults.sh pids CP NS POD            host pids of the pod's processes (not the pause process)
#   hack/faults.sh signal CP NS POD SIG      send SIG (KILL, STOP, CONT, TERM...) to all of them
#   hack/faults.sh cut CP NS POD             drop every packet in and out of the pod (not loopback)
#   hack/faults.sh heal CP NS POD            undo cut
#   hack/faults.sh fill CP NS POD DIR        write DIR/.quorum-fill (as the pod sees DIR) until
#                                            its volume is full (use a small volume: hack/node.sh)
#   hack/faults.sh unfill CP NS POD DIR      remove that file
#   hack/faults.sh apiserver-restart CP      restart kube-apiserver with the same flags
#   hack/faults.sh apiserver-signal CP SIG   send SIG (STOP, CONT...) to kube-apiserver: a hung API
#   hack/faults.sh operator-kill CP          SIGKILL the demo's operator (its command line is kept)
#   hack/faults.sh operator-start CP         start it again with the same command line and log
#
# CP is the control plane folder of `make demo` (or of a test): the operator's
# pid is CP/operator.pid; the node keeps its state in CP/node. A pod's processes
# are the processes in its sandbox's network namespace (crictl inspectp).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { echo "faults.sh: $*" >&2; exit 1; }
usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# The pid of pod NS/POD's sandbox (its pause process). Namespaces are reached
# through /proc/PID/ns, not /run/netns: the fault table runs in a private
# mount namespace (node.sh exec), where the netns mounts of pods created after
# it started do not appear.
pod_sandbox_pid() {
  local cp="$1" ns="$2" pod="$3" id pid uid
  [[ -f "$cp/node/env" ]] || die "no node in $cp (hack/node.sh start $cp)"
  # shellcheck disable=SC1091
  source "$cp/node/env"
  # The sandbox of the pod object that exists now: right after a pod was
  # replaced under the same name, its predecessor's sandbox may still be
  # listed as ready (and has no processes left).
  uid="$(KUBECONFIG="$cp/kubeconfig" "$QUORUM_NODE_BIN/kubectl" -n "$ns" get pod "$pod" \
    -o 'jsonpath={.metadata.uid}' 2>/dev/null)" || die "no pod $ns/$pod"
  [[ -n "$uid" ]] || die "no pod $ns/$pod"
  id="$("$QUORUM_NODE_BIN/crictl" pods --label "io.kubernetes.pod.uid=$uid" --state ready -q \
    2>/dev/null | head -n1)"
  [[ -n "$id" ]] || die "no ready sandbox for pod $ns/$pod (uid $uid)"
  pid="$("$QUORUM_NODE_BIN/crictl" inspectp "$id" 2>/dev/null | jq -r '.info.pid // empty')"
  [[ "$pid" =~ ^[0-9]+$ && -e "/proc/$pid/ns/net" ]] || die "sandbox $id of $ns/$pod has no process"
  echo "$pid"
}

pod_pids() {  # the processes in the sandbox's network namespace, but the pause process
  local sandbox netns p comm
  sandbox="$(pod_sandbox_pid "$@")"
  netns="$(readlink "/proc/$sandbox/ns/net")"
  for p in /proc/[0-9]*; do
    [[ "$(readlink "$p/ns/net" 2>/dev/null)" == "$netns" ]] || continue
    comm="$(cat "$p/comm" 2>/dev/null || true)"
    case "$comm" in pause | catatonit | "") ;; *) echo "${p#/proc/}" ;; esac
  done
}

# nft table in the pod's namespace dropping everything but loopback.
cut_pod() {
  local sandbox
  sandbox="$(pod_sandbox_pid "$@")"
  nsenter --net="/proc/$sandbox/ns/net" nft -f - <<'EOF'
table inet quorum_fault {
  chain in { type filter hook input priority -300; policy drop; iifname "lo" accept; }
  chain out { type filter hook output priority -300; policy drop; oifname "lo" accept; }
}
EOF
}

heal_pod() {
  local sandbox
  sandbox="$(pod_sandbox_pid "$@")"
  nsenter --net="/proc/$sandbox/ns/net" nft delete table inet quorum_fault 2>/dev/null || true
}

# The host path of folder DIR as the pod's processes see it (through
# /proc/PID/root of one whose mount namespace has DIR, i.e. a container that
# mounts it), so that host tools write into the pod's volume.
pod_dir() {
  local cp="$1" ns="$2" pod="$3" dir="$4" pid
  for pid in $(pod_pids "$cp" "$ns" "$pod"); do
    [[ -d "/proc/$pid/root$dir" ]] && { echo "/proc/$pid/root$dir"; return 0; }
  done
  die "no process of $ns/$pod sees a folder $dir"
}

# Writes DIR/.quorum-fill until the volume holding DIR has no space left.
fill_dir() {
  local path
  path="$(pod_dir "$@")"
  # 1 MiB blocks, then 4 KiB ones for what is left (root may use every block).
  dd if=/dev/zero of="$path/.quorum-fill" bs=1M status=none 2>/dev/null || true
  dd if=/dev/zero of="$path/.quorum-fill" bs=4k oflag=append conv=notrunc status=none 2>/dev/null || true
  df -h "$path" | tail -n1 >&2
}

unfill_dir() {
  local path
  path="$(pod_dir "$@")"
  rm -f "$path/.quorum-fill"
}

operator_kill() {
  local cp="$1" pid
  pid="$(cat "$cp/operator.pid" 2>/dev/null)" || die "no $cp/operator.pid (is the demo running?)"
  [[ -r "/proc/$pid/cmdline" ]] || die "operator pid $pid is not running"
  cp "/proc/$pid/cmdline" "$cp/operator.cmdline"
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid"
  for _ in $(seq 50); do [[ -e "/proc/$pid" ]] || break; sleep 0.1; done
}

operator_start() {
  local cp="$1" pid
  if pid="$(cat "$cp/operator.pid" 2>/dev/null)" && [[ -e "/proc/$pid" ]]; then
    die "operator pid $pid is still running"
  fi
  [[ -s "$cp/operator.cmdline" ]] || die "no saved command line (operator-kill first)"
  local -a argv
  mapfile -d '' -t argv <"$cp/operator.cmdline"
  # The demo runs the operator under the node's exec (the pods' names
  # resolve there); the saved command line is the operator's own.
  setsid nohup "$here/node.sh" exec "$cp" -- "${argv[@]}" >>"$cp/operator.log" 2>&1 </dev/null &
  echo "$!" >"$cp/operator.pid"
}

(($# >= 2)) || usage
cmd="$1"; cp="$(realpath -m -- "$2")"; shift 2
[[ -f "$cp/env" ]] || die "$cp/env not found: not a control plane folder"
case "$cmd" in
  pids) (($# == 2)) || usage; pod_pids "$cp" "$1" "$2" ;;
  signal)
    (($# == 3)) || usage
    pids="$(pod_pids "$cp" "$1" "$2")"
    [[ -n "$pids" ]] || die "pod $1/$2 has no process"
    # A process may be gone by the time its turn comes (a postmaster's
    # children die with it): only a pod with no process at all is an error.
    for pid in $pids; do kill -s "$3" "$pid" 2>/dev/null || true; done ;;
  cut) (($# == 2)) || usage; cut_pod "$cp" "$1" "$2" ;;
  heal) (($# == 2)) || usage; heal_pod "$cp" "$1" "$2" ;;
  fill) (($# == 3)) || usage; fill_dir "$cp" "$1" "$2" "$3" ;;
  unfill) (($# == 3)) || usage; unfill_dir "$cp" "$1" "$2" "$3" ;;
  apiserver-restart) "$here/controlplane.sh" restart-apiserver "$cp" ;;
  apiserver-signal)
    (($# == 1)) || usage
    pid="$(cat "$cp/pids/kube-apiserver.pid" 2>/dev/null)" || die "no $cp/pids/kube-apiserver.pid"
    kill -s "$1" "$pid" ;;
  operator-kill) operator_kill "$cp" ;;
  operator-start) operator_start "$cp" ;;
  *) usage ;;
esac

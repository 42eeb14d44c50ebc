#!/usr/bin/env bash
# The Kubernetes version matrix (make test-matrix): the integration suite (CTest
# label `integration`) against a control plane of each pinned Kubernetes minor,
# one after the other, each in a folder of its own, then a table of the results.
#
#   hack/test-matrix.sh [1.NN...]   the minors to run; default: every pinned one
#                                   (hack/tools/kube, the default, and hack/tools/kubeNN)
#
# Environment: BUILD_DIR (default build, already built), TEST_JOBS (ctest --parallel,
# default 3), MATRIX_E2E (see the e2e hook below; empty: no e2e).
#
# Per version V, under $BUILD_DIR/matrix/k8s-V/: controlplane/ (the control plane,
# QUORUM_K8S_VERSION=V; its logs stay after the run) and ctest.log. CTest starts and
# stops that control plane through the usual `controlplane` fixture, pointed there
# by QUORUM_TEST_CONTROLPLANE_DIR (cmake/QuorumTarget.cmake). Exits 1 if any cell
# failed. Building a version's binaries the first time takes several minutes of CPU
# per binary (hack/build-tools.sh, under nice).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$(realpath -m -- "${BUILD_DIR:-$root/build}")"
jobs="${TEST_JOBS:-3}"
e2e="${MATRIX_E2E:-}"

log() { echo "test-matrix: $*" >&2; }

pinned_minors() {  # the default minor and every hack/tools/kubeNN, ascending
  local v d
  v="$(sed -nE 's#^require[[:space:]]+k8s.io/kubernetes[[:space:]]+v(1\.[0-9]+)\..*#\1#p' \
    "$here/tools/kube/go.mod")"
  [[ -n "$v" ]] || { log "cannot read the default Kubernetes version"; exit 1; }
  echo "$v"
  for d in "$here"/tools/kube1[0-9]*; do
    if [[ -f "$d/go.mod" ]]; then echo "1.${d##*/kube1}"; fi
  done
}

summary() {  # summary CTEST-LOG: "PASSED FAILED" from ctest's closing line, or "- -"
  local line total failed
  line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -n 1)"
  if [[ -z "$line" ]]; then echo "- -"; return; fi
  failed="$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")"
  total="$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")"
  echo "$((total - failed)) $failed"
}

[[ -f "$build/CTestTestfile.cmake" ]] || { log "no build in $build (make build)"; exit 1; }
if (($#)); then versions=("$@"); else mapfile -t versions < <(pinned_minors | sort -t. -k2,2n -u); fi
ctest_args=(--test-dir "$build" --output-on-failure --no-tests=error --parallel "$jobs"
  --resource-spec-file "$root/test/ctest-resources.json")

rows=() status=0
for v in "${versions[@]}"; do
  dir="$build/matrix/k8s-$v"
  mkdir -p "$dir"
  release="-" integration="- -" e2e_cell="not run"
  log "Kubernetes $v: building its binaries if needed"
  if ! bin="$(QUORUM_K8S_VERSION="$v" nice -n 19 "$here/build-tools.sh" 2>"$dir/build-tools.log")"; then
    log "Kubernetes $v: hack/build-tools.sh failed (last lines of $dir/build-tools.log):"
    tail -n 15 "$dir/build-tools.log" >&2
    rows+=("$v|$release|tools failed||$e2e_cell")
    status=1
    continue
  fi
  release="$("$bin/kube-apiserver" --version)" && release="${release##* }"
  log "Kubernetes $v ($release): integration suite, control plane in $dir/controlplane"
  export QUORUM_K8S_VERSION="$v" QUORUM_TEST_CONTROLPLANE_DIR="$dir/controlplane"
  ctest "${ctest_args[@]}" -L integration >"$dir/ctest.log" 2>&1 || status=1
  integration="$(summary "$dir/ctest.log")"
  tail -n 25 "$dir/ctest.log" | sed -n '/tests passed/,$p' >&2

  # ---- e2e smoke hook -------------------------------------------------------------
  # MATRIX_E2E=REGEX runs the e2e tests matching REGEX (ctest -L e2e -R REGEX) on the
  # real node (hack/node.sh, the `node` fixture) beside this version's control
  # plane; the node follows the control plane's version. The machine has ONE node
  # test bed: run it only where nothing else uses the node.
  if [[ -n "$e2e" ]]; then
    log "Kubernetes $v ($release): e2e matching '$e2e' on the node"
    ctest "${ctest_args[@]}" -L e2e -R "$e2e" >"$dir/ctest-e2e.log" 2>&1 || status=1
    read -r p f <<<"$(summary "$dir/ctest-e2e.log")"
    e2e_cell="$p passed, $f failed"
  fi
  # ---------------------------------------------------------------------------------
  unset QUORUM_K8S_VERSION QUORUM_TEST_CONTROLPLANE_DIR
  read -r p f <<<"$integration"
  [[ "$p" != - && "$f" == 0 ]] || status=1
  rows+=("$v|$release|$p|$f|$e2e_cell")
done

echo
echo "Kubernetes version matrix (CTest counts include the fixtures; logs: $build/matrix/k8s-*/)"
printf '%-10s %-10s %-20s %-8s %s\n' minor release "integration passed" failed e2e
for row in "${rows[@]}"; do
  IFS='|' read -r v release p f e <<<"$row"
  printf '%-10s %-10s %-20s %-8s %s\n' "$v" "$release" "$p" "$f" "$e"
done
exit "$status"

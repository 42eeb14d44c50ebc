#!/usr/bin/env bash
# The operator of an earlier landed commit, for the operator-upgrade e2e test
# (test/e2e/operator_upgrade_test.cc): its program and the CRDs it shipped,
# built once per commit from this clone's history.
#
#   hack/previous-operator.sh [COMMIT]   prints a directory holding quorum-operator
#                                        and crds/ (that commit's deploy/crds)
#
# COMMIT defaults to $QUORUM_PREVIOUS_OPERATOR_COMMIT, else to the first word of
# test/e2e/previous-operator.commit (the operator-upgrade test uses the default). The
# result is cached in $QUORUM_CACHE/previous-operator/<commit>/; the build
# shares the ccache of every other build, so it compiles only what changed
# since. Needs the commit in this clone's history (not a shallow clone): without
# it, exit status 77.
# Never reads stdin.
set -euo pipefail
exec </dev/null

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
log() { echo "previous-operator: $*" >&2; }
die() { log "$*"; exit 1; }

commit="${1:-${QUORUM_PREVIOUS_OPERATOR_COMMIT:-$(grep -v '^#' "$root/test/e2e/previous-operator.commit" |
  awk 'NF {print $1; exit}')}}"
[[ -n "$commit" ]] || die "no commit named (test/e2e/previous-operator.commit is empty)"
# Exit 77 (CTest's and the test's "skipped") when the history is not there:
# nothing to build the earlier version from, which is not a failure of the product.
if ! full="$(git -C "$root" rev-parse --verify --quiet "$commit^{commit}")"; then
  log "commit $commit is not in this clone's history (a shallow clone? git fetch --unshallow)"
  exit 77
fi
cache="${QUORUM_CACHE:-$HOME/.cache/quorum}/previous-operator"
out="$cache/${full:0:12}"
mkdir -p "$cache"
exec 9>"$cache/.lock-${full:0:12}"
flock 9
if [[ -x "$out/quorum-operator" && -d "$out/crds" ]]; then
  echo "$out"
  exit 0
fi

src="$(mktemp -d "$cache/src-XXXXXX")"
trap 'rm -rf "$src" "$out.tmp"' EXIT
log "building the operator of ${full:0:12} ($(git -C "$root" log -1 --format=%s "$full" | cut -c1-60))"
git -C "$root" archive "$full" | tar -x -C "$src"
cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$src/build" --parallel "$(nproc)" --target quorum-operator >&2
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$src/build/cmd/quorum-operator" "$out.tmp/"
cp -r "$src/deploy/crds" "$out.tmp/crds"
git -C "$root" log -1 --format='%H %s' "$full" >"$out.tmp/commit"
mv "$out.tmp" "$out"
echo "$out"

#!/usr/bin/env bash
# Regenerates docs/reference/*.md from deploy/crds with cmd/docgen.
#   hack/update-docs.sh [BUILD_DIR]   (default: build/; builds docgen there)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
[[ -f "$build/build.ninja" ]] || cmake -S "$root" -B "$build" -G Ninja >&2
ninja -C "$build" docgen >&2
"$build/cmd/docgen/docgen" --crds "$root/deploy/crds" --out "$root/docs/reference"
echo "wrote $root/docs/reference" >&2

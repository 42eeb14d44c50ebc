#!/usr/bin/env bash
# Regenerates third_party/etcd/ from etcd's published API module
# (go.etcd.io/etcd/api/v3 at the version below): the .proto files of the gRPC
# services Quorum's etcd client calls (etcdserverpb/rpc.proto and what it
# imports: mvccpb/kv.proto, authpb/auth.proto) with the options that only serve
# Go code generation and the JSON gateway stripped (hack/strip-proto-options.awk),
# plus etcd's LICENSE. The build (src/etcd/CMakeLists.txt) turns them into C++
# with protoc and grpc_cpp_plugin; the generated code is not committed.
#
# Needs Go (the module comes through `go mod download`, from the module cache
# when it is there) and awk. Deterministic: run it again and git shows no
# change.
#
#   hack/update-etcd-protos.sh
set -euo pipefail

version="v3.6.16"
module="go.etcd.io/etcd/api/v3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/third_party/etcd"

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="$PATH:/usr/local/go/bin"
fi
dir="$(cd "$root" && GOFLAGS=-mod=mod go mod download -json "$module@$version" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d "$dir" ]] || { echo "update-etcd-protos: no module directory for $module@$version" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/etcd/api"
for proto in etcdserverpb/rpc.proto mvccpb/kv.proto authpb/auth.proto; do
  mkdir -p "$out/etcd/api/$(dirname "$proto")"
  awk -f "$root/hack/strip-proto-options.awk" "$dir/$proto" >"$out/etcd/api/$proto"
done
cp "$dir/LICENSE" "$out/LICENSE"
cat >"$out/README.md" <<README
# etcd's API protos

From etcd's Go module \`$module\` $version (Apache License 2.0, see LICENSE;
Copyright The etcd Authors). Changed by hack/update-etcd-protos.sh: the
gogoproto, google.api.http, openapiv2 and versionpb options and their imports
are removed (they only steer Go code generation, the JSON gateway and etcd's
WAL versioning; the messages' wire format is unchanged). The import paths
(\`etcd/api/...\`) are etcd's own, so this folder is the protoc include root.

Regenerate with \`hack/update-etcd-protos.sh\`; do not edit by hand.
README
echo "update-etcd-protos: wrote $out from $module@$version" >&2

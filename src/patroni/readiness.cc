#include "src/patroni/readiness.h"

#include "absl/strings/str_cat.h"

namespace quorum::patroni {

std::vector<std::string> ReadinessProbeCommand(int port, bool https,
                                               const std::string& data_volume) {
  // $1 is the REST API's base URL, $2 the data volume's folder (may be empty).
  static constexpr char kScript[] =
      R"sh(get() { curl -s -k -o /dev/null -w '%{http_code}' --max-time 1 "$1$2"; }
if [ -n "$2" ]; then
  kib="$(df -Pk "$2" 2>/dev/null | { read -r _; read -r _ _ _ a _; echo "$a"; })"
  if [ -n "$kib" ] && [ "$kib" -lt 1024 ]; then
    echo "the data volume ($2) is full: $kib KiB available"
    exit 1
  fi
fi
body="$(curl -s -k --max-time 1 "$1/patroni")" || exit 1
leader="$(get "$1" /leader)"
if printf '%s' "$body" | grep -Eq '"role": *"(primary|standby_leader|master)"'; then
  [ "$leader" = 200 ] && printf '%s' "$body" | grep -Eq '"state": *"running"'
  exit
fi
[ "$leader" != 200 ] && [ "$(get "$1" /readiness)" = 200 ])sh";
  return {"sh",
          "-c",
          kScript,
          "readiness",
          absl::StrCat(https ? "https" : "http", "://127.0.0.1:", port),
          data_volume};
}

}  // namespace quorum::patroni

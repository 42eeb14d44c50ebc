#include "src/patroni/readiness.h"

#include "absl/strings/str_cat.h"

namespace quorum::patroni {

std::vector<std::string> ReadinessProbeCommand(int port, bool https) {
  // $1 is the REST API's base URL.
  static constexpr char kScript[] =
      R"sh(get() { curl -s -k -o /dev/null -w '%{http_code}' --max-time 1 "$1$2"; }
body="$(curl -s -k --max-time 1 "$1/patroni")" || exit 1
leader="$(get "$1" /leader)"
if printf '%s' "$body" | grep -Eq '"role": *"(primary|standby_leader|master)"'; then
  [ "$leader" = 200 ] && printf '%s' "$body" | grep -Eq '"state": *"running"'
  exit
fi
[ "$leader" != 200 ] && [ "$(get "$1" /readiness)" = 200 ])sh";
  return {"sh", "-c", kScript, "readiness",
          absl::StrCat(https ? "https" : "http", "://127.0.0.1:", port)};
}

}  // namespace quorum::patroni

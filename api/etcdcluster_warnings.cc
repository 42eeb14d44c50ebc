// EtcdClusterWarnings (declared in etcdcluster_validation.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster.h"
#include "api/etcdcluster_validation.h"
#include "api/json_access.h"

namespace quorum::api {

using Json = nlohmann::json;
using internal::Child;
using internal::Dump;
using internal::Int;
using internal::Path;
using internal::Str;

std::vector<std::string> EtcdClusterWarnings(const Json& obj) {
  std::vector<std::string> out;
  const Json* spec = Child(&obj, "spec");
  if (spec == nullptr) return out;
  int replicas = kDefaultReplicas;
  if (const Json* r = Child(spec, "replicas")) {
    std::optional<int64_t> n = Int(r);
    if (!n.has_value() || *n < 0 || *n > INT32_MAX) return out;
    replicas = static_cast<int>(*n);
  }
  if (replicas > 0 && replicas % 2 == 0) {
    out.push_back(absl::StrCat("spec.replicas: ", replicas,
                               " members tolerate no more failures than ", replicas - 1,
                               "; an odd number is usually what you want"));
  }
  const int quorum = replicas / 2 + 1;
  const Json* pspec = Path(spec, {"podDisruptionBudgetTemplate", "spec"});
  const Json* min = Child(pspec, "minAvailable");
  const Json* max = Child(pspec, "maxUnavailable");
  int n = 0;
  if (replicas > 0 && min != nullptr && max == nullptr && ResolveIntOrPercent(*min, replicas, n) &&
      n < quorum) {
    out.push_back(absl::StrCat(
        "spec.podDisruptionBudgetTemplate.spec.minAvailable: ", Dump(*min),
        " lets evictions leave ", n, " of ", replicas, " members, fewer than the quorum of ",
        quorum, "; the cluster would stop serving. Use at least ", quorum, " (or leave it empty)"));
  }
  if (replicas > 0 && max != nullptr && min == nullptr && ResolveIntOrPercent(*max, replicas, n) &&
      replicas - n < quorum) {
    out.push_back(absl::StrCat("spec.podDisruptionBudgetTemplate.spec.maxUnavailable: ", Dump(*max),
                               " lets evictions leave ", replicas - n < 0 ? 0 : replicas - n,
                               " of ", replicas, " members, fewer than the quorum of ", quorum,
                               "; use at most ", replicas - quorum));
  }
  const Json* tls = Path(spec, {"security", "tls"});
  if (Str(tls, "serverSecret").empty()) {
    if (!Str(tls, "clientTrustedCASecret").empty()) {
      out.push_back(
          "spec.security.tls.clientTrustedCASecret: client certificate auth has no effect without "
          "server TLS; set serverSecret and serverTrustedCASecret");
    }
    if (!Str(tls, "serverTrustedCASecret").empty()) {
      out.push_back(
          "spec.security.tls.serverTrustedCASecret: has no effect without serverSecret (the "
          "members serve clients over plain HTTP)");
    }
  }
  return out;
}

}  // namespace quorum::api

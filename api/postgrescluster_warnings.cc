// PostgresClusterWarnings (declared in postgrescluster_validation.h).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/json_access.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_etcd_url.h"
#include "api/postgrescluster_validation.h"

namespace quorum::api {

using Json = nlohmann::json;
using internal::Child;
using internal::Int;
using internal::Path;
using internal::Str;

std::vector<std::string> PostgresClusterWarnings(const Json& obj) {
  std::vector<std::string> out;
  const Json* spec = Child(&obj, "spec");
  if (spec == nullptr || !spec->is_object()) return out;

  int64_t total = 0;
  if (const Json* sets = Child(spec, "instances"); sets != nullptr && sets->is_array()) {
    for (const Json& set : *sets) {
      const Json* r = Child(&set, "replicas");
      total += r == nullptr ? kDefaultInstanceReplicas : Int(r).value_or(0);
    }
  }
  if (total == 1) {
    out.push_back(
        "spec.instances: one instance in total has no replica to fail over to; use replicas: 2 "
        "or more for high availability");
  }

  const Json* etcd = Path(spec, {"patroni", "dcs", "etcd"});
  if (etcd != nullptr && Child(etcd, "clusterRef") == nullptr) {
    bool https = false, http = false;
    if (const Json* endpoints = Child(etcd, "endpoints");
        endpoints != nullptr && endpoints->is_array()) {
      for (const Json& e : *endpoints) {
        if (!e.is_string()) continue;
        std::optional<EtcdUrl> url = ParseEtcdUrl(e.get<std::string>());
        if (!url.has_value()) continue;
        (url->scheme == "https" ? https : http) = true;
      }
    }
    if (https && !http && Str(etcd, "tlsSecret").empty()) {
      out.push_back(
          "spec.patroni.dcs.etcd.tlsSecret: empty with https:// endpoints: Patroni verifies the "
          "servers with the image's CA bundle and presents no client certificate");
    }
    if (http && !https && !Str(etcd, "authSecret").empty()) {
      out.push_back(
          "spec.patroni.dcs.etcd.authSecret: the etcd password travels in clear text over "
          "http:// endpoints; use https:// with tlsSecret");
    }
  }

  const Json* dynamic = Path(spec, {"patroni", "dynamicConfiguration"});
  for (const char* key : {"ttl", "loop_wait", "retry_timeout"}) {
    if (Child(dynamic, key) != nullptr) {
      out.push_back(std::string("spec.patroni.dynamicConfiguration.") + key +
                    ": ignored; set leaderLeaseDurationSeconds, syncPeriodSeconds and "
                    "retryTimeoutSeconds instead");
    }
  }
  return out;
}

}  // namespace quorum::api

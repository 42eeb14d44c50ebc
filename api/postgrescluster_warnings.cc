// PostgresClusterWarnings (declared in postgrescluster_validation.h): read
// from the typed spec, like the reconciler.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_etcd_url.h"
#include "api/postgrescluster_owned_config.h"
#include "api/postgrescluster_types.h"
#include "api/postgrescluster_validation.h"

namespace quorum::api {

std::vector<std::string> PostgresClusterWarnings(const PostgresClusterSpec& spec) {
  std::vector<std::string> out;
  int64_t total = 0;
  for (const PostgresInstanceSet& set : spec.instances) total += set.replicas;
  if (total == 1) {
    out.push_back(
        "spec.instances: one instance in total has no replica to fail over to; use replicas: 2 "
        "or more for high availability");
  }

  const PostgresEtcdDcs& etcd = spec.patroni.dcs.etcd;
  if (etcd.cluster_ref.empty()) {
    bool https = false, http = false;
    for (const std::string& e : etcd.endpoints) {
      std::optional<EtcdUrl> url = ParseEtcdUrl(e);
      if (!url.has_value()) continue;
      (url->scheme == "https" ? https : http) = true;
    }
    if (https && !http && etcd.tls_secret.empty()) {
      out.push_back(
          "spec.patroni.dcs.etcd.tlsSecret: empty with https:// endpoints: Patroni verifies the "
          "servers with the image's CA bundle and presents no client certificate");
    }
    if (http && !https && !etcd.auth_secret.empty()) {
      out.push_back(
          "spec.patroni.dcs.etcd.authSecret: the etcd password travels in clear text over "
          "http:// endpoints; use https:// with tlsSecret");
    }
  }

  // Admission refuses new ones; one stored before that rule is ignored.
  for (const OwnedConfigKey& k : FindOwnedConfigKeys(spec.patroni.dynamic_configuration)) {
    out.push_back(absl::StrCat(k.Field(), ": ignored, Quorum owns it: ", k.reason));
  }
  return out;
}

}  // namespace quorum::api

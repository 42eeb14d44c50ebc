#include "src/controllers/postgresobjects/target.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/kube/resources.h"
#include "src/patroni/role.h"

namespace quorum::postgresobjects {

using json_access::At;
using json_access::Str;

absl::StatusOr<ClusterTarget> PrimaryTarget(const runtime::Cache& cache,
                                            const api::PostgresCluster& cluster) {
  const postgrescluster::Names n = postgrescluster::NamesOf(cluster);
  ClusterTarget out;
  std::string ip;
  for (const runtime::ObjectPtr& pod : cache.ByInstance(kube::kPods, n.ns, n.cluster)) {
    const nlohmann::json& labels = At(*pod, {"metadata", "labels"});
    if (Str(At(labels, {"app.kubernetes.io/name"})) != "postgres") continue;
    if (Str(At(labels, {std::string(patroni::kRoleLabel).c_str()})) !=
        patroni::kPrimaryLabelValue) {
      continue;
    }
    if (!controllers::PodReady(*pod) || At(*pod, {"metadata", "deletionTimestamp"}).is_string()) {
      continue;
    }
    out.primary = Str(At(*pod, {"metadata", "name"}));
    ip = Str(At(*pod, {"status", "podIP"}));
  }
  if (out.primary.empty() || ip.empty()) {
    return absl::UnavailableError(
        absl::StrCat("PostgresCluster ", n.cluster, " has no ready primary yet"));
  }
  runtime::ObjectPtr su = cache.Get(kube::kSecrets, n.ns, n.superuser_secret);
  const std::string password = su ? controllers::SecretValue(*su, "password") : "";
  if (password.empty()) {
    return absl::UnavailableError(absl::StrCat("Secret ", n.superuser_secret, " is not ready"));
  }
  const std::string tls_secret = postgrescluster::MountedTlsSecret(cluster);
  runtime::ObjectPtr tls = cache.Get(kube::kSecrets, n.ns, tls_secret);
  out.ca_pem = tls ? controllers::SecretValue(*tls, "ca.crt") : "";
  if (out.ca_pem.empty()) {
    return absl::UnavailableError(absl::StrCat("Secret ", tls_secret, " has no ca.crt yet"));
  }
  out.target = {.host = postgrescluster::MemberDnsName(cluster, out.primary),
                .hostaddr = ip,
                .port = postgrescluster::kPostgresPort,
                .user = std::string(api::kSuperuserName),
                .password = password,
                .ca_pem = out.ca_pem};
  out.fingerprint = absl::StrCat(cluster.metadata.uid, "|", out.primary, "|", ip, "|",
                                 Str(At(*su, {"metadata", "resourceVersion"})), "|",
                                 Str(At(*tls, {"metadata", "resourceVersion"})));
  return out;
}

}  // namespace quorum::postgresobjects

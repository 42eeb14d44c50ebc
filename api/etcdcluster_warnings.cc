// EtcdClusterWarnings (declared in etcdcluster_validation.h): read from the
// typed spec, like the reconciler.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster.h"
#include "api/etcdcluster_types.h"
#include "api/etcdcluster_validation.h"
#include "src/base/json_access.h"

namespace quorum::api {

using json_access::Dump;

std::vector<std::string> EtcdClusterWarnings(const EtcdClusterSpec& spec) {
  std::vector<std::string> out;
  const int replicas = spec.replicas;
  if (replicas < 0) return out;
  if (replicas > 0 && replicas % 2 == 0) {
    out.push_back(absl::StrCat("spec.replicas: ", replicas,
                               " members tolerate no more failures than ", replicas - 1,
                               "; an odd number is usually what you want"));
  }
  const int quorum = replicas / 2 + 1;
  const nlohmann::json* min = nullptr;
  const nlohmann::json* max = nullptr;
  if (spec.pdb_template.has_value()) {
    if (spec.pdb_template->min_available) min = &*spec.pdb_template->min_available;
    if (spec.pdb_template->max_unavailable) max = &*spec.pdb_template->max_unavailable;
  }
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
  const ObjectTemplate& vct = spec.storage.volume_claim_template;
  const bool storage_template_set = !vct.spec.empty() || !vct.metadata.name.empty() ||
                                    !vct.metadata.labels.empty() ||
                                    !vct.metadata.annotations.empty();
  if (spec.storage.empty_dir && storage_template_set) {
    out.push_back(
        "spec.storage.volumeClaimTemplate: ignored, because emptyDir is set too (as the aenix "
        "operator does): the members keep their data in an emptyDir and lose it with their pod; "
        "remove emptyDir to use PersistentVolumeClaims, or remove volumeClaimTemplate");
  }
  const EtcdTlsSpec& tls = spec.security.tls;
  if (tls.server_secret.empty()) {
    if (!tls.client_trusted_ca_secret.empty()) {
      out.push_back(
          "spec.security.tls.clientTrustedCASecret: client certificate auth has no effect without "
          "server TLS; set serverSecret and serverTrustedCASecret");
    }
    if (!tls.server_trusted_ca_secret.empty()) {
      out.push_back(
          "spec.security.tls.serverTrustedCASecret: has no effect without serverSecret (the "
          "members serve clients over plain HTTP)");
    }
  }
  return out;
}

}  // namespace quorum::api

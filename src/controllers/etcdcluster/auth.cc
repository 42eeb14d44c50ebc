#include "src/controllers/etcdcluster/auth.h"

#include "absl/strings/escaping.h"

namespace quorum::etcdcluster {

bool AuthEnabledInSpec(const EtcdCluster& cluster) { return cluster.spec.security.enable_auth; }

std::string AuthSecretName(const EtcdCluster& cluster) {
  return NamesOf(cluster).cluster + "-root-auth";
}

Json BuildAuthSecret(const EtcdCluster& cluster, const std::string& password) {
  const Names n = NamesOf(cluster);
  Json labels = Json::object();
  for (const auto& [k, v] : CommonLabels(cluster)) labels[k] = v;
  return {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"name", AuthSecretName(cluster)},
        {"namespace", n.ns},
        {"labels", labels},
        {"ownerReferences", Json::array({OwnerReference(cluster)})}}},
      {"type", "kubernetes.io/basic-auth"},
      {"data",
       {{"username", absl::Base64Escape(kRootUser)}, {"password", absl::Base64Escape(password)}}}};
}

absl::StatusOr<bool> EnsureAuthEnabled(etcd::Client& client, std::string_view root_password) {
  absl::StatusOr<etcd::AuthStatusResponse> status = client.AuthStatus();
  if (!status.ok()) return status.status();
  if (status->enabled) return false;
  // A root user left by an earlier attempt may carry another password (its
  // Secret was recreated): with auth still off, setting it again is allowed.
  absl::Status s = client.UserAdd(kRootUser, root_password);
  if (absl::IsFailedPrecondition(s)) s = client.UserChangePassword(kRootUser, root_password);
  if (!s.ok()) return s;
  s = client.RoleAdd(kRootUser);
  if (!s.ok() && !absl::IsFailedPrecondition(s)) return s;  // exists already
  if (s = client.UserGrantRole(kRootUser, kRootUser); !s.ok()) return s;
  if (s = client.AuthEnable(); !s.ok()) return s;
  return true;
}

}  // namespace quorum::etcdcluster

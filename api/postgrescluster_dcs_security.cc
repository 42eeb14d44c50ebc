#include "api/postgrescluster_dcs_security.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster_etcd_url.h"

namespace quorum::api {
namespace {

constexpr char kRisk[] =
    "any pod that reaches it can read and rewrite this cluster's leader key and configuration "
    "(docs/security.md)";

DcsSecurity ClusterRef(const std::string& name, const EtcdCluster* ref) {
  if (ref == nullptr) {
    return {false, "EtcdClusterNotFound",
            absl::StrCat("EtcdCluster ", name,
                         " (spec.patroni.dcs.etcd.clusterRef) does not exist, so its security is "
                         "unknown")};
  }
  const bool tls = !EffectiveTls(*ref).server_secret.empty();
  const bool auth = ref->spec.security.enable_auth;
  if (tls && auth) {
    return {true, "EtcdTlsAndAuth",
            absl::StrCat("EtcdCluster ", name,
                         " serves clients over TLS with auth on; the pods use an etcd user "
                         "limited to this cluster's keys")};
  }
  const char* reason = !tls && !auth ? "EtcdWithoutTlsAndAuth"
                       : !tls        ? "EtcdWithoutTls"
                                     : "EtcdWithoutAuth";
  const std::string missing = !tls && !auth ? "neither TLS for clients nor auth"
                              : !tls        ? "no TLS for clients (security.tls.serverSecret)"
                                            : "no auth (security.enableAuth)";
  return {false, reason,
          absl::StrCat("spec.patroni.dcs.etcd.clusterRef: EtcdCluster ", name, " has ", missing,
                       ": ", kRisk, "; use an EtcdCluster with security.tls and enableAuth")};
}

DcsSecurity Endpoints(const PostgresEtcdDcs& etcd) {
  bool https = !etcd.endpoints.empty();
  for (const std::string& e : etcd.endpoints) {
    std::optional<EtcdUrl> url = ParseEtcdUrl(e);
    https &= url.has_value() && url->scheme == "https";
  }
  if (!https) {
    return {
        false, "EtcdWithoutTls",
        absl::StrCat("spec.patroni.dcs.etcd.endpoints: http:// sends Patroni's keys and "
                     "credentials in clear text and ",
                     kRisk, " unless that etcd checks credentials; use https:// with tlsSecret")};
  }
  if (etcd.tls_secret.empty() && etcd.auth_secret.empty()) {
    return {false, "EtcdWithoutCredentials",
            absl::StrCat("spec.patroni.dcs.etcd: no tlsSecret or authSecret: an etcd that lets "
                         "Patroni in without credentials lets anyone in; ",
                         kRisk)};
  }
  return {true, "UserManagedEtcd",
          "an etcd you run, over TLS with credentials you manage: grant them only this cluster's "
          "prefix (docs/security.md)"};
}

}  // namespace

DcsSecurity DcsSecurityOf(const PostgresClusterSpec& spec, const EtcdCluster* ref) {
  if (!spec.patroni.dcs.UsesEtcd()) {
    return {true, "KubernetesApi",
            "Patroni's keys are objects of the cluster's namespace, guarded by Kubernetes RBAC"};
  }
  const PostgresEtcdDcs& etcd = spec.patroni.dcs.etcd;
  return etcd.cluster_ref.empty() ? Endpoints(etcd) : ClusterRef(etcd.cluster_ref, ref);
}

}  // namespace quorum::api

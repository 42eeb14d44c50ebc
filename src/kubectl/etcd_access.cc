#include "src/kubectl/etcd_access.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "api/etcdcluster.h"
#include "src/controllers/common/resources.h"
#include "src/kube/resources.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

constexpr int kClientPort = 2379;  // etcdcluster/names.h kClientPort

// A Secret's key, decoded; "" when absent or not base64.
std::string Key(const Json& secret, const std::string& key) {
  const Json data = secret.value("data", Json::object());
  std::string out;
  auto it = data.find(key);
  if (it == data.end() || !it->is_string() || !absl::Base64Unescape(it->get<std::string>(), &out)) {
    return "";
  }
  return out;
}

// Reads Secret `name` and returns its `keys`, all non-empty.
absl::StatusOr<std::vector<std::string>> ReadKeys(kube::Client& client, const std::string& ns,
                                                  const std::string& name, const char* field,
                                                  const std::vector<std::string>& keys) {
  absl::StatusOr<Json> secret = client.Get(kube::kSecrets, ns, name);
  if (absl::IsNotFound(secret.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("Secret ", name, " (", field, ") not found in namespace ", ns));
  }
  if (!secret.ok()) return secret.status();
  std::vector<std::string> out;
  for (const std::string& k : keys) {
    out.push_back(Key(*secret, k));
    if (out.back().empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Secret ", name, " (", field, ") has no ", k));
    }
  }
  return out;
}

}  // namespace

EtcdSecretRefs SecretRefsOf(const api::EtcdCluster& cluster) {
  const api::EtcdTlsSpec tls = api::EffectiveTls(cluster);
  EtcdSecretRefs refs;
  if (!tls.server_secret.empty()) refs.ca = api::ServerCaSecret(cluster);
  if (!tls.client_trusted_ca_secret.empty()) refs.client_cert = tls.client_secret;
  if (cluster.spec.security.enable_auth) {
    refs.auth = cluster.status.auth_secret_name.empty() ? cluster.metadata.name + "-root-auth"
                                                        : cluster.status.auth_secret_name;
  }
  return refs;
}

EtcdAccess AccessSkeleton(const api::EtcdCluster& cluster) {
  EtcdAccess a;
  const std::string& name = cluster.metadata.name;
  const std::string& ns = cluster.metadata.ns;
  a.cluster = name;
  a.scheme = api::EffectiveTls(cluster).server_secret.empty() ? "http" : "https";
  std::string service = cluster.spec.service_template.metadata.name;
  if (service.empty()) service = name;
  a.service_host = absl::StrCat(service, ".", ns, ".svc");
  a.port = kClientPort;
  for (const api::EtcdMemberStatus& m : cluster.status.members) {
    if (m.name.empty()) continue;
    a.members.push_back({.name = m.name,
                         .endpoint = absl::StrCat(a.scheme, "://", m.name, ".", name, "-headless.",
                                                  ns, ".svc:", kClientPort)});
  }
  std::sort(a.members.begin(), a.members.end(),
            [](const auto& x, const auto& y) { return x.name < y.name; });
  return a;
}

absl::StatusOr<EtcdAccess> FetchEtcdAccess(kube::Client& client, const std::string& ns,
                                           const Target& target) {
  if (target.kind == Kind::kPostgresCluster) {
    return absl::InvalidArgumentError(absl::StrCat(
        "this command is for EtcdClusters: ", target.name, " is named as a PostgresCluster"));
  }
  absl::StatusOr<Json> obj = client.Get(controllers::kEtcdClusters, ns, target.name);
  if (absl::IsNotFound(obj.status())) {
    return absl::NotFoundError(
        absl::StrCat("EtcdCluster \"", target.name, "\" not found in namespace ", ns));
  }
  if (!obj.ok()) return obj.status();
  absl::StatusOr<api::EtcdCluster> cluster = api::DecodeEtcdCluster(*obj);
  if (!cluster.ok()) return absl::DataLossError(cluster.status().message());
  EtcdAccess a = AccessSkeleton(*cluster);
  const EtcdSecretRefs refs = SecretRefsOf(*cluster);
  if (!refs.ca.empty()) {
    auto got = ReadKeys(client, ns, refs.ca, "spec.security.tls server CA", {"ca.crt"});
    if (!got.ok()) return got.status();
    a.ca_pem = (*got)[0];
  }
  if (!refs.client_cert.empty()) {
    auto got = ReadKeys(client, ns, refs.client_cert, "spec.security.tls.clientSecret",
                        {"tls.crt", "tls.key"});
    if (!got.ok()) return got.status();
    a.cert_pem = (*got)[0];
    a.key_pem = (*got)[1];
  }
  if (!refs.auth.empty()) {
    auto got = ReadKeys(client, ns, refs.auth, "status.authSecretName", {"username", "password"});
    if (!got.ok()) return got.status();
    a.user = (*got)[0];
    a.password = (*got)[1];
  }
  return a;
}

}  // namespace quorum::kubectl

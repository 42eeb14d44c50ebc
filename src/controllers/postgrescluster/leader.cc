#include "src/controllers/postgrescluster/leader.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/patroni/role_sync.h"

namespace quorum::postgrescluster {

absl::StatusOr<etcd::ClientConfig> EtcdClientConfigFor(const DcsResolution& dcs,
                                                       const SecretValue& secret,
                                                       absl::Duration timeout) {
  const auto* etcd_dcs = std::get_if<patroni::EtcdDcs>(&dcs.dcs);
  if (etcd_dcs == nullptr) return absl::InvalidArgumentError("not an etcd DCS");
  etcd::ClientConfig config;
  for (const std::string& host : etcd_dcs->hosts) {
    config.endpoints.push_back(absl::StrCat(etcd_dcs->protocol, "://", host));
  }
  if (!dcs.operator_tls_secret.empty()) {
    config.ca_pem = secret(dcs.operator_tls_secret, "ca.crt");
    config.cert_pem = secret(dcs.operator_tls_secret, "tls.crt");
    config.key_pem = secret(dcs.operator_tls_secret, "tls.key");
  }
  if (!dcs.operator_auth_secret.empty()) {
    config.username = secret(dcs.operator_auth_secret, "username");
    config.password = secret(dcs.operator_auth_secret, "password");
  }
  config.timeout = timeout;
  return config;
}

std::optional<std::string> ReadDcsLeader(const PostgresCluster& cluster, const DcsResolution& dcs,
                                         const SecretValue& secret, absl::Duration timeout) {
  if (!dcs.ready) return std::nullopt;
  absl::StatusOr<etcd::ClientConfig> config = EtcdClientConfigFor(dcs, secret, timeout);
  if (!config.ok()) return std::nullopt;
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(*std::move(config));
  if (!client.ok()) return std::nullopt;
  const patroni::ConfigInput input = BuildPatroniInput(cluster, dcs);
  absl::StatusOr<std::string> leader =
      patroni::LeaderFromEtcd(**client, input.key_namespace, input.scope);
  if (!leader.ok()) {
    spdlog::warn("reading the DCS leader of {}: {}", input.scope,
                 std::string(leader.status().message()));
    return std::nullopt;
  }
  return *leader;
}

std::optional<std::string> LeaderFromObject(const Json* object) {
  if (object == nullptr) return std::nullopt;
  return Str(At(*object, {"metadata", "annotations", "leader"}));
}

}  // namespace quorum::postgrescluster

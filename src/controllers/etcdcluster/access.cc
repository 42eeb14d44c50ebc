#include "src/controllers/etcdcluster/access.h"

#include "absl/strings/escaping.h"
#include "src/controllers/etcdcluster/auth.h"
#include "src/controllers/etcdcluster/resources.h"
#include "src/runtime/certs.h"
#include "src/runtime/random.h"

namespace quorum::etcdcluster {
namespace {

using runtime::ObjectPtr;

// A Secret's key, decoded; empty when absent.
std::string SecretKey(const ObjectPtr& secret, const std::string& key) {
  if (secret == nullptr) return "";
  const Json data = secret->value("data", Json::object());
  std::string out;
  if (!data.contains(key) || !data[key].is_string() ||
      !absl::Base64Unescape(data[key].get<std::string>(), &out)) {
    return "";
  }
  return out;
}

// The CommonName of the operator's client certificate ("" without one).
absl::StatusOr<std::string> ClientCommonName(const std::string& cert_pem) {
  if (cert_pem.empty()) return std::string();
  absl::StatusOr<runtime::CertificateInfo> cert = runtime::InspectCertificate(cert_pem);
  if (!cert.ok()) {
    return absl::FailedPreconditionError(
        "spec.security.tls.clientSecret: tls.crt holds no PEM certificate");
  }
  return cert->common_name;
}

}  // namespace

std::vector<std::string> ReadSecrets(const EtcdCluster& cluster) {
  const TlsMode tls = TlsOf(cluster);
  const api::EtcdTlsSpec spec = api::EffectiveTls(cluster);
  std::vector<std::string> out;
  if (tls.server) out.push_back(api::ServerCaSecret(cluster));
  if (tls.client && !spec.client_secret.empty()) out.push_back(spec.client_secret);
  if (AuthEnabledInSpec(cluster)) out.push_back(AuthSecretName(cluster));
  return out;
}

absl::Status ReadTlsMaterial(const runtime::Cache& cache, const EtcdCluster& cluster,
                             etcd::ClientConfig& cfg) {
  const TlsMode tls = TlsOf(cluster);
  const api::EtcdTlsSpec spec = api::EffectiveTls(cluster);
  const std::string& ns = cluster.metadata.ns;
  if (tls.server) {
    const std::string trust = api::ServerCaSecret(cluster);
    cfg.ca_pem = SecretKey(cache.Get(kSecrets, ns, trust), "ca.crt");
    if (cfg.ca_pem.empty()) {
      return absl::FailedPreconditionError(
          spec.server_trusted_ca_secret.empty()
              ? "Secret " + trust +
                    " (spec.security.tls.serverSecret) has no ca.crt, and "
                    "spec.security.tls.serverTrustedCASecret is not set: the operator has no CA "
                    "to verify the members' certificates with"
              : "Secret " + trust +
                    " (spec.security.tls.serverTrustedCASecret) is missing or has no ca.crt");
    }
  }
  if (tls.client) {
    const ObjectPtr secret = cache.Get(kSecrets, ns, spec.client_secret);
    cfg.cert_pem = SecretKey(secret, "tls.crt");
    cfg.key_pem = SecretKey(secret, "tls.key");
    if (cfg.cert_pem.empty() || cfg.key_pem.empty()) {
      return absl::FailedPreconditionError(
          "Secret " + spec.client_secret +
          " (spec.security.tls.clientSecret) is missing or lacks tls.crt/tls.key");
    }
  }
  return absl::OkStatus();
}

absl::Status ReadAuthCredentials(kube::Client& client, const runtime::Cache& cache,
                                 const EtcdCluster& cluster, etcd::ClientConfig& cfg) {
  absl::StatusOr<std::string> common_name = ClientCommonName(cfg.cert_pem);
  if (!common_name.ok()) return common_name.status();
  const std::string& ns = cluster.metadata.ns;
  const std::string name = AuthSecretName(cluster);
  ObjectPtr secret = cache.Get(kSecrets, ns, name);
  if (secret == nullptr) {
    absl::StatusOr<std::string> password = runtime::RandomPassword();
    if (!password.ok()) return password.status();
    absl::StatusOr<Json> made = client.Create(kSecrets, ns, BuildAuthSecret(cluster, *password));
    if (absl::IsAlreadyExists(made.status())) made = client.Get(kSecrets, ns, name);
    if (!made.ok()) {
      return absl::Status(made.status().code(), "cannot create Secret " + name + ": " +
                                                    std::string(made.status().message()));
    }
    secret = std::make_shared<const Json>(*std::move(made));
  }
  cfg.username = SecretKey(secret, "username");
  cfg.password = SecretKey(secret, "password");
  if (cfg.username.empty() || cfg.password.empty()) {
    return absl::FailedPreconditionError(
        "Secret " + name +
        " lacks username/password; delete it only together with etcd's root user");
  }
  // aenix's cert-only root: etcd (--client-cert-auth) takes the user from the
  // certificate when the client sends no token. The password stays in cfg for
  // EnsureAuthEnabled; the client ignores it without a username.
  if (*common_name == kRootUser) cfg.username.clear();
  return absl::OkStatus();
}

}  // namespace quorum::etcdcluster

#include "src/controllers/postgrescluster/tls.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/runtime/certs.h"

namespace quorum::postgrescluster {

std::vector<std::string> ServerCertDnsNames(const PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  std::set<std::string> names = {"localhost"};
  std::vector<std::string> services = {n.primary_service, n.replica_service, n.pods_service};
  if (UsesEndpoints(cluster)) services.push_back(n.config_service);
  // The repository host presents the members' certificate.
  if (HasVolumeRepos(cluster)) services.push_back(n.repo_host);
  for (const std::string& svc : services) {
    names.insert(svc);
    names.insert(svc + "." + n.ns);
    names.insert(svc + "." + n.ns + ".svc");
    names.insert(svc + "." + n.ns + ".svc." + kClusterDomain);
  }
  names.insert("*." + n.pods_service + "." + n.ns + ".svc");
  names.insert("*." + n.pods_service + "." + n.ns + ".svc." + kClusterDomain);
  return {names.begin(), names.end()};
}

std::string MemberDnsName(const PostgresCluster& cluster, const std::string& pod) {
  const Names n = NamesOf(cluster);
  return pod + "." + n.pods_service + "." + n.ns + ".svc";
}

std::string CaCommonName(const PostgresCluster& cluster) {
  return ("quorum-postgres-ca " + NamesOf(cluster).cluster).substr(0, 64);
}

std::string ServerCertCommonName(const PostgresCluster& cluster) {
  return NamesOf(cluster).primary_service.substr(0, 64);
}

absl::StatusOr<runtime::CertKeyPair> OperatorClientCerts::For(const std::string& cluster_key,
                                                              const runtime::CertKeyPair& ca,
                                                              absl::Time now) {
  {
    absl::MutexLock lock(&mu_);
    auto it = issued_.find(cluster_key);
    if (it != issued_.end() && it->second.ca_pem == ca.cert_pem && now < it->second.renew_at) {
      return it->second.cert;
    }
  }
  absl::StatusOr<runtime::CertKeyPair> cert =
      runtime::GenerateClientCert(ca, "quorum-operator", kOperatorClientValidity, now);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<absl::Time> not_after = runtime::CertificateNotAfter(cert->cert_pem);
  if (!not_after.ok()) return not_after.status();
  absl::MutexLock lock(&mu_);
  issued_[cluster_key] = Issued{ca.cert_pem, *cert, RenewalTime(now, *not_after)};
  return *cert;
}

void OperatorClientCerts::Forget(const std::string& cluster_key) {
  absl::MutexLock lock(&mu_);
  issued_.erase(cluster_key);
}

size_t OperatorClientCerts::size() const {
  absl::MutexLock lock(&mu_);
  return issued_.size();
}

Json BuildCaSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                   const std::string& ca_key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, NamesOf(cluster).ca_secret)},
          {"type", "Opaque"},
          {"data", controllers::EncodedSecretData({{"ca.crt", ca_pem}, {"ca.key", ca_key_pem}})}};
}

Json BuildServerTlsSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                          const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, NamesOf(cluster).tls_secret)},
          {"type", "kubernetes.io/tls"},
          {"data", controllers::EncodedSecretData(
                       {{"ca.crt", ca_pem}, {"tls.crt", cert_pem}, {"tls.key", key_pem}})}};
}

Json BuildPgBackRestClientSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                                 const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, NamesOf(cluster).pgbackrest_client_secret)},
          {"type", "kubernetes.io/tls"},
          {"data", controllers::EncodedSecretData(
                       {{"ca.crt", ca_pem}, {"tls.crt", cert_pem}, {"tls.key", key_pem}})}};
}

std::string MountedTlsSecret(const PostgresCluster& cluster) {
  return cluster.spec.tls.custom_secret.empty() ? NamesOf(cluster).tls_secret
                                                : cluster.spec.tls.custom_secret;
}

}  // namespace quorum::postgrescluster

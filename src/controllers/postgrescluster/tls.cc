#include "src/controllers/postgrescluster/tls.h"

#include <openssl/evp.h>

#include <algorithm>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "src/runtime/certs.h"

namespace quorum::postgrescluster {
namespace {

Json Encoded(const std::map<std::string, std::string>& data) {
  Json out = Json::object();
  for (const auto& [k, v] : data) out[k] = absl::Base64Escape(v);
  return out;
}

// SHA-256 of the memo's inputs, each preceded by its length (no two
// different input lists hash the same bytes).
std::array<unsigned char, 32> DigestOf(const std::vector<const std::string*>& inputs) {
  std::array<unsigned char, 32> out{};
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1;
  for (const std::string* in : inputs) {
    const std::string len = absl::StrCat(in->size(), ":");
    ok = ok && EVP_DigestUpdate(ctx, len.data(), len.size()) == 1 &&
         EVP_DigestUpdate(ctx, in->data(), in->size()) == 1;
  }
  unsigned int n = 0;
  ok = ok && EVP_DigestFinal_ex(ctx, out.data(), &n) == 1 && n == out.size();
  EVP_MD_CTX_free(ctx);
  if (!ok) out.fill(0);  // all zero: never remembered (see RenewalReason)
  return out;
}

}  // namespace

std::vector<std::string> ServerCertDnsNames(const PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  std::set<std::string> names = {"localhost"};
  std::vector<std::string> services = {n.primary_service, n.replica_service, n.pods_service};
  if (!UsesEtcd(cluster)) services.push_back(n.config_service);
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

absl::Time RenewalTime(absl::Time not_before, absl::Time not_after) {
  return not_after - (not_after - not_before) / 3;
}

std::string ServerCertRenewalReason(const std::string& cert_pem, const std::string& key_pem,
                                    const std::string& ca_pem,
                                    const std::vector<std::string>& want_dns, absl::Time now) {
  if (cert_pem.empty() || key_pem.empty()) return "no certificate yet";
  absl::StatusOr<runtime::CertificateInfo> info = runtime::InspectCertificate(cert_pem);
  if (!info.ok()) return "the stored certificate cannot be read";
  if (!runtime::CheckKeyMatchesCertificate(cert_pem, key_pem).ok()) {
    return "the stored key does not match the certificate";
  }
  if (!runtime::VerifyCertificate(cert_pem, ca_pem, now).ok()) {
    return "the certificate is not valid from the cluster's CA now";
  }
  std::vector<std::string> have = info->dns_names;
  std::sort(have.begin(), have.end());
  std::vector<std::string> want = want_dns;
  std::sort(want.begin(), want.end());
  if (have != want) return "the certificate's names differ from the cluster's";
  if (now >= RenewalTime(info->not_before, info->not_after)) {
    return "less than a third of the certificate's lifetime is left";
  }
  return "";
}

std::string ServerCertMemo::RenewalReason(const std::string& cluster_key,
                                          const std::string& cert_pem, const std::string& key_pem,
                                          const std::string& ca_pem,
                                          const std::vector<std::string>& want_dns, absl::Time now,
                                          std::optional<absl::Time>& renew_at) {
  std::vector<std::string> want = want_dns;
  std::sort(want.begin(), want.end());
  std::vector<const std::string*> inputs = {&cert_pem, &key_pem, &ca_pem};
  for (const std::string& name : want) inputs.push_back(&name);
  const std::array<unsigned char, 32> digest = DigestOf(inputs);
  const bool digested = digest != std::array<unsigned char, 32>{};
  {
    absl::MutexLock lock(&mu_);
    auto it = good_.find(cluster_key);
    if (digested && it != good_.end() && it->second.inputs == digest &&
        now < it->second.holds_until) {
      renew_at = it->second.renew_at;
      return "";
    }
  }
  std::string reason = ServerCertRenewalReason(cert_pem, key_pem, ca_pem, want, now);
  absl::StatusOr<runtime::CertificateInfo> info =
      reason.empty() ? runtime::InspectCertificate(cert_pem)
                     : absl::StatusOr<runtime::CertificateInfo>(absl::CancelledError(""));
  absl::StatusOr<absl::Time> ca_not_after =
      reason.empty() ? runtime::CertificateNotAfter(ca_pem) : absl::CancelledError("");
  absl::MutexLock lock(&mu_);
  if (!info.ok() || !ca_not_after.ok() || !digested) {
    good_.erase(cluster_key);
    return reason;
  }
  const absl::Time due = RenewalTime(info->not_before, info->not_after);
  renew_at = due;
  good_[cluster_key] = Good{digest, std::min(due, *ca_not_after), due};
  return reason;
}

void ServerCertMemo::Forget(const std::string& cluster_key) {
  absl::MutexLock lock(&mu_);
  good_.erase(cluster_key);
}

size_t ServerCertMemo::size() const {
  absl::MutexLock lock(&mu_);
  return good_.size();
}

Json BuildCaSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                   const std::string& ca_key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, NamesOf(cluster).ca_secret)},
          {"type", "Opaque"},
          {"data", Encoded({{"ca.crt", ca_pem}, {"ca.key", ca_key_pem}})}};
}

Json BuildServerTlsSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                          const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, NamesOf(cluster).tls_secret)},
          {"type", "kubernetes.io/tls"},
          {"data", Encoded({{"ca.crt", ca_pem}, {"tls.crt", cert_pem}, {"tls.key", key_pem}})}};
}

Json BuildPgBackRestClientSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                                 const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, NamesOf(cluster).pgbackrest_client_secret)},
          {"type", "kubernetes.io/tls"},
          {"data", Encoded({{"ca.crt", ca_pem}, {"tls.crt", cert_pem}, {"tls.key", key_pem}})}};
}

std::string MountedTlsSecret(const PostgresCluster& cluster) {
  return cluster.spec.tls.custom_secret.empty() ? NamesOf(cluster).tls_secret
                                                : cluster.spec.tls.custom_secret;
}

}  // namespace quorum::postgrescluster

#include "src/controllers/common/cert_renewal.h"

#include <openssl/evp.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/runtime/certs.h"

namespace quorum::controllers {
namespace {

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

absl::Time RenewalTime(absl::Time not_before, absl::Time not_after) {
  return not_after - (not_after - not_before) / 3;
}

std::string CertRenewalReason(const std::string& cert_pem, const std::string& key_pem,
                              const std::string& ca_pem, const std::vector<std::string>& want_dns,
                              absl::Time now, bool want_client_auth) {
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
  if (want_client_auth && !info->client_auth) {
    return "the certificate cannot authenticate as a client (issued before it had to)";
  }
  if (now >= RenewalTime(info->not_before, info->not_after)) {
    return "less than a third of the certificate's lifetime is left";
  }
  return "";
}

std::string CertRenewalMemo::RenewalReason(const std::string& cluster_key,
                                           const std::string& cert_pem, const std::string& key_pem,
                                           const std::string& ca_pem,
                                           const std::vector<std::string>& want_dns, absl::Time now,
                                           std::optional<absl::Time>& renew_at,
                                           bool want_client_auth) {
  std::vector<std::string> want = want_dns;
  std::sort(want.begin(), want.end());
  const std::string client_auth = want_client_auth ? "client-auth" : "";
  std::vector<const std::string*> inputs = {&cert_pem, &key_pem, &ca_pem, &client_auth};
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
  std::string reason = CertRenewalReason(cert_pem, key_pem, ca_pem, want, now, want_client_auth);
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

void CertRenewalMemo::Forget(const std::string& cluster_key) {
  absl::MutexLock lock(&mu_);
  good_.erase(cluster_key);
}

size_t CertRenewalMemo::size() const {
  absl::MutexLock lock(&mu_);
  return good_.size();
}

}  // namespace quorum::controllers

#include "src/controllers/common/certificate_metrics.h"

#include "absl/status/statusor.h"
#include "src/base/json_access.h"
#include "src/controllers/common/secret_data.h"
#include "src/runtime/certs.h"

namespace quorum::controllers {

using json_access::At;
using json_access::Str;

std::optional<absl::Time> TlsSecretNotAfter(const nlohmann::json& secret) {
  if (Str(&secret, "type") != "kubernetes.io/tls") return std::nullopt;
  const nlohmann::json& managed_by =
      At(secret, {"metadata", "labels", "app.kubernetes.io/managed-by"});
  if (!managed_by.is_string() || managed_by.get<std::string>() != "quorum-operator") {
    return std::nullopt;
  }
  const std::string pem = SecretValue(secret, "tls.crt");
  if (pem.empty()) return std::nullopt;
  absl::StatusOr<absl::Time> not_after = runtime::CertificateNotAfter(pem);
  if (!not_after.ok()) return std::nullopt;
  return *not_after;
}

std::vector<CertificateExpiry> CertificateExpiryMemo::Collect(
    const std::vector<runtime::ObjectPtr>& secrets) {
  std::map<std::string, Entry> previous;
  {
    absl::MutexLock lock(&mu_);
    previous = by_key_;
  }
  std::map<std::string, Entry> now;
  std::vector<CertificateExpiry> out;
  for (const runtime::ObjectPtr& secret : secrets) {
    const nlohmann::json* meta = json_access::Child(secret.get(), "metadata");
    const std::string ns = Str(meta, "namespace"), name = Str(meta, "name");
    const std::string key = ns + "/" + name;
    const std::string version = Str(meta, "uid") + "/" + Str(meta, "resourceVersion");
    auto it = previous.find(key);
    Entry entry = it != previous.end() && it->second.version == version
                      ? it->second
                      : Entry{version, TlsSecretNotAfter(*secret)};
    if (entry.not_after) out.push_back({ns, name, *entry.not_after});
    now[key] = std::move(entry);
  }
  absl::MutexLock lock(&mu_);
  by_key_ = std::move(now);
  return out;
}

size_t CertificateExpiryMemo::size() const {
  absl::MutexLock lock(&mu_);
  return by_key_.size();
}

}  // namespace quorum::controllers

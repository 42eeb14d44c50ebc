#include "src/runtime/webhook_certs.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "src/kube/errors.h"
#include "src/kube/resources.h"
#include "src/runtime/certs.h"

namespace quorum::runtime {
namespace {

using kube::Json;

using kube::kSecrets;
const kube::GroupVersionResource& kValidating = kube::kValidatingWebhookConfigurations;
const kube::GroupVersionResource& kMutating = kube::kMutatingWebhookConfigurations;
constexpr int kAttempts = 5;  // read-modify-write rounds lost to other replicas before Aborted
constexpr char kCaCrt[] = "ca.crt";
constexpr char kTlsCrt[] = "tls.crt";
constexpr char kTlsKey[] = "tls.key";

struct Bundle {
  std::string ca_crt, tls_crt, tls_key;
};

absl::Status Validate(const SelfManagedCertOptions& o) {
  if (o.secret_namespace.empty() || o.secret_name.empty()) {
    return absl::InvalidArgumentError("webhook certificates need a Secret namespace and name");
  }
  if (o.cert_dir.empty()) return absl::InvalidArgumentError("webhook certificates need cert_dir");
  if (o.dns_names.empty() && o.ip_addresses.empty()) {
    return absl::InvalidArgumentError("webhook certificates need a DNS name or IP address");
  }
  if (o.validity <= absl::ZeroDuration() || o.renew_before >= o.validity) {
    return absl::InvalidArgumentError(
        "webhook certificate validity must be positive and longer than renew_before");
  }
  return absl::OkStatus();
}

// Canonical text of an IP address ("::0001" -> "::1"); the input when invalid.
std::string CanonicalIp(const std::string& ip) {
  unsigned char buf[16];
  char text[INET6_ADDRSTRLEN] = {};
  const int family = ip.find(':') == std::string::npos ? AF_INET : AF_INET6;
  if (inet_pton(family, ip.c_str(), buf) != 1 ||
      inet_ntop(family, buf, text, sizeof(text)) == nullptr) {
    return ip;
  }
  return text;
}

std::optional<Bundle> DecodeSecret(const Json& secret) {
  auto data = secret.find("data");
  if (data == secret.end() || !data->is_object()) return std::nullopt;
  Bundle b;
  for (auto [key, out] : {std::pair{kCaCrt, &b.ca_crt}, std::pair{kTlsCrt, &b.tls_crt},
                          std::pair{kTlsKey, &b.tls_key}}) {
    auto it = data->find(key);
    if (it == data->end() || !it->is_string() ||
        !absl::Base64Unescape(it->get<std::string>(), out) || out->empty()) {
      return std::nullopt;
    }
  }
  return b;
}

// OK when `b` can serve as is; otherwise why not (never quoting key material).
absl::Status CheckBundle(const Bundle& b, const SelfManagedCertOptions& o, absl::Time now) {
  if (absl::Status s = VerifyCertificate(b.tls_crt, b.ca_crt, now); !s.ok()) return s;
  if (absl::Status s = CheckKeyMatchesCertificate(b.tls_crt, b.tls_key); !s.ok()) return s;
  for (const std::string* pem : {&b.ca_crt, &b.tls_crt}) {
    absl::StatusOr<absl::Time> not_after = CertificateNotAfter(*pem);
    if (!not_after.ok()) return not_after.status();
    if (*not_after - now < o.renew_before) {
      return absl::FailedPreconditionError(
          absl::StrCat("a certificate expires at ", absl::FormatTime(*not_after)));
    }
  }
  absl::StatusOr<CertificateInfo> info = InspectCertificate(b.tls_crt);
  if (!info.ok()) return info.status();
  for (const std::string& dns : o.dns_names) {
    if (std::find(info->dns_names.begin(), info->dns_names.end(), dns) == info->dns_names.end()) {
      return absl::FailedPreconditionError(absl::StrCat("no SAN for DNS name ", dns));
    }
  }
  for (const std::string& ip : o.ip_addresses) {
    if (std::find(info->ip_addresses.begin(), info->ip_addresses.end(), CanonicalIp(ip)) ==
        info->ip_addresses.end()) {
      return absl::FailedPreconditionError(absl::StrCat("no SAN for IP address ", ip));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Bundle> Generate(const SelfManagedCertOptions& o, absl::Time now) {
  absl::StatusOr<CertKeyPair> ca = GenerateCA("quorum-webhook-ca", o.validity, now);
  if (!ca.ok()) return ca.status();
  absl::StatusOr<CertKeyPair> serving =
      GenerateServingCert(*ca, "", o.dns_names, o.ip_addresses, o.validity, now);
  if (!serving.ok()) return serving.status();
  return Bundle{ca->cert_pem, serving->cert_pem, serving->key_pem};
}

void PutData(Json& secret, const Bundle& b) {
  Json& data = secret["data"];
  if (!data.is_object()) data = Json::object();
  data[kCaCrt] = absl::Base64Escape(b.ca_crt);
  data[kTlsCrt] = absl::Base64Escape(b.tls_crt);
  data[kTlsKey] = absl::Base64Escape(b.tls_key);
}

// The Secret's bundle after making it usable, creating or replacing it as
// needed. Races between replicas end with everyone using the winner's.
absl::StatusOr<Bundle> EnsureSecret(kube::Client& client, const SelfManagedCertOptions& o,
                                    absl::Time now) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    absl::StatusOr<Json> got = client.Get(kSecrets, o.secret_namespace, o.secret_name);
    if (!got.ok() && !absl::IsNotFound(got.status())) return got.status();
    if (got.ok()) {
      std::optional<Bundle> stored = DecodeSecret(*got);
      absl::Status usable = stored.has_value()
                                ? CheckBundle(*stored, o, now)
                                : absl::FailedPreconditionError("missing or undecodable data");
      if (usable.ok()) return *stored;
      spdlog::info("regenerating webhook certificates in Secret {}/{}: {}", o.secret_namespace,
                   o.secret_name, std::string(usable.message()));
    }
    absl::StatusOr<Bundle> fresh = Generate(o, now);
    if (!fresh.ok()) return fresh.status();
    absl::Status written;
    if (got.ok()) {
      Json secret = *std::move(got);  // keeps resourceVersion: a racing writer gets Conflict
      PutData(secret, *fresh);
      written = client.Update(kSecrets, o.secret_namespace, secret).status();
    } else {
      Json secret = {{"apiVersion", "v1"},
                     {"kind", "Secret"},
                     {"metadata",
                      {{"name", o.secret_name},
                       {"namespace", o.secret_namespace},
                       {"labels", {{"app.kubernetes.io/managed-by", "quorum"}}}}},
                     {"type", "kubernetes.io/tls"}};
      PutData(secret, *fresh);
      written = client.Create(kSecrets, o.secret_namespace, secret).status();
    }
    if (written.ok()) return *std::move(fresh);
    if (!kube::IsConflict(written) && !absl::IsAlreadyExists(written)) return written;
  }
  return absl::AbortedError(absl::StrCat("Secret ", o.secret_namespace, "/", o.secret_name,
                                         " kept changing while ensuring webhook certificates"));
}

std::string ErrnoText(const std::string& what, const std::string& path) {
  return absl::StrCat(what, " ", path, ": ", std::strerror(errno));
}

// Replaces dir/name with `content` through a temporary file and rename(2), so
// readers see the old or the new file, never a partial one. Unchanged content
// is not rewritten.
absl::Status WriteAtomically(const std::string& dir, const std::string& name,
                             const std::string& content, mode_t mode) {
  const std::string path = absl::StrCat(dir, "/", name);
  {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream old;
    if (in && (old << in.rdbuf()) && old.str() == content) return absl::OkStatus();
  }
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::string tmp = absl::StrCat(dir, "/.", name, ".tmp-", getpid(), "-", rng());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return absl::InternalError(ErrnoText("cannot create", tmp));
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = done == content.size() && fsync(fd) == 0;
  const std::string error = ok ? "" : ErrnoText("cannot write", tmp);
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string e = ok ? ErrnoText("cannot rename to", path) : error;
    unlink(tmp.c_str());
    return absl::InternalError(e);
  }
  return absl::OkStatus();
}

absl::Status WriteFiles(const std::string& dir, const Bundle& b) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  // The key before the certificate: a server reloading in between sees a
  // mismatched pair and keeps its previous one until the certificate lands.
  if (absl::Status s = WriteAtomically(dir, kCaCrt, b.ca_crt, 0644); !s.ok()) return s;
  if (absl::Status s = WriteAtomically(dir, kTlsKey, b.tls_key, 0600); !s.ok()) return s;
  return WriteAtomically(dir, kTlsCrt, b.tls_crt, 0644);
}

// Sets clientConfig.caBundle of every webhook in one configuration; writes
// only when something differs.
absl::Status PatchCaBundle(kube::Client& client, const kube::GroupVersionResource& gvr,
                           const char* kind, const std::string& name,
                           const std::string& ca_bundle) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    absl::StatusOr<Json> got = client.Get(gvr, "", name);
    if (absl::IsNotFound(got.status())) {
      return absl::NotFoundError(absl::StrCat(kind, " ", name, " does not exist"));
    }
    if (!got.ok()) return got.status();
    bool changed = false;
    if (auto webhooks = got->find("webhooks"); webhooks != got->end() && webhooks->is_array()) {
      for (Json& webhook : *webhooks) {
        if (!webhook.is_object()) continue;
        Json& config = webhook["clientConfig"];
        if (!config.is_object()) config = Json::object();
        auto current = config.find("caBundle");
        if (current == config.end() || !current->is_string() || *current != ca_bundle) {
          config["caBundle"] = ca_bundle;
          changed = true;
        }
      }
    }
    if (!changed) return absl::OkStatus();
    absl::Status written = client.Update(gvr, "", *got).status();
    if (written.ok()) {
      spdlog::info("set the caBundle of {} {}", kind, name);
      return absl::OkStatus();
    }
    if (!kube::IsConflict(written)) return written;
  }
  return absl::AbortedError(absl::StrCat(kind, " ", name, " kept changing while setting caBundle"));
}

}  // namespace

absl::Status EnsureWebhookCertificates(kube::Client& client, const SelfManagedCertOptions& o,
                                       absl::Time now) {
  if (absl::Status s = Validate(o); !s.ok()) return s;
  absl::StatusOr<Bundle> bundle = EnsureSecret(client, o, now);
  if (!bundle.ok()) return bundle.status();
  if (absl::Status s = WriteFiles(o.cert_dir, *bundle); !s.ok()) return s;
  const std::string ca_bundle = absl::Base64Escape(bundle->ca_crt);
  absl::Status first_error;
  for (const std::string& name : o.validating_configurations) {
    first_error.Update(
        PatchCaBundle(client, kValidating, "ValidatingWebhookConfiguration", name, ca_bundle));
  }
  for (const std::string& name : o.mutating_configurations) {
    first_error.Update(
        PatchCaBundle(client, kMutating, "MutatingWebhookConfiguration", name, ca_bundle));
  }
  return first_error;
}

}  // namespace quorum::runtime

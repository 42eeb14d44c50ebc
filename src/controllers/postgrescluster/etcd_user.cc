#include "src/controllers/postgrescluster/etcd_user.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/etcd/keys.h"
#include "src/runtime/certs.h"
#include "src/runtime/random.h"

namespace quorum::postgrescluster {
namespace {

using runtime::ObjectPtr;

constexpr absl::Duration kEtcdTimeout = absl::Seconds(5);

// The Secret `name` from the cache, or created from `build()` when missing
// (AlreadyExists: read back from the API server, the cache may lag).
absl::StatusOr<Json> GetOrCreate(kube::Client& client, const runtime::Cache& cache,
                                 const std::string& ns, const std::string& name,
                                 const std::function<absl::StatusOr<Json>()>& build) {
  if (ObjectPtr cached = cache.Get(kSecrets, ns, name)) return *cached;
  absl::StatusOr<Json> secret = build();
  if (!secret.ok()) return secret.status();
  absl::StatusOr<Json> made = client.Create(kSecrets, ns, *secret);
  if (absl::IsAlreadyExists(made.status())) made = client.Get(kSecrets, ns, name);
  return made;
}

// Less than kClientCertRenewBefore (or a third of its lifetime) left, or
// unparsable.
bool ExpiresSoon(const std::string& cert_pem, absl::Time now) {
  absl::StatusOr<runtime::CertificateInfo> info = runtime::InspectCertificate(cert_pem);
  if (!info.ok()) return true;
  return info->not_after - now <
         std::min(kClientCertRenewBefore, (info->not_after - info->not_before) / 3);
}

// Step 2: the pods' client certificate, issued when missing and rewritten in
// place when it no longer fits (the kubelet swaps the files; Patroni's etcd
// client reads them at each new connection). Once per process (`verify_cas`)
// a stored certificate is checked against the CAs, else only for its expiry
// (the CA Secrets are read through the API server). `renewed` says why it
// was rewritten ("" when it was not). FailedPrecondition names a CA problem;
// other errors are the API server's.
absl::Status EnsureClientCert(kube::Client& client, const runtime::Cache& cache,
                              const PostgresCluster& cluster, const PodEtcdAccess& access,
                              bool verify_cas, absl::Time now, std::string& renewed) {
  const std::string ns = cluster.metadata.ns;
  ObjectPtr stored = cache.Get(kSecrets, ns, access.cert_secret);
  if (stored != nullptr && !verify_cas &&
      !ExpiresSoon(controllers::SecretValue(*stored, "tls.crt"), now)) {
    return absl::OkStatus();
  }
  ObjectPtr ca_secret = cache.Get(kSecrets, ns, access.client_ca_secret);
  ObjectPtr server_ca_secret = cache.Get(kSecrets, ns, access.server_ca_secret);
  if (ca_secret == nullptr || server_ca_secret == nullptr) {
    return absl::FailedPreconditionError("Secret " + access.client_ca_secret + " or " +
                                         access.server_ca_secret + " is gone");
  }
  const SigningCa ca = SigningCaFrom(*ca_secret);
  const std::string server_ca = controllers::SecretValue(*server_ca_secret, "ca.crt");
  if (stored != nullptr && !NeedsNewClientCert(controllers::SecretValue(*stored, "tls.crt"),
                                               controllers::SecretValue(*stored, "ca.crt"),
                                               ca.cert_pem, server_ca, now)) {
    return absl::OkStatus();
  }
  absl::StatusOr<runtime::CertKeyPair> cert = runtime::GenerateClientCert(
      {ca.cert_pem, ca.key_pem}, "quorum-postgres", kClientCertValidity, now);
  if (!cert.ok()) {
    return absl::FailedPreconditionError(
        "cannot issue the pods' etcd client certificate from "
        "Secret " +
        access.client_ca_secret + ": " + std::string(cert.status().message()));
  }
  Json secret = BuildEtcdClientSecret(cluster, server_ca, cert->cert_pem, cert->key_pem);
  if (stored == nullptr) {
    absl::StatusOr<Json> made = client.Create(kSecrets, ns, secret);
    return absl::IsAlreadyExists(made.status()) ? absl::OkStatus() : made.status();
  }
  // In place, with the resourceVersion read: a concurrent change wins and is
  // looked at again.
  secret["metadata"]["resourceVersion"] = At(*stored, {"metadata", "resourceVersion"});
  absl::StatusOr<Json> updated = client.Update(kSecrets, ns, secret);
  if (!updated.ok()) return updated.status();
  renewed = "it no longer matched the EtcdCluster's CAs (Secrets " + access.client_ca_secret +
            ", " + access.server_ca_secret + ") or expired soon";
  return absl::OkStatus();
}

absl::Status Unready(runtime::EventRecorder& recorder, const Json& stored, DcsResolution& dcs,
                     std::string message) {
  dcs.ready = false;
  dcs.reason = "EtcdUserNotReady";
  dcs.message = std::move(message);
  recorder.Warning(stored, dcs.reason, dcs.message);
  return absl::OkStatus();
}

}  // namespace

Json BuildEtcdUserSecret(const PostgresCluster& cluster, const std::string& user,
                         const std::string& password) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, EtcdUserSecretName(cluster))},
          {"type", "kubernetes.io/basic-auth"},
          {"data", controllers::EncodedSecretData({{"username", user}, {"password", password}})}};
}

Json BuildEtcdClientSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                           const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, EtcdClientSecretName(cluster))},
          {"type", "kubernetes.io/tls"},
          {"data", controllers::EncodedSecretData(
                       {{"ca.crt", ca_pem}, {"tls.crt", cert_pem}, {"tls.key", key_pem}})}};
}

bool NeedsNewClientCert(const std::string& stored_cert_pem, const std::string& stored_ca_pem,
                        const std::string& signing_ca_pem, const std::string& server_ca_pem,
                        absl::Time now) {
  if (stored_ca_pem != server_ca_pem) return true;
  if (!runtime::VerifyCertificate(stored_cert_pem, signing_ca_pem, now).ok()) return true;
  return ExpiresSoon(stored_cert_pem, now);
}

SigningCa SigningCaFrom(const Json& client_ca_secret) {
  if (std::string key = controllers::SecretValue(client_ca_secret, "tls.key"); !key.empty()) {
    return {controllers::SecretValue(client_ca_secret, "tls.crt"), key};
  }
  if (std::string key = controllers::SecretValue(client_ca_secret, "ca.key"); !key.empty()) {
    return {controllers::SecretValue(client_ca_secret, "ca.crt"), key};
  }
  return {};
}

absl::Status EnsurePodEtcdUser(etcd::Client& root, const PodEtcdAccess& access,
                               const std::string& password) {
  absl::Status s = root.RoleAdd(access.user);
  if (!s.ok() && !absl::IsFailedPrecondition(s)) return s;  // exists already
  s = root.RoleGrantPermission(access.user, access.key_prefix,
                               etcd::PrefixRangeEnd(access.key_prefix),
                               etcd::Permission::kReadWrite);
  if (!s.ok()) return s;
  // A user left by an earlier attempt (or a Secret made again) may carry
  // another password: set it.
  s = root.UserAdd(access.user, password);
  if (absl::IsFailedPrecondition(s)) s = root.UserChangePassword(access.user, password);
  if (!s.ok()) return s;
  return root.UserGrantRole(access.user, access.user);
}

absl::Status RemovePodEtcdUser(etcd::Client& root, const PodEtcdAccess& access) {
  if (absl::Status s = root.UserDelete(access.user); !s.ok()) return s;
  return root.RoleDelete(access.user);
}

absl::Status PodEtcdAccessKeeper::Ensure(kube::Client& client, const runtime::Cache& cache,
                                         runtime::EventRecorder& recorder, const Json& stored,
                                         const PostgresCluster& cluster, DcsResolution& dcs,
                                         absl::Time now) {
  if (!dcs.ready || !dcs.pod_access) return absl::OkStatus();
  const PodEtcdAccess& access = *dcs.pod_access;
  const std::string ns = cluster.metadata.ns;
  absl::StatusOr<Json> secret =
      GetOrCreate(client, cache, ns, access.password_secret, [&]() -> absl::StatusOr<Json> {
        absl::StatusOr<std::string> password = runtime::RandomPassword();
        if (!password.ok()) return password.status();
        return BuildEtcdUserSecret(cluster, access.user, *password);
      });
  if (!secret.ok()) return secret.status();
  const std::string password = controllers::SecretValue(*secret, "password");
  if (password.empty() || controllers::SecretValue(*secret, "username") != access.user) {
    return Unready(recorder, stored, dcs,
                   "Secret " + access.password_secret +
                       " lacks the etcd user's username/password; delete it and Quorum makes a "
                       "new one");
  }
  const std::string key = ns + "/" + cluster.metadata.name;
  const std::string version =
      absl::StrCat(At(*secret, {"metadata", "uid"}).dump(), "/",
                   At(*secret, {"metadata", "resourceVersion"}).dump(), "/", access.key_prefix);
  bool done = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = done_.find(key);
    done = it != done_.end() && it->second == version;
  }
  if (!access.cert_secret.empty()) {
    std::string renewed;
    absl::Status s =
        EnsureClientCert(client, cache, cluster, access, /*verify_cas=*/!done, now, renewed);
    if (absl::IsFailedPrecondition(s)) {
      return Unready(recorder, stored, dcs, std::string(s.message()));
    }
    if (!s.ok()) return s;
    if (!renewed.empty()) {
      recorder.Normal(stored, "EtcdClientCertRenewed",
                      "rewrote Secret " + access.cert_secret + " in place: " + renewed);
    }
  }
  if (done) return absl::OkStatus();
  absl::StatusOr<etcd::ClientConfig> config = EtcdClientConfigFor(
      dcs,
      [&](const std::string& name, const char* k) -> std::string {
        ObjectPtr s = cache.Get(kSecrets, ns, name);
        return s == nullptr ? "" : controllers::SecretValue(*s, k);
      },
      kEtcdTimeout);
  absl::Status made = config.status();
  if (config.ok()) {
    absl::StatusOr<std::unique_ptr<etcd::Client>> root = etcd::Client::Create(*std::move(config));
    made = root.ok() ? EnsurePodEtcdUser(**root, access, password) : root.status();
  }
  if (!made.ok()) {
    return Unready(
        recorder, stored, dcs,
        absl::StrCat("cannot make the pods' etcd user ", access.user, ": ", made.message()));
  }
  recorder.Normal(
      stored, "EtcdUserReady",
      absl::StrCat("etcd user ", access.user, " may read and write only ", access.key_prefix));
  absl::MutexLock lock(&mu_);
  done_[key] = version;
  return absl::OkStatus();
}

void PodEtcdAccessKeeper::Forget(const std::string& key) {
  absl::MutexLock lock(&mu_);
  done_.erase(key);
}

size_t PodEtcdAccessKeeper::size() const {
  absl::MutexLock lock(&mu_);
  return done_.size();
}

}  // namespace quorum::postgrescluster

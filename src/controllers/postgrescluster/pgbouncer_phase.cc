#include "src/controllers/postgrescluster/pgbouncer_phase.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/strings.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/pgbouncer.h"
#include "src/controllers/postgrescluster/pgbouncer_sql.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/runtime/certs.h"
#include "src/runtime/random.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

namespace {

// Created once. One made before the admin console's user existed gains its
// password (and userlist.txt its line) once; quorum_pooler's stays.
absl::Status EnsureAuthSecret(const Phase& p, const PgBouncerNames& n) {
  const ObjectPtr stored = p.cache.Get(kSecrets, p.n.ns, n.auth_secret);
  if (stored != nullptr && !controllers::SecretValue(*stored, kPgBouncerAdminPasswordKey).empty()) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> admin = runtime::RandomPassword();
  if (!admin.ok()) return admin.status();
  if (stored != nullptr) {
    Json secret =
        BuildPgBouncerAuthSecret(p.cluster, controllers::SecretValue(*stored, "password"), *admin);
    secret["metadata"]["resourceVersion"] = At(*stored, {"metadata", "resourceVersion"});
    absl::StatusOr<Json> wrote = p.client.Update(kSecrets, p.n.ns, secret);  // Conflict: retried
    if (!wrote.ok()) return wrote.status();
    p.recorder.Normal(p.stored, "SecretUpdated",
                      "added the pooler's admin console user to Secret " + n.auth_secret);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> password = runtime::RandomPassword();
  if (!password.ok()) return password.status();
  absl::StatusOr<Json> made =
      p.client.Create(kSecrets, p.n.ns, BuildPgBouncerAuthSecret(p.cluster, *password, *admin));
  if (absl::IsAlreadyExists(made.status())) return absl::OkStatus();  // the cache lagged
  if (!made.ok()) return made.status();
  p.recorder.Normal(p.stored, "SecretCreated",
                    "created the pooler's credentials in Secret " + n.auth_secret);
  return absl::OkStatus();
}

// The pooler's certificate from the cluster's CA, as EnsureTls makes the members'.
absl::Status EnsurePgBouncerCert(const Phase& p, const PgBouncerNames& n, ServerCertMemo& memo,
                                 TlsState& tls) {
  const std::vector<std::string> dns = PgBouncerCertDnsNames(p.cluster);
  ObjectPtr stored = p.cache.Get(kSecrets, p.n.ns, n.tls_secret);
  std::string reason = "no certificate yet";
  std::optional<absl::Time> renew_at;
  if (stored != nullptr) {
    const std::string cert = controllers::SecretValue(*stored, "tls.crt");
    reason = controllers::SecretValue(*stored, "ca.crt") != tls.ca.cert_pem
                 ? "the CA changed"
                 : memo.RenewalReason(p.n.ns + "/" + n.tls_secret, cert,
                                      controllers::SecretValue(*stored, "tls.key"), tls.ca.cert_pem,
                                      dns, p.now, renew_at);
    if (reason.empty()) {
      tls.pgbouncer_tls_digest = PgBouncerDigest({cert});
      if (renew_at.has_value())
        tls.renew_at = std::min(tls.renew_at.value_or(*renew_at), *renew_at);
      return absl::OkStatus();
    }
  }
  absl::StatusOr<runtime::CertKeyPair> cert = runtime::GenerateServingCert(
      tls.ca, n.name.substr(0, 64), dns, {}, kServerCertValidity, p.now);
  if (!cert.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot issue the pooler's certificate: ", cert.status().message()));
  }
  Json secret = BuildPgBouncerTlsSecret(p.cluster, tls.ca.cert_pem, cert->cert_pem, cert->key_pem);
  absl::StatusOr<Json> wrote;
  if (stored == nullptr) {
    wrote = p.client.Create(kSecrets, p.n.ns, secret);
    if (absl::IsAlreadyExists(wrote.status())) return absl::OkStatus();  // next time
  } else {
    secret["metadata"]["resourceVersion"] = At(*stored, {"metadata", "resourceVersion"});
    wrote = p.client.Update(kSecrets, p.n.ns, secret);
  }
  if (!wrote.ok()) return wrote.status();
  tls.pgbouncer_tls_digest = PgBouncerDigest({cert->cert_pem});
  p.recorder.Normal(p.stored, stored == nullptr ? "CertificateIssued" : "CertificateRenewed",
                    absl::StrCat("Secret ", n.tls_secret, ": ", reason));
  return absl::OkStatus();
}

// The pgbouncer-* keys of the spec.users connection Secrets (the cache's
// copy; a Secret not cached yet comes back with its own watch event).
absl::Status EnsureCredentialKeys(const Phase& p) {
  for (const api::PostgresUserSpec& u : p.cluster.spec.users) {
    const std::string name = UserSecretName(p.cluster, u.name);
    ObjectPtr cached = p.cache.Get(kSecrets, p.n.ns, name);
    if (cached == nullptr) continue;
    std::optional<Json> data = PgBouncerCredentialData(p.cluster, At(*cached, {"data"}));
    if (!data.has_value()) continue;
    Json updated = *cached;
    updated["data"] = *std::move(data);
    absl::StatusOr<Json> wrote = p.client.Update(kSecrets, p.n.ns, updated);  // Conflict: retried
    if (!wrote.ok()) return wrote.status();
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EnsurePgBouncerSecrets(const Phase& p, ServerCertMemo& memo, TlsState& tls) {
  if (HasPgBouncer(p.cluster)) {
    const PgBouncerNames n = PgBouncerNamesOf(p.cluster);
    if (absl::Status s = EnsureAuthSecret(p, n); !s.ok()) return s;
    if (p.cluster.spec.tls.custom_secret.empty()) {
      if (absl::Status s = EnsurePgBouncerCert(p, n, memo, tls); !s.ok()) return s;
    }
  }
  return EnsureCredentialKeys(p);
}

void AppendPgBouncerObjects(const Phase& p,
                            std::vector<std::pair<kube::GroupVersionResource, Json>>& desired) {
  if (!HasPgBouncer(p.cluster)) return;
  desired.emplace_back(kConfigMaps, BuildPgBouncerConfigMap(p.cluster));
  desired.emplace_back(kServices, BuildPgBouncerService(p.cluster));
  if (std::optional<Json> policy = BuildPgBouncerNetworkPolicy(p.cluster, p.operator_peer)) {
    desired.emplace_back(kNetworkPolicies, *std::move(policy));
  }
  desired.emplace_back(kDeployments, BuildPgBouncerDeployment(p.cluster, p.pgbouncer_tls_digest));
}

absl::Status DeleteUnwantedPgBouncerObjects(const Phase& p) {
  const std::string name = PgBouncerNamesOf(p.cluster).name;
  const bool on = HasPgBouncer(p.cluster);
  std::vector<kube::GroupVersionResource> unwanted;
  if (!on) unwanted = {kDeployments, kServices, kConfigMaps};
  if (!on || !p.cluster.spec.network_policy.enabled) unwanted.push_back(kNetworkPolicies);
  bool deleted_deployment = false;
  for (const kube::GroupVersionResource& gvr : unwanted) {
    const ObjectPtr cached = p.cache.Get(gvr, p.n.ns, name);
    if (cached == nullptr || controllers::BeingDeleted(*cached)) continue;
    absl::Status s = p.client.Delete(gvr, p.n.ns, name);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
    deleted_deployment |= gvr == kDeployments;
  }
  if (deleted_deployment) {
    p.recorder.Normal(p.stored, "PgBouncerRemoved",
                      "spec.proxy.pgBouncer was removed: deleted the pooler " + name);
  }
  return absl::OkStatus();
}

std::string PgBouncerRoleKeeper::Ensure(const Phase& p, const std::string& primary,
                                        const std::vector<ObjectPtr>& pods,
                                        const std::string& ca_pem) {
  if (!HasPgBouncer(p.cluster)) return "";
  std::string host;
  for (const ObjectPtr& pod : pods) {
    if (Str(At(*pod, {"metadata", "name"})) == primary) host = Str(At(*pod, {"status", "podIP"}));
  }
  const ObjectPtr superuser = p.cache.Get(kSecrets, p.n.ns, p.n.superuser_secret);
  const ObjectPtr auth = p.cache.Get(kSecrets, p.n.ns, PgBouncerNamesOf(p.cluster).auth_secret);
  if (host.empty() || superuser == nullptr || auth == nullptr) return "";
  const std::string key = absl::StrCat(
      primary, "|", host, "|", Str(At(*superuser, {"metadata", "resourceVersion"})), "|",
      Str(At(*auth, {"metadata", "resourceVersion"})), "|", p.cluster.metadata.uid);
  const std::string object = p.n.ns + "/" + p.n.cluster;
  {
    absl::MutexLock lock(&mu_);
    auto it = applied_.find(object);
    if (it != applied_.end() && it->second == key) return "";
  }
  absl::Status s =
      EnsurePgBouncerRole({.host = MemberDnsName(p.cluster, primary),
                           .hostaddr = host,
                           .port = kPostgresPort,
                           .user = std::string(api::kSuperuserName),
                           .password = controllers::SecretValue(*superuser, "password"),
                           .ca_pem = ca_pem},
                          controllers::SecretValue(*auth, "password"));
  if (!s.ok()) {
    const std::string message =
        absl::StrCat("creating the pooler's role ", Absl(api::kPoolerUserName), ": ", s.message());
    p.recorder.Warning(p.stored, "PgBouncerRoleFailed", message);
    return message;
  }
  p.recorder.Normal(
      p.stored, "PgBouncerRoleReady",
      absl::StrCat("role ", Absl(api::kPoolerUserName), " and its lookup function exist"));
  absl::MutexLock lock(&mu_);
  applied_[object] = key;
  return "";
}

absl::StatusOr<std::unique_ptr<PgBouncerConsole>> PgBouncerConsoleOf(const Phase& p,
                                                                     const std::string& ca_pem) {
  if (!HasPgBouncer(p.cluster)) return nullptr;
  const ObjectPtr auth = p.cache.Get(kSecrets, p.n.ns, PgBouncerNamesOf(p.cluster).auth_secret);
  const std::string password =
      auth == nullptr ? "" : controllers::SecretValue(*auth, kPgBouncerAdminPasswordKey);
  if (password.empty()) return nullptr;
  absl::StatusOr<Json> list = p.client.List(
      kPods, p.n.ns, {.label_selector = absl::StrCat(kPgBouncerLabel, "=", p.n.cluster)});
  if (!list.ok()) return list.status();
  std::vector<PoolerPod> pods;
  for (const Json& pod : At(*list, {"items"})) {
    const std::string ip = Str(At(pod, {"status", "podIP"}));
    if (ip.empty() || !controllers::PodReady(pod) || controllers::BeingDeleted(pod)) continue;
    pods.push_back({.name = Str(At(pod, {"metadata", "name"})), .ip = ip});
  }
  if (pods.empty()) return nullptr;
  return std::make_unique<PgBouncerConsole>(
      std::move(pods),
      PostgresTarget{.host = PgBouncerHost(p.cluster),
                     .user = std::string(api::kPoolerAdminName),
                     .password = password,
                     .ca_pem = ca_pem},
      kPostgresPort);
}

void PgBouncerPauseKeeper::ResumeLeftovers(const Phase& p, const std::string& ca_pem) {
  const std::string key = p.n.ns + "/" + p.n.cluster;
  {
    absl::MutexLock lock(&mu_);
    if (!HasPgBouncer(p.cluster) || sure_.contains(key)) return;
  }
  absl::StatusOr<std::unique_ptr<PgBouncerConsole>> console = PgBouncerConsoleOf(p, ca_pem);
  if (!console.ok()) return;  // looked at again
  // No ready pod (a paused PgBouncer still accepts connections: ready), or
  // no admin password (nothing could have paused it): nothing held.
  int resumed = 0;
  const absl::Status s = *console == nullptr ? absl::OkStatus() : (*console)->ResumeAll(resumed);
  if (resumed > 0) {
    p.recorder.Normal(p.stored, "PgBouncerResumed",
                      absl::StrCat("resumed ", resumed,
                                   " pooler pod(s) left paused by an interrupted switchover"));
  }
  if (!s.ok()) return;
  absl::MutexLock lock(&mu_);
  sure_.insert(key);
}

void PgBouncerPauseKeeper::MarkUnsure(const std::string& cluster_key) {
  absl::MutexLock lock(&mu_);
  sure_.erase(cluster_key);
}

void PgBouncerPauseKeeper::Forget(const std::string& cluster_key) { MarkUnsure(cluster_key); }

size_t PgBouncerPauseKeeper::size() const {
  absl::MutexLock lock(&mu_);
  return sure_.size();
}

void PgBouncerRoleKeeper::Forget(const std::string& cluster_key) {
  absl::MutexLock lock(&mu_);
  applied_.erase(cluster_key);
}

size_t PgBouncerRoleKeeper::size() const {
  absl::MutexLock lock(&mu_);
  return applied_.size();
}

}  // namespace quorum::postgrescluster

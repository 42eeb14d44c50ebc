#include "src/controllers/postgrescluster/finalizer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/etcd/client.h"
#include "src/patroni/dcs_cleanup.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {
namespace {

using runtime::ObjectPtr;

bool HasFinalizer(const Json& obj) {
  const Json& f = obj["metadata"].value("finalizers", Json::array());
  return std::find(f.begin(), f.end(), kDcsFinalizer) != f.end();
}

// Adds or removes our finalizer with a merge patch guarded by the
// resourceVersion read (a concurrent change gives Conflict: requeued).
absl::Status SetFinalizer(kube::Client& client, const Json& stored, bool present) {
  Json list = Json::array();
  for (const Json& f : stored["metadata"].value("finalizers", Json::array())) {
    if (f != kDcsFinalizer) list.push_back(f);
  }
  if (present) list.push_back(kDcsFinalizer);
  const Json patch = {{"metadata",
                       {{"finalizers", list},
                        {"resourceVersion", stored["metadata"].value("resourceVersion", "")}}}};
  absl::StatusOr<Json> r =
      client.Patch(kPostgresClusters, stored["metadata"].value("namespace", ""),
                   stored["metadata"].value("name", ""), kube::PatchType::kMerge, patch);
  return r.ok() || absl::IsNotFound(r.status()) ? absl::OkStatus() : r.status();
}

std::string SecretValue(const ObjectPtr& secret, const char* key) {
  if (secret == nullptr) return "";
  const Json& data = (*secret).value("data", Json::object());
  std::string out;
  if (!data.contains(key) || !data[key].is_string() ||
      !absl::Base64Unescape(data[key].get<std::string>(), &out)) {
    return "";
  }
  return out;
}

// An etcd client for the resolved DCS, with its Secrets' material.
absl::StatusOr<std::unique_ptr<etcd::Client>> DcsClient(const runtime::Cache& cache,
                                                        const std::string& ns,
                                                        const DcsResolution& dcs) {
  etcd::ClientConfig cfg{.endpoints = dcs.etcd_urls, .timeout = absl::Seconds(5)};
  if (!dcs.tls_secret.empty()) {
    ObjectPtr s = cache.Get(kSecrets, ns, dcs.tls_secret);
    cfg.ca_pem = SecretValue(s, "ca.crt");
    cfg.cert_pem = SecretValue(s, "tls.crt");
    cfg.key_pem = SecretValue(s, "tls.key");
  }
  if (!dcs.auth_secret.empty()) {
    ObjectPtr s = cache.Get(kSecrets, ns, dcs.auth_secret);
    cfg.username = SecretValue(s, "username");
    cfg.password = SecretValue(s, "password");
  }
  return etcd::Client::Create(std::move(cfg));
}

absl::Time DeletionTime(const Json& stored) {
  absl::Time t;
  std::string err;
  const std::string ts = stored["metadata"].value("deletionTimestamp", "");
  if (!absl::ParseTime(absl::RFC3339_full, ts, &t, &err)) return absl::Now();
  return t;
}

}  // namespace

FinalizerStep PlanFinalizer(const FinalizerInput& in) {
  if (!in.deleting) {
    if (in.uses_etcd && !in.has_finalizer) return FinalizerStep::kAdd;
    if (!in.uses_etcd && in.has_finalizer) return FinalizerStep::kRemove;
    return FinalizerStep::kNone;
  }
  if (!in.has_finalizer) return FinalizerStep::kNone;
  if (!in.uses_etcd || in.dcs_owner_gone) return FinalizerStep::kRemove;
  if (in.since_deletion >= kDcsCleanupDeadline) return FinalizerStep::kGiveUp;
  return FinalizerStep::kClean;
}

absl::StatusOr<absl::Duration> ReconcileFinalizer(kube::Client& client, const runtime::Cache& cache,
                                                  runtime::EventRecorder& recorder,
                                                  const Json& stored,
                                                  const PostgresCluster& cluster,
                                                  const std::function<absl::Duration()>& retry) {
  const Names n = NamesOf(cluster);
  const std::string ref = ReferencedEtcdCluster(cluster);
  bool owner_gone = false;
  if (!ref.empty()) {
    ObjectPtr ec = cache.Get(kEtcdClusters, n.ns, ref);
    owner_gone = ec == nullptr || (*ec)["metadata"].contains("deletionTimestamp");
  }
  const bool deleting = stored["metadata"].contains("deletionTimestamp");
  const FinalizerStep step = PlanFinalizer(
      {.uses_etcd = UsesEtcd(cluster),
       .has_finalizer = HasFinalizer(stored),
       .deleting = deleting,
       .dcs_owner_gone = owner_gone,
       .since_deletion = deleting ? absl::Now() - DeletionTime(stored) : absl::ZeroDuration()});
  const std::string prefix = patroni::ClusterKeyPrefix(KeyNamespace(cluster), n.cluster);
  switch (step) {
    case FinalizerStep::kNone:
      return absl::ZeroDuration();
    case FinalizerStep::kAdd:
      if (absl::Status s = SetFinalizer(client, stored, true); !s.ok()) return s;
      return absl::ZeroDuration();
    case FinalizerStep::kRemove:
      if (absl::Status s = SetFinalizer(client, stored, false); !s.ok()) return s;
      return absl::ZeroDuration();
    case FinalizerStep::kGiveUp:
      recorder.Warning(stored, "DCSCleanupAbandoned",
                       absl::StrCat("gave up removing Patroni's keys under ", prefix, " after ",
                                    absl::FormatDuration(kDcsCleanupDeadline),
                                    "; delete them by hand (etcdctl del --prefix ", prefix,
                                    ") before creating a cluster of this name again"));
      if (absl::Status s = SetFinalizer(client, stored, false); !s.ok()) return s;
      return absl::ZeroDuration();
    case FinalizerStep::kClean:
      break;
  }
  const DcsResolution dcs =
      ResolveDcs(cluster, [&](const std::string& kind, const std::string& name) -> ObjectPtr {
        return cache.Get(kind == "Secret" ? kSecrets : kEtcdClusters, n.ns, name);
      });
  absl::Status cleaned = absl::FailedPreconditionError(dcs.message);
  if (dcs.ready) {
    absl::StatusOr<std::unique_ptr<etcd::Client>> etcd = DcsClient(cache, n.ns, dcs);
    cleaned = etcd.ok()
                  ? patroni::RemoveClusterKeys(**etcd, KeyNamespace(cluster), n.cluster).status()
                  : etcd.status();
  }
  if (!cleaned.ok()) {
    spdlog::warn("removing Patroni's keys under {} failed: {}", prefix,
                 std::string(cleaned.message()));
    recorder.Warning(
        stored, "DCSCleanupFailed",
        absl::StrCat("cannot remove Patroni's keys under ", prefix, ": ", cleaned.message(),
                     "; retrying for up to ", absl::FormatDuration(kDcsCleanupDeadline),
                     ". To delete now without cleaning up: kubectl patch postgrescluster ",
                     n.cluster, " -n ", n.ns,
                     " --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'"));
    return retry();
  }
  recorder.Normal(stored, "DCSKeysRemoved", "removed Patroni's keys under " + prefix);
  if (absl::Status s = SetFinalizer(client, stored, false); !s.ok()) return s;
  return absl::ZeroDuration();
}

}  // namespace quorum::postgrescluster

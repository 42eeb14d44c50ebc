#include "src/controllers/postgrescluster/finalizer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgrescluster/etcd_user.h"
#include "src/controllers/postgrescluster/leader.h"
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
                        {"resourceVersion", json_access::Str(json_access::At(
                                                stored, {"metadata", "resourceVersion"}))}}}};
  absl::StatusOr<Json> r = client.Patch(
      kPostgresClusters, json_access::Str(json_access::At(stored, {"metadata", "namespace"})),
      json_access::Str(json_access::At(stored, {"metadata", "name"})), kube::PatchType::kMerge,
      patch);
  return r.ok() || absl::IsNotFound(r.status()) ? absl::OkStatus() : r.status();
}

// An etcd client for the resolved DCS with the operator's own credentials.
absl::StatusOr<std::unique_ptr<etcd::Client>> DcsClient(const runtime::Cache& cache,
                                                        const std::string& ns,
                                                        const DcsResolution& dcs) {
  absl::StatusOr<etcd::ClientConfig> cfg = EtcdClientConfigFor(
      dcs,
      [&](const std::string& name, const char* key) {
        ObjectPtr secret = cache.Get(kSecrets, ns, name);
        std::string out;
        const Json& data = secret == nullptr ? Json() : (*secret).value("data", Json::object());
        if (!data.contains(key) || !data[key].is_string() ||
            !absl::Base64Unescape(data[key].get<std::string>(), &out)) {
          return std::string();
        }
        return out;
      },
      absl::Seconds(5));
  if (!cfg.ok()) return cfg.status();
  return etcd::Client::Create(*std::move(cfg));
}

// Patroni's keys, then the pods' own etcd user and role (clusterRef with auth).
absl::Status CleanUp(etcd::Client& etcd, const PostgresCluster& cluster, const DcsResolution& dcs) {
  absl::StatusOr<int64_t> removed =
      patroni::RemoveClusterKeys(etcd, KeyNamespace(cluster), NamesOf(cluster).cluster);
  if (!removed.ok()) return removed.status();
  return dcs.pod_access ? RemovePodEtcdUser(etcd, *dcs.pod_access) : absl::OkStatus();
}

// Deletes the cluster's StatefulSets (their pods go with them), so that no
// Patroni is left to write keys back once they are removed.
absl::Status StopMembers(kube::Client& client, const runtime::Cache& cache, const Names& n) {
  for (const ObjectPtr& sts : cache.ByInstance(kStatefulSets, n.ns, n.cluster)) {
    const Json& meta = (*sts)["metadata"];
    if (meta.contains("deletionTimestamp")) continue;
    const std::string name = meta.value("name", "");
    absl::Status s = client.Delete(kStatefulSets, n.ns, name,
                                   {.propagation = kube::PropagationPolicy::kBackground,
                                    .precondition_uid = meta.value("uid", "")});
    if (!s.ok() && !absl::IsNotFound(s)) return s;
    spdlog::info(
        "deleting: removed StatefulSet {} so that its members stop before the DCS keys "
        "are removed",
        name);
  }
  return absl::OkStatus();
}

// When `stored` was marked for deletion (`now` when that cannot be read).
absl::Time DeletionTime(const Json& stored, absl::Time now) {
  absl::Time t;
  std::string err;
  const std::string ts =
      json_access::Str(json_access::At(stored, {"metadata", "deletionTimestamp"}));
  if (!absl::ParseTime(absl::RFC3339_full, ts, &t, &err)) return now;
  return t;
}

}  // namespace

absl::Status RemovePatroniEtcdKeys(const runtime::Cache& cache, const PostgresCluster& cluster,
                                   const DcsResolution& dcs) {
  absl::StatusOr<std::unique_ptr<etcd::Client>> etcd = DcsClient(cache, cluster.metadata.ns, dcs);
  if (!etcd.ok()) return etcd.status();
  absl::StatusOr<int64_t> removed =
      patroni::RemoveClusterKeys(**etcd, KeyNamespace(cluster), NamesOf(cluster).cluster);
  return removed.ok() ? absl::OkStatus() : removed.status();
}

FinalizerStep PlanFinalizer(const FinalizerInput& in) {
  if (!in.deleting) {
    if (in.uses_etcd && !in.has_finalizer) return FinalizerStep::kAdd;
    if (!in.uses_etcd && in.has_finalizer) return FinalizerStep::kRemove;
    return FinalizerStep::kNone;
  }
  if (!in.has_finalizer) return FinalizerStep::kNone;
  if (!in.uses_etcd || in.dcs_owner_gone) return FinalizerStep::kRemove;
  if (in.since_deletion >= kDcsCleanupDeadline) return FinalizerStep::kGiveUp;
  if (in.member_pods > 0) return FinalizerStep::kStopMembers;
  return FinalizerStep::kClean;
}

absl::StatusOr<absl::Duration> ReconcileFinalizer(kube::Client& client, const runtime::Cache& cache,
                                                  runtime::EventRecorder& recorder,
                                                  const Json& stored,
                                                  const PostgresCluster& cluster, absl::Time now,
                                                  const std::function<absl::Duration()>& retry) {
  const Names n = NamesOf(cluster);
  const std::string ref = ReferencedEtcdCluster(cluster);
  bool owner_gone = false;
  if (!ref.empty()) {
    ObjectPtr ec = cache.Get(kEtcdClusters, n.ns, ref);
    owner_gone = ec == nullptr || controllers::BeingDeleted(*ec);
  }
  const bool deleting = controllers::BeingDeleted(stored);
  const FinalizerStep step = PlanFinalizer(
      {.uses_etcd = UsesEtcd(cluster),
       .has_finalizer = HasFinalizer(stored),
       .deleting = deleting,
       .dcs_owner_gone = owner_gone,
       .member_pods = static_cast<int>(cache.ByInstance(kPods, n.ns, n.cluster).size()),
       .since_deletion = deleting ? now - DeletionTime(stored, now) : absl::ZeroDuration()});
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
    case FinalizerStep::kStopMembers:
      if (absl::Status s = StopMembers(client, cache, n); !s.ok()) return s;
      return retry();  // a member pod's deletion reconciles sooner
    case FinalizerStep::kClean:
      break;
  }
  const DcsResolution dcs =
      ResolveDcs(cluster, [&](const std::string& kind, const std::string& name) -> ObjectPtr {
        return cache.Get(kind == "Secret" ? kSecrets : kEtcdClusters, n.ns, name);
      });
  absl::Status cleaned = absl::FailedPreconditionError(dcs.message);
  if (dcs.ready || dcs.operator_access) {
    absl::StatusOr<std::unique_ptr<etcd::Client>> etcd = DcsClient(cache, n.ns, dcs);
    cleaned = etcd.ok() ? CleanUp(**etcd, cluster, dcs) : etcd.status();
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
  recorder.Normal(stored, "DCSKeysRemoved",
                  "removed Patroni's keys under " + prefix +
                      (dcs.pod_access ? " and etcd user " + dcs.pod_access->user : ""));
  if (absl::Status s = SetFinalizer(client, stored, false); !s.ok()) return s;
  return absl::ZeroDuration();
}

}  // namespace quorum::postgrescluster

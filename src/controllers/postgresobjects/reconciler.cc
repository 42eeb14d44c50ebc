#include "src/controllers/postgresobjects/reconciler.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/postgres_objects.h"
#include "src/base/json_access.h"
#include "src/controllers/common/resources.h"
#include "src/controllers/common/typed_condition.h"

namespace quorum::postgresobjects {
namespace {

using Json = nlohmann::json;
using json_access::At;
using json_access::Str;

constexpr char kFieldManager[] = "quorum-operator";

bool HasFinalizer(const Json& stored) {
  const Json& f = At(stored, {"metadata", "finalizers"});
  return f.is_array() && std::find(f.begin(), f.end(), api::kSqlObjectFinalizer) != f.end();
}

}  // namespace

SqlObjectReconciler::SqlObjectReconciler(kube::Client& client, runtime::Cache& cache,
                                         runtime::EventRecorder& recorder, Clock& clock,
                                         kube::GroupVersionResource gvr, std::string kind)
    : client_(client),
      cache_(cache),
      recorder_(recorder),
      clock_(clock),
      gvr_(std::move(gvr)),
      kind_(std::move(kind)) {}

std::string SqlObjectReconciler::MemoKey(const ObjectView& view) const {
  return view.metadata.ns + "/" + view.metadata.name;
}

absl::StatusOr<runtime::Result> SqlObjectReconciler::Reconcile(const runtime::Request& req) {
  const runtime::ObjectPtr stored = cache_.Get(gvr_, req.ns, req.name);
  if (stored == nullptr) {
    Forget(req.ns + "/" + req.name);
    absl::MutexLock lock(&mu_);
    applied_.erase(req.ns + "/" + req.name);
    return runtime::Result{};
  }
  absl::StatusOr<ObjectView> parsed = Parse(*stored);
  if (!parsed.ok()) return RefuseInvalid(req, *stored, parsed.status());
  const ObjectView& view = *parsed;
  std::optional<api::PostgresCluster> cluster;
  bool cluster_gone = true;
  if (runtime::ObjectPtr c = cache_.Get(controllers::kPostgresClusters, req.ns, view.cluster)) {
    absl::StatusOr<api::PostgresCluster> pc = api::ParsePostgresCluster(*c);
    if (pc.ok()) cluster = *std::move(pc);
    cluster_gone = At(*c, {"metadata", "deletionTimestamp"}).is_string();
  }
  if (view.metadata.deleting) return Finalize(*stored, view, cluster, cluster_gone);
  if (view.drop_on_delete != HasFinalizer(*stored)) {
    if (absl::Status s = SetFinalizer(*stored, view.drop_on_delete); !s.ok()) return s;
  }
  if (!cluster.has_value() || cluster_gone) {  // the cluster's watch wakes it
    return Wait(
        *stored, view, "ClusterNotFound",
        absl::StrCat("spec.cluster: PostgresCluster ", view.cluster,
                     cluster.has_value() ? " is being deleted" : " not found in this namespace"),
        {});
  }
  if (std::string why = Conflict(*stored, *cluster); !why.empty()) {
    return Wait(*stored, view, "Conflict", why, {});
  }
  api::PostgresObjectStatus status = view.status;
  runtime::Result done;  // the certificate's renewal, if any
  if (std::optional<absl::StatusOr<runtime::Result>> wait =
          KeepCertificate(*stored, view, *cluster, status, done)) {
    return *std::move(wait);
  }
  absl::StatusOr<ClusterTarget> target = PrimaryTarget(cache_, *cluster);
  if (!target.ok()) {
    return Wait(*stored, view, "ClusterNotReady", std::string(target.status().message()),
                {.requeue = true});
  }
  const std::string key = absl::StrCat(target->fingerprint, "|", view.metadata.uid, "|",
                                       view.metadata.generation, "|", Inputs(*stored));
  bool memo = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = applied_.find(MemoKey(view));
    memo = it != applied_.end() && it->second == key && view.status.applied &&
           view.status.observed_generation == view.metadata.generation;
  }
  if (memo) {  // applied already; only the certificate's status may have moved
    if (status == view.status) return done;
    if (absl::Status s = WriteStatus(*stored, view, status, true, "Applied", ""); !s.ok()) {
      return s;
    }
    return done;
  }
  const absl::Status applied = Apply(*stored, *cluster, *target, status);
  status.applied = applied.ok();
  if (absl::Status s =
          WriteStatus(*stored, view, status, applied.ok(), applied.ok() ? "Applied" : "ApplyFailed",
                      std::string(applied.message()));
      !s.ok()) {
    return s;
  }
  if (!applied.ok()) return runtime::Result{.requeue = true};
  // Inputs again: the apply may have made one (the generated password Secret).
  const std::string key_done = absl::StrCat(target->fingerprint, "|", view.metadata.uid, "|",
                                            view.metadata.generation, "|", Inputs(*stored));
  absl::MutexLock lock(&mu_);
  applied_[MemoKey(view)] = key_done;
  return done;
}

std::optional<absl::StatusOr<runtime::Result>> SqlObjectReconciler::KeepCertificate(
    const Json& stored, const ObjectView& view, const api::PostgresCluster& cluster,
    api::PostgresObjectStatus& status, runtime::Result& done) {
  const absl::Time now = clock_.Now();
  absl::StatusOr<std::optional<absl::Time>> recheck =
      EnsureCertificate(stored, cluster, now, status);
  if (!recheck.ok()) {
    if (!absl::IsFailedPrecondition(recheck.status()) && !absl::IsUnavailable(recheck.status())) {
      return recheck.status();
    }
    return Wait(stored, view, "CertificateNotIssued", std::string(recheck.status().message()),
                {.requeue = absl::IsUnavailable(recheck.status())});
  }
  if (recheck->has_value()) done.requeue_after = std::max(**recheck - now, absl::Seconds(1));
  return std::nullopt;
}

absl::StatusOr<runtime::Result> SqlObjectReconciler::RefuseInvalid(const runtime::Request& req,
                                                                   const Json& stored,
                                                                   const absl::Status& why) {
  // Admission should have refused it: say why once, wait for an edit.
  const std::string message(why.message());
  if (Str(At(stored, {"status", "message"})) == message) return runtime::Result{};
  ObjectView view;
  view.metadata.name = req.name;
  view.metadata.ns = req.ns;
  view.metadata.generation = json_access::Int(&At(stored, {"metadata", "generation"})).value_or(0);
  if (absl::Status s = WriteStatus(stored, view, {}, false, "InvalidSpec", message); !s.ok()) {
    return s;
  }
  return runtime::Result{};
}

absl::StatusOr<runtime::Result> SqlObjectReconciler::Wait(const Json& stored,
                                                          const ObjectView& view,
                                                          const std::string& reason,
                                                          const std::string& message,
                                                          runtime::Result then) {
  api::PostgresObjectStatus status = view.status;
  status.applied = false;
  if (absl::Status s = WriteStatus(stored, view, status, false, reason, message); !s.ok()) {
    return s;
  }
  return then;
}

absl::StatusOr<runtime::Result> SqlObjectReconciler::Finalize(
    const Json& stored, const ObjectView& view, const std::optional<api::PostgresCluster>& cluster,
    bool cluster_gone) {
  if (!HasFinalizer(stored)) return runtime::Result{};
  if (!view.drop_on_delete || !cluster.has_value() || cluster_gone) {
    if (view.drop_on_delete) {
      recorder_.Normal(stored, "ClusterGone",
                       absl::StrCat("PostgresCluster ", view.cluster,
                                    " is gone: nothing to drop; the finalizer is removed"));
    }
    if (absl::Status s = SetFinalizer(stored, false); !s.ok()) return s;
    return runtime::Result{};
  }
  api::PostgresObjectStatus status = view.status;
  absl::StatusOr<ClusterTarget> target = PrimaryTarget(cache_, *cluster);
  if (!target.ok()) {
    if (absl::Status s = WriteStatus(
            stored, view, status, false, "ClusterNotReady",
            absl::StrCat("waiting to drop ", view.sql_name, ": ", target.status().message()));
        !s.ok()) {
      return s;
    }
    return runtime::Result{.requeue = true};
  }
  const absl::Status dropped = Drop(stored, view, *target);
  if (!dropped.ok()) {
    status.applied = false;
    if (absl::Status s =
            WriteStatus(stored, view, status, false, "DropFailed", std::string(dropped.message()));
        !s.ok()) {
      return s;
    }
    // Blocked (FailedPrecondition): an event on what blocks it wakes it.
    return runtime::Result{.requeue = !absl::IsFailedPrecondition(dropped)};
  }
  recorder_.Normal(stored, "Dropped",
                   absl::StrCat("dropped ", view.sql_name, " (reclaimPolicy delete)"));
  if (absl::Status s = SetFinalizer(stored, false); !s.ok()) return s;
  return runtime::Result{};
}

absl::Status SqlObjectReconciler::SetFinalizer(const Json& stored, bool present) {
  Json list = Json::array();
  const Json& old = At(stored, {"metadata", "finalizers"});
  if (old.is_array()) {
    for (const Json& f : old) {
      if (f != api::kSqlObjectFinalizer) list.push_back(f);
    }
  }
  if (present) list.push_back(std::string(api::kSqlObjectFinalizer));
  const Json patch = {{"metadata",
                       {{"finalizers", list},
                        {"resourceVersion", Str(At(stored, {"metadata", "resourceVersion"}))}}}};
  absl::StatusOr<Json> r =
      client_.Patch(gvr_, Str(At(stored, {"metadata", "namespace"})),
                    Str(At(stored, {"metadata", "name"})), kube::PatchType::kMerge, patch);
  return r.ok() || absl::IsNotFound(r.status()) ? absl::OkStatus() : r.status();
}

absl::Status SqlObjectReconciler::WriteStatus(const Json& stored, const ObjectView& view,
                                              api::PostgresObjectStatus status, bool ok,
                                              const std::string& reason,
                                              const std::string& message) {
  status.observed_generation = view.metadata.generation;
  status.message = ok ? "" : message;
  struct Holder {
    api::ObjectMeta metadata;
    api::PostgresObjectStatus status;
  } holder{view.metadata, view.status};
  const std::string text = ok ? absl::StrCat(kind_, " ", view.sql_name, " is applied") : message;
  status.conditions = {controllers::MakeCondition(holder, "Ready", ok, reason, text, clock_.Now())};
  if (status == view.status) return absl::OkStatus();
  if (ok && !view.status.applied) {
    recorder_.Normal(stored, "Applied", text);
  } else if (!ok && status.message != view.status.message) {
    recorder_.Warning(stored, reason, message);
  }
  const Json patch = {{"apiVersion", gvr_.group + "/" + gvr_.version},
                      {"kind", kind_},
                      {"metadata", {{"name", view.metadata.name}, {"namespace", view.metadata.ns}}},
                      {"status", api::ToJson(status)}};
  absl::StatusOr<Json> wrote = client_.ApplyStatus(gvr_, view.metadata.ns, patch,
                                                   {.field_manager = kFieldManager, .force = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

}  // namespace quorum::postgresobjects

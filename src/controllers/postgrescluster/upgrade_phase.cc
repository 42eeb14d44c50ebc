// The major upgrade phase of a reconcile (PostgresClusterReconciler::
// MajorUpgradePhase and HoldForUpgrade, reconciler.h; the plan is
// major_upgrade.h's).
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/failpoint.h"
#include "src/base/json_access.h"
#include "src/controllers/postgrescluster/major_upgrade.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgrescluster/restore.h"
#include "src/controllers/postgrescluster/upgrade_job.h"
#include "src/controllers/postgrescluster/write_status.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;
using runtime::Result;

namespace {

// The member pods that exist, terminating ones included (a stop is over
// only when they are gone).
std::set<std::string> MemberPodsPresent(const Phase& p) {
  std::set<std::string> out;
  for (const ObjectPtr& pod : p.cache.ByInstance(kPods, p.n.ns, p.n.cluster)) {
    if (json_access::Str(json_access::At(
            *pod, {"metadata", "labels", std::string(api::kClusterLabel).c_str()})) ==
        p.n.cluster) {
      out.insert(json_access::Str(json_access::At(*pod, {"metadata", "name"})));
    }
  }
  return out;
}

// The image of the first instance set's StatefulSet template ("" unknown).
std::string RunningImage(const Phase& p) {
  if (p.cluster.spec.instances.empty()) return "";
  ObjectPtr sts = p.cache.Get(kube::kStatefulSets, p.n.ns,
                              StatefulSetName(p.cluster, p.cluster.spec.instances[0].name));
  if (sts == nullptr) return "";
  return json_access::Str(
      json_access::At(*sts, {"spec", "template", "spec", "containers", 0, "image"}));
}

}  // namespace

absl::StatusOr<std::optional<controllers::JobOutcome>> PostgresClusterReconciler::ObserveUpgradeJob(
    const Phase& ctx) {
  // Only while an upgrade may start or runs: a finished Job stays (its log)
  // and is no concern of a converged cluster.
  const PostgresCluster& c = ctx.cluster;
  const bool may_start = c.spec.postgres_version > DataMajor(c);
  if (!UpgradeUnderway(c) && !may_start) return std::nullopt;
  const std::string name = UpgradeJobName(ctx.cluster);
  ObjectPtr job = cache_.Get(kube::kJobs, ctx.n.ns, name);
  if (job == nullptr) return std::nullopt;
  controllers::JobOutcome outcome = controllers::OutcomeOf(*job, Json::array());
  const bool upgrading =
      UpgradeUnderway(c) && c.status.major_upgrade->phase == api::kUpgradeUpgrading;
  if (upgrading && (outcome.failed || outcome.complete)) {
    // Its result or warnings: the pod's termination message, one read when it ends.
    absl::StatusOr<Json> pods =
        client_.List(kPods, ctx.n.ns, {.label_selector = "job-name=" + name});
    if (!pods.ok()) return pods.status();
    outcome = controllers::OutcomeOf(*job, *pods);
  }
  return outcome;
}

absl::Status PostgresClusterReconciler::ActOnUpgrade(const Phase& ctx, const DcsResolution& dcs,
                                                     const Members& members, UpgradeStep& step) {
  switch (step.action) {
    case UpgradeStep::kNone:
      return absl::OkStatus();
    case UpgradeStep::kSwitchover: {
      auto url = members.urls.find(members.primary);
      absl::Status s =
          url == members.urls.end()
              ? absl::UnavailableError("the primary's REST API is not known")
              : rest_.Switchover(url->second, members.primary, step.switchover_to, ctx.rest_auth);
      if (!s.ok()) {  // asked again on the next look
        step.status->member.clear();
        step.status->message =
            absl::StrCat("the switchover to ", step.switchover_to, " was refused: ", s.message());
        step.event_reason = "MajorUpgradeWaiting";
        step.event_message = step.status->message;
        step.event_warning = true;
      }
      return absl::OkStatus();
    }
    case UpgradeStep::kCreateJob: {
      Failpoint("postgrescluster/before-UpgradeJob");
      absl::StatusOr<Json> created =
          client_.Create(kube::kJobs, ctx.n.ns, BuildUpgradeJob(ctx.cluster, *step.status));
      if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
      return absl::OkStatus();
    }
    case UpgradeStep::kDeleteJob: {
      absl::Status s = client_.Delete(kube::kJobs, ctx.n.ns, UpgradeJobName(ctx.cluster),
                                      {.propagation = kube::PropagationPolicy::kBackground});
      return s.ok() || absl::IsNotFound(s) ? absl::OkStatus() : s;
    }
    case UpgradeStep::kClearDcs:
      // The new data has a new system identifier: Patroni's old "initialize"
      // key would make it refuse to start. Until this succeeds the phase
      // stays Upgrading (retried).
      Failpoint("postgrescluster/before-UpgradeClearDcs");
      return ClearPatroniState(ctx, dcs);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<absl::Duration>> PostgresClusterReconciler::MajorUpgradePhase(
    const Phase& ctx, PostgresCluster& cluster, const DcsResolution& dcs, const Members& members) {
  absl::StatusOr<std::optional<controllers::JobOutcome>> job = ObserveUpgradeJob(ctx);
  if (!job.ok()) return job.status();
  const std::string running_image = RunningImage(ctx);
  UpgradeStep step = PlanMajorUpgrade({.cluster = &cluster,
                                       .members = &members,
                                       .pods = MemberPodsPresent(ctx),
                                       .running_image = running_image,
                                       .job = *job,
                                       .now = ctx.now});
  if (absl::Status s = ActOnUpgrade(ctx, dcs, members, step); !s.ok()) {
    recorder_.Warning(ctx.stored, "MajorUpgradeWaiting",
                      absl::StrCat("major upgrade: ", s.message(), " (retried)"));
    return s;
  }
  if (!step.event_reason.empty()) {
    if (step.event_warning) {
      spdlog::warn("{}/{}: {}", ctx.n.ns, ctx.n.cluster, step.event_message);
      recorder_.Warning(ctx.stored, step.event_reason, step.event_message);
    } else {
      spdlog::info("{}/{}: {}", ctx.n.ns, ctx.n.cluster, step.event_message);
      recorder_.Normal(ctx.stored, step.event_reason, step.event_message);
    }
  }
  cluster.status.postgres_version = step.data_major;
  cluster.status.major_upgrade = step.status;
  ApplyRunningView(cluster, running_image);
  return step.recheck_after;
}

std::optional<absl::StatusOr<Result>> PostgresClusterReconciler::HoldForUpgrade(
    const Phase& ctx, const DcsResolution& dcs, std::optional<absl::Duration> recheck) {
  const auto& u = ctx.cluster.status.major_upgrade;
  if (!UpgradeUnderway(ctx.cluster) || u->phase == api::kUpgradePreparing ||
      u->phase == api::kUpgradeStarting) {
    return std::nullopt;
  }
  // The members are stopping or stopped: nothing to ask them; their pods'
  // deletions and the Job's end reconcile again.
  absl::Status wrote =
      WriteStatus(ctx, dcs, Members{}, std::nullopt, "", AppliedObjects{}, std::nullopt);
  if (!wrote.ok()) return wrote;
  Result wait;
  if (recheck.has_value()) wait.requeue_after = *recheck;
  return wait;
}

}  // namespace quorum::postgrescluster

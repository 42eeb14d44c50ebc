#include "src/kubectl/restart_command.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/etcdcluster.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "src/kube/errors.h"
#include "src/kube/resources.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/members.h"
#include "src/kubectl/wait.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

constexpr int kConflictRetries = 3;

const kube::GroupVersionResource& Resource(Kind kind) {
  return kind == Kind::kEtcdCluster ? controllers::kEtcdClusters : controllers::kPostgresClusters;
}

// The member pods as they are now. Errors: as the API answered.
absl::StatusOr<std::vector<PodInfo>> Members(kube::Client& client, const std::string& ns,
                                             const FoundCluster& cluster) {
  absl::StatusOr<Json> pods = FetchMemberPods(client, ns, cluster);
  if (!pods.ok()) return pods.status();
  return RestartedMembers(cluster.kind, ParsePodList(Json{{"items", *pods}}));
}

// Patches `found` (re-read on a Conflict). Returns the cluster as patched.
absl::StatusOr<FoundCluster> Patch(kube::Client& client, const RestartOptions& o,
                                   FoundCluster found, const std::string& value) {
  const std::string& name = o.target.name;
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<Json> patch = BuildRestartPatch(found.kind, found.object, value);
    if (!patch.ok()) return patch.status();
    absl::StatusOr<Json> patched =
        client.Patch(Resource(found.kind), o.ns, name, kube::PatchType::kMerge, *patch);
    if (patched.ok()) return FoundCluster{found.kind, *std::move(patched)};
    if (!kube::IsConflict(patched.status()) || attempt + 1 >= kConflictRetries) {
      return patched.status();
    }
    absl::StatusOr<Json> fresh = client.Get(Resource(found.kind), o.ns, name);
    if (!fresh.ok()) return fresh.status();
    found.object = *std::move(fresh);
  }
}

std::string Left(const std::vector<PodInfo>& members, int desired, const std::string& value) {
  std::vector<std::string> left;
  for (const PodInfo& p : members) {
    auto it = p.annotations.find(kRestartedAtAnnotation);
    if (it == p.annotations.end() || it->second != value) {
      left.push_back(p.name + " (not restarted yet)");
    } else if (!p.ready || p.deleting) {
      left.push_back(p.name + " (not ready)");
    }
  }
  if (static_cast<int>(members.size()) != desired) {
    left.push_back(absl::StrCat(members.size(), " of ", desired, " members exist"));
  }
  return absl::StrJoin(left, ", ");
}

}  // namespace

std::string RestartValue(absl::Time now) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone());
}

absl::StatusOr<Json> BuildRestartPatch(Kind kind, const Json& cluster, const std::string& value) {
  const Json annotation = {{kRestartedAtAnnotation, value}};
  if (kind == Kind::kEtcdCluster) {
    return Json{{"spec", {{"podTemplate", {{"metadata", {{"annotations", annotation}}}}}}}};
  }
  const Json spec = cluster.value("spec", Json::object());
  Json instances = spec.is_object() ? spec.value("instances", Json::array()) : Json::array();
  if (!instances.is_array() || instances.empty()) {
    return absl::FailedPreconditionError("the PostgresCluster has no spec.instances to restart");
  }
  for (Json& set : instances) {
    if (!set.is_object()) continue;
    Json& meta = set["metadata"];
    if (!meta.is_object()) meta = Json::object();
    Json& annotations = meta["annotations"];
    if (!annotations.is_object()) annotations = Json::object();
    annotations[kRestartedAtAnnotation] = value;
  }
  const Json meta = cluster.value("metadata", Json::object());
  return Json{{"metadata", {{"resourceVersion", meta.value("resourceVersion", "")}}},
              {"spec", {{"instances", std::move(instances)}}}};
}

std::vector<PodInfo> RestartedMembers(Kind kind, const std::vector<PodInfo>& pods) {
  if (kind == Kind::kEtcdCluster) return pods;
  std::vector<PodInfo> out;
  for (const PodInfo& p : pods) {
    if (p.labels.count(std::string(api::kInstanceSetLabel)) > 0) out.push_back(p);
  }
  return out;
}

int DesiredMembers(Kind kind, const Json& cluster) {
  if (kind == Kind::kEtcdCluster) {
    absl::StatusOr<api::EtcdCluster> c = api::DecodeEtcdCluster(cluster);
    return c.ok() ? c->spec.replicas : 0;
  }
  absl::StatusOr<api::PostgresCluster> c = api::DecodePostgresCluster(cluster);
  if (!c.ok()) return 0;
  int n = 0;
  for (const api::PostgresInstanceSet& set : c->spec.instances) n += set.replicas;
  return n;
}

bool RestartDone(const std::vector<PodInfo>& members, int desired, const std::string& value) {
  if (static_cast<int>(members.size()) != desired) return false;
  for (const PodInfo& p : members) {
    auto it = p.annotations.find(kRestartedAtAnnotation);
    if (it == p.annotations.end() || it->second != value || !p.ready || p.deleting) return false;
  }
  return true;
}

absl::StatusOr<CommandOutput> RunRestart(kube::Client& client, const RestartOptions& o) {
  absl::StatusOr<FoundCluster> found = FindCluster(client, o.ns, o.target);
  if (!found.ok()) return found.status();
  const std::string value = RestartValue(o.now);
  const std::string what = absl::StrCat(KindName(found->kind), " ", o.target.name);
  absl::StatusOr<FoundCluster> patched = Patch(client, o, *std::move(found), value);
  if (!patched.ok()) return patched.status();
  if (o.wait <= absl::ZeroDuration()) {
    return CommandOutput{.text = absl::StrCat("restart of ", what, " requested (", value, ")\n")};
  }
  // Each step of the roll changes the cluster's status (a member's
  // readiness): the members are read again at each change.
  std::vector<PodInfo> members;
  int desired = DesiredMembers(patched->kind, patched->object);
  absl::Status read_error = absl::OkStatus();
  auto done = [&](const Json& obj) {
    desired = DesiredMembers(patched->kind, obj);
    absl::StatusOr<std::vector<PodInfo>> now = Members(client, o.ns, {patched->kind, obj});
    if (!now.ok()) {
      read_error = now.status();
      return true;  // ends the wait; reported below
    }
    members = *std::move(now);
    return RestartDone(members, desired, value);
  };
  absl::StatusOr<WaitResult> waited =
      WaitForObject(client, Resource(patched->kind), o.ns, o.target.name, done, o.wait);
  if (!waited.ok()) return waited.status();
  if (!read_error.ok()) return read_error;
  if (waited->done) {
    return CommandOutput{.text = absl::StrCat("restart of ", what, ": ", members.size(),
                                              " members restarted and Ready\n")};
  }
  return CommandOutput{
      .text = absl::StrCat("restart of ", what, ": not done after ", absl::FormatDuration(o.wait),
                           "; left: ", Left(members, desired, value), "\n"),
      .exit_code = kExitDegraded};
}

}  // namespace quorum::kubectl

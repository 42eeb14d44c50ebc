#include "src/controllers/etcdcluster/space.h"

#include <spdlog/spdlog.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"
#include "src/etcd/errors.h"

namespace quorum::etcdcluster {
namespace {

using etcd::SpaceAction;

constexpr char kQuotaOption[] = "quota-backend-bytes";

// Takes one step; OK or why it failed.
absl::Status Take(etcd::Client& client, const SpaceAction& a, bool& compacted) {
  switch (a.kind) {
    case SpaceAction::kCompact: {
      absl::Status s = client.Compact(a.revision);
      if (s.ok() || etcd::IsCompacted(s)) {
        compacted = true;
        return absl::OkStatus();
      }
      return s;
    }
    case SpaceAction::kDefragment:
      return client.Defragment(a.endpoint);
    case SpaceAction::kMoveLeader:
      return client.MoveLeader(a.member_id);
    case SpaceAction::kDisarm: {
      absl::StatusOr<std::vector<etcd::Alarm>> alarms = client.Alarms();
      if (!alarms.ok()) return alarms.status();
      for (const etcd::Alarm& alarm : *alarms) {
        if (alarm.type != "NOSPACE") continue;
        if (absl::Status s = client.AlarmDisarm(alarm); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case SpaceAction::kNone:
    case SpaceAction::kWait:
      break;
  }
  return absl::OkStatus();
}

// The event reason for a step that succeeded.
std::string DoneReason(SpaceAction::Kind kind) {
  switch (kind) {
    case SpaceAction::kCompact:
      return "Compacted";
    case SpaceAction::kDefragment:
      return "Defragmented";
    case SpaceAction::kMoveLeader:
      return "LeaderMoved";
    case SpaceAction::kDisarm:
      return "NoSpaceAlarmDisarmed";
    default:
      return std::string(etcd::SpaceKindName(kind));
  }
}

}  // namespace

int64_t QuotaOf(const EtcdCluster& cluster) {
  auto it = cluster.spec.options.find(kQuotaOption);
  return etcd::QuotaBytes(it == cluster.spec.options.end() ? "" : it->second);
}

bool NoSpaceAlarmIn(const EtcdView& view) {
  for (const MemberStatus& ms : view.members) {
    if (!ms.status) continue;
    for (const std::string& e : ms.status->errors) {
      if (absl::StrContains(Absl(e), "NOSPACE")) return true;
    }
  }
  return false;
}

etcd::SpaceObservation SpaceObservationOf(const EtcdView& view, int64_t quota_bytes) {
  etcd::SpaceObservation o{.leader_id = view.leader_id.value_or(0),
                           .nospace_alarm = NoSpaceAlarmIn(view),
                           .quota_bytes = quota_bytes};
  for (const MemberStatus& ms : view.members) {
    etcd::SpaceMember m{
        .id = ms.member.id,
        .client_url = ms.member.client_urls.empty() ? "" : ms.member.client_urls.front(),
        .is_learner = ms.member.is_learner,
        .answered = ms.status.has_value()};
    if (ms.status) {
      m.db_size = ms.status->db_size;
      m.db_size_in_use = ms.status->db_size_in_use;
      o.revision = std::max(o.revision, ms.status->revision);
    }
    o.members.push_back(std::move(m));
  }
  return o;
}

SpaceOutcome Housekeep(etcd::Client& client, EtcdView view, int64_t quota_bytes, int max_steps) {
  SpaceOutcome out;
  bool compacted = false;
  bool disarmed = false;
  std::vector<uint64_t> defragmented;
  for (int i = 0;; ++i) {
    etcd::SpaceObservation o = SpaceObservationOf(view, quota_bytes);
    o.compacted = compacted;
    o.defragmented = defragmented;
    const SpaceAction a = etcd::NextSpaceAction(o);
    out.alarm = o.nospace_alarm;
    if (i == 0 && o.nospace_alarm) {
      out.events.push_back(
          {true, "NoSpaceAlarm",
           absl::StrCat("etcd raised its NOSPACE alarm: the backend reached its quota (",
                        kQuotaOption, " ", quota_bytes,
                        " bytes) and every write is refused until the operator has compacted, "
                        "defragmented and disarmed it")});
    }
    if (a.kind == SpaceAction::kNone) break;
    if (a.kind == SpaceAction::kWait) {
      out.busy = true;
      out.message = a.reason;
      out.events.push_back({true, "SpaceHousekeepingWaits", a.reason});
      break;
    }
    if (i >= max_steps) {
      out.busy = true;  // look again soon; the next reconcile resumes
      break;
    }
    const std::string kind(etcd::SpaceKindName(a.kind));
    if (absl::Status s = Take(client, a, compacted); !s.ok()) {
      spdlog::warn("space step {} failed: {}: {}", kind, a.reason, std::string(s.message()));
      out.busy = true;
      out.message = absl::StrCat(a.reason, ": ", s.message());
      out.events.push_back({true, kind + "Failed", out.message});
      break;
    }
    if (a.kind == SpaceAction::kDefragment && compacted) defragmented.push_back(a.member_id);
    spdlog::info("space step {}: {}", kind, a.reason);
    out.message = a.reason;
    // A member's status may list the alarm for a moment after the disarm
    // (it applies the disarm a little later): disarmed again, said once.
    if (a.kind != SpaceAction::kDisarm || !disarmed) {
      out.events.push_back({false, DoneReason(a.kind), a.reason});
    }
    disarmed = disarmed || a.kind == SpaceAction::kDisarm;
    view = ObserveEtcd(client);
  }
  out.view = std::move(view);
  return out;
}

}  // namespace quorum::etcdcluster

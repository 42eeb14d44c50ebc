#include "src/controllers/postgrescluster/major_upgrade.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {
namespace {

using Upgrade = api::PostgresMajorUpgradeStatus;

bool In(const std::string& phase, std::initializer_list<const char*> phases) {
  return std::any_of(phases.begin(), phases.end(), [&](const char* p) { return phase == p; });
}

// The instance set whose StatefulSet runs `pod` as its ordinal 0, or "".
std::string SetOfOrdinalZero(const PostgresCluster& cluster, const std::string& pod) {
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    if (set.replicas > 0 && pod == StatefulSetName(cluster, set.name) + "-0") return set.name;
  }
  return "";
}

absl::Time ParsedOr(const std::string& rfc3339, absl::Time otherwise) {
  absl::Time t;
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err) ? t : otherwise;
}

UpgradeStep Step(const UpgradeObservation& o, Upgrade u) {
  return {.data_major = DataMajor(*o.cluster), .status = std::move(u)};
}

void Event(UpgradeStep& s, const std::string& reason, const std::string& message,
           bool warning = false) {
  s.event_reason = reason;
  s.event_message = message;
  s.event_warning = warning;
}

UpgradeStep Fail(const UpgradeObservation& o, Upgrade u, const std::string& why) {
  u.phase = api::kUpgradeFailed;
  u.finished_at = runtime::Rfc3339(o.now);
  u.message = why;
  UpgradeStep s = Step(o, std::move(u));
  Event(s, "MajorUpgradeFailed",
        absl::StrCat("major upgrade ", s.status->from, " → ", s.status->to, ": ", why), true);
  return s;
}

// Preparing: the primary onto an ordinal-0 pod, then StoppingReplicas.
UpgradeStep Prepare(const UpgradeObservation& o, Upgrade u) {
  const Members& m = *o.members;
  if (o.job.has_value()) {  // an earlier attempt's Job: it goes before this one starts
    UpgradeStep s = Step(o, std::move(u));
    s.action = UpgradeStep::kDeleteJob;
    s.recheck_after = absl::Seconds(2);
    return s;
  }
  if (!m.primary.empty() && m.primary_ready && !SetOfOrdinalZero(*o.cluster, m.primary).empty()) {
    u.member = m.primary;
    u.phase = api::kUpgradeStoppingReplicas;
    u.message = absl::StrCat("stopping every member but the primary ", m.primary);
    UpgradeStep s = Step(o, std::move(u));
    Event(s, "MajorUpgradeStopping", s.status->message);
    return s;
  }
  const absl::Time started = ParsedOr(u.started_at, o.now);
  if (o.now - started >= kUpgradeSwitchoverWait) {
    const std::string why = absl::StrCat(
        "no ordinal-0 pod became the primary within ", absl::FormatDuration(kUpgradeSwitchoverWait),
        " (primary now: ", m.primary.empty() ? "none" : m.primary,
        "); nothing was stopped. Set spec.postgresVersion back to ", u.from, ", then to ", u.to,
        " again once an ordinal-0 pod streams from the primary");
    return Fail(o, std::move(u), why);
  }
  const absl::Duration left = started + kUpgradeSwitchoverWait - o.now;
  if (m.primary.empty() || !m.primary_ready) {
    u.message = "waiting for a ready primary";
    UpgradeStep s = Step(o, std::move(u));
    s.recheck_after = left;
    return s;
  }
  // A switchover to the first ordinal-0 pod the primary's WAL streams to.
  auto it = m.roles.find(m.primary);
  const std::vector<std::string> streaming =
      it == m.roles.end() ? std::vector<std::string>{} : it->second.streaming_to;
  std::string target;
  for (const std::string& pod : MemberPodNames(*o.cluster)) {
    if (!absl::EndsWith(pod, "-0")) continue;
    if (std::find(streaming.begin(), streaming.end(), pod) != streaming.end()) {
      target = pod;
      break;
    }
  }
  UpgradeStep s;
  if (target.empty()) {
    u.message = absl::StrCat("waiting for an ordinal-0 pod to stream from the primary ", m.primary,
                             " (pg_upgrade runs on an ordinal-0 pod's data)");
    s = Step(o, std::move(u));
  } else if (u.member == target) {  // asked already: Patroni is at it
    u.message = absl::StrCat("waiting for the switchover from ", m.primary, " to ", target);
    s = Step(o, std::move(u));
  } else {
    u.member = target;
    u.message = absl::StrCat("switchover from ", m.primary, " to ", target,
                             " (pg_upgrade runs on an ordinal-0 pod's data)");
    s = Step(o, std::move(u));
    s.action = UpgradeStep::kSwitchover;
    s.switchover_to = target;
    Event(s, "MajorUpgradeSwitchover", s.status->message);
  }
  s.recheck_after = std::min(left, absl::Seconds(5));
  return s;
}

// StoppingReplicas → Stopping → Upgrading, as the pods go.
UpgradeStep Stop(const UpgradeObservation& o, Upgrade u) {
  const Members& m = *o.members;
  if (u.phase == api::kUpgradeStoppingReplicas) {
    const bool alone = std::all_of(o.pods.begin(), o.pods.end(),
                                   [&](const std::string& p) { return p == u.member; });
    if (!alone) {
      u.message = absl::StrCat("waiting for ", o.pods.size() - o.pods.count(u.member),
                               " other member pod(s) to stop");
      return Step(o, std::move(u));
    }
    // Its data must be the newest: it leads when the others are gone.
    if (!o.pods.contains(u.member) || m.primary != u.member) {
      u.message = absl::StrCat("waiting for ", u.member, " to lead alone");
      return Step(o, std::move(u));
    }
    u.phase = api::kUpgradeStopping;
    u.message = absl::StrCat("stopping the primary ", u.member, " (a clean shutdown)");
    return Step(o, std::move(u));
  }
  if (!o.pods.empty()) {
    u.message = absl::StrCat("waiting for ", u.member, " to stop");
    return Step(o, std::move(u));
  }
  u.phase = api::kUpgradeUpgrading;
  u.message = absl::StrCat("pg_upgrade runs on ", u.member, "'s volume");
  UpgradeStep s = Step(o, std::move(u));
  s.action = UpgradeStep::kCreateJob;
  Event(s, "MajorUpgradeRunning", s.status->message);
  return s;
}

UpgradeStep Upgrading(const UpgradeObservation& o, Upgrade u) {
  if (!o.job.has_value() || (!o.job->complete && !o.job->failed)) {
    UpgradeStep s = Step(o, std::move(u));
    s.action = UpgradeStep::kCreateJob;
    return s;
  }
  if (o.job->failed) {
    const std::string why = absl::StrCat("pg_upgrade failed, the members run PostgreSQL ", u.from,
                                         " again: ", o.job->message);
    return Fail(o, std::move(u), why);
  }
  // The caller clears the DCS, then records Starting.
  u.phase = api::kUpgradeStarting;
  u.message = absl::StrCat(u.member, " starts on PostgreSQL ", u.to, " alone");
  UpgradeStep s = Step(o, std::move(u));
  s.action = UpgradeStep::kClearDcs;
  Event(s, "MajorUpgradeStarting",
        absl::StrCat("pg_upgrade: ", o.job->message.empty() ? "succeeded" : o.job->message, "; ",
                     s.status->message));
  return s;
}

UpgradeStep Start(const UpgradeObservation& o, Upgrade u) {
  const Members& m = *o.members;
  if (m.primary != u.member || !m.primary_ready) {
    u.message = absl::StrCat("waiting for ", u.member, " to lead on PostgreSQL ", u.to);
    return Step(o, std::move(u));
  }
  u.phase = api::kUpgradeSucceeded;
  u.finished_at = runtime::Rfc3339(o.now);
  u.message = absl::StrCat(u.member, " leads on PostgreSQL ", u.to, "; the other members clone it");
  UpgradeStep s = Step(o, std::move(u));
  s.data_major = s.status->to;
  Event(
      s, "MajorUpgradeSucceeded",
      absl::StrCat("major upgrade ", s.status->from, " → ", s.status->to, ": ", s.status->message));
  return s;
}

}  // namespace

int DataMajor(const PostgresCluster& cluster) {
  return cluster.status.postgres_version != 0 ? cluster.status.postgres_version
                                              : cluster.spec.postgres_version;
}

bool UpgradeUnderway(const PostgresCluster& cluster) {
  const auto& u = cluster.status.major_upgrade;
  return u.has_value() &&
         In(u->phase, {api::kUpgradePreparing, api::kUpgradeStoppingReplicas, api::kUpgradeStopping,
                       api::kUpgradeUpgrading, api::kUpgradeStarting});
}

void ApplyRunningView(PostgresCluster& cluster, const std::string& running_image) {
  const int data = DataMajor(cluster);
  const auto& u = cluster.status.major_upgrade;
  if (u.has_value() && u->phase == api::kUpgradeStarting) return;  // the new major's data
  if (cluster.spec.postgres_version == data) return;
  cluster.spec.postgres_version = data;
  if (u.has_value() && u->from == data && !u->from_image.empty()) {
    cluster.spec.image = u->from_image;
  } else if (!running_image.empty()) {
    cluster.spec.image = running_image;
  } else {
    cluster.spec.image = "";  // the default of the data's major
  }
}

std::optional<int> UpgradeReplicas(const PostgresCluster& cluster, const std::string& set_name) {
  if (!UpgradeUnderway(cluster)) return std::nullopt;
  const Upgrade& u = *cluster.status.major_upgrade;
  if (In(u.phase, {api::kUpgradeStopping, api::kUpgradeUpgrading})) return 0;
  if (In(u.phase, {api::kUpgradeStoppingReplicas, api::kUpgradeStarting})) {
    return SetOfOrdinalZero(cluster, u.member) == set_name ? 1 : 0;
  }
  return std::nullopt;  // Preparing: as the spec says
}

UpgradeStep PlanMajorUpgrade(const UpgradeObservation& o) {
  const PostgresCluster& c = *o.cluster;
  const int data = DataMajor(c);
  const std::optional<Upgrade>& last = c.status.major_upgrade;
  if (UpgradeUnderway(c)) {
    Upgrade u = *last;
    if (u.phase == api::kUpgradePreparing) return Prepare(o, std::move(u));
    if (In(u.phase, {api::kUpgradeStoppingReplicas, api::kUpgradeStopping})) {
      return Stop(o, std::move(u));
    }
    if (u.phase == api::kUpgradeUpgrading) return Upgrading(o, std::move(u));
    return Start(o, std::move(u));
  }
  const int asked = c.spec.postgres_version;
  if (last.has_value() && last->phase == api::kUpgradeFailed && asked == data) {
    // Set back to the data's major: the failed attempt is over (its events
    // stay); setting the new major again starts another.
    UpgradeStep s{.data_major = data};
    Event(s, "MajorUpgradeAbandoned",
          absl::StrCat("spec.postgresVersion is back at ", data, ": the failed major upgrade to ",
                       last->to, " is given up"));
    return s;
  }
  const bool failed_before = last.has_value() && last->phase == api::kUpgradeFailed &&
                             last->to == asked && last->from == data;
  if (asked <= data || failed_before || RestoreRunning(c)) {
    return {.data_major = data, .status = last};
  }
  Upgrade u{.from = data,
            .to = asked,
            .phase = api::kUpgradePreparing,
            .from_image = !o.running_image.empty() ? o.running_image
                                                   : api::DefaultPostgresImage(data).value_or(""),
            .started_at = runtime::Rfc3339(o.now),
            .message = "preparing: the primary must be an ordinal-0 pod"};
  if (c.spec.backups.pgbackrest.has_value()) {
    return Fail(o, std::move(u), std::string(kBackupsBlockUpgrade) + "; nothing was stopped");
  }
  UpgradeStep s = Prepare(o, std::move(u));
  if (s.event_reason.empty()) {  // the start is said when Prepare says nothing else
    Event(s, "MajorUpgradeStarted",
          absl::StrCat("major upgrade ", data, " → ", asked, ": ", s.status->message));
  }
  return s;
}

}  // namespace quorum::postgrescluster

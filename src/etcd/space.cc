#include "src/etcd/space.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/base/strings.h"

namespace quorum::etcd {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

std::string Mib(int64_t bytes) { return absl::StrFormat("%.1f MiB", bytes / double(kMiB)); }
std::string Hex(uint64_t id) { return absl::StrFormat("%x", id); }

bool Fragmented(const SpaceMember& m, int64_t quota) {
  return m.db_size >= static_cast<int64_t>(quota * kDefragShare) &&
         m.db_size - m.db_size_in_use >= m.db_size / 2 && WorthDefragmenting(m);
}

SpaceAction Defragment(const SpaceMember& m, const std::string& why) {
  return {.kind = SpaceAction::kDefragment,
          .member_id = m.id,
          .endpoint = m.client_url,
          .reason = absl::StrCat("Defragmenting member ", Hex(m.id), " (", Mib(m.db_size),
                                 " file, ", Mib(m.db_size_in_use), " in use): ", why)};
}

// The defragmentation steps shared by both episodes; nullopt-like kNone when
// every member that needs it is done.
template <typename Needs>
SpaceAction NextDefragmentation(const SpaceObservation& o, Needs needs, const std::string& why) {
  const SpaceMember* leader = nullptr;
  for (const SpaceMember& m : o.members) {
    if (m.id == o.leader_id) {
      leader = &m;
      continue;
    }
    if (needs(m, o.quota_bytes)) return Defragment(m, why);  // followers first
  }
  if (leader == nullptr || !needs(*leader, o.quota_bytes)) return {};
  // Hand leadership to a voting follower first (one already defragmented:
  // every follower is, by now), so the cluster keeps a responsive leader.
  for (const SpaceMember& m : o.members) {
    if (m.id != leader->id && !m.is_learner && m.answered) {
      return {.kind = SpaceAction::kMoveLeader,
              .member_id = m.id,
              .reason = absl::StrCat("Moving leadership from ", Hex(leader->id), " to ", Hex(m.id),
                                     " before defragmenting the former leader")};
    }
  }
  return Defragment(*leader, why);  // a single voting member: nobody to hand over to
}

}  // namespace

bool WorthDefragmenting(const SpaceMember& m) {
  const int64_t free_bytes = m.db_size - m.db_size_in_use;
  return m.answered && !m.client_url.empty() && free_bytes >= kMiB && free_bytes * 10 >= m.db_size;
}

SpaceAction NextSpaceAction(const SpaceObservation& o) {
  const bool fragmented = [&] {
    for (const SpaceMember& m : o.members) {
      if (Fragmented(m, o.quota_bytes)) return true;
    }
    return false;
  }();
  if (!o.nospace_alarm && !fragmented) return {};
  const std::string episode = o.nospace_alarm ? "the NOSPACE alarm" : "defragmentation";
  for (const SpaceMember& m : o.members) {
    if (!m.is_learner && !m.answered) {
      return {.kind = SpaceAction::kWait,
              .reason = absl::StrCat("Member ", Hex(m.id), " does not answer; ", episode,
                                     " waits until every voting member does")};
    }
  }
  if (o.leader_id == 0) {
    return {.kind = SpaceAction::kWait,
            .reason = absl::StrCat("No leader; ", episode, " waits for one")};
  }
  if (!o.nospace_alarm) {
    return NextDefragmentation(o, &Fragmented,
                               "at least half of its file is free pages and it nears the quota");
  }
  if (!o.compacted) {
    return {.kind = SpaceAction::kCompact,
            .revision = o.revision,
            .reason = absl::StrCat("The NOSPACE alarm is raised (quota ", Mib(o.quota_bytes),
                                   "); compacting the key history to revision ", o.revision)};
  }
  auto not_yet = [&o](const SpaceMember& m, int64_t) {
    return m.answered && !m.client_url.empty() &&
           std::find(o.defragmented.begin(), o.defragmented.end(), m.id) == o.defragmented.end();
  };
  SpaceAction step = NextDefragmentation(o, not_yet, "to free the space compaction released");
  if (step.kind != SpaceAction::kNone) return step;
  int64_t in_use = 0;
  for (const SpaceMember& m : o.members) in_use = std::max(in_use, m.db_size_in_use);
  if (in_use >= static_cast<int64_t>(o.quota_bytes * kStillFullShare)) {
    return {.kind = SpaceAction::kWait,
            .reason = absl::StrCat("After compaction and defragmentation the data in use (",
                                   Mib(in_use), ") still fills the quota (", Mib(o.quota_bytes),
                                   "): raise spec.options.quota-backend-bytes or delete data; "
                                   "the NOSPACE alarm stays raised")};
  }
  return {.kind = SpaceAction::kDisarm,
          .reason = absl::StrCat("Compacted and defragmented (", Mib(in_use), " in use of a ",
                                 Mib(o.quota_bytes), " quota); disarming the NOSPACE alarm")};
}

std::string_view SpaceKindName(SpaceAction::Kind kind) {
  switch (kind) {
    case SpaceAction::kNone:
      return "None";
    case SpaceAction::kWait:
      return "Wait";
    case SpaceAction::kCompact:
      return "Compact";
    case SpaceAction::kDefragment:
      return "Defragment";
    case SpaceAction::kMoveLeader:
      return "MoveLeader";
    case SpaceAction::kDisarm:
      return "DisarmAlarm";
  }
  return "Unknown";
}

int64_t QuotaBytes(std::string_view value) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(Absl(value), &v) || v <= 0) return kDefaultQuotaBytes;
  return v;
}

}  // namespace quorum::etcd

#include "src/controllers/etcdcluster/roll.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace quorum::etcdcluster {
namespace {

using etcd::Action;

Action Wait(std::string reason) { return {.kind = Action::kWait, .reason = std::move(reason)}; }

bool Down(const RollOrdinal& o) { return !o.pod_ready || !o.healthy; }

bool IsVoter(const RollOrdinal& o) { return o.member_id.has_value() && !o.learner; }

// After `leaving`'s member is removed, more than half of the voting members
// left answer healthy.
bool RemovalKeepsQuorum(const RollInput& in, const RollOrdinal& leaving) {
  int healthy_after = 0;
  for (const RollOrdinal& o : in.ordinals) {
    if (o.ordinal != leaving.ordinal && IsVoter(o) && o.healthy) ++healthy_after;
  }
  const int voting_after = in.voting_members - (leaving.learner ? 0 : 1);
  return voting_after >= 1 && 2 * healthy_after > voting_after;
}

// The step that gives ordinal `o` the StatefulSet's current template.
Action Replace(const RollInput& in, const RollOrdinal& o, const std::string& why) {
  if (!in.empty_dir || !o.member_id.has_value()) {
    return {.kind = Action::kRollPod,
            .ordinal = o.ordinal,
            .pod_uid = o.pod_uid,
            .reason =
                absl::StrCat("rolling pod ", o.pod, " to revision ", in.revision, " (", why, ")")};
  }
  if (in.voting_members <= 1 && !o.learner) {
    return Wait(absl::StrCat("pod ", o.pod,
                             " runs an older pod template, but it is the only member and its data "
                             "is on an emptyDir: replacing it would lose the cluster's data. Scale "
                             "spec.replicas to 3 first; the members are then replaced one by one"));
  }
  if (!RemovalKeepsQuorum(in, o)) {
    return Wait(absl::StrCat("pod ", o.pod,
                             " runs an older pod template; replacing its member (emptyDir) waits "
                             "until the others have a healthy quorum without it"));
  }
  return {.kind = Action::kReplaceMember,
          .member_id = *o.member_id,
          .ordinal = o.ordinal,
          .pod_uid = o.pod_uid,
          .reason = absl::StrCat("replacing member ", o.pod,
                                 " (emptyDir: removed, then its pod "
                                 "comes back with revision ",
                                 in.revision, " as a new member; ", why, ")")};
}

// Why the healthy roll cannot take its next step yet, or "" when it can.
std::string NotSettled(const RollInput& in) {
  for (const RollOrdinal& o : in.ordinals) {
    if (o.deleting) return absl::StrCat("pod ", o.pod, " is being deleted");
    if (!o.pod_ready) return absl::StrCat("pod ", o.pod, " is not ready");
    if (!o.member_id.has_value()) return absl::StrCat("pod ", o.pod, " has no member yet");
    if (o.learner) return absl::StrCat("member ", o.pod, " is a learner");
    if (!o.healthy) return absl::StrCat("member ", o.pod, " is not healthy");
  }
  // A member whose pod the cache does not show at all is down too.
  const int healthy =
      static_cast<int>(std::count_if(in.ordinals.begin(), in.ordinals.end(),
                                     [](const RollOrdinal& o) { return IsVoter(o) && o.healthy; }));
  if (healthy < in.voting_members) {
    return absl::StrCat("only ", healthy, " of the ", in.voting_members,
                        " voting members answer healthy");
  }
  if (!in.leader_id.has_value()) return "the cluster has no leader";
  for (const RollOrdinal& o : in.ordinals) {
    if (o.applied_index + kCatchUpSlack < in.leader_raft_index) {
      return absl::StrCat("member ", o.pod, " is catching up (applied ", o.applied_index,
                          " of the leader's ", in.leader_raft_index, ")");
    }
  }
  return "";
}

// A healthy voting member to lead instead of `leader`: an updated one
// first, then the one furthest in the log, then the lowest ordinal.
const RollOrdinal* NextLeader(const RollInput& in, const RollOrdinal& leader) {
  const RollOrdinal* best = nullptr;
  for (const RollOrdinal& o : in.ordinals) {
    if (o.ordinal == leader.ordinal || !IsVoter(o) || !o.healthy) continue;
    if (best == nullptr ||
        std::make_tuple(!o.outdated, o.applied_index, -o.ordinal) >
            std::make_tuple(!best->outdated, best->applied_index, -best->ordinal)) {
      best = &o;
    }
  }
  return best;
}

}  // namespace

Action PlanRoll(const RollInput& in) {
  std::vector<const RollOrdinal*> outdated;
  for (const RollOrdinal& o : in.ordinals) {
    if (o.outdated) outdated.push_back(&o);
  }
  if (outdated.empty()) return {};
  std::sort(outdated.begin(), outdated.end(),
            [](const RollOrdinal* a, const RollOrdinal* b) { return a->ordinal > b->ordinal; });
  // Already down: replacing it takes nothing away.
  for (const RollOrdinal* o : outdated) {
    if (!o->deleting && Down(*o)) return Replace(in, *o, "it is down and runs an older template");
  }
  if (std::string wait = NotSettled(in); !wait.empty()) {
    return Wait(absl::StrCat("the roll to the new pod template waits: ", wait));
  }
  for (const RollOrdinal* o : outdated) {
    if (o->member_id != in.leader_id)
      return Replace(in, *o, "a follower, rolled before the leader");
  }
  const RollOrdinal& leader = *outdated.front();  // only the leader is left
  const RollOrdinal* next = NextLeader(in, leader);
  if (next == nullptr) return Replace(in, leader, "the only member");
  return {.kind = Action::kMoveLeader,
          .member_id = *next->member_id,
          .ordinal = next->ordinal,
          .reason = absl::StrCat("moving leadership from ", leader.pod, " to ", next->pod,
                                 " before ", leader.pod, " rolls to revision ", in.revision)};
}

void RolledPods::Deleted(const std::string& cluster_key, const std::string& pod_uid) {
  absl::MutexLock lock(&mu_);
  deleted_[cluster_key].insert(pod_uid);
}

std::set<std::string> RolledPods::StillShown(const std::string& cluster_key,
                                             const std::vector<std::string>& live_uids) {
  absl::MutexLock lock(&mu_);
  auto it = deleted_.find(cluster_key);
  if (it == deleted_.end()) return {};
  std::set<std::string> shown;
  for (const std::string& uid : live_uids) {
    if (it->second.contains(uid)) shown.insert(uid);
  }
  if (shown.empty()) {
    deleted_.erase(it);
  } else {
    it->second = shown;
  }
  return shown;
}

void RolledPods::Forget(const std::string& cluster_key) {
  absl::MutexLock lock(&mu_);
  deleted_.erase(cluster_key);
}

}  // namespace quorum::etcdcluster

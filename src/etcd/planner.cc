#include "src/etcd/planner.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace quorum::etcd {
namespace {

bool IsHealthy(const MemberView& m) { return m.healthy.value_or(false); }

// More than half of `voting` members healthy.
bool IsQuorum(int healthy, int voting) { return voting > 0 && 2 * healthy > voting; }

struct Placed {
  const MemberView* member;
  int ordinal;
};

// The observation with every member placed on its ordinal.
class Plan {
 public:
  explicit Plan(const Observation& o)
      : o_(o), target_(std::max(o.desired_replicas, 1)), sts_(o.statefulset_replicas) {}

  Action Next();

 private:
  std::string Name(int ordinal) const { return o_.member_name(ordinal); }
  std::string Name(const Placed& p) const { return Name(p.ordinal); }
  PodView Pod(int ordinal) const {
    for (const PodView& p : o_.pods) {
      if (p.ordinal == ordinal) return p;
    }
    return PodView{.ordinal = ordinal};
  }

  // Returns a kWait when some member cannot be placed.
  std::optional<Action> PlaceMembers();
  Action Unbootstrapped() const;
  Action NoMemberList() const;
  Action ForLearner(const Placed& learner) const;
  // Removal of voting member `p` (moving leadership away first), or a kWait
  // saying why it is unsafe. `why` starts the reason of the removal.
  Action RemoveVoter(const Placed& p, const std::string& why) const;
  Action AddLearner(int ordinal) const;
  std::string UnhealthyVoters(uint64_t except) const;

  const Observation& o_;
  const int target_;  // membership target N
  const int sts_;
  std::vector<Placed> placed_;  // by ordinal
  int voting_ = 0;
  int healthy_voting_ = 0;
};

Action Make(Action::Kind kind, std::string reason) {
  Action a;
  a.kind = kind;
  a.reason = std::move(reason);
  return a;
}

Action Scale(int replicas, std::string reason) {
  Action a = Make(Action::kScaleStatefulSet, std::move(reason));
  a.replicas = replicas;
  return a;
}

Action ForMember(Action::Kind kind, const Placed& p, std::string reason) {
  Action a = Make(kind, std::move(reason));
  a.member_id = p.member->id;
  a.ordinal = p.ordinal;
  a.peer_url = p.member->peer_url;
  return a;
}

Action Plan::Unbootstrapped() const {
  if (o_.desired_replicas == 0) {
    if (sts_ > 0) return Scale(0, "0 replicas wanted and the cluster was never bootstrapped");
    return Make(Action::kNone, "0 replicas wanted; the cluster was never bootstrapped");
  }
  if (sts_ != 1) {
    Action a = Make(Action::kBootstrap, absl::StrCat("bootstrapping the cluster with ", Name(0)));
    a.ordinal = 0;
    a.replicas = 1;
    a.peer_url = o_.peer_url(0);
    return a;
  }
  return Make(Action::kWait, absl::StrCat("waiting for the first member ", Name(0),
                                          " to start and answer the member list"));
}

Action Plan::NoMemberList() const {
  if (sts_ == 0) {
    if (o_.desired_replicas == 0) {
      return Make(Action::kNone,
                  absl::StrCat("scaled to zero; ", Name(0), " stays registered with its data"));
    }
    return Scale(1, absl::StrCat("scaling up from zero: ", Name(0), " restarts with its data"));
  }
  return Make(Action::kWait, "no quorum answered the member list; waiting for the members");
}

std::optional<Action> Plan::PlaceMembers() {
  // Every member we created sits below this bound: the StatefulSet is never
  // scaled below the highest member (step 5), a pod exists for it, or it is
  // the learner being added at the lowest free ordinal (<= members). Not
  // spec.replicas: that may be far larger than anything that exists, and the
  // names below are made for every ordinal under the bound.
  int highest_pod = -1;
  for (const PodView& p : o_.pods) highest_pod = std::max(highest_pod, p.ordinal);
  const int limit = std::max(sts_, highest_pod + 1) + static_cast<int>(o_.members.size()) + 1;
  std::vector<std::string> names, urls;
  for (int k = 0; k < limit; ++k) {
    names.push_back(o_.member_name(k));
    urls.push_back(o_.peer_url(k));
  }
  std::map<int, const MemberView*> by_ordinal;
  for (const MemberView& m : o_.members) {
    int ordinal = -1;
    for (int k = 0; k < limit && ordinal < 0; ++k) {
      if (m.peer_url == urls[k]) ordinal = k;
    }
    for (int k = 0; k < limit && ordinal < 0 && !m.name.empty(); ++k) {
      if (m.name == names[k]) ordinal = k;
    }
    if (ordinal < 0) {
      return Make(Action::kWait,
                  absl::StrCat("member ", m.name.empty() ? "(not started)" : m.name, " with ID ",
                               absl::Hex(m.id), " and peer URL ", m.peer_url,
                               " belongs to no pod of this cluster; remove it by hand"));
    }
    if (by_ordinal.count(ordinal) > 0) {
      return Make(Action::kWait, absl::StrCat("members ", absl::Hex(by_ordinal[ordinal]->id),
                                              " and ", absl::Hex(m.id), " both claim ",
                                              names[ordinal], "; remove one by hand"));
    }
    by_ordinal[ordinal] = &m;
  }
  for (const auto& [ordinal, m] : by_ordinal) {
    placed_.push_back({m, ordinal});
    if (!m->is_learner) {
      ++voting_;
      if (IsHealthy(*m)) ++healthy_voting_;
    }
  }
  return std::nullopt;
}

std::string Plan::UnhealthyVoters(uint64_t except) const {
  std::vector<std::string> names;
  for (const Placed& p : placed_) {
    if (!p.member->is_learner && p.member->id != except && !IsHealthy(*p.member)) {
      names.push_back(Name(p));
    }
  }
  if (names.empty()) return "";
  return absl::StrCat(names.size() == 1 ? "member " : "members ", absl::StrJoin(names, ", "),
                      names.size() == 1 ? " is" : " are", " unhealthy: ");
}

Action Plan::ForLearner(const Placed& l) const {
  const std::string name = Name(l);
  const PodView pod = Pod(l.ordinal);
  if (l.ordinal >= target_) {
    return ForMember(
        Action::kRemoveMember, l,
        absl::StrCat("removing learner ", name, ": only ", target_, " members are wanted"));
  }
  if (l.member->started && pod.data_lost) {
    return ForMember(Action::kRemoveMember, l,
                     absl::StrCat("learner ", name, " lost its data; removing it to add it again"));
  }
  if (sts_ <= l.ordinal) {
    return Scale(l.ordinal + 1, absl::StrCat("starting pod ", name, " for the new learner"));
  }
  if (!l.member->started) {
    if (pod.exists && pod.crash_looping) {
      return ForMember(Action::kDeletePod, l,
                       absl::StrCat("restarting pod ", name, " so that it joins as a learner now"));
    }
    if (pod.exists && pod.running_for >= kJoinDeadline) {
      return ForMember(
          Action::kDeletePod, l,
          absl::StrCat("pod ", name, "'s etcd has run for ",
                       absl::FormatDuration(absl::Trunc(pod.running_for, absl::Seconds(1))),
                       " without joining as the learner (its data is another member's): "
                       "restarting it with empty data"));
    }
    Action wait = Make(Action::kWait, absl::StrCat("waiting for learner ", name, " to start"));
    if (pod.exists && pod.running_for > absl::ZeroDuration()) {
      wait.recheck_after = kJoinDeadline - pod.running_for;
    }
    return wait;
  }
  if (!IsHealthy(*l.member)) {
    return Make(Action::kWait, absl::StrCat("waiting for learner ", name, " to become healthy"));
  }
  if (!IsQuorum(healthy_voting_ + 1, voting_ + 1)) {
    return Make(Action::kWait, absl::StrCat(UnhealthyVoters(0), "promoting ", name, " would leave ",
                                            healthy_voting_ + 1, " healthy of ", voting_ + 1,
                                            " voting members, below quorum"));
  }
  return ForMember(Action::kPromote, l, absl::StrCat("promoting learner ", name));
}

Action Plan::RemoveVoter(const Placed& p, const std::string& why) const {
  const std::string name = Name(p);
  const int voting_after = voting_ - 1;
  const int healthy_after = healthy_voting_ - (IsHealthy(*p.member) ? 1 : 0);
  if (voting_after < 1) {
    return Make(Action::kWait, absl::StrCat(why, " but ", name,
                                            " is the only voting member; it cannot be removed"));
  }
  if (!IsQuorum(healthy_after, voting_after)) {
    return Make(Action::kWait, absl::StrCat(UnhealthyVoters(p.member->id), "removing ", name,
                                            " would leave ", healthy_after, " healthy of ",
                                            voting_after, " voting members, below quorum"));
  }
  if (!o_.leader_id.has_value()) {
    return Make(Action::kWait, absl::StrCat("no member reports a leader; not removing ", name));
  }
  if (*o_.leader_id == p.member->id) {
    for (const Placed& q : placed_) {
      if (q.ordinal < target_ && !q.member->is_learner && IsHealthy(*q.member) &&
          q.member->id != p.member->id) {
        return ForMember(Action::kMoveLeader, q,
                         absl::StrCat("moving leadership from ", name, " to ", Name(q),
                                      " before removing ", name));
      }
    }
    return Make(Action::kWait,
                absl::StrCat("no healthy voting member can take leadership from ", name));
  }
  return ForMember(Action::kRemoveMember, p, absl::StrCat(why, ": removing ", name));
}

Action Plan::AddLearner(int ordinal) const {
  const std::string name = Name(ordinal);
  for (const Placed& p : placed_) {
    if (!p.member->is_learner && !p.member->started) {
      return Make(Action::kWait,
                  absl::StrCat("waiting for member ", Name(p), " to start before adding ", name));
    }
  }
  if (!IsQuorum(healthy_voting_, voting_)) {
    return Make(
        Action::kWait,
        absl::StrCat(UnhealthyVoters(0), "the cluster lacks a healthy quorum (", healthy_voting_,
                     " healthy of ", voting_, " voting members); not adding ", name));
  }
  const bool growing = ordinal >= sts_;
  if (growing && healthy_voting_ < voting_) {
    return Make(Action::kWait, absl::StrCat(UnhealthyVoters(0), "not growing the cluster with ",
                                            name, " until every member is healthy"));
  }
  Action a =
      Make(Action::kAddLearner,
           growing ? absl::StrCat("scaling up to ", target_, ": adding ", name, " as a learner")
                   : absl::StrCat("adding ", name, " as a learner for its existing pod"));
  a.ordinal = ordinal;
  a.peer_url = o_.peer_url(ordinal);
  return a;
}

Action Plan::Next() {
  if (!o_.member_name || !o_.peer_url) {
    return Make(Action::kWait, "the observation has no member_name or peer_url function");
  }
  const bool bootstrapped = o_.bootstrapped || (o_.members_known && !o_.members.empty());
  if (!bootstrapped) return Unbootstrapped();
  if (!o_.members_known || o_.members.empty()) return NoMemberList();
  if (std::optional<Action> wait = PlaceMembers()) return *wait;

  // 4. The learner; with several (not made by us), drop the highest first.
  std::vector<const Placed*> learners;
  for (const Placed& p : placed_) {
    if (p.member->is_learner) learners.push_back(&p);
  }
  if (learners.size() > 1) {
    return ForMember(
        Action::kRemoveMember, *learners.back(),
        absl::StrCat("removing learner ", Name(*learners.back()), ": only one learner at a time"));
  }
  if (learners.size() == 1) return ForLearner(*learners.front());

  // 5. A StatefulSet larger than the members need.
  const int needed = placed_.back().ordinal + 1;
  const bool to_zero = o_.desired_replicas == 0 && placed_.size() == 1 && placed_[0].ordinal == 0;
  const int sts_target = to_zero ? 0 : std::max(needed, o_.desired_replicas);
  if (sts_ > sts_target) {
    return Scale(sts_target, to_zero ? absl::StrCat("scaling to zero; ", Name(0),
                                                    " stays registered with its data")
                                     : absl::StrCat("scaling the StatefulSet down to ", sts_target,
                                                    ": no member above it"));
  }

  // 6. Voting members beyond the target, highest ordinal first.
  if (placed_.back().ordinal >= target_) {
    return RemoveVoter(placed_.back(), absl::StrCat("scaling down to ", target_, " members"));
  }

  // 7. Voting members whose pod lost its data, highest ordinal first.
  for (auto it = placed_.rbegin(); it != placed_.rend(); ++it) {
    if (it->member->started && Pod(it->ordinal).data_lost) {
      return RemoveVoter(*it, absl::StrCat(Name(*it), " lost its data"));
    }
  }

  // 8. A StatefulSet too small for the members.
  if (sts_ < needed) {
    return Scale(needed, absl::StrCat("starting pods up to ", Name(needed - 1),
                                      " for the registered members"));
  }

  // 9. The lowest missing ordinal.
  for (int k = 0, i = 0; k < target_; ++k) {
    if (i < static_cast<int>(placed_.size()) && placed_[i].ordinal == k) {
      ++i;
      continue;
    }
    return AddLearner(k);
  }

  std::string reason = absl::StrCat("converged: ", voting_, " voting members");
  if (healthy_voting_ < voting_) {
    absl::StrAppend(&reason, ", ", voting_ - healthy_voting_, " of them unhealthy");
  }
  return Make(Action::kNone, std::move(reason));
}

}  // namespace

Action NextAction(const Observation& observation) { return Plan(observation).Next(); }

std::string_view KindName(Action::Kind kind) {
  switch (kind) {
    case Action::kNone:
      return "None";
    case Action::kWait:
      return "Wait";
    case Action::kBootstrap:
      return "Bootstrap";
    case Action::kAddLearner:
      return "AddLearner";
    case Action::kScaleStatefulSet:
      return "ScaleStatefulSet";
    case Action::kPromote:
      return "Promote";
    case Action::kMoveLeader:
      return "MoveLeader";
    case Action::kRemoveMember:
      return "RemoveMember";
    case Action::kDeletePod:
      return "DeletePod";
    case Action::kRollPod:
      return "RollPod";
    case Action::kReplaceMember:
      return "ReplaceMember";
  }
  return "Unknown";
}

}  // namespace quorum::etcd

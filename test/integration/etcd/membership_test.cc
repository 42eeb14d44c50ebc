// The membership planner driving real etcd processes. An executor plays the
// reconciler and Kubernetes: it observes the cluster (member list, each
// member's status, which processes run), asks NextAction for one step and
// carries it out on the processes, where the StatefulSet's replicas decide
// which ordinals run and a deleted pod is a restarted process. After every
// step, a key is written and every key written so far must still read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "src/etcd/client.h"
#include "src/etcd/errors.h"
#include "src/etcd/planner.h"
#include "test/integration/etcd/etcd_harness.h"

namespace quorum::etcd {
namespace {

using testing::EtcdHarness;

// Polls `f` every 50 ms until it returns OK or `timeout` passes.
absl::Status Eventually(const std::function<absl::Status()>& f, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Status s = f();
  while (!s.ok() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
    s = f();
  }
  return s;
}

struct ConvergeResult {
  std::vector<Action> steps;  // the actions carried out, in order
  Action last;                // the kNone or kWait that ended the run
};

class Executor {
 public:
  Executor(EtcdHarness& harness, Client& client) : h_(harness), c_(client) {}

  // For a cluster the test started by itself.
  void Adopt(int replicas) {
    sts_ = replicas;
    bootstrapped_ = true;
  }
  int statefulset_replicas() const { return sts_; }
  // Keep the data of pods that a scale-down stops (a retained PVC).
  void set_keep_volumes_on_scale_down(bool keep) { keep_volumes_ = keep; }
  // Members whose pod lost its data (the reconciler's record, by member ID).
  std::set<uint64_t>& lost_members() { return lost_; }

  Observation Observe(int desired) {
    Observation o;
    o.desired_replicas = desired;
    o.statefulset_replicas = sts_;
    o.bootstrapped = bootstrapped_;
    o.member_name = [this](int k) { return h_.Name(k); };
    o.peer_url = [this](int k) { return h_.PeerUrl(k); };
    absl::StatusOr<MemberListResponse> list = c_.MemberList(/*linearizable=*/true);
    o.members_known = list.ok();
    std::map<std::string, uint64_t> id_by_peer;
    if (list.ok()) {
      bootstrapped_ = true;
      last_members_ = list->members;
      for (const Member& m : list->members) {
        MemberView v{.id = m.id,
                     .name = m.name,
                     .peer_url = m.peer_urls.empty() ? "" : m.peer_urls[0],
                     .is_learner = m.is_learner,
                     .started = !m.name.empty()};
        if (v.started && !m.client_urls.empty()) {
          absl::StatusOr<StatusResponse> st = c_.Status(m.client_urls[0]);
          v.healthy = st.ok() && st->errors.empty() && st->leader != 0;
          // A leader's own word beats a follower's possibly stale view.
          if (st.ok() && st->leader != 0 &&
              (!o.leader_id.has_value() || st->leader == st->member_id)) {
            o.leader_id = st->leader;
          }
        }
        id_by_peer[v.peer_url] = v.id;
        o.members.push_back(std::move(v));
      }
    }
    for (int k = 0; k < std::max(sts_, desired); ++k) {
      const bool exists = k < sts_;
      const bool runs = h_.Running(k);
      const auto id = id_by_peer.find(h_.PeerUrl(k));
      o.pods.push_back({.ordinal = k,
                        .exists = exists,
                        .ready = exists && runs,
                        .crash_looping = exists && !runs,
                        .data_lost = exists && id != id_by_peer.end() && lost_.count(id->second)});
    }
    return o;
  }

  // Starts pod k's etcd as Kubernetes would after bootstrap: state existing,
  // initial cluster from the member list (or the last one seen).
  absl::Status StartExisting(int k) {
    absl::StatusOr<MemberListResponse> list = c_.MemberList(/*linearizable=*/true);
    const std::vector<Member>& members = list.ok() ? list->members : last_members_;
    std::vector<std::string> parts;
    bool self = false;
    for (const Member& m : members) {
      if (m.peer_urls.empty()) continue;
      std::string name = m.name;
      for (int j = 0; j < h_.max_members() && name.empty(); ++j) {
        if (m.peer_urls[0] == h_.PeerUrl(j)) name = h_.Name(j);
      }
      if (name.empty()) continue;
      if (m.peer_urls[0] == h_.PeerUrl(k)) self = true;
      parts.push_back(name + "=" + m.peer_urls[0]);
    }
    if (!self) parts.push_back(h_.Name(k) + "=" + h_.PeerUrl(k));
    return h_.Start(k, /*new_cluster=*/false, absl::StrJoin(parts, ","));
  }

  absl::Status ScaleTo(int replicas) {
    for (int k = sts_ - 1; k >= replicas; --k) {
      h_.Stop(k);
      // The PVC of a removed member goes with its pod (stale data would stop
      // a later member of that ordinal); member 0's stays when scaling to 0.
      if (k >= std::max(replicas, 1) && !keep_volumes_) h_.WipeData(k);
    }
    for (int k = sts_; k < replicas; ++k) {
      if (absl::Status s = StartExisting(k); !s.ok()) return s;
    }
    sts_ = replicas;
    return absl::OkStatus();
  }

  absl::Status Execute(const Action& a) {
    switch (a.kind) {
      case Action::kBootstrap:
        sts_ = 1;
        return h_.Start(0, /*new_cluster=*/true, h_.InitialCluster({0}));
      case Action::kAddLearner:
        return c_.MemberAdd({a.peer_url}, /*is_learner=*/true).status();
      case Action::kScaleStatefulSet:
        return ScaleTo(a.replicas);
      case Action::kPromote: {
        absl::Status s = c_.MemberPromote(a.member_id);
        if (IsLearnerNotReady(s)) {
          absl::SleepFor(absl::Milliseconds(100));  // the planner asks again
          return absl::OkStatus();
        }
        return s;
      }
      case Action::kMoveLeader:
        return c_.MoveLeader(a.member_id);
      case Action::kRemoveMember:
        return c_.MemberRemove(a.member_id);
      case Action::kDeletePod:  // with its volume: the learner never started
        h_.Stop(a.ordinal);
        h_.WipeData(a.ordinal);
        return a.ordinal < sts_ ? StartExisting(a.ordinal) : absl::OkStatus();
      case Action::kNone:
      case Action::kWait:
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  // Writes one more key and reads back every key written so far.
  void CheckData() {
    if (sts_ == 0) return;
    const std::string key = absl::StrCat("check/", keys_.size());
    absl::Status put =
        Eventually([&] { return c_.Put(key, "v-" + key).status(); }, absl::Seconds(15));
    ASSERT_TRUE(put.ok()) << "write after a step: " << put;
    keys_.push_back(key);
    for (const std::string& k : keys_) {
      absl::StatusOr<GetResponse> got;
      absl::Status s = Eventually(
          [&] {
            got = c_.Get(k);
            return got.status();
          },
          absl::Seconds(15));
      ASSERT_TRUE(s.ok()) << s;
      ASSERT_EQ(got->value, "v-" + k) << "key " << k << " lost";
    }
  }

  // Observe → plan → execute until kNone (or the first kWait when
  // `stop_at_wait`), checking the data after every step.
  ConvergeResult Converge(int desired, bool stop_at_wait = false,
                          absl::Duration timeout = absl::Seconds(90)) {
    ConvergeResult run;
    const absl::Time deadline = absl::Now() + timeout;
    int failures = 0;
    std::string last_failure, last_step;
    while (absl::Now() < deadline) {
      const Action a = NextAction(Observe(desired));
      if (a.kind == Action::kNone || (a.kind == Action::kWait && stop_at_wait)) {
        run.last = a;
        return run;
      }
      if (a.kind == Action::kWait) {
        if (run.last.reason != a.reason) std::cout << "  wait: " << a.reason << "\n";
        run.last = a;
        absl::SleepFor(absl::Milliseconds(100));
        continue;
      }
      if (a.reason != last_step)
        std::cout << "  step: " << KindName(a.kind) << ": " << a.reason << "\n";
      last_step = a.reason;
      absl::Status s = Execute(a);
      if (!s.ok()) {
        // etcd refuses membership changes for a few seconds after one
        // (Unavailable, "unhealthy cluster"): the reconciler requeues.
        if (s.ToString() != last_failure) std::cout << "  step failed (retried): " << s << "\n";
        last_failure = s.ToString();
        if (!absl::IsUnavailable(s)) {
          EXPECT_LT(++failures, 5) << s;
          if (failures >= 5) return run;
        }
        absl::SleepFor(absl::Milliseconds(250));
        continue;
      }
      run.steps.push_back(a);
      CheckData();
      if (::testing::Test::HasFatalFailure()) return run;
    }
    ADD_FAILURE() << "no convergence to " << desired << "; last: " << run.last.reason;
    return run;
  }

 private:
  EtcdHarness& h_;
  Client& c_;
  int sts_ = 0;
  bool bootstrapped_ = false;
  std::set<uint64_t> lost_;
  std::vector<Member> last_members_;
  std::vector<std::string> keys_;
  bool keep_volumes_ = false;
};

// The kinds of `steps`, with repeats of one step folded (a promotion retried
// while the learner catches up, a move seen before every member noticed it).
std::vector<std::string> Kinds(const std::vector<Action>& steps) {
  std::vector<std::string> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i > 0 && steps[i].kind == steps[i - 1].kind &&
        steps[i].member_id == steps[i - 1].member_id &&
        steps[i].replicas == steps[i - 1].replicas) {
      continue;
    }
    out.emplace_back(KindName(steps[i].kind));
  }
  return out;
}

class MembershipTest : public ::testing::Test {
 protected:
  void SetUp() override { Setup(/*tls=*/false, ""); }

  // A harness of up to 5 members; with a username the client authenticates
  // as that user (with password "pw") once auth is on.
  void Setup(bool tls, const std::string& username) {
    exec_.reset();
    client_.reset();
    harness_ = std::make_unique<EtcdHarness>(testing::HarnessOptions{.max_members = 5, .tls = tls});
    ASSERT_TRUE(harness_->Init().ok());
    ClientConfig config = harness_->Config();
    config.username = username;
    config.password = "pw";
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(config);
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = *std::move(c);
    exec_ = std::make_unique<Executor>(*harness_, *client_);
  }

  // n voting members on ordinals 0..n-1, each answering with a leader.
  void ExpectHealthyVoters(int n) {
    absl::StatusOr<MemberListResponse> list = client_->MemberList();
    ASSERT_TRUE(list.ok()) << list.status();
    ASSERT_EQ(list->members.size(), static_cast<size_t>(n));
    std::set<std::string> names;
    for (const Member& m : list->members) {
      EXPECT_FALSE(m.is_learner) << m.name;
      names.insert(m.name);
      ASSERT_FALSE(m.client_urls.empty()) << m.name;
      absl::StatusOr<StatusResponse> st = client_->Status(m.client_urls[0]);
      EXPECT_TRUE(st.ok() && st->leader != 0) << m.name << ": " << st.status();
    }
    for (int k = 0; k < n; ++k) EXPECT_TRUE(names.count(harness_->Name(k))) << harness_->Name(k);
    for (int k = 0; k < harness_->max_members(); ++k) {
      EXPECT_EQ(harness_->Running(k), k < n) << harness_->Name(k);
    }
  }

  uint64_t IdOf(int k) {
    absl::StatusOr<MemberListResponse> list = client_->MemberList();
    if (!list.ok()) return 0;
    for (const Member& m : list->members) {
      if (!m.peer_urls.empty() && m.peer_urls[0] == harness_->PeerUrl(k)) return m.id;
    }
    return 0;
  }

  std::unique_ptr<EtcdHarness> harness_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<Executor> exec_;
};

using Strings = std::vector<std::string>;

TEST_F(MembershipTest, GrowsFromOneToThreeToFive) {
  ConvergeResult r = exec_->Converge(1);
  EXPECT_EQ(Kinds(r.steps), Strings{"Bootstrap"});
  ExpectHealthyVoters(1);

  r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"AddLearner", "ScaleStatefulSet", "Promote", "AddLearner",
                                     "ScaleStatefulSet", "Promote"}));
  ExpectHealthyVoters(3);

  r = exec_->Converge(5);
  EXPECT_EQ(Kinds(r.steps), (Strings{"AddLearner", "ScaleStatefulSet", "Promote", "AddLearner",
                                     "ScaleStatefulSet", "Promote"}));
  ExpectHealthyVoters(5);
  EXPECT_EQ(r.last.kind, Action::kNone);
}

TEST_F(MembershipTest, ShrinksFromFiveToThreeMovingLeadershipAway) {
  ASSERT_TRUE(harness_->StartNewCluster(*client_, 5).ok());
  exec_->Adopt(5);
  ASSERT_TRUE(client_->MoveLeader(IdOf(4)).ok());

  ConvergeResult r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"MoveLeader", "RemoveMember", "ScaleStatefulSet",
                                     "RemoveMember", "ScaleStatefulSet"}));
  std::vector<std::string> removed;
  for (const Action& a : r.steps) {
    if (a.kind == Action::kRemoveMember) removed.push_back(harness_->Name(a.ordinal));
  }
  EXPECT_EQ(removed, (Strings{"test-4", "test-3"}));
  ExpectHealthyVoters(3);
}

TEST_F(MembershipTest, ReplacesAMemberThatLostItsData) {
  exec_->Converge(3);
  ExpectHealthyVoters(3);
  const uint64_t old_id = IdOf(1);

  // The pod comes back with an empty data dir: etcd refuses to start.
  harness_->Stop(1);
  harness_->WipeData(1);
  ASSERT_TRUE(exec_->StartExisting(1).ok());
  ASSERT_TRUE(harness_->WaitExited(1, absl::Seconds(20))) << harness_->LogTail(1);
  exec_->lost_members().insert(old_id);

  ConvergeResult r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"RemoveMember", "AddLearner", "DeletePod", "Promote"}));
  for (const Action& a : r.steps) EXPECT_EQ(a.ordinal, 1) << a.reason;
  ExpectHealthyVoters(3);
  EXPECT_NE(IdOf(1), old_id);
  EXPECT_NE(IdOf(1), 0u);
}

TEST_F(MembershipTest, RefusesToShrinkWhenTheRemainingMembersWouldLackQuorum) {
  exec_->Converge(3);
  harness_->Kill(1);
  // If test-1 led, the others elect a leader first.
  ASSERT_TRUE(Eventually([&] { return client_->MemberList().status(); }, absl::Seconds(10)).ok());
  ConvergeResult r = exec_->Converge(2, /*stop_at_wait=*/true);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_EQ(r.last.kind, Action::kWait);
  EXPECT_EQ(r.last.reason,
            "member test-1 is unhealthy: removing test-2 would leave 1 healthy of 2 voting "
            "members, below quorum");
  absl::StatusOr<MemberListResponse> list = client_->MemberList();
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->members.size(), 3u);

  // Once the member is back, the shrink goes through.
  ASSERT_TRUE(exec_->StartExisting(1).ok());
  r = exec_->Converge(2);
  EXPECT_EQ(Kinds(r.steps), (Strings{"RemoveMember", "ScaleStatefulSet"}));
  ExpectHealthyVoters(2);
}

TEST_F(MembershipTest, ShrinksByRemovingTheDownMemberWhenItIsTheHighest) {
  exec_->Converge(3);
  harness_->Kill(2);
  ConvergeResult r = exec_->Converge(2);
  EXPECT_EQ(Kinds(r.steps), (Strings{"RemoveMember", "ScaleStatefulSet"}));
  ExpectHealthyVoters(2);
}

TEST_F(MembershipTest, ScalesToZeroAndBackKeepingTheData) {
  exec_->Converge(3);
  ConvergeResult r = exec_->Converge(0);
  EXPECT_EQ(r.steps.back().kind, Action::kScaleStatefulSet);
  EXPECT_EQ(r.steps.back().replicas, 0);
  for (int k = 0; k < 3; ++k) EXPECT_FALSE(harness_->Running(k));
  EXPECT_EQ(r.last.kind, Action::kNone);

  r = exec_->Converge(3);  // CheckData reads every key written before
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps.front().kind, Action::kScaleStatefulSet);
  EXPECT_EQ(r.steps.front().replicas, 1);
  ExpectHealthyVoters(3);
}

TEST_F(MembershipTest, ResumesWhenTheLearnerWasAddedButNoPodStarted) {
  exec_->Converge(1);
  ASSERT_TRUE(client_->MemberAdd({harness_->PeerUrl(1)}, true).ok());
  ConvergeResult r = exec_->Converge(2);
  EXPECT_EQ(Kinds(r.steps), (Strings{"ScaleStatefulSet", "Promote"}));
  ExpectHealthyVoters(2);
}

TEST_F(MembershipTest, ResumesWhenThePodStartedBeforeItsMemberWasAdded) {
  exec_->Converge(1);
  ASSERT_TRUE(exec_->ScaleTo(2).ok());  // etcd of pod 1 cannot join and exits
  ASSERT_TRUE(harness_->WaitExited(1, absl::Seconds(20))) << harness_->LogTail(1);
  ConvergeResult r = exec_->Converge(2);
  EXPECT_EQ(Kinds(r.steps), (Strings{"AddLearner", "DeletePod", "Promote"}));
  ExpectHealthyVoters(2);
}

TEST_F(MembershipTest, GrowsAndReplacesOverTlsWithAuth) {
  Setup(/*tls=*/true, "root");
  exec_->Converge(1);
  ASSERT_TRUE(client_->UserAdd("root", "pw").ok());
  ASSERT_TRUE(client_->UserGrantRole("root", "root").ok());
  ASSERT_TRUE(client_->AuthEnable().ok());

  ConvergeResult r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"AddLearner", "ScaleStatefulSet", "Promote", "AddLearner",
                                     "ScaleStatefulSet", "Promote"}));
  ExpectHealthyVoters(3);

  const uint64_t old_id = IdOf(2);
  harness_->Stop(2);
  harness_->WipeData(2);
  ASSERT_TRUE(exec_->StartExisting(2).ok());
  ASSERT_TRUE(harness_->WaitExited(2, absl::Seconds(20))) << harness_->LogTail(2);
  exec_->lost_members().insert(old_id);
  r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"RemoveMember", "AddLearner", "DeletePod", "Promote"}));
  ExpectHealthyVoters(3);
  EXPECT_NE(IdOf(2), old_id);
}

TEST_F(MembershipTest, RecoversALearnerWhosePodKeptTheVolumeOfARemovedMember) {
  // As if the reconciler kept the PVC of a removed member: the new learner's
  // etcd starts as the removed member and exits; deleting the pod with its
  // volume lets it join.
  exec_->set_keep_volumes_on_scale_down(true);
  exec_->Converge(3);
  exec_->Converge(2);
  ConvergeResult r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"AddLearner", "ScaleStatefulSet", "DeletePod", "Promote"}));
  ExpectHealthyVoters(3);
}

}  // namespace
}  // namespace quorum::etcd

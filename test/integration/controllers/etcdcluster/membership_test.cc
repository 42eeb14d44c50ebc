// The EtcdCluster reconciler's membership phases driving real etcd
// processes. Each round runs the production code (src/controllers/etcdcluster):
// ObserveMembers through the client factory, PlanStep, ActOnEtcd for the
// steps on etcd, StateAfterStep for the state ConfigMap and BuildStatus for
// the status (which records each member's storage identity). The harness
// plays Kubernetes: the StatefulSet's replicas decide which ordinals run, a
// pod starts with the state ConfigMap as last applied, a deleted pod is a
// restarted process, and a volume's identity changes when its data is wiped.
// After every step, a key is written and every key written so far must
// still read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "absl/strings/str_join.h"
#include "src/controllers/etcdcluster/act.h"
#include "src/controllers/etcdcluster/plan.h"
#include "src/controllers/etcdcluster/status.h"
#include "src/etcd/client.h"
#include "src/etcd/errors.h"
#include "test/integration/etcd/etcd_harness.h"

namespace quorum::etcdcluster {
namespace {

using etcd::Action;
using etcd::Client;
using etcd::ClientConfig;
using etcd::GetResponse;
using etcd::Member;
using etcd::MemberListResponse;
using etcd::StatusResponse;
using etcd::testing::EtcdHarness;

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
  // `factory` makes the clients the production observe phase uses.
  Executor(EtcdHarness& harness, Client& client, EtcdClientFactory factory)
      : h_(harness), c_(client), factory_(std::move(factory)) {
    cluster_.metadata = {.name = "test", .ns = "default", .uid = "u-1", .generation = 1};
    topology_ = {.member_name = [this](int k) { return h_.Name(k); },
                 .peer_url = [this](int k) { return h_.PeerUrl(k); },
                 .client_url = [this](int k) { return h_.ClientUrl(k); }};
  }

  // For a cluster the test started by itself: its status says initialized.
  void Adopt(int replicas) {
    sts_ = replicas;
    cluster_.status.conditions.push_back({.type = "Initialized", .status = "True"});
  }
  int statefulset_replicas() const { return sts_; }
  // Keep the data of pods that a scale-down stops (a retained PVC).
  void set_keep_volumes_on_scale_down(bool keep) { keep_volumes_ = keep; }

  // Moves the clock the observe phase dates the pods' running_for with,
  // instead of waiting.
  void AdvanceClock(absl::Duration d) { skew_ += d; }

  // Wipes pod k's volume: as a recreated PVC, it gets a new identity.
  void WipeData(int k) {
    h_.WipeData(k);
    ++volume_generation_[k];
  }

  // The Kubernetes side as the production observe phase would see it.
  World ObserveWorld() {
    World w{.statefulset_replicas = sts_, .state_configmap = configmap_};
    for (int k = 0; k < sts_; ++k) {
      const bool runs = h_.Running(k);
      w.pods.push_back({.name = h_.Name(k),
                        .ordinal = k,
                        .has_ip = true,
                        .ready = runs,
                        .crash_looping = !runs,
                        .running_for = runs ? Now() - started_[k] : absl::ZeroDuration()});
      w.storage_uids[k] = absl::StrCat("pvc-", k, "-", volume_generation_[k]);
    }
    return w;
  }

  // Reconciles until a step of `kind` succeeds, ignoring waits and the steps
  // before it; false after `timeout`.
  bool StepUntil(Action::Kind kind, absl::Duration timeout = absl::Seconds(30)) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      const auto [plan, s] = Reconcile();
      if (plan.action.kind == kind && s.ok()) return true;
      absl::SleepFor(absl::Milliseconds(250));
    }
    return false;
  }

  // Starts pod k's etcd as Kubernetes would: with the state ConfigMap.
  absl::Status StartPod(int k) {
    const BootstrapState state = configmap_.value_or(BootstrapState{});
    std::vector<std::string> parts;
    for (const auto& [name, url] : state.members) parts.push_back(name + "=" + url);
    started_[k] = Now();
    return h_.Start(k, /*new_cluster=*/state.state == "new", absl::StrJoin(parts, ","));
  }

  // Starts pod k's etcd with the member list (or the last one seen), for
  // tests that restart a member by hand.
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
    started_[k] = Now();
    return h_.Start(k, /*new_cluster=*/false, absl::StrJoin(parts, ","));
  }

  // The StatefulSet at `replicas`.
  absl::Status ScaleTo(int replicas) {
    for (int k = sts_ - 1; k >= replicas; --k) {
      h_.Stop(k);
      // The PVC of a removed member goes with its pod (stale data would stop
      // a later member of that ordinal); member 0's stays when scaling to 0.
      if (k >= std::max(replicas, 1) && !keep_volumes_) WipeData(k);
    }
    for (int k = sts_; k < replicas; ++k) {
      if (absl::Status s = StartPod(k); !s.ok()) return s;
    }
    sts_ = replicas;
    return absl::OkStatus();
  }

  // The production act phase, with the harness for Kubernetes: the step on
  // etcd, then the state ConfigMap and the StatefulSet as ApplyOwnedObjects
  // would apply them.
  absl::Status Act(const Plan& plan, Client* client) {
    absl::Status step = ActOnEtcd(client, plan.action);
    if (plan.action.kind == Action::kDeletePod) {  // with its volume: the learner never started
      h_.Stop(plan.action.ordinal);
      WipeData(plan.action.ordinal);
      if (plan.action.ordinal < sts_) step = StartPod(plan.action.ordinal);
    }
    configmap_ = StateAfterStep(cluster_, plan, step.ok());
    if (absl::Status s = ScaleTo(plan.statefulset_replicas); !s.ok()) return s;
    return step;
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

  // One reconcile: observe, plan, act, status. Returns the plan and the
  // step's outcome.
  std::pair<Plan, absl::Status> Reconcile() {
    World world = ObserveWorld();
    EtcdConnection etcd;
    if (world.statefulset_replicas > 0) {
      etcd = ObserveMembers(factory_, ClientConfig{}, topology_, world.statefulset_replicas);
      if (etcd.view.members_known) {
        last_members_.clear();
        for (const MemberStatus& ms : etcd.view.members) last_members_.push_back(ms.member);
      }
    }
    PlanInput in = PlanInputFor(cluster_, world, etcd.view, absl::OkStatus());
    in.topology = topology_;
    const Plan plan = PlanStep(in);
    // As the reconciler, apply the objects whatever the step (a wait too).
    const absl::Status step = Act(plan, etcd.client.get());
    cluster_.status = BuildStatus({.cluster = &cluster_,
                                   .etcd = &etcd.view,
                                   .ready_pods = plan.ready_pods,
                                   .action_reason = plan.action.reason,
                                   .converged = plan.action.kind == Action::kNone,
                                   .storage_uids = world.storage_uids,
                                   .now = absl::Now()});
    return {plan, step};
  }

  // Reconciles until kNone (or the first kWait when `stop_at_wait`),
  // checking the data after every step.
  ConvergeResult Converge(int desired, bool stop_at_wait = false,
                          absl::Duration timeout = absl::Seconds(90)) {
    cluster_.spec.replicas = desired;
    ConvergeResult run;
    const absl::Time deadline = absl::Now() + timeout;
    int failures = 0;
    std::string last_failure, last_step;
    while (absl::Now() < deadline) {
      const auto [plan, s] = Reconcile();
      const Action& a = plan.action;
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
        std::cout << "  step: " << etcd::KindName(a.kind) << ": " << a.reason << "\n";
      last_step = a.reason;
      if (!s.ok()) {
        // etcd refuses membership changes for a few seconds after one, and
        // promotions until the learner caught up: the reconciler waits.
        if (s.ToString() != last_failure) std::cout << "  step failed (retried): " << s << "\n";
        last_failure = s.ToString();
        if (!IsSettling(s)) {
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
  EtcdClientFactory factory_;
  EtcdCluster cluster_;
  Topology topology_;
  int sts_ = 0;
  std::optional<BootstrapState> configmap_;
  std::map<int, int> volume_generation_;
  std::vector<Member> last_members_;
  std::vector<std::string> keys_;
  bool keep_volumes_ = false;
  absl::Duration skew_ = absl::ZeroDuration();
  std::map<int, absl::Time> started_;  // when each pod's etcd last started, on Now()

  absl::Time Now() const { return absl::Now() + skew_; }
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
    out.emplace_back(etcd::KindName(steps[i].kind));
  }
  return out;
}

class MembershipTest : public ::testing::Test {
 protected:
  void SetUp() override { Setup(/*tls=*/false, ""); }

  // A harness of up to 5 members; with a username the client authenticates
  // as that user (with password "pw") once auth is on. With root_certificate
  // (and tls) the clients present the CN=root certificate: etcd takes them
  // for root without a token.
  void Setup(bool tls, const std::string& username, bool root_certificate = false) {
    exec_.reset();
    client_.reset();
    harness_ =
        std::make_unique<EtcdHarness>(etcd::testing::HarnessOptions{.max_members = 5, .tls = tls});
    ASSERT_TRUE(harness_->Init().ok());
    auto configure = [this, username, root_certificate](ClientConfig& config) {
      config.username = username;
      config.password = "pw";
      if (root_certificate) {
        config.cert_pem = harness_->tls().named_client_cert_pem;
        config.key_pem = harness_->tls().named_client_key_pem;
      }
    };
    ClientConfig config = harness_->Config();
    configure(config);
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(config);
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = *std::move(c);
    // The production observe phase gets its clients from this factory: the
    // harness's TLS material and credentials, the endpoints it chose.
    EtcdClientFactory factory = [this, configure](ClientConfig c) {
      ClientConfig config = harness_->Config(c.endpoints);
      configure(config);
      return Client::Create(std::move(config));
    };
    exec_ = std::make_unique<Executor>(*harness_, *client_, std::move(factory));
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
  exec_->WipeData(1);
  ASSERT_TRUE(exec_->StartExisting(1).ok());
  ASSERT_TRUE(harness_->WaitExited(1, absl::Seconds(20))) << harness_->LogTail(1);

  ConvergeResult r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"RemoveMember", "AddLearner", "DeletePod", "Promote"}));
  for (const Action& a : r.steps) EXPECT_EQ(a.ordinal, 1) << a.reason;
  ExpectHealthyVoters(3);
  EXPECT_NE(IdOf(1), old_id);
  EXPECT_NE(IdOf(1), 0u);
}

TEST_F(MembershipTest, ReplacesAMemberWhoseFailedStartLeftTheRemovedIdentity) {
  exec_->Converge(3);
  ExpectHealthyVoters(3);

  // On Kubernetes a pod whose data was lost starts before the operator sees
  // the loss: its etcd takes the old member's ID, writes a WAL and panics on
  // the leader's first heartbeat.
  harness_->Stop(1);
  exec_->WipeData(1);
  ASSERT_TRUE(exec_->StartExisting(1).ok());
  ASSERT_TRUE(harness_->WaitExited(1, absl::Seconds(20))) << harness_->LogTail(1);
  ASSERT_TRUE(exec_->StepUntil(Action::kRemoveMember));
  // The kubelet restarts the container with that WAL: etcd comes back as the
  // removed member, knows no peer, and neither joins nor exits.
  ASSERT_TRUE(exec_->StartPod(1).ok());
  ASSERT_TRUE(exec_->StepUntil(Action::kAddLearner));
  // Absence, observable only by waiting: the member neither joins nor exits.
  absl::SleepFor(absl::Seconds(5));
  ASSERT_TRUE(harness_->Running(1)) << harness_->LogTail(1);
  const Action wait = exec_->Reconcile().first.action;
  EXPECT_EQ(wait.kind, Action::kWait) << wait.reason;
  EXPECT_EQ(wait.reason, "waiting for learner test-1 to start");

  // Once it has run for the deadline, its pod goes with the data.
  exec_->AdvanceClock(etcd::kJoinDeadline);
  ConvergeResult r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"DeletePod", "Promote"}));
  ExpectHealthyVoters(3);
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

  // Once the member is back, the shrink goes through. etcd refuses a removal
  // ("unhealthy cluster") until the restarted member has been connected for
  // 5 s, and a removal sent to the member being removed can be applied while
  // its answer is an error ("server stopped"): then only the scale-down is
  // left to do. Either way the cluster ends with test-0 and test-1.
  ASSERT_TRUE(exec_->StartExisting(1).ok());
  r = exec_->Converge(2);
  const Strings kinds = Kinds(r.steps);
  EXPECT_TRUE(kinds == (Strings{"RemoveMember", "ScaleStatefulSet"}) ||
              kinds == (Strings{"ScaleStatefulSet"}))
      << absl::StrJoin(kinds, ", ");
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
  exec_->WipeData(2);
  ASSERT_TRUE(exec_->StartExisting(2).ok());
  ASSERT_TRUE(harness_->WaitExited(2, absl::Seconds(20))) << harness_->LogTail(2);
  r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"RemoveMember", "AddLearner", "DeletePod", "Promote"}));
  ExpectHealthyVoters(3);
  EXPECT_NE(IdOf(2), old_id);
}

// aenix's cert-only root: no username, a client certificate with CN=root.
TEST_F(MembershipTest, GrowsAndReplacesWithAuthAsRootByTheCertificatesCommonName) {
  Setup(/*tls=*/true, "", /*root_certificate=*/true);
  exec_->Converge(1);
  ASSERT_TRUE(client_->UserAdd("root", "").ok());
  ASSERT_TRUE(client_->UserGrantRole("root", "root").ok());
  ASSERT_TRUE(client_->AuthEnable().ok());
  absl::StatusOr<etcd::AuthStatusResponse> auth = client_->AuthStatus();
  ASSERT_TRUE(auth.ok()) << auth.status();
  EXPECT_TRUE(auth->enabled);

  ConvergeResult r = exec_->Converge(3);
  EXPECT_EQ(Kinds(r.steps), (Strings{"AddLearner", "ScaleStatefulSet", "Promote", "AddLearner",
                                     "ScaleStatefulSet", "Promote"}));
  ExpectHealthyVoters(3);

  const uint64_t old_id = IdOf(2);
  harness_->Stop(2);
  exec_->WipeData(2);
  ASSERT_TRUE(exec_->StartExisting(2).ok());
  ASSERT_TRUE(harness_->WaitExited(2, absl::Seconds(20))) << harness_->LogTail(2);
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
}  // namespace quorum::etcdcluster

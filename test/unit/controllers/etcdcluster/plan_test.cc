// Table tests of the EtcdCluster plan phase: from an observation (pods, the
// StatefulSet, etcd's member list, access problems) to the step, the objects
// that go with it and what the reconciler waits for afterwards.
#include "src/controllers/etcdcluster/plan.h"

#include <gtest/gtest.h>

#include "src/controllers/etcdcluster/act.h"

namespace quorum::etcdcluster {
namespace {

EtcdCluster Cluster(int replicas, bool empty_dir = false) {
  EtcdCluster c;
  c.metadata = {.name = "kv", .ns = "db", .uid = "u-1", .generation = 1};
  c.spec.replicas = replicas;
  if (empty_dir) c.spec.storage.empty_dir = Json::object();
  return c;
}

void MarkInitialized(EtcdCluster& c) {
  c.status.conditions.push_back({.type = "Initialized", .status = "True"});
}

PodInfo Pod(int k, bool ip, bool ready) {
  return {.name = "kv-" + std::to_string(k), .ordinal = k, .has_ip = ip, .ready = ready};
}

// A view of members 0..voters-1 (healthy, 0 leads), plus a learner at
// ordinal `voters` when `learner`.
EtcdView Members(const EtcdCluster& c, int voters, bool learner = false) {
  EtcdView v{.members_known = true, .cluster_id = 7, .leader_id = 1};
  for (int k = 0; k < voters + (learner ? 1 : 0); ++k) {
    const bool is_learner = k == voters;
    etcd::StatusResponse st{.version = "3.6.16", .leader = 1, .cluster_id = 7};
    v.members.push_back({.member = {.id = static_cast<uint64_t>(k + 1),
                                    .name = is_learner ? "" : MemberName(c, k),
                                    .peer_urls = {PeerUrl(c, k)},
                                    .client_urls = {MemberClientUrl(c, k)},
                                    .is_learner = is_learner},
                         .status = st});
  }
  return v;
}

struct Case {
  std::string name;
  EtcdCluster cluster;
  World world;
  EtcdView view;
  absl::Status access = absl::OkStatus();
  etcd::Action::Kind want_kind;
  int want_sts_replicas;
  WaitFor want_wait;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  EtcdCluster fresh = Cluster(3);
  cases.push_back({"NewClusterBootstraps",
                   fresh,
                   {},
                   {},
                   absl::OkStatus(),
                   etcd::Action::kBootstrap,
                   1,
                   WaitFor::kEvent});
  cases.push_back({"PendingFirstPodWaitsForItsEvents",
                   fresh,
                   World{.statefulset_replicas = 1, .pods = {Pod(0, false, false)}},
                   {},
                   absl::OkStatus(),
                   etcd::Action::kWait,
                   1,
                   WaitFor::kEvent});
  cases.push_back({"StartedPodThatDoesNotAnswerIsPolledWithBackoff",
                   fresh,
                   World{.statefulset_replicas = 1, .pods = {Pod(0, true, false)}},
                   {},
                   absl::OkStatus(),
                   etcd::Action::kWait,
                   1,
                   WaitFor::kEtcd});
  EtcdCluster grown = Cluster(3);
  MarkInitialized(grown);
  World one{.statefulset_replicas = 1, .pods = {Pod(0, true, true)}};
  cases.push_back({"GrowingAddsALearnerThenWaitsOnEtcd", grown, one, Members(grown, 1),
                   absl::OkStatus(), etcd::Action::kAddLearner, 1, WaitFor::kEtcd});
  cases.push_back({"LearnerWithoutPodScalesTheStatefulSet", grown, one,
                   Members(grown, 1, /*learner=*/true), absl::OkStatus(),
                   etcd::Action::kScaleStatefulSet, 2, WaitFor::kEvent});
  World three{.statefulset_replicas = 3,
              .pods = {Pod(0, true, true), Pod(1, true, true), Pod(2, true, true)}};
  cases.push_back({"ConvergedRefreshesSlowly", grown, three, Members(grown, 3), absl::OkStatus(),
                   etcd::Action::kNone, 3, WaitFor::kRefresh});
  cases.push_back({"MissingSecretIsLookedForAgainWithBackoff",
                   grown,
                   three,
                   {},
                   absl::FailedPreconditionError("Secret x is missing"),
                   etcd::Action::kWait,
                   3,
                   WaitFor::kSecret});
  cases.push_back({"RefusedRootSecretIsRetriedWithBackoff",
                   grown,
                   three,
                   {},
                   absl::PermissionDeniedError("cannot create Secret kv-root-auth"),
                   etcd::Action::kWait,
                   3,
                   WaitFor::kEtcd});
  EtcdCluster gone = Cluster(3, /*empty_dir=*/true);
  MarkInitialized(gone);
  cases.push_back({"EmptyDirWithNoPodLeftBootstrapsAgain",
                   gone,
                   {},
                   {},
                   absl::OkStatus(),
                   etcd::Action::kBootstrap,
                   1,
                   WaitFor::kEvent});
  return cases;
}

TEST(PlanStepTest, Table) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const Plan plan = PlanStep(PlanInputFor(c.cluster, c.world, c.view, c.access));
    EXPECT_EQ(plan.action.kind, c.want_kind) << plan.action.reason;
    EXPECT_EQ(plan.statefulset_replicas, c.want_sts_replicas);
    EXPECT_EQ(plan.wait_for, c.want_wait);
    EXPECT_EQ(plan.problem, c.access.ok() ? "" : std::string(c.access.message()));
  }
}

// Issue 14: spec.replicas 50000000 made every reconcile allocate a record
// (and a member name and peer URL) per desired member. Admission now caps
// replicas, and the plan's work follows the pods and members that exist.
TEST(PlanStepTest, WorkIsBoundedByThePodsNotBySpecReplicas) {
  EtcdCluster huge = Cluster(1'000'000);
  MarkInitialized(huge);
  World three{.statefulset_replicas = 3,
              .pods = {Pod(0, true, true), Pod(1, true, true), Pod(2, true, true)}};
  PlanInput in = PlanInputFor(huge, three, Members(huge, 3), absl::OkStatus());
  int calls = 0;
  const Topology real = in.topology;
  in.topology.member_name = [&](int k) { return ++calls, real.member_name(k); };
  in.topology.peer_url = [&](int k) { return ++calls, real.peer_url(k); };
  const Plan plan = PlanStep(in);
  EXPECT_EQ(plan.action.kind, etcd::Action::kAddLearner) << plan.action.reason;
  EXPECT_EQ(plan.action.ordinal, 3);
  EXPECT_LT(calls, 100) << "names made per desired member";
  EXPECT_EQ(plan.ready_pods, 3);
}

TEST(ObservePodsTest, HasOneEntryPerExistingPod) {
  const std::vector<etcd::PodView> pods =
      ObservePods({Pod(4, true, true), Pod(0, true, false), Pod(-1, true, true)},
                  {{0, "pvc-a"}, {4, "pvc-new"}}, {{4, "pvc-old"}});
  ASSERT_EQ(pods.size(), 2u) << "no entries for ordinals without a pod";
  EXPECT_EQ(pods[0].ordinal, 0);
  EXPECT_TRUE(pods[0].exists);
  EXPECT_FALSE(pods[0].data_lost);
  EXPECT_EQ(pods[1].ordinal, 4);
  EXPECT_TRUE(pods[1].data_lost);
}

TEST(ObservePodsTest, CarriesHowLongEachPodsEtcdHasRun) {
  PodInfo running = Pod(1, true, false);
  running.running_for = absl::Seconds(42);
  const std::vector<etcd::PodView> pods = ObservePods({Pod(0, true, true), running}, {}, {});
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].running_for, absl::ZeroDuration());
  EXPECT_EQ(pods[1].running_for, absl::Seconds(42));
}

TEST(PlanStepTest, BootstrapTellsTheFirstPodItIsNew) {
  const EtcdCluster c = Cluster(3);
  const Plan plan = PlanStep(PlanInputFor(c, {}, {}, absl::OkStatus()));
  EXPECT_EQ(plan.state, (BootstrapState{.state = "new", .members = {{"kv-0", PeerUrl(c, 0)}}}));
}

TEST(PlanStepTest, StateComesFromTheMemberListOnceEtcdAnswers) {
  EtcdCluster c = Cluster(3);
  MarkInitialized(c);
  World w{.statefulset_replicas = 1,
          .pods = {Pod(0, true, true)},
          .state_configmap = BootstrapState{.state = "new", .members = {{"stale", "x"}}}};
  const Plan plan = PlanStep(PlanInputFor(c, w, Members(c, 1), absl::OkStatus()));
  EXPECT_EQ(plan.state,
            (BootstrapState{.state = "existing", .members = {{"kv-0", PeerUrl(c, 0)}}}));
  // Without an answer, the ConfigMap as last applied is kept.
  w.pods[0].has_ip = false;
  const Plan waiting = PlanStep(PlanInputFor(c, w, {}, absl::OkStatus()));
  EXPECT_EQ(waiting.state, *w.state_configmap);
}

// Issue 33: an earlier cluster's claims hold a new one back, naming them,
// instead of a silent wait in WaitingForFirstQuorum; a formed cluster never
// looks (its own claims are older than any later edit).
TEST(PlanStepTest, LeftoverClaimsOfAnEarlierClusterHoldTheBootstrapAndAreNamed) {
  EtcdCluster c = Cluster(3);
  const World w{.leftover_claims = {"data-kv-0", "data-kv-1"}};
  const Plan plan = PlanStep(PlanInputFor(c, w, {}, absl::OkStatus()));
  EXPECT_EQ(plan.action.kind, etcd::Action::kWait);
  EXPECT_EQ(plan.statefulset_replicas, 0) << "no member starts on the old data";
  EXPECT_EQ(plan.problem_reason, "LeftoverClaims");
  EXPECT_NE(plan.problem.find("data-kv-0, data-kv-1 predate this EtcdCluster"), std::string::npos)
      << plan.problem;
  EXPECT_NE(plan.problem.find("kubectl delete pvc data-kv-0 data-kv-1"), std::string::npos);
  EXPECT_EQ(plan.wait_for, WaitFor::kSecret) << "claims are not watched: look again";
  MarkInitialized(c);
  EXPECT_EQ(PlanStep(PlanInputFor(c, w, {}, absl::OkStatus())).problem_reason, "");
}

TEST(StateAfterStepTest, AnAddedLearnerJoinsTheStateOnlyWhenTheAddSucceeded) {
  EtcdCluster c = Cluster(3);
  MarkInitialized(c);
  const Plan plan =
      PlanStep(PlanInputFor(c, World{.statefulset_replicas = 1, .pods = {Pod(0, true, true)}},
                            Members(c, 1), absl::OkStatus()));
  ASSERT_EQ(plan.action.kind, etcd::Action::kAddLearner);
  EXPECT_EQ(StateAfterStep(c, plan, /*step_done=*/false).members.size(), 1u);
  const BootstrapState after = StateAfterStep(c, plan, /*step_done=*/true);
  ASSERT_EQ(after.members.size(), 2u);
  EXPECT_EQ(after.members[1], (std::pair<std::string, std::string>{"kv-1", PeerUrl(c, 1)}));
  EXPECT_EQ(after.state, "existing");
}

TEST(ActOnEtcdTest, StepsThatNeedNoEtcdAreNoOpsAndOthersNeedAClient) {
  EXPECT_TRUE(ActOnEtcd(nullptr, {.kind = etcd::Action::kWait}).ok());
  EXPECT_TRUE(ActOnEtcd(nullptr, {.kind = etcd::Action::kScaleStatefulSet}).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(ActOnEtcd(nullptr, {.kind = etcd::Action::kPromote})));
}

}  // namespace
}  // namespace quorum::etcdcluster

#include "src/controllers/postgrescluster/rollout.h"

#include <gtest/gtest.h>

namespace quorum::postgrescluster {
namespace {

// A ready replica streams from the primary unless said otherwise.
MemberPod Pod(std::string name, bool outdated, bool primary = false, bool ready = true,
              bool streaming = true) {
  return {.name = std::move(name),
          .ready = ready,
          .outdated = outdated,
          .primary = primary,
          .streaming = streaming && ready && !primary};
}

TEST(RolloutTest, NothingToDoWhenEveryPodIsCurrent) {
  EXPECT_EQ(NextRollStep({Pod("a-0", false, true), Pod("a-1", false)}, 2).kind, RollStep::kNone);
}

TEST(RolloutTest, WaitsUntilEveryMemberIsReadyAndPresent) {
  EXPECT_EQ(NextRollStep({Pod("a-0", true, true), Pod("a-1", false, false, false)}, 2).kind,
            RollStep::kWait)
      << "an updated replica that is not ready yet holds the primary's turn";
  EXPECT_EQ(NextRollStep({Pod("a-0", true, true), Pod("a-1", false), Pod("a-2", true, false, false),
                          Pod("a-3", true)},
                         4)
                .pod,
            "a-2")
      << "the outdated replica that is not ready goes first";
  EXPECT_EQ(NextRollStep({Pod("a-0", true, true)}, 2).kind, RollStep::kWait)
      << "a missing member is not replaced by taking another one down";
}

TEST(RolloutTest, ReplicasFirstHighestNameFirst) {
  const RollStep step =
      NextRollStep({Pod("a-0", true, true), Pod("a-1", true), Pod("a-2", true)}, 3);
  EXPECT_EQ(step.kind, RollStep::kDeletePod);
  EXPECT_EQ(step.pod, "a-2");
}

TEST(RolloutTest, PrimaryHandsOverBeforeItsPodGoes) {
  const RollStep step =
      NextRollStep({Pod("a-0", true, true), Pod("a-1", false), Pod("a-2", false)}, 3);
  EXPECT_EQ(step.kind, RollStep::kSwitchover);
  EXPECT_EQ(step.pod, "a-0");
  // After the switchover a-0 is a replica: it is replaced like one.
  const RollStep next =
      NextRollStep({Pod("a-0", true, false), Pod("a-1", false, true), Pod("a-2", false)}, 3);
  EXPECT_EQ(next.kind, RollStep::kDeletePod);
  EXPECT_EQ(next.pod, "a-0");
}

TEST(RolloutTest, ASingleMemberRestartsInPlace) {
  const RollStep step = NextRollStep({Pod("a-0", true, true)}, 1);
  EXPECT_EQ(step.kind, RollStep::kDeletePod);
  EXPECT_EQ(step.pod, "a-0");
}

struct Case {
  const char* name;
  std::vector<MemberPod> pods;
  int desired;
  RollStep::Kind want;
  std::string want_pod;
};

void ExpectSteps(const std::vector<Case>& cases, const std::string& first = "") {
  for (const Case& c : cases) {
    const RollStep step = NextRollStep(c.pods, c.desired, first);
    EXPECT_EQ(step.kind, c.want) << c.name << ": " << step.reason;
    EXPECT_EQ(step.pod, c.want_pod) << c.name;
  }
}

// Issue 14.6: a rollout never guesses which member is the primary.
TEST(RolloutTest, WaitsWhileThePrimaryIsUnknown) {
  const std::vector<Case> cases = {
      {"all outdated: the highest name may be the primary",
       {Pod("a-0", true), Pod("a-1", true), Pod("a-2", true)},
       3,
       RollStep::kWait,
       ""},
      {"only one pod outdated, no primary known",
       {Pod("a-0", false), Pod("a-1", false), Pod("a-2", true)},
       3,
       RollStep::kWait,
       ""},
      {"one member, no primary known", {Pod("a-0", true)}, 1, RollStep::kWait, ""},
      {"known primary: replicas first",
       {Pod("a-0", true, true), Pod("a-1", true), Pod("a-2", true)},
       3,
       RollStep::kDeletePod,
       "a-2"},
  };
  ExpectSteps(cases);
}

// A replica that never becomes ready (it diverged from the new primary, or a
// setting the user is fixing breaks it) must not wedge the rollout that may
// heal it: it is replaced first, while the known primary is ready.
TEST(RolloutTest, ReplacesAnOutdatedReplicaThatIsNotReady) {
  const std::vector<Case> cases = {
      {"stuck replica, ready primary",
       {Pod("a-0", true, true), Pod("a-1", true, false, false), Pod("a-2", true)},
       3,
       RollStep::kDeletePod,
       "a-1"},
      {"stuck replica, the primary not ready: wait",
       {Pod("a-0", true, true, false), Pod("a-1", true, false, false), Pod("a-2", true)},
       3,
       RollStep::kWait,
       ""},
      {"stuck replica, no primary known: wait",
       {Pod("a-0", true), Pod("a-1", true, false, false), Pod("a-2", true)},
       3,
       RollStep::kWait,
       ""},
      {"a missing member and a stuck replica: the stuck one still goes",
       {Pod("a-0", true, true), Pod("a-1", true, false, false)},
       3,
       RollStep::kDeletePod,
       "a-1"},
  };
  ExpectSteps(cases);
  EXPECT_EQ(NextRollStep({Pod("a-0", true, true), Pod("a-1", true, false, false)}, 2,
                         "the requested switchover")
                .kind,
            RollStep::kWait)
      << "a pending user switchover still goes first";
}

// Issue 14.6: one risky step per reconcile; a pending user switchover goes first.
TEST(RolloutTest, YieldsToAPendingUserSwitchover) {
  const std::vector<Case> cases = {
      {"replicas outdated",
       {Pod("a-0", true, true), Pod("a-1", true), Pod("a-2", true)},
       3,
       RollStep::kWait,
       ""},
      {"only the primary outdated",
       {Pod("a-0", true, true), Pod("a-1", false), Pod("a-2", false)},
       3,
       RollStep::kWait,
       ""},
      {"nothing outdated", {Pod("a-0", false, true), Pod("a-1", false)}, 2, RollStep::kNone, ""},
  };
  ExpectSteps(cases, "the requested switchover");
  // Without it, the same cluster proceeds.
  EXPECT_EQ(
      NextRollStep({Pod("a-0", true, true), Pod("a-1", false), Pod("a-2", false)}, 3, "").kind,
      RollStep::kSwitchover);
}

// Issue 33: the rollout's switchover takes the same evidence as a member
// removal's (membership.h): the primary role moves only to a ready replica
// that the primary's WAL streams to now, named to Patroni (the lowest name),
// and otherwise the rollout waits, saying why.
TEST(RolloutTest, ThePrimaryHandsOverOnlyToAStreamingReplica) {
  struct SwitchCase {
    const char* name;
    std::vector<MemberPod> pods;
    RollStep::Kind want;
    std::string candidate;
    std::string reason;  // with kWait
  } cases[] = {
      {"two streaming replicas: the lowest name",
       {Pod("a-0", true, true), Pod("a-2", false), Pod("a-1", false)},
       RollStep::kSwitchover,
       "a-1"},
      {"one streaming, one not",
       {Pod("a-0", true, true), Pod("a-1", false, false, true, false), Pod("a-2", false)},
       RollStep::kSwitchover,
       "a-2"},
      {"no replica streams",
       {Pod("a-0", true, true), Pod("a-1", false, false, true, false),
        Pod("a-2", false, false, true, false)},
       RollStep::kWait,
       "",
       "waiting for a ready replica to stream from a-0 before moving the primary role away from "
       "it"},
  };
  for (const SwitchCase& c : cases) {
    SCOPED_TRACE(c.name);
    const RollStep step = NextRollStep(c.pods, static_cast<int>(c.pods.size()));
    EXPECT_EQ(step.kind, c.want) << step.reason;
    EXPECT_EQ(step.candidate, c.candidate);
    EXPECT_EQ(step.pod, c.want == RollStep::kSwitchover ? "a-0" : "");
    if (c.want == RollStep::kWait) {
      EXPECT_EQ(step.reason, c.reason);
    }
  }
}

}  // namespace
}  // namespace quorum::postgrescluster

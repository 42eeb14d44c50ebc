#include "src/controllers/postgrescluster/finalizer.h"

#include <gtest/gtest.h>

namespace quorum::postgrescluster {
namespace {

struct Case {
  const char* name;
  FinalizerInput in;
  FinalizerStep want;
};

class PlanFinalizerTest : public ::testing::TestWithParam<Case> {};

TEST_P(PlanFinalizerTest, Step) {
  EXPECT_EQ(static_cast<int>(PlanFinalizer(GetParam().in)), static_cast<int>(GetParam().want));
}

INSTANTIATE_TEST_SUITE_P(
    Table, PlanFinalizerTest,
    ::testing::Values(
        Case{"EtcdDcsGetsIt", {.uses_etcd = true}, FinalizerStep::kAdd},
        Case{"KubernetesDcsNeedsNone", {}, FinalizerStep::kNone},
        Case{"AlreadyThere", {.uses_etcd = true, .has_finalizer = true}, FinalizerStep::kNone},
        Case{"MovedToKubernetesDcsLosesIt", {.has_finalizer = true}, FinalizerStep::kRemove},
        Case{"DeletingCleans",
             {.uses_etcd = true, .has_finalizer = true, .deleting = true},
             FinalizerStep::kClean},
        Case{"DeletingStopsTheMembersFirst",
             {.uses_etcd = true, .has_finalizer = true, .deleting = true, .member_pods = 2},
             FinalizerStep::kStopMembers},
        Case{"MembersNeverGoingAwayStillGiveUp",
             {.uses_etcd = true,
              .has_finalizer = true,
              .deleting = true,
              .member_pods = 1,
              .since_deletion = kDcsCleanupDeadline},
             FinalizerStep::kGiveUp},
        Case{"DeletingWithoutItDoesNothing",
             {.uses_etcd = true, .deleting = true},
             FinalizerStep::kNone},
        Case{"TheEtcdClusterIsGoneToo",
             {.uses_etcd = true, .has_finalizer = true, .deleting = true, .dcs_owner_gone = true},
             FinalizerStep::kRemove},
        Case{"GivesUpAfterTheDeadline",
             {.uses_etcd = true,
              .has_finalizer = true,
              .deleting = true,
              .since_deletion = kDcsCleanupDeadline},
             FinalizerStep::kGiveUp}),
    [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace quorum::postgrescluster

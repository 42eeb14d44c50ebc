// ParseTarget reads the cluster argument as kubectl users write it; the exit
// codes follow the status code of a failure.
#include "src/kubectl/target.h"

#include <gtest/gtest.h>

#include "src/kubectl/exit_code.h"

namespace quorum::kubectl {
namespace {

TEST(ParseTargetTest, AcceptsEveryKindSpellingAndABareName) {
  struct Case {
    const char* arg;
    Kind kind;
    const char* name;
  } cases[] = {
      {"etcdcluster/a", Kind::kEtcdCluster, "a"},
      {"EtcdCluster/a", Kind::kEtcdCluster, "a"},
      {"etcdclusters/a", Kind::kEtcdCluster, "a"},
      {"ec/a", Kind::kEtcdCluster, "a"},
      {"etcdclusters.etcd.aenix.io/a", Kind::kEtcdCluster, "a"},
      {"postgrescluster/pg", Kind::kPostgresCluster, "pg"},
      {"pg/pg", Kind::kPostgresCluster, "pg"},
      {"postgresclusters.postgres.quorum.dev/pg", Kind::kPostgresCluster, "pg"},
      {"demo", Kind::kAny, "demo"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Target> t = ParseTarget(c.arg);
    ASSERT_TRUE(t.ok()) << c.arg << ": " << t.status();
    EXPECT_EQ(*t, (Target{c.kind, c.name})) << c.arg;
  }
}

TEST(ParseTargetTest, RefusesUnknownKindsEmptyNamesAndExtraSlashes) {
  for (const char* arg : {"", "pod/a", "ec/", "ec/a/b", "/a"}) {
    absl::StatusOr<Target> t = ParseTarget(arg);
    EXPECT_TRUE(absl::IsInvalidArgument(t.status())) << arg << ": " << t.status();
  }
}

TEST(ExitCodeTest, UsageForBadArgumentsAndMissingClustersApiForTheRest) {
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("x")), kExitUsage);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("x")), kExitUsage);
  EXPECT_EQ(ExitCodeFor(absl::UnavailableError("x")), kExitApi);
  EXPECT_EQ(ExitCodeFor(absl::PermissionDeniedError("x")), kExitApi);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("kubeconfig")), kExitApi);
  EXPECT_EQ(ExitCodeFor(Health::kHealthy), 0);
  EXPECT_EQ(ExitCodeFor(Health::kDegraded), 1);
}

}  // namespace
}  // namespace quorum::kubectl

// The restart command's pure half: the annotation value, the merge patch per
// kind (a PostgresCluster's instance list whole, every other field of it
// kept, guarded by the resourceVersion), which pods count as members, how
// many are asked for, and when the restart is done.
#include "src/kubectl/restart_command.h"

#include <gtest/gtest.h>

#include "api/postgrescluster.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

PodInfo Pod(const std::string& name, const std::string& restarted_at, bool ready = true) {
  PodInfo p{.name = name, .ready = ready};
  if (!restarted_at.empty()) p.annotations[kRestartedAtAnnotation] = restarted_at;
  return p;
}

TEST(RestartValueTest, IsRfc3339InUtcToTheSecond) {
  EXPECT_EQ(RestartValue(absl::FromUnixSeconds(1796665800) + absl::Milliseconds(750)),
            "2026-12-07T17:50:00Z");
}

TEST(BuildRestartPatchTest, EtcdClusterSetsThePodTemplateAnnotation) {
  absl::StatusOr<Json> patch =
      BuildRestartPatch(Kind::kEtcdCluster, Json{{"spec", {{"replicas", 3}}}}, "T1");
  ASSERT_TRUE(patch.ok()) << patch.status();
  EXPECT_EQ(*patch, Json::parse(R"({"spec": {"podTemplate": {"metadata": {"annotations":
                                    {"quorum.dev/restartedAt": "T1"}}}}})"));
}

TEST(BuildRestartPatchTest, PostgresClusterAnnotatesEverySetAndKeepsTheRest) {
  const Json cluster = Json::parse(R"({
    "metadata": {"name": "pg", "resourceVersion": "42"},
    "spec": {"instances": [
      {"name": "main", "replicas": 2,
       "metadata": {"annotations": {"team": "db", "quorum.dev/restartedAt": "T0"}}},
      {"name": "edge", "replicas": 1, "resources": {"limits": {"cpu": "1"}}}
    ]}})");
  absl::StatusOr<Json> patch = BuildRestartPatch(Kind::kPostgresCluster, cluster, "T1");
  ASSERT_TRUE(patch.ok()) << patch.status();
  EXPECT_EQ(*patch, Json::parse(R"({
    "metadata": {"resourceVersion": "42"},
    "spec": {"instances": [
      {"name": "main", "replicas": 2,
       "metadata": {"annotations": {"team": "db", "quorum.dev/restartedAt": "T1"}}},
      {"name": "edge", "replicas": 1, "resources": {"limits": {"cpu": "1"}},
       "metadata": {"annotations": {"quorum.dev/restartedAt": "T1"}}}
    ]}})"));
}

TEST(BuildRestartPatchTest, APostgresClusterWithoutInstancesIsAPreconditionFailure) {
  for (const Json& cluster : {Json::object(), Json{{"spec", {{"instances", Json::array()}}}},
                              Json{{"spec", {{"instances", "main"}}}}}) {
    absl::StatusOr<Json> patch = BuildRestartPatch(Kind::kPostgresCluster, cluster, "T1");
    EXPECT_EQ(patch.status().code(), absl::StatusCode::kFailedPrecondition) << cluster;
  }
}

TEST(RestartedMembersTest, APostgresClusterCountsItsInstanceSetPodsOnly) {
  PodInfo member = Pod("pg-main-0", "");
  member.labels[std::string(api::kInstanceSetLabel)] = "main";
  PodInfo repo_host = Pod("pg-repo-host-0", "");
  const std::vector<PodInfo> pods = {member, repo_host};
  ASSERT_EQ(RestartedMembers(Kind::kPostgresCluster, pods).size(), 1u);
  EXPECT_EQ(RestartedMembers(Kind::kPostgresCluster, pods)[0].name, "pg-main-0");
  EXPECT_EQ(RestartedMembers(Kind::kEtcdCluster, pods).size(), 2u);
}

TEST(DesiredMembersTest, ReadsTheSpec) {
  EXPECT_EQ(DesiredMembers(Kind::kEtcdCluster, Json{{"spec", {{"replicas", 5}}}}), 5);
  EXPECT_EQ(DesiredMembers(Kind::kEtcdCluster, Json{{"spec", Json::object()}}), 3);  // default
  EXPECT_EQ(DesiredMembers(Kind::kPostgresCluster,
                           Json::parse(R"({"spec": {"instances": [{"name": "a", "replicas": 2},
                                                                  {"name": "b", "replicas": 3}]}})")),
            5);
}

TEST(RestartDoneTest, EveryMemberRestartedAndReady) {
  struct Case {
    const char* name;
    std::vector<PodInfo> members;
    int desired;
    bool done;
  } cases[] = {
      {"all restarted and ready", {Pod("a", "T1"), Pod("b", "T1")}, 2, true},
      {"one still on the old value", {Pod("a", "T1"), Pod("b", "T0")}, 2, false},
      {"one never annotated", {Pod("a", "T1"), Pod("b", "")}, 2, false},
      {"one restarted but not ready", {Pod("a", "T1"), Pod("b", "T1", false)}, 2, false},
      {"one missing (being re-created)", {Pod("a", "T1")}, 2, false},
      {"more than asked (a scale-down under way)", {Pod("a", "T1"), Pod("b", "T1")}, 1, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RestartDone(c.members, c.desired, "T1"), c.done) << c.name;
  }
  std::vector<PodInfo> deleting = {Pod("a", "T1")};
  deleting[0].deleting = true;
  EXPECT_FALSE(RestartDone(deleting, 1, "T1"));
}

}  // namespace
}  // namespace quorum::kubectl

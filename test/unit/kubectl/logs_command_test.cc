// The logs command's pure half: which containers are read and with what
// prefix, which are reported as not started, the pods/log request, and line
// prefixing across arbitrary chunk boundaries.
#include "src/kubectl/logs_command.h"

#include <gtest/gtest.h>

#include "src/kubectl/fetch.h"
#include "src/kubectl/members.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

Json Running() { return {{"running", {{"startedAt", "2026-01-01T00:00:00Z"}}}}; }

Json Pod(const std::string& name, const std::vector<std::pair<std::string, Json>>& containers) {
  Json specs = Json::array(), statuses = Json::array();
  for (const auto& [c, state] : containers) {
    specs.push_back({{"name", c}});
    if (!state.is_null()) statuses.push_back({{"name", c}, {"state", state}});
  }
  return {{"metadata", {{"name", name}}},
          {"spec", {{"containers", specs}}},
          {"status", {{"containerStatuses", statuses}}}};
}

TEST(PlanLogsTest, PrefixesWithThePodAndWithTheContainerOnlyWhenAPodShowsSeveral) {
  const Json pods = Json::array({Pod("e-0", {{"etcd", Running()}}),
                                 Pod("pg-0", {{"database", Running()}, {"exporter", Running()}})});
  struct Case {
    std::string container;
    std::vector<LogSource> want;
    size_t skipped;
  };
  const std::vector<Case> cases = {
      {"",
       {{"e-0", "etcd", "[e-0] "},
        {"pg-0", "database", "[pg-0/database] "},
        {"pg-0", "exporter", "[pg-0/exporter] "}},
       0},
      {"database", {{"pg-0", "database", "[pg-0] "}}, 1},  // e-0 has no such container
  };
  for (const Case& c : cases) {
    LogPlan plan = PlanLogs(pods, c.container);
    EXPECT_EQ(plan.sources, c.want) << c.container;
    EXPECT_EQ(plan.skipped.size(), c.skipped) << c.container;
  }
}

TEST(PlanLogsTest, ContainersThatNeverStartedAreSkippedWithTheReason) {
  const Json waiting = {{"waiting", {{"reason", "ContainerCreating"}}}};
  Json restarted = Pod("a-1", {{"etcd", waiting}});
  restarted["status"]["containerStatuses"][0]["lastState"] = {{"terminated", {{"exitCode", 1}}}};
  const Json pods =
      Json::array({Pod("a-0", {{"etcd", waiting}}), restarted, Pod("a-2", {{"etcd", Json()}}),
                   Pod("a-3", {{"etcd", {{"terminated", {{"exitCode", 0}}}}}})});
  LogPlan plan = PlanLogs(pods, "");
  ASSERT_EQ(plan.sources.size(), 2u);
  EXPECT_EQ(plan.sources[0].pod, "a-1");  // it ran before: its log is there
  EXPECT_EQ(plan.sources[1].pod, "a-3");
  ASSERT_EQ(plan.skipped.size(), 2u);
  EXPECT_EQ(plan.skipped[0], "pod a-0 container etcd: not started (ContainerCreating)");
  EXPECT_EQ(plan.skipped[1], "pod a-2 container etcd: not started (no container status)");
}

TEST(PodLogPathTest, CarriesContainerFollowSinceAndTail) {
  const LogSource s{.pod = "e-0", .container = "etcd"};
  struct Case {
    LogsOptions options;
    std::string want;
  };
  const std::string base = "/api/v1/namespaces/ns/pods/e-0/log?container=etcd";
  const std::vector<Case> cases = {
      {{}, base},
      {{.follow = true}, base + "&follow=true"},
      {{.since = absl::Seconds(90), .tail = 10}, base + "&sinceSeconds=90&tailLines=10"},
      {{.since = absl::Milliseconds(1500)}, base + "&sinceSeconds=2"},
  };
  for (const Case& c : cases) EXPECT_EQ(PodLogPath("ns", s, c.options), c.want);
}

TEST(LinePrefixerTest, PrefixesWholeLinesWhateverTheChunks) {
  struct Case {
    std::vector<std::string> chunks;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{"a\nb\n"}, "[p] a\n[p] b\n"},
      {{"a", "b\nc", "\n"}, "[p] ab\n[p] c\n"},
      {{"\n\n"}, "[p] \n[p] \n"},
      {{"no newline"}, "[p] no newline\n"},  // Flush ends it
      {{}, ""},
  };
  for (const Case& c : cases) {
    LinePrefixer p("[p] ");
    std::string got;
    for (const std::string& chunk : c.chunks) got += p.Feed(chunk);
    got += p.Flush();
    EXPECT_EQ(got, c.want);
  }
}

TEST(MemberSelectorTest, EtcdStatusSelectorElseDefaultPostgresClusterLabel) {
  struct Case {
    FoundCluster cluster;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{Kind::kEtcdCluster, {{"metadata", {{"name", "e"}}}, {"status", {{"selector", "x=y"}}}}},
       "x=y"},
      {{Kind::kEtcdCluster, {{"metadata", {{"name", "e"}}}}},
       "app.kubernetes.io/name=etcd,app.kubernetes.io/instance=e"},
      {{Kind::kPostgresCluster, {{"metadata", {{"name", "pg"}}}}},
       "postgres.quorum.dev/cluster=pg"},
  };
  for (const Case& c : cases) EXPECT_EQ(MemberSelector(c.cluster), c.want);
}

}  // namespace
}  // namespace quorum::kubectl

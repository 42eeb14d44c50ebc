#include "src/patroni/dynamic_config.h"

#include <gtest/gtest.h>

#include "src/patroni/config.h"

namespace quorum::patroni {
namespace {

using nlohmann::json;

struct Case {
  const char* name;
  json desired, current, patch;
};

TEST(DynamicConfigPatchTest, SetsWhatDiffersAndLeavesTheRest) {
  const json base = {{"ttl", 30},
                     {"loop_wait", 10},
                     {"postgresql",
                      {{"use_slots", true},
                       {"parameters", {{"work_mem", "4MB"}, {"wal_level", "replica"}}},
                       {"pg_hba", {"hostssl all all all scram-sha-256"}}}}};
  json with_defaults = base;  // what Patroni stores: ours plus its defaults
  with_defaults["postgresql"]["parameters"]["max_connections"] = 100;
  with_defaults["check_timeline"] = false;
  const Case cases[] = {
      {"in sync", base, base, json::object()},
      {"Patroni's own keys are left alone", base, with_defaults, json::object()},
      {"a timing", json{{"ttl", 20}, {"loop_wait", 10}}, base, json{{"ttl", 20}}},
      {"a parameter, nested", json{{"postgresql", {{"parameters", {{"work_mem", "64MB"}}}}}}, base,
       json{{"postgresql", {{"parameters", {{"work_mem", "64MB"}}}}}}},
      {"a new parameter", json{{"postgresql", {{"parameters", {{"max_connections", "200"}}}}}},
       base, json{{"postgresql", {{"parameters", {{"max_connections", "200"}}}}}}},
      {"the type counts: 200 is not \"200\"", json{{"ttl", "30"}}, base, json{{"ttl", "30"}}},
      {"arrays are replaced whole",
       json{{"postgresql", {{"pg_hba", {"host all all all scram-sha-256"}}}}}, base,
       json{{"postgresql", {{"pg_hba", {"host all all all scram-sha-256"}}}}}},
      {"null removes a key that is there", json{{"check_timeline", nullptr}}, with_defaults,
       json{{"check_timeline", nullptr}}},
      {"null of a missing key is nothing", json{{"check_timeline", nullptr}}, base, json::object()},
      {"a new object without its nulls",
       json{{"synchronous_mode", true}, {"standby_cluster", {{"host", "a"}, {"port", nullptr}}}},
       base, json{{"synchronous_mode", true}, {"standby_cluster", {{"host", "a"}}}}},
      {"an object of nulls only, absent", json{{"slots", {{"x", nullptr}}}}, base, json::object()},
      {"an object replacing a scalar", json{{"ttl", {{"a", 1}}}}, base, json{{"ttl", {{"a", 1}}}}},
      {"nothing wanted", json::object(), base, json::object()},
      {"no current config", json{{"ttl", 30}}, json(), json{{"ttl", 30}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DynamicConfigPatch(c.desired, c.current), c.patch) << c.name;
  }
}

TEST(DynamicConfigPatchTest, APatchAppliedByMergeLeavesNothingToDo) {
  ConfigInput in;
  in.ttl = 20;
  in.loop_wait = 5;
  in.retry_timeout = 5;
  in.parameters = {{"wal_level", "replica"}};
  in.pg_hba = {"hostssl all all all scram-sha-256"};
  in.dynamic_configuration = {{"postgresql", {{"parameters", {{"work_mem", "64MB"}}}}}};
  const json desired = DynamicConfig(in);
  json current = {{"ttl", 30},
                  {"loop_wait", 10},
                  {"retry_timeout", 10},
                  {"postgresql", {{"parameters", {{"max_connections", 100}}}}}};
  const json patch = DynamicConfigPatch(desired, current);
  ASSERT_FALSE(patch.empty());
  current.merge_patch(patch);
  EXPECT_EQ(DynamicConfigPatch(desired, current), json::object());
  EXPECT_EQ(current["postgresql"]["parameters"]["max_connections"], 100);
  EXPECT_EQ(current["postgresql"]["parameters"]["work_mem"], "64MB");
}

TEST(PatchPathsTest, NamesEveryLeafSorted) {
  const json patch = {{"ttl", 20},
                      {"postgresql", {{"parameters", {{"work_mem", "1MB"}, {"a", nullptr}}}}},
                      {"pg_hba_like", json::array({"x"})},
                      {"empty", json::object()}};
  EXPECT_EQ(PatchPaths(patch),
            (std::vector<std::string>{"empty", "pg_hba_like", "postgresql.parameters.a",
                                      "postgresql.parameters.work_mem", "ttl"}));
  EXPECT_TRUE(PatchPaths(json::object()).empty());
}

}  // namespace
}  // namespace quorum::patroni

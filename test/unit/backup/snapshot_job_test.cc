#include "src/backup/snapshot_job.h"

#include <gtest/gtest.h>

namespace quorum::backup {
namespace {

MemberProbe Member(std::string endpoint, uint64_t id, uint64_t leader, bool learner = false,
                   std::vector<std::string> errors = {}) {
  etcd::StatusResponse s;
  s.member_id = id;
  s.leader = leader;
  s.is_learner = learner;
  s.errors = std::move(errors);
  return {std::move(endpoint), s};
}

MemberProbe Down(std::string endpoint) {
  return {std::move(endpoint), absl::UnavailableError("connection refused")};
}

TEST(SnapshotJobTest, ChooseMemberPrefersAHealthyFollower) {
  struct Case {
    const char* name;
    std::vector<MemberProbe> probes;
    std::string want;  // "" means Unavailable
  } cases[] = {
      {"follower over leader", {Member("a", 1, 1), Member("b", 2, 1), Member("c", 3, 1)}, "b"},
      {"leader when followers are down", {Member("a", 1, 1), Down("b"), Down("c")}, "a"},
      {"no learner", {Member("a", 1, 1), Member("l", 4, 1, /*learner=*/true)}, "a"},
      {"no member with an alarm", {Member("a", 1, 1), Member("b", 2, 1, false, {"NOSPACE"})}, "a"},
      {"no member without a leader", {Member("a", 1, 0), Member("b", 2, 0)}, ""},
      {"nobody answers", {Down("a"), Down("b")}, ""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::string> got = ChooseMember(c.probes);
    if (c.want.empty()) {
      EXPECT_TRUE(absl::IsUnavailable(got.status())) << c.name;
    } else {
      ASSERT_TRUE(got.ok()) << c.name << ": " << got.status();
      EXPECT_EQ(*got, c.want) << c.name;
    }
  }
}

TEST(SnapshotJobTest, ResultJsonRoundTrips) {
  SnapshotJobResult r{.uri = "s3://b/k.db",
                      .revision = 1042,
                      .size = 20512,
                      .sha256 = std::string(64, 'a'),
                      .taken_at = absl::FromUnixSeconds(1764633600),
                      .member = "https://m-1:2379"};
  const std::string json = ResultJson(r);
  EXPECT_NE(json.find("\"takenAt\":\"2025-12-02T00:00:00Z\""), std::string::npos) << json;
  absl::StatusOr<SnapshotJobResult> back = ParseResultJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->uri, r.uri);
  EXPECT_EQ(back->revision, r.revision);
  EXPECT_EQ(back->size, r.size);
  EXPECT_EQ(back->sha256, r.sha256);
  EXPECT_EQ(back->taken_at, r.taken_at);
  EXPECT_EQ(back->member, r.member);
}

TEST(SnapshotJobTest, ParseResultJsonRefusesOtherText) {
  for (const char* text : {"", "Error: snapshot failed", "{}", R"({"uri":"s3://b/k"})",
                           R"({"uri":1,"sha256":"x","size":1,"revision":1,"takenAt":"x"})"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseResultJson(text).status())) << text;
  }
}

}  // namespace
}  // namespace quorum::backup

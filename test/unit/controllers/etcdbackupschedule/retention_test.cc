// Snapshot retention, table-driven: keepLast, keepWithin, both (union),
// neither; the newest is always kept; undatable snapshots are never deleted.
#include "src/controllers/etcdbackupschedule/retention.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace quorum::etcdbackupschedule {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1796176800);  // 2026-12-02T02:00:00Z

// Snapshot "bN" taken N minutes before kNow.
api::ScheduledSnapshot Snap(int minutes_ago) {
  return {.backup = absl::StrCat("b", minutes_ago),
          .uri = absl::StrCat("s3://b/k", minutes_ago),
          .taken_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", kNow - absl::Minutes(minutes_ago),
                                       absl::UTCTimeZone())};
}

std::string Names(const std::vector<api::ScheduledSnapshot>& v) {
  std::vector<std::string> out;
  for (const auto& s : v) out.push_back(s.backup);
  return absl::StrJoin(out, ",");
}

struct Case {
  const char* name;
  RetentionPolicy policy;
  std::vector<int> ages;  // minutes ago, any order
  const char* keep;
  const char* drop;
};

TEST(RetentionTest, KeepsWhatEitherRuleKeepsNewestFirst) {
  const Case cases[] = {
      {"no rules keep all", {}, {3, 1, 2}, "b1,b2,b3", ""},
      {"keepLast 2", {.keep_last = 2}, {3, 1, 5, 2}, "b1,b2", "b3,b5"},
      {"keepLast larger than count", {.keep_last = 9}, {3, 1}, "b1,b3", ""},
      {"keepLast 1 keeps only the newest", {.keep_last = 1}, {10, 20}, "b10", "b20"},
      {"keepWithin 30m",
       {.keep_within = absl::Minutes(30)},
       {10, 30, 31, 60},
       "b10,b30",
       "b31,b60"},
      {"keepWithin never drops the newest",
       {.keep_within = absl::Minutes(5)},
       {60, 120},
       "b60",
       "b120"},
      {"union of both",
       {.keep_last = 1, .keep_within = absl::Minutes(30)},
       {5, 20, 40, 90},
       "b5,b20",
       "b40,b90"},
      {"union where count keeps more",
       {.keep_last = 3, .keep_within = absl::Minutes(1)},
       {5, 20, 40, 90},
       "b5,b20,b40",
       "b90"},
      {"empty", {.keep_last = 2}, {}, "", ""},
  };
  for (const Case& c : cases) {
    std::vector<api::ScheduledSnapshot> in;
    for (int age : c.ages) in.push_back(Snap(age));
    const RetentionDecision d = ApplyRetention(in, c.policy, kNow);
    EXPECT_EQ(Names(d.keep), c.keep) << c.name;
    EXPECT_EQ(Names(d.drop), c.drop) << c.name;
  }
}

TEST(RetentionTest, NeverDeletesASnapshotItCannotDate) {
  std::vector<api::ScheduledSnapshot> in = {Snap(1), Snap(2), Snap(3)};
  in[1].taken_at = "yesterday";
  const RetentionDecision d = ApplyRetention(in, {.keep_last = 1}, kNow);
  EXPECT_EQ(Names(d.keep), "b1,b2");
  EXPECT_EQ(Names(d.drop), "b3");
}

}  // namespace
}  // namespace quorum::etcdbackupschedule

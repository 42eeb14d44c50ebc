// Cron parsing and the next/previous firing times, table-driven, in UTC:
// ranges, steps, lists, month ends, leap days, day-of-month OR day-of-week,
// and refusals that name the field.
#include "api/cron.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"

namespace quorum::api {
namespace {

absl::Time At(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << rfc3339 << ": " << err;
  return t;
}

std::string Str(absl::Time t) {
  if (t == absl::InfiniteFuture()) return "never";
  if (t == absl::InfinitePast()) return "never before";
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

struct NextCase {
  const char* spec;
  const char* from;
  const char* next;
};

TEST(CronTest, NextFiringTimes) {
  const NextCase cases[] = {
      {"* * * * *", "2026-12-02T03:30:00Z", "2026-12-02T03:31:00Z"},
      {"* * * * *", "2026-12-02T03:30:59Z", "2026-12-02T03:31:00Z"},  // strictly after
      {"*/15 * * * *", "2026-12-02T03:30:00Z", "2026-12-02T03:45:00Z"},
      {"*/15 * * * *", "2026-12-02T03:59:00Z", "2026-12-02T04:00:00Z"},
      {"5-10/2 * * * *", "2026-12-02T03:06:00Z", "2026-12-02T03:07:00Z"},
      {"5-10/2 * * * *", "2026-12-02T03:09:00Z", "2026-12-02T04:05:00Z"},
      {"7/20 * * * *", "2026-12-02T03:28:00Z", "2026-12-02T03:47:00Z"},  // a/n: 7,27,47
      {"0,30 9-17 * * *", "2026-12-02T17:30:00Z", "2026-12-03T09:00:00Z"},
      {"0 3 * * *", "2026-12-31T03:00:00Z", "2027-01-01T03:00:00Z"},   // year end
      {"0 0 31 * *", "2026-04-15T00:00:00Z", "2026-05-31T00:00:00Z"},  // skips April
      {"0 0 31 * *", "2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z"},  // skips February
      {"0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},  // next leap day
      {"0 0 28-31 2 *", "2027-02-28T00:00:00Z", "2028-02-28T00:00:00Z"},
      {"0 12 * * 1-5", "2026-12-04T12:00:00Z", "2026-12-07T12:00:00Z"},  // Fri -> Mon
      {"0 0 * * 0", "2026-12-02T00:00:00Z", "2026-12-06T00:00:00Z"},     // Sunday as 0
      {"0 0 * * 7", "2026-12-02T00:00:00Z", "2026-12-06T00:00:00Z"},     // and as 7
      {"0 0 1 * 1", "2026-12-02T00:00:00Z", "2026-12-07T00:00:00Z"},     // 1st OR Monday
      {"0 0 */10 * *", "2026-12-21T00:00:00Z", "2026-12-31T00:00:00Z"},  // 1,11,21,31
      {"59 23 31 12 *", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"},
      {"0 0 1 1-12/3 *", "2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z"},
  };
  for (const NextCase& c : cases) {
    absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(c.spec);
    ASSERT_TRUE(cron.ok()) << c.spec << ": " << cron.status();
    EXPECT_EQ(Str(cron->Next(At(c.from))), c.next) << c.spec << " after " << c.from;
  }
}

TEST(CronTest, PrevIsTheLatestFiringAtOrBefore) {
  const NextCase cases[] = {
      {"* * * * *", "2026-12-02T03:30:00Z", "2026-12-02T03:30:00Z"},  // at: included
      {"* * * * *", "2026-12-02T03:30:42Z", "2026-12-02T03:30:00Z"},
      {"*/15 * * * *", "2026-12-02T03:29:00Z", "2026-12-02T03:15:00Z"},
      {"0 3 * * *", "2027-01-01T02:59:00Z", "2026-12-31T03:00:00Z"},
      {"0 0 31 * *", "2026-03-30T00:00:00Z", "2026-01-31T00:00:00Z"},
      {"0 0 29 2 *", "2027-06-01T00:00:00Z", "2024-02-29T00:00:00Z"},
  };
  for (const NextCase& c : cases) {
    absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(c.spec);
    ASSERT_TRUE(cron.ok()) << c.spec << ": " << cron.status();
    EXPECT_EQ(Str(cron->Prev(At(c.from))), c.next) << c.spec << " at or before " << c.from;
  }
}

TEST(CronTest, RefusesBadSchedulesNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "want 5 fields"},
      {"* * * *", "want 5 fields"},
      {"* * * * * *", "want 5 fields"},
      {"60 * * * *", "minute: 60 is out of range 0-59"},
      {"* 24 * * *", "hour: 24 is out of range 0-23"},
      {"* * 0 * *", "day of month: 0 is out of range 1-31"},
      {"* * * 13 *", "month: 13 is out of range 1-12"},
      {"* * * * 8", "day of week: 8 is out of range 0-7"},
      {"*/0 * * * *", "minute: step"},
      {"*/61 * * * *", "minute: step"},
      {"10-5 * * * *", "runs backwards"},
      {"a * * * *", "minute: \"a\" is not a number"},
      {"1,,2 * * * *", "empty list element"},
      {"-1 * * * *", "minute"},
      {"* * * JANUARY *", "month"},
      {"* * * * sunday", "day of week"},
      {"@every 1h", "not a cron macro"},
      {"@fortnightly", "not a cron macro"},
      {"0 0 30 2 *", "never fires"},
      {"0 0 31 4,6,9,11 *", "never fires"},
  };
  for (const auto& [spec, want] : cases) {
    absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(spec);
    ASSERT_FALSE(cron.ok()) << "\"" << spec << "\" was accepted";
    EXPECT_TRUE(absl::IsInvalidArgument(cron.status()));
    EXPECT_TRUE(absl::StrContains(cron.status().message(), want))
        << spec << ": " << cron.status().message();
  }
}

// The macros Kubernetes CronJob (and so aenix's schedules) accept.
TEST(CronTest, MacrosStandForTheirFields) {
  const std::pair<const char*, const char*> cases[] = {
      {"@yearly", "2027-01-01T00:00:00Z"},  {"@annually", "2027-01-01T00:00:00Z"},
      {"@monthly", "2027-01-01T00:00:00Z"}, {"@weekly", "2026-12-06T00:00:00Z"},
      {"@daily", "2026-12-03T00:00:00Z"},   {"@midnight", "2026-12-03T00:00:00Z"},
      {"@hourly", "2026-12-02T11:00:00Z"},  {" @daily ", "2026-12-03T00:00:00Z"}};
  for (const auto& [spec, next] : cases) {
    absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(spec);
    ASSERT_TRUE(cron.ok()) << spec << ": " << cron.status();
    EXPECT_EQ(Str(cron->Next(At("2026-12-02T10:30:00Z"))), next) << spec;
  }
}

// Kubernetes CronJob's parser (and aenix's webhook, issue 35) takes month and
// weekday names in any case, and "?" for "*".
TEST(CronTest, NamesAndQuestionMarksAsKubernetesCronJobReadsThem) {
  const std::pair<const char*, const char*> cases[] = {
      {"0 3 * * MON-FRI", "2026-12-03T03:00:00Z"},  // 2026-12-02 is a Wednesday
      {"0 3 * * sat,Sun", "2026-12-05T03:00:00Z"}, {"0 0 1 jan ?", "2027-01-01T00:00:00Z"},
      {"0 0 ? Dec SUN", "2026-12-06T00:00:00Z"},   {"30 10 ? * ?", "2026-12-03T10:30:00Z"},
  };
  for (const auto& [spec, next] : cases) {
    absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(spec);
    ASSERT_TRUE(cron.ok()) << spec << ": " << cron.status();
    EXPECT_EQ(Str(cron->Next(At("2026-12-02T10:30:00Z"))), next) << spec;
  }
}

TEST(CronTest, AcceptsExtraWhitespaceBetweenFields) {
  absl::StatusOr<CronSchedule> cron = CronSchedule::Parse("  0\t3  * * *  ");
  ASSERT_TRUE(cron.ok()) << cron.status();
  EXPECT_EQ(Str(cron->Next(At("2026-12-02T00:00:00Z"))), "2026-12-02T03:00:00Z");
}

}  // namespace
}  // namespace quorum::api

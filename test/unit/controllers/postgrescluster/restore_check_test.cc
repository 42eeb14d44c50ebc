// The Checking step of an in-place restore: nothing stops until the primary's
// newest WAL is in the repository; archiving that fails or lags is answered
// Failed with nothing stopped; a cluster without a primary is restored from
// what the repository holds.
#include "src/controllers/postgrescluster/restore_check.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace quorum::postgrescluster {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1796378400);  // 2026-12-04T10:00:00Z

absl::Time At(int seconds) { return kStart + absl::Seconds(seconds); }

api::PgBackRestInPlaceRestore Restore(const std::string& time = "") {
  api::PgBackRestInPlaceRestore r{.enabled = true, .repo_name = "repo1"};
  r.target.time = time;
  return r;
}

TEST(ArchivedThroughTest, ComparesSegmentsNotOtherFiles) {
  const std::string seg = "000000010000000000000005";
  EXPECT_TRUE(ArchivedThrough(seg, seg));
  EXPECT_TRUE(ArchivedThrough("000000010000000000000006", seg));
  EXPECT_TRUE(ArchivedThrough("000000010000000100000000", seg));  // the next log
  EXPECT_TRUE(ArchivedThrough("000000020000000000000005", seg));  // a later timeline
  EXPECT_TRUE(ArchivedThrough("00000001000000000000000a", seg));  // case
  EXPECT_FALSE(ArchivedThrough("000000010000000000000004", seg));
  EXPECT_TRUE(ArchivedThrough("000000010000000000000005.00000028.backup", seg));
  EXPECT_FALSE(ArchivedThrough("00000002.history", seg));
  EXPECT_FALSE(ArchivedThrough("", seg));
  EXPECT_FALSE(ArchivedThrough(seg, ""));
  EXPECT_FALSE(ArchivedThrough("00000001000000000000000G", seg));
}

TEST(DecideArchiveCheckTest, EachCase) {
  const std::string seg = "000000010000000000000005";
  const ArchiverView archived{.switched = seg, .last_archived = seg, .last_archived_at = At(1)};
  const ArchiverView lagging{
      .switched = seg, .last_archived = "000000010000000000000004", .last_archived_at = At(-50)};
  ArchiverView failing = lagging;
  failing.last_failed = seg;
  failing.last_failed_at = At(1);
  const absl::StatusOr<ArchiverView> none = absl::UnavailableError("no primary runs");
  struct Case {
    const char* name;
    std::string target_time;
    absl::StatusOr<ArchiverView> view;
    int now;  // seconds after the check started
    const char* phase;
    const char* says;
  } cases[] = {
      {"archived", "", archived, 1, "Stopping", "WAL up to 000000010000000000000005 is archived"},
      {"lagging", "", lagging, 10, "Checking", "waiting for the primary's WAL"},
      {"lagging too long", "", lagging, 120, "Failed", "did not reach the archive in 120s"},
      {"failing", "", failing, 5, "Failed", "WAL archiving into the repositories fails"},
      {"failing, target after the last archive", "2026-12-04T09:59:30Z", failing, 5, "Failed",
       "nothing was stopped"},
      {"failing, target before the last archive", "2026-12-04T09:59:00Z", failing, 5, "Stopping",
       "the target time comes before the last archived segment"},
      {"failed earlier, archived since", "",
       ArchiverView{.switched = seg,
                    .last_archived = seg,
                    .last_archived_at = At(2),
                    .last_failed = seg,
                    .last_failed_at = At(1)},
       3, "Stopping", "is archived"},
      {"failed earlier, not yet again", "",
       ArchiverView{.switched = seg,
                    .last_archived = "000000010000000000000004",
                    .last_archived_at = At(2),
                    .last_failed = "000000010000000000000003",
                    .last_failed_at = At(1)},
       3, "Checking", "waiting"},
      {"no primary", "", none, 10, "Checking", "no primary runs"},
      {"no primary for long", "", none, 60, "Stopping", "restore uses what the repository holds"},
  };
  for (const Case& c : cases) {
    const ArchiveDecision d = DecideArchiveCheck(Restore(c.target_time), c.view, kStart, At(c.now));
    EXPECT_EQ(d.phase, c.phase) << c.name << ": " << d.message;
    EXPECT_TRUE(absl::StrContains(d.message, c.says)) << c.name << ": " << d.message;
  }
}

TEST(DecideArchiveCheckTest, AFailureSaysWhatToDo) {
  ArchiverView failing{.switched = "000000010000000000000005",
                       .last_archived = "000000010000000000000004",
                       .last_archived_at = At(-50),
                       .last_failed = "000000010000000000000005",
                       .last_failed_at = At(1)};
  const ArchiveDecision d = DecideArchiveCheck(Restore(), failing, kStart, At(2));
  EXPECT_TRUE(absl::StrContains(d.message,
                                "segment 000000010000000000000005 at "
                                "2026-12-04T10:00:01Z"))
      << d.message;
  EXPECT_TRUE(absl::StrContains(d.message,
                                "last archived 000000010000000000000004 at "
                                "2026-12-04T09:59:10Z"))
      << d.message;
  EXPECT_TRUE(absl::StrContains(d.message, "give the annotation a new value")) << d.message;
  EXPECT_TRUE(absl::StrContains(d.message, "restore.target.time")) << d.message;
}

// restore.set: a label the repository does not list is refused before
// anything stops, naming the labels it holds; pgBackRest that cannot answer
// is asked again until kArchiveWait, then refused.
TEST(DecideArchiveCheckTest, ABackupSetTheRepositoryDoesNotHoldIsRefused) {
  const std::string seg = "000000010000000000000005";
  api::PgBackRestInPlaceRestore r = Restore();
  r.set = "20261204-101500F";
  ArchiverView archived{.switched = seg, .last_archived = seg, .last_archived_at = At(1)};

  archived.backup_labels = std::vector<std::string>{"20261203-090000F", "20261204-101500F"};
  EXPECT_EQ(DecideArchiveCheck(r, archived, kStart, At(2)).phase, api::kRestoreStopping);

  archived.backup_labels = std::vector<std::string>{"20261203-090000F"};
  ArchiveDecision d = DecideArchiveCheck(r, archived, kStart, At(2));
  EXPECT_EQ(d.phase, api::kRestoreFailed);
  EXPECT_TRUE(absl::StrContains(d.message, "backup set 20261204-101500F")) << d.message;
  EXPECT_TRUE(absl::StrContains(d.message, "spec.backups.pgbackrest.restore.set")) << d.message;
  EXPECT_TRUE(absl::StrContains(d.message, "holds 20261203-090000F")) << d.message;
  EXPECT_TRUE(absl::StrContains(d.message, "nothing was stopped")) << d.message;

  archived.backup_labels = std::vector<std::string>{};
  d = DecideArchiveCheck(r, archived, kStart, At(2));
  EXPECT_TRUE(absl::StrContains(d.message, "holds no backup")) << d.message;

  archived.backup_labels = absl::StatusOr<std::vector<std::string>>(
      absl::InternalError("pgbackrest info: program failed"));
  EXPECT_EQ(DecideArchiveCheck(r, archived, kStart, At(5)).phase, api::kRestoreChecking);
  d = DecideArchiveCheck(r, archived, kStart, kStart + kArchiveWait);
  EXPECT_EQ(d.phase, api::kRestoreFailed);
  EXPECT_TRUE(absl::StrContains(d.message, "program failed")) << d.message;

  // Without a set, what pgBackRest lists does not matter.
  archived.backup_labels = std::vector<std::string>{};
  EXPECT_EQ(DecideArchiveCheck(Restore(), archived, kStart, At(2)).phase, api::kRestoreStopping);
}

TEST(BackupLabelsTest, ReadsPgBackRestsJsonInfo) {
  absl::StatusOr<std::vector<std::string>> labels = BackupLabels(
      R"([{"name":"db","backup":[{"label":"20261203-090000F","type":"full"},)"
      R"({"label":"20261203-090000F_20261204-101500I","type":"incr"}],"status":{"code":0}}])");
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_EQ(*labels,
            (std::vector<std::string>{"20261203-090000F", "20261203-090000F_20261204-101500I"}));
  labels = BackupLabels(R"([{"name":"db","status":{"code":1,"message":"missing stanza path"}}])");
  ASSERT_TRUE(labels.ok());
  EXPECT_TRUE(labels->empty());
  EXPECT_FALSE(BackupLabels("ERROR: [055]: unable to load info file").ok());
  EXPECT_FALSE(BackupLabels("{}").ok());
}

TEST(BackupInfoCommandTest, NamesTheRepositoryAndAsksForJson) {
  EXPECT_EQ(BackupInfoCommand("--config=/c --stanza=db", 2),
            "pgbackrest --config=/c --stanza=db --repo=2 --output=json info");
}

}  // namespace
}  // namespace quorum::postgrescluster

// The scheduled EtcdBackup: a deterministic name from the cron time (a
// repeated reconcile asks for the same object), the owner reference, the
// annotation, and the S3 key prefix turned into one object per backup.
#include "src/controllers/etcdbackupschedule/backup.h"

#include <gtest/gtest.h>

#include <string>

namespace quorum::etcdbackupschedule {
namespace {

using Json = nlohmann::json;

api::EtcdBackupSchedule Schedule(const std::string& name) {
  api::EtcdBackupSchedule s;
  s.metadata = {.name = name, .ns = "db", .uid = "u-1"};
  s.spec.cluster_ref = "main";
  s.spec.destination.s3 = api::BackupS3{.endpoint = "http://s3:8333",
                                        .bucket = "b",
                                        .key = "db/main/",
                                        .credentials_secret = "creds"};
  return s;
}

TEST(ScheduledBackupTest, NameIsTheScheduleAndTheMinuteOfItsCronTime) {
  const absl::Time t = absl::FromUnixSeconds(1796176800);
  EXPECT_EQ(ScheduledBackupName("hourly", t), "hourly-29936280");
  EXPECT_EQ(ScheduledBackupName("hourly", t + absl::Seconds(59)), "hourly-29936280");
  EXPECT_NE(ScheduledBackupName("hourly", t + absl::Minutes(1)), "hourly-29936280");
  const std::string long_name = ScheduledBackupName(std::string(70, 'a') + "-b", t);
  EXPECT_LE(long_name.size(), 63u);
  EXPECT_EQ(long_name.substr(long_name.size() - 9), "-29936280");
  // A shortened name never leaves a '-' before the suffix.
  EXPECT_EQ(ScheduledBackupName(std::string(53, 'a') + "-x", t),
            std::string(53, 'a') + "-29936280");
}

TEST(ScheduledBackupTest, TheSameCronTimeGivesTheSameObject) {
  const absl::Time t = absl::FromUnixSeconds(1796176800);
  const Json a = BuildScheduledBackup(Schedule("hourly"), t);
  EXPECT_EQ(a, BuildScheduledBackup(Schedule("hourly"), t));
  EXPECT_EQ(a["metadata"]["name"], "hourly-29936280");
  EXPECT_EQ(a["metadata"]["annotations"]["etcd.aenix.io/scheduled-at"], "2026-12-02T02:00:00Z");
  EXPECT_EQ(a["metadata"]["labels"][kScheduleLabel], "hourly");
  const Json& owner = a["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "EtcdBackupSchedule");
  EXPECT_EQ(owner["uid"], "u-1");
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(a["spec"]["clusterRef"]["name"], "main");
  EXPECT_EQ(a["spec"]["destination"]["s3"]["key"], "db/main/hourly-29936280.db");
}

TEST(ScheduledBackupTest, DestinationKeysAndFiles) {
  api::BackupDestination s3;
  s3.s3 = api::BackupS3{.bucket = "b", .key = ""};
  EXPECT_EQ(ScheduledDestination(s3, "x-1").s3->key, "");  // EtcdBackup's default key
  s3.s3->key = "p/q";
  EXPECT_EQ(ScheduledDestination(s3, "x-1").s3->key, "p/q/x-1.db");
  api::BackupDestination pvc;
  pvc.pvc = api::BackupPvc{.claim_name = "c", .sub_path = "etcd"};
  EXPECT_EQ(ScheduledDestination(pvc, "x-1"), pvc);  // the file name is the backup's
}

}  // namespace
}  // namespace quorum::etcdbackupschedule

// The EtcdBackupSchedule controller against the real control plane and the
// real object store (SeaweedFS, the `s3` fixture); no kubelet, so this test
// plays the EtcdBackup controller: it stores small objects and marks backups
// Complete. Checked: the CRD's rules, a backup per cron time with a
// deterministic name, retention deleting the oldest objects from S3 (listed
// back), history limits deleting EtcdBackup objects, zero writes between cron
// times, and a backup at the next cron time with no event to wake it. The
// reconciler's clock is a FakeClock the test advances: no wait for the wall
// clock's next minute.
#include "src/controllers/etcdbackupschedule/reconciler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "src/backup/s3.h"
#include "src/backup/s3_listing.h"
#include "src/backup/sigv4.h"
#include "src/controllers/etcdbackup/reconciler.h"
#include "test/integration/controllers/api_writes.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/testenv.h"

namespace quorum::etcdbackupschedule {
namespace {

using kube::Json;
using testenv::Eventually;

const kube::GroupVersionResource kBackups = etcdbackup::kEtcdBackups;
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};

std::string ReadTrimmed(const std::string& path) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return std::string(absl::StripAsciiWhitespace(s));
}

// The object store's env file (written by hack/s3.sh start).
std::map<std::string, std::string> S3Env() {
  std::map<std::string, std::string> env;
  const char* dir = std::getenv("QUORUM_S3_DIR");
  std::ifstream in(std::string(dir == nullptr ? "" : dir) + "/env");
  for (std::string line; std::getline(in, line);) {
    absl::string_view l = line;
    if (!absl::ConsumePrefix(&l, "export ")) continue;
    const size_t eq = l.find('=');
    std::string v(l.substr(eq + 1));
    if (v.size() >= 2 && v.front() == '\'') v = v.substr(1, v.size() - 2);
    env[std::string(l.substr(0, eq))] = v;
  }
  return env;
}

class EtcdBackupScheduleControllerTest : public testenv::ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    if (HasFatalFailure()) return;
    s3_ = S3Env();
    ASSERT_TRUE(s3_.contains("QUORUM_S3_ENDPOINT")) << "the s3 fixture did not run";
    creds_ = {.access_key_id = ReadTrimmed(s3_.at("QUORUM_S3_ACCESS_KEY_FILE")),
              .secret_access_key = ReadTrimmed(s3_.at("QUORUM_S3_SECRET_KEY_FILE"))};
    const Json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", "s3-creds"}}},
                         {"stringData",
                          {{"AWS_ACCESS_KEY_ID", creds_.access_key_id},
                           {"AWS_SECRET_ACCESS_KEY", creds_.secret_access_key}}}};
    ASSERT_TRUE(client().Create(kSecrets, ns(), secret).ok());
    StartControllers(
        {"etcd.aenix.io_etcdbackups.yaml", "etcd.aenix.io_etcdbackupschedules.yaml"},
        [this](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
          reconciler_ = std::make_unique<EtcdBackupScheduleReconciler>(
              client, manager.cache(), manager.recorder(), "operator:test",
              s3_.at("QUORUM_S3_CA_FILE"), clock_);
          return SetupEtcdBackupScheduleController(manager, *reconciler_, 2);
        });
  }

  backup::S3Location Location(const std::string& key) {
    return {.endpoint = s3_.at("QUORUM_S3_ENDPOINT"),
            .bucket = s3_.at("QUORUM_S3_BUCKET"),
            .key = key,
            .force_path_style = true,
            .ca_file = s3_.at("QUORUM_S3_CA_FILE")};
  }
  std::string Prefix() { return ns() + "/every/"; }

  Json Schedule(const Json& extra) {
    Json spec = {{"clusterRef", {{"name", "main"}}},
                 {"schedule", "* * * * *"},
                 {"destination",
                  {{"s3",
                    {{"endpoint", s3_.at("QUORUM_S3_ENDPOINT")},
                     {"bucket", s3_.at("QUORUM_S3_BUCKET")},
                     {"key", ns() + "/every"},
                     {"forcePathStyle", true},
                     {"credentialsSecretRef", {{"name", "s3-creds"}}}}}}}};
    spec.merge_patch(extra);
    return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
            {"kind", "EtcdBackupSchedule"},
            {"metadata", {{"name", "every"}}},
            {"spec", spec}};
  }

  // An old backup of the schedule, Complete, with its object in the store.
  void AddCompleteBackup(const std::string& name, int minute, const std::string& uid) {
    const std::string key = Prefix() + name + ".db";
    const std::string file = absl::StrCat(testing::TempDir(), "/", ns(), "-", name);
    std::ofstream(file) << "snapshot " << name;
    ASSERT_TRUE(backup::PutObject(Location(key), creds_, file,
                                  backup::Sha256Hex(absl::StrCat("snapshot ", name)), absl::Now())
                    .ok());
    const std::string at = absl::StrCat("2026-01-01T00:0", minute, ":00Z");
    const Json b = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                    {"kind", "EtcdBackup"},
                    {"metadata",
                     {{"name", name},
                      {"annotations", {{"etcd.aenix.io/scheduled-at", at}}},
                      {"ownerReferences", Json::array({{{"apiVersion", "etcd.aenix.io/v1alpha1"},
                                                        {"kind", "EtcdBackupSchedule"},
                                                        {"name", "every"},
                                                        {"uid", uid},
                                                        {"controller", true}}})}}},
                    {"spec",
                     {{"clusterRef", {{"name", "main"}}},
                      {"destination", Schedule(Json::object())["spec"]["destination"]}}}};
    ASSERT_TRUE(client().Create(kBackups, ns(), b).ok());
    const Json status = {{"status",
                          {{"phase", "Complete"},
                           {"snapshot",
                            {{"uri", absl::StrCat("s3://", s3_.at("QUORUM_S3_BUCKET"), "/", key)},
                             {"revision", 5},
                             {"size", 20},
                             {"sha256", std::string(64, 'a')},
                             {"takenAt", absl::StrCat("2026-01-01T00:0", minute, ":05Z")}}}}}};
    ASSERT_TRUE(
        client()
            .Patch(kBackups, ns(), name, kube::PatchType::kMerge, status, {.subresource = "status"})
            .ok());
  }

  std::set<std::string> StoredKeys() {
    absl::StatusOr<std::vector<backup::S3Object>> objects =
        backup::ListObjects(Location(Prefix()), creds_, absl::Now());
    std::set<std::string> out;
    if (!objects.ok()) return {"error: " + objects.status().ToString()};
    for (const backup::S3Object& o : *objects) out.insert(o.key.substr(Prefix().size()));
    return out;
  }

  std::set<std::string> BackupNames() {
    std::set<std::string> out;
    absl::StatusOr<Json> list = client().List(kBackups, ns());
    if (!list.ok()) return out;
    for (const Json& b : (*list)["items"]) out.insert(b["metadata"]["name"].get<std::string>());
    return out;
  }

  // 58 s into a minute, a day ahead of the API server's clock, so that every
  // cron time it reaches comes after the schedule's creationTimestamp.
  static absl::Time FakeStart() {
    const int64_t day_ahead = absl::ToUnixSeconds(absl::Now() + absl::Hours(24));
    return absl::FromUnixSeconds(day_ahead / 60 * 60 + 58);
  }

  FakeClock clock_{FakeStart()};
  std::map<std::string, std::string> s3_;
  backup::SigV4Credentials creds_;
  std::unique_ptr<EtcdBackupScheduleReconciler> reconciler_;
};

TEST_F(EtcdBackupScheduleControllerTest, TheApiServerRefusesNegativeLimitsAndKeepLastZero) {
  for (const auto& [extra, field] : std::vector<std::pair<Json, std::string>>{
           {{{"keepLast", 0}}, "spec.keepLast"},
           {{{"failedJobsHistoryLimit", -1}}, "spec.failedJobsHistoryLimit"},
           {{{"keepWithin", "7d"}}, "spec.keepWithin"},
           {{{"schedule", "daily"}}, "spec.schedule"}}) {
    absl::StatusOr<Json> r = client().Create(kEtcdBackupSchedules, ns(), Schedule(extra));
    ASSERT_FALSE(r.ok()) << extra.dump();
    EXPECT_TRUE(absl::StrContains(r.status().message(), field)) << r.status();
  }
}

TEST_F(EtcdBackupScheduleControllerTest, KeepsKeepLastSnapshotsInS3AndWakesAtTheNextMinute) {
  absl::StatusOr<Json> created = client().Create(
      kEtcdBackupSchedules, ns(),
      Schedule(
          {{"keepLast", 2}, {"successfulJobsHistoryLimit", 1}, {"failedJobsHistoryLimit", 1}}));
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string uid = (*created)["metadata"]["uid"];
  for (int i = 1; i <= 3; ++i) {
    ASSERT_NO_FATAL_FAILURE(AddCompleteBackup(absl::StrCat("old-", i), i, uid));
  }
  // Retention: the oldest object leaves the store and its EtcdBackup goes;
  // history: old-2's object goes too (limit 1) while its snapshot stays.
  EXPECT_TRUE(Eventually(
      [&] {
        return StoredKeys() == std::set<std::string>{"old-2.db", "old-3.db"};
      },
      absl::Seconds(30)))
      << absl::StrJoin(StoredKeys(), ",");
  EXPECT_TRUE(Eventually(
      [&] {
        const std::set<std::string> names = BackupNames();
        return !names.contains("old-1") && !names.contains("old-2") && names.contains("old-3");
      },
      absl::Seconds(30)))
      << absl::StrJoin(BackupNames(), ",");
  // The status follows the store in the same or the next reconcile: wait for it.
  Json status;
  EXPECT_TRUE(Eventually(
      [&] {
        status = (*client().Get(kEtcdBackupSchedules, ns(), "every"))["status"];
        return status.value("snapshots", Json::array()).size() == 2u &&
               status.value("lastSuccessfulBackupTime", "") == "2026-01-01T00:03:05Z";
      },
      absl::Seconds(30)))
      << status.dump();

  // A backup per cron time, named for it, with the prefix as its key's folder:
  // the latest cron time (58 s ago on the schedule's clock) is due at once.
  std::string scheduled;
  ASSERT_TRUE(Eventually(
      [&] {
        for (const std::string& n : BackupNames()) {
          if (absl::StartsWith(n, "every-")) scheduled = n;
        }
        return !scheduled.empty();
      },
      absl::Seconds(30)));
  const Json b = *client().Get(kBackups, ns(), scheduled);
  EXPECT_EQ(b["spec"]["destination"]["s3"]["key"], Prefix() + scheduled + ".db");
  EXPECT_EQ(b["metadata"]["ownerReferences"][0]["uid"], uid);
  // Unfinished, it would hold the next one back (Forbid): finish it, as its
  // controller would.
  ASSERT_TRUE(client()
                  .Patch(kBackups, ns(), scheduled, kube::PatchType::kMerge,
                         {{"status", {{"phase", "Failed"}}}}, {.subresource = "status"})
                  .ok());

  // Between cron times nothing is written: two seconds before the next, once
  // the status of this one has landed, a reconcile writes nothing (nor do the
  // requeues in between, which find nothing due while the clock stands still).
  ASSERT_TRUE(testenv::SettlesToZeroWrites(client(), manager(), controller(), kEtcdBackupSchedules,
                                           ns(), "every"))
      << "the schedule kept writing between cron times";
  const std::optional<double> writes = testenv::WritesOfATouch(client(), manager(), controller(),
                                                               kEtcdBackupSchedules, ns(), "every");
  ASSERT_TRUE(writes.has_value()) << "no reconcile after the touch";
  EXPECT_EQ(*writes, 0) << "a reconcile between cron times wrote";

  // The next cron time brings a new backup: nothing but the requeue (asked
  // for two seconds ahead by the last reconcile) wakes it.
  const std::set<std::string> before = BackupNames();
  clock_.Advance(absl::Seconds(2));
  EXPECT_TRUE(Eventually(
      [&] {
        for (const std::string& n : BackupNames()) {
          if (absl::StartsWith(n, "every-") && !before.contains(n)) return true;
        }
        return false;
      },
      absl::Seconds(30)))
      << absl::StrJoin(BackupNames(), ",");
}

}  // namespace
}  // namespace quorum::etcdbackupschedule

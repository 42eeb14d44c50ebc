// Admission parity with the aenix etcd-operator v0.4.5 for EtcdBackup and
// EtcdBackupSchedule: every case of its api/v1alpha1/etcdbackup_webhook_test.go
// and etcdbackupschedule_webhook_test.go, one row each named after the case,
// run through Quorum's validating handlers. The expected outcome is aenix's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test/unit/webhooks/aenix_admission.h"

namespace quorum::webhooks::aenix {
namespace {

constexpr char kS3[] = R"({"s3": {"endpoint": "https://s3.amazonaws.com", "bucket": "my-bucket",
    "key": "backups/snapshot.db", "credentialsSecretRef": {"name": "s3-creds"}}})";
constexpr char kPvc[] = R"({"pvc": {"claimName": "backup-pvc"}})";
constexpr char kBoth[] = R"({"s3": {"endpoint": "https://s3.amazonaws.com", "bucket": "my-bucket",
    "key": "backups/snapshot.db", "credentialsSecretRef": {"name": "s3-creds"}},
    "pvc": {"claimName": "backup-pvc"}})";

Json BackupSpec(const char* cluster, const char* destination) {
  return {{"clusterRef", {{"name", cluster}}}, {"destination", Json::parse(destination)}};
}

struct BackupCase {
  const char* name;  // aenix's case
  const char* cluster;
  const char* destination;
  Outcome want;
  const char* mention;  // refused: a part of the message
};

const BackupCase kBackupCreates[] = {
    {"Should admit a valid S3 backup", "my-cluster", kS3, Outcome::kAdmitted, ""},
    {"Should admit a valid PVC backup", "my-cluster", kPvc, Outcome::kAdmitted, ""},
    {"Should reject if both S3 and PVC are set", "my-cluster", kBoth, Outcome::kRefused,
     "spec.destination"},
    {"Should reject if neither S3 nor PVC is set", "my-cluster", "{}", Outcome::kRefused,
     "spec.destination"},
    {"Should reject if clusterRef.name is empty", "", kPvc, Outcome::kRefused,
     "spec.clusterRef.name"},
    {"Should reject S3 with invalid endpoint URL", "my-cluster",
     R"({"s3": {"endpoint": "not-a-url", "bucket": "my-bucket", "key": "backups/snapshot.db",
         "credentialsSecretRef": {"name": "s3-creds"}}})",
     Outcome::kRefused, "spec.destination.s3.endpoint"},
    {"Should reject S3 with empty required fields", "my-cluster", R"({"s3": {}})",
     Outcome::kRefused, "spec.destination.s3.endpoint"},
    {"Should reject PVC with path traversal in subPath", "my-cluster",
     R"({"pvc": {"claimName": "backup-pvc", "subPath": "../../etc/shadow"}})", Outcome::kRefused,
     "spec.destination.pvc.subPath"},
    {"Should reject PVC with absolute subPath", "my-cluster",
     R"({"pvc": {"claimName": "backup-pvc", "subPath": "/etc/shadow"}})", Outcome::kRefused,
     "spec.destination.pvc.subPath"},
    {"Should reject PVC with empty claimName", "my-cluster", R"({"pvc": {}})", Outcome::kRefused,
     "spec.destination.pvc.claimName"},
};

TEST(AenixParityEtcdBackupTest, EveryCreateCaseHasAenixsOutcome) {
  for (const BackupCase& c : kBackupCreates) {
    SCOPED_TRACE(c.name);
    const runtime::AdmissionResponse r =
        AdmitEtcdBackup(Object("EtcdBackup", BackupSpec(c.cluster, c.destination)));
    EXPECT_EQ(Mismatch(r, c.want, c.mention), "");
    if (c.want == Outcome::kAdmitted) {
      EXPECT_TRUE(r.warnings.empty());
    }
  }
}

TEST(AenixParityEtcdBackupTest, AnEmptyS3NamesEveryRequiredField) {
  // "Should reject S3 with empty required fields" also wants each one named.
  const runtime::AdmissionResponse r =
      AdmitEtcdBackup(Object("EtcdBackup", BackupSpec("my-cluster", R"({"s3": {}})")));
  for (const char* field : {"endpoint", "bucket", "credentialsSecretRef"}) {
    EXPECT_EQ(Mismatch(r, Outcome::kRefused, field), "");
  }
}

TEST(AenixParityEtcdBackupTest, UpdatesAndDeletesHaveAenixsOutcome) {
  const Json backup = Object("EtcdBackup", BackupSpec("my-cluster", kPvc));
  // "Should allow status-only updates (spec unchanged)".
  Json with_status = backup;
  with_status["status"] = {{"phase", "Complete"}};
  EXPECT_EQ(Mismatch(AdmitEtcdBackup(with_status, backup), Outcome::kAdmitted, ""), "");
  // "Should reject spec changes".
  Json other = backup;
  other["spec"]["clusterRef"]["name"] = "other-cluster";
  EXPECT_EQ(Mismatch(AdmitEtcdBackup(other, backup), Outcome::kRefused, "immutable"), "");
  // "Should always allow deletion".
  EXPECT_TRUE(ValidateEtcdBackupAdmission(
                  Request("EtcdBackup", "etcdbackups", "DELETE", nullptr, Object("EtcdBackup", {})))
                  .allowed);
}

struct ScheduleCase {
  const char* name;  // aenix's case
  const char* cluster;
  const char* schedule;
  const char* destination;
  Outcome want;
  const char* mention;
};

const ScheduleCase kScheduleCreates[] = {
    {"Should admit a valid schedule with PVC destination", "my-cluster", "0 */6 * * *", kPvc,
     Outcome::kAdmitted, ""},
    {"Should admit a valid schedule with S3 destination", "my-cluster", "@daily", kS3,
     Outcome::kAdmitted, ""},
    {"Should reject if clusterRef.name is empty", "", "0 0 * * *", kPvc, Outcome::kRefused,
     "spec.clusterRef.name"},
    {"Should reject if schedule is empty", "my-cluster", "", kPvc, Outcome::kRefused,
     "spec.schedule"},
    {"Should reject an invalid cron expression", "my-cluster", "not-a-cron", kPvc,
     Outcome::kRefused, "spec.schedule"},
    {"Should reject if neither S3 nor PVC is set", "my-cluster", "0 0 * * *", "{}",
     Outcome::kRefused, "spec.destination"},
    {"Should reject if both S3 and PVC are set", "my-cluster", "0 0 * * *", kBoth,
     Outcome::kRefused, "spec.destination"},
    {"Should reject PVC with path traversal in subPath", "my-cluster", "0 0 * * *",
     R"({"pvc": {"claimName": "backup-pvc", "subPath": "../../etc/shadow"}})", Outcome::kRefused,
     "spec.destination.pvc.subPath"},
    {"Should reject cron expression with too many fields", "my-cluster", "* * * * * * * *", kPvc,
     Outcome::kRefused, "spec.schedule"},
    {"Should admit cron shorthand @hourly", "my-cluster", "@hourly", kPvc, Outcome::kAdmitted, ""},
    // aenix's webhook code beyond its tests: robfig/cron's standard parser.
    {"cronParser: month and weekday names", "my-cluster", "0 3 ? jan-jun MON-FRI", kPvc,
     Outcome::kAdmitted, ""},
    {"validateSpec: @every is refused", "my-cluster", "@every 1h", kPvc, Outcome::kRefused,
     "spec.schedule"},
};

Json Schedule(const char* cluster, const char* schedule, const char* destination,
              const char* name = "test") {
  Json spec = BackupSpec(cluster, destination);
  spec["schedule"] = schedule;
  return Object("EtcdBackupSchedule", spec, name);
}

TEST(AenixParityEtcdBackupScheduleTest, EveryCreateCaseHasAenixsOutcome) {
  for (const ScheduleCase& c : kScheduleCreates) {
    SCOPED_TRACE(c.name);
    const runtime::AdmissionResponse r =
        AdmitEtcdBackupSchedule(Schedule(c.cluster, c.schedule, c.destination));
    EXPECT_EQ(Mismatch(r, c.want, c.mention), "");
    if (c.want == Outcome::kAdmitted) {
      EXPECT_TRUE(r.warnings.empty());
    }
  }
}

TEST(AenixParityEtcdBackupScheduleTest, UpdatesAndDeletesHaveAenixsOutcome) {
  const Json old = Schedule("my-cluster", "0 0 * * *", kPvc);
  // "Should allow valid spec changes (schedules are mutable)".
  EXPECT_EQ(Mismatch(AdmitEtcdBackupSchedule(Schedule("my-cluster", "0 */12 * * *", kPvc), old),
                     Outcome::kAdmitted, ""),
            "");
  // "Should allow update of existing resource with long name".
  const char* long_name = "this-name-is-way-too-long-for-cronjob-suffix";
  EXPECT_EQ(
      Mismatch(AdmitEtcdBackupSchedule(Schedule("my-cluster", "0 */12 * * *", kPvc, long_name),
                                       Schedule("my-cluster", "0 0 * * *", kPvc, long_name)),
               Outcome::kAdmitted, ""),
      "");
  // "Should reject update with invalid cron expression".
  EXPECT_EQ(Mismatch(AdmitEtcdBackupSchedule(Schedule("my-cluster", "invalid", kPvc), old),
                     Outcome::kRefused, "spec.schedule"),
            "");
  // "Should always allow deletion".
  EXPECT_TRUE(ValidateEtcdBackupScheduleAdmission(
                  Request("EtcdBackupSchedule", "etcdbackupschedules", "DELETE", nullptr, old))
                  .allowed);
}

}  // namespace
}  // namespace quorum::webhooks::aenix

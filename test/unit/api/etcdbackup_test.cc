// EtcdBackup's admission rules and decoding, table-driven: each invalid
// object is refused naming its field; aenix's field names decode.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "api/etcdbackup_types.h"
#include "api/etcdcluster_validation.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json S3Backup() {
  return Json::parse(R"({
    "apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackup",
    "metadata": {"name": "nightly", "namespace": "db", "uid": "u1", "generation": 1},
    "spec": {"clusterRef": {"name": "main"},
             "destination": {"s3": {"endpoint": "https://s3.example.com", "bucket": "etcd-backups",
                                    "key": "main/nightly.db", "region": "eu-west-1",
                                    "forcePathStyle": true,
                                    "credentialsSecretRef": {"name": "s3-creds"}}}}})");
}

Json With(const char* patch) {
  Json obj = S3Backup();
  obj.merge_patch(Json::parse(patch));
  return obj;
}

TEST(EtcdBackupTest, DecodesAenixFieldNames) {
  absl::StatusOr<EtcdBackup> b = ParseEtcdBackup(S3Backup());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->spec.cluster_ref, "main");
  ASSERT_TRUE(b->spec.destination.s3.has_value());
  EXPECT_EQ(*b->spec.destination.s3, (BackupS3{.endpoint = "https://s3.example.com",
                                               .bucket = "etcd-backups",
                                               .key = "main/nightly.db",
                                               .region = "eu-west-1",
                                               .force_path_style = true,
                                               .credentials_secret = "s3-creds"}));
  EXPECT_FALSE(b->spec.destination.pvc.has_value());

  b = ParseEtcdBackup(With(R"({"spec": {"destination": {"s3": null,
      "pvc": {"claimName": "backups", "subPath": "etcd/main"}}}})"));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*b->spec.destination.pvc,
            (BackupPvc{.claim_name = "backups", .sub_path = "etcd/main"}));
}

TEST(EtcdBackupTest, RefusesBadObjectsNamingTheField) {
  struct Case {
    const char* patch;
    const char* field;
  } cases[] = {
      {R"({"spec": {"clusterRef": {"name": ""}}})", "spec.clusterRef.name"},
      {R"({"spec": {"destination": {"s3": null}}})", "spec.destination"},
      {R"({"spec": {"destination": {"pvc": {"claimName": "c"}}}})", "spec.destination"},
      {R"({"spec": {"destination": {"s3": {"endpoint": "s3.example.com"}}}})",
       "spec.destination.s3.endpoint"},
      {R"({"spec": {"destination": {"s3": {"endpoint": "https://h/path"}}}})",
       "spec.destination.s3.endpoint"},
      {R"({"spec": {"destination": {"s3": {"bucket": "Bad_Bucket"}}}})",
       "spec.destination.s3.bucket"},
      {R"({"spec": {"destination": {"s3": {"key": "/abs"}}}})", "spec.destination.s3.key"},
      {R"({"spec": {"destination": {"s3": {"key": "a/../b"}}}})", "spec.destination.s3.key"},
      {R"({"spec": {"destination": {"s3": {"credentialsSecretRef": null}}}})",
       "spec.destination.s3.credentialsSecretRef.name"},
      {R"({"spec": {"destination": {"s3": {"forcePathStyle": "yes"}}}})",
       "spec.destination.s3.forcePathStyle"},
      {R"({"spec": {"destination": {"s3": null, "pvc": {"claimName": "c", "subPath": "../x"}}}})",
       "spec.destination.pvc.subPath"},
      {R"({"spec": {"destination": {"s3": null, "pvc": {"claimName": ""}}}})",
       "spec.destination.pvc.claimName"},
  };
  for (const Case& c : cases) {
    const std::vector<FieldError> errors = ValidateEtcdBackup(With(c.patch), nullptr);
    bool named = false;
    for (const FieldError& e : errors) named = named || e.field == c.field;
    EXPECT_TRUE(named) << c.patch << " -> " << JoinFieldErrors(errors);
    EXPECT_TRUE(absl::IsInvalidArgument(ParseEtcdBackup(With(c.patch)).status())) << c.patch;
  }
}

TEST(EtcdBackupTest, SpecIsImmutable) {
  EXPECT_TRUE(ValidateEtcdBackup(S3Backup(), nullptr).empty());
  const Json old = S3Backup();
  EXPECT_TRUE(ValidateEtcdBackup(S3Backup(), &old).empty());
  const std::vector<FieldError> errors =
      ValidateEtcdBackup(With(R"({"spec": {"clusterRef": {"name": "other"}}})"), &old);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec");
}

TEST(EtcdBackupTest, StatusRoundTrips) {
  EtcdBackupStatus s{
      .observed_generation = 2,
      .phase = "Complete",
      .job_name = "nightly-snapshot",
      .conditions = {{.type = "Complete", .status = "True", .reason = "SnapshotStored"}},
      .snapshot = BackupSnapshotStatus{.uri = "s3://b/k",
                                       .revision = 9,
                                       .size = 100,
                                       .sha256 = "ab",
                                       .taken_at = "2026-12-02T00:00:00Z"}};
  Json obj = S3Backup();
  obj["status"] = ToJson(s);
  // aenix's names beside Quorum's (issue 35): dashboards read these.
  EXPECT_EQ(obj["status"]["snapshot"]["sizeBytes"], 100);
  EXPECT_EQ(obj["status"]["snapshot"]["checksum"], "sha256:ab");
  absl::StatusOr<EtcdBackup> b = ParseEtcdBackup(obj);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->status, s);
}

}  // namespace
}  // namespace quorum::api

namespace quorum::api {
namespace {

Json RestoringCluster(const char* source) {
  Json obj = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
              {"kind", "EtcdCluster"},
              {"metadata", {{"name", "restored"}, {"namespace", "db"}}},
              {"spec", {{"bootstrap", {{"restore", {{"source", Json::parse(source)}}}}}}}};
  return obj;
}

TEST(EtcdClusterRestoreTest, RestoreSourceMustNameTheSnapshot) {
  struct Case {
    const char* source;
    const char* field;  // "" means valid
  } cases[] = {
      {R"({"pvc": {"claimName": "backups", "subPath": "etcd/main-nightly.db"}})", ""},
      {R"({"s3": {"endpoint": "https://s3", "bucket": "bkt", "key": "k.db",
                  "credentialsSecretRef": {"name": "c"}}})",
       ""},
      // As aenix: no subPath reads snapshot.db at the claim's root (restore_test.cc).
      {R"({"pvc": {"claimName": "backups"}})", ""},
      {R"({"s3": {"endpoint": "https://s3", "bucket": "bkt", "credentialsSecretRef": {"name": "c"}}})",
       "spec.bootstrap.restore.source.s3.key"},
      {R"({})", "spec.bootstrap.restore.source"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<EtcdCluster> parsed = ParseEtcdCluster(RestoringCluster(c.source));
    if (*c.field == '\0') {
      ASSERT_TRUE(parsed.ok()) << c.source << ": " << parsed.status();
      EXPECT_TRUE(parsed->spec.restore_source.has_value());
      EXPECT_EQ(ToJson(parsed->spec)["bootstrap"]["restore"]["source"], Json::parse(c.source));
    } else {
      EXPECT_TRUE(absl::StrContains(parsed.status().message(), c.field))
          << c.source << ": " << parsed.status();
    }
  }
}

TEST(EtcdClusterRestoreTest, BootstrapIsImmutable) {
  const Json old = RestoringCluster(R"({"pvc": {"claimName": "a", "subPath": "x.db"}})");
  const Json changed = RestoringCluster(R"({"pvc": {"claimName": "b", "subPath": "x.db"}})");
  bool named = false;
  for (const FieldError& e : ValidateEtcdCluster(changed, &old))
    named |= e.field == "spec.bootstrap";
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace quorum::api

// Where a pruned snapshot lives (pure): an S3 object in the destination's
// bucket, a file in the destination's claim; anything else is not ours. The
// prune Job: deterministic name, the claim mounted, paths as arguments.
#include "src/controllers/etcdbackupschedule/prune.h"

#include <gtest/gtest.h>

namespace quorum::etcdbackupschedule {
namespace {

TEST(PruneTest, S3LocationOfAnObjectInTheDestinationBucket) {
  const api::BackupS3 dest{.endpoint = "http://s3:8333", .bucket = "b", .force_path_style = true};
  absl::StatusOr<backup::S3Location> at = S3LocationOf(dest, "s3://b/db/main/x-1.db");
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->key, "db/main/x-1.db");
  EXPECT_EQ(at->endpoint, "http://s3:8333");
  EXPECT_EQ(at->region, "us-east-1");
  EXPECT_TRUE(at->force_path_style);
  for (const char* other : {"s3://c/db/x.db", "s3://b/", "pvc://b/x.db", "s3://bb/x"}) {
    EXPECT_TRUE(absl::IsFailedPrecondition(S3LocationOf(dest, other).status())) << other;
  }
}

TEST(PruneTest, PvcPathOfAFileInTheDestinationClaim) {
  const api::BackupPvc dest{.claim_name = "backups", .sub_path = "etcd"};
  absl::StatusOr<std::string> p = PvcPathOf(dest, "pvc://backups/etcd/main-x-1.db");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "etcd/main-x-1.db");
  for (const char* other : {"pvc://other/etcd/x.db", "pvc://backups/../x.db", "pvc://backups//x.db",
                            "s3://backups/x.db", "pvc://backups/"}) {
    EXPECT_TRUE(absl::IsFailedPrecondition(PvcPathOf(dest, other).status())) << other;
  }
}

TEST(PruneTest, PruneJobMountsTheClaimAndIsNamedByItsFiles) {
  api::EtcdBackupSchedule s;
  s.metadata = {.name = "every", .ns = "db", .uid = "u"};
  s.spec.cluster_ref = "main";
  s.spec.destination.pvc = api::BackupPvc{.claim_name = "backups"};
  const std::vector<std::string> paths = {"etcd/a.db", "etcd/b.db"};
  const nlohmann::json job = BuildPruneJob(s, paths, "quorum-operator:1");
  EXPECT_EQ(job["metadata"]["name"], PruneJobName("every", paths));
  EXPECT_NE(PruneJobName("every", paths), PruneJobName("every", {"etcd/a.db"}));
  EXPECT_LE(PruneJobName(std::string(80, 'x'), paths).size(), 63u);
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["kind"], "EtcdBackupSchedule");
  EXPECT_EQ(job["metadata"]["labels"]["app.kubernetes.io/managed-by"], "quorum-operator");
  const nlohmann::json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"], "backups");
  EXPECT_EQ(pod["containers"][0]["args"],
            nlohmann::json({"delete-snapshots", "--dir=/backup", "etcd/a.db", "etcd/b.db"}));
}

}  // namespace
}  // namespace quorum::etcdbackupschedule

#include "api/etcdbackup_schema.h"

#include "api/schema_nodes.h"

namespace quorum::api {

using namespace internal::schema;  // NOLINT(build/namespaces): schema literals read better

Json BackupDestinationSchema(const char* description) {
  Json s3 = Object(
      "An S3-compatible object store. The snapshot is one object, uploaded with a signed "
      "SHA-256 of its content.",
      {
          {"endpoint", String("http(s)://host[:port] of the store, e.g. https://s3.eu-west-1."
                              "amazonaws.com or https://minio.storage:9000.")},
          {"bucket", String("The bucket; it must exist.")},
          {"key", String("The object key. Empty: <namespace>/<cluster>/<backup name>.db.")},
          {"region", String("The SigV4 signing region (default us-east-1).")},
          {"forcePathStyle", Bool("Address https://endpoint/bucket/key instead of "
                                  "https://bucket.endpoint/key (MinIO, SeaweedFS, Ceph).")},
          {"credentialsSecretRef",
           Object("A Secret in this namespace with keys AWS_ACCESS_KEY_ID and "
                  "AWS_SECRET_ACCESS_KEY. Its values reach the backup pod as environment "
                  "variables only.",
                  {{"name", String("Name of the Secret.")}})},
      });
  s3["required"] = Json::array({"endpoint", "bucket", "credentialsSecretRef"});
  Json pvc = Object(
      "A PersistentVolumeClaim in this namespace (ReadWriteMany, or a "
      "ReadWriteOnce claim the backup pod can mount).",
      {
          {"claimName", String("Name of the claim.")},
          {"subPath", String("A relative folder inside the claim (no '..').")},
      });
  pvc["required"] = Json::array({"claimName"});
  Json d = Object(description, {{"s3", s3}, {"pvc", pvc}});
  d["x-kubernetes-validations"] =
      Json::array({Rule("has(self.s3) != has(self.pvc)", "set exactly one of s3 and pvc")});
  return d;
}

Json EtcdBackupSchemaSource() {
  Json spec =
      Object("What to snapshot and where to store it. Immutable: one EtcdBackup is one snapshot.",
             {
                 {"clusterRef", Object("The EtcdCluster to snapshot, in this namespace.",
                                       {{"name", String("Name of the EtcdCluster.")}})},
                 {"destination", BackupDestinationSchema("Where the snapshot goes: s3 or pvc.")},
             });
  spec["required"] = Json::array({"clusterRef", "destination"});
  spec["x-kubernetes-validations"] =
      Json::array({Rule("self == oldSelf", "spec is immutable; create a new EtcdBackup")});
  Json condition = Ref(std::string(kMeta) + "Condition", "A condition.");
  Json conditions = Typed("array", "Complete and Failed, with the reason of the last change.");
  conditions["items"] = condition;
  conditions["x-kubernetes-list-type"] = "map";
  conditions["x-kubernetes-list-map-keys"] = Json::array({"type"});
  Json status = Object(
      "Written by Quorum.",
      {
          {"observedGeneration", Int64("The generation this status describes.")},
          {"phase", String("Pending (waiting for the cluster), Started (the Job runs), Complete "
                           "(stored and verified) or Failed (see the Failed condition).")},
          {"jobName", String("The Job that takes the snapshot.")},
          {"conditions", conditions},
          {"snapshot",
           Object("The stored snapshot, once Complete.",
                  {
                      {"uri", String("s3://bucket/key or pvc://claim/path.")},
                      {"revision", Int64("The etcd revision the snapshot holds.")},
                      {"size", Int64("Bytes stored (etcd's SHA-256 trailer included).")},
                      {"sha256", String("SHA-256 (hex) of the stored bytes.")},
                      {"takenAt", String("When the snapshot began (RFC 3339).")},
                      {"sizeBytes", Int64("size, under aenix's name.")},
                      {"checksum", String("sha256:<sha256>, aenix's form of the checksum.")},
                  })},
      });
  return Object(
      "A one-shot snapshot of an EtcdCluster into S3 or a PersistentVolumeClaim "
      "(aenix etcd-operator compatible).",
      {
          {"apiVersion", String("etcd.aenix.io/v1alpha1.")},
          {"kind", String("Always EtcdBackup.")},
          {"metadata", {{"type", "object"}}},
          {"spec", spec},
          {"status", status},
      });
}

Json EtcdBackupPrinterColumns() {
  return Json::array({
      {{"name", "Cluster"}, {"type", "string"}, {"jsonPath", ".spec.clusterRef.name"}},
      {{"name", "Phase"}, {"type", "string"}, {"jsonPath", ".status.phase"}},
      {{"name", "URI"}, {"type", "string"}, {"jsonPath", ".status.snapshot.uri"}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
}

}  // namespace quorum::api

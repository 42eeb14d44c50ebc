#include "api/etcdbackupschedule_schema.h"

#include "api/etcdbackup_schema.h"
#include "api/schema_nodes.h"

namespace quorum::api {
namespace {

using namespace internal::schema;  // NOLINT(build/namespaces): schema literals read better

Json Minimum(Json node, int min) {
  node["minimum"] = min;
  return node;
}

Json ScheduleSpec() {
  Json schedule = String(
      "Five-field cron (minute hour day-of-month month day-of-week) in UTC: *, numbers, "
      "ranges a-b, steps */n and a-b/n, lists; or @yearly, @annually, @monthly, @weekly, "
      "@daily, @midnight, @hourly. E.g. \"0 3 * * *\".");
  schedule["pattern"] =
      "^\\s*(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|\\S+(\\s+\\S+){4})\\s*$";
  Json keep_within = String(
      "(Quorum) Keep every snapshot younger than this duration (\"90m\", \"168h\"). With "
      "keepLast, a snapshot either rule keeps is kept.");
  keep_within["pattern"] = "^([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+$";
  Json spec = Object(
      "When to snapshot, where to, and how much to keep. Unlike an EtcdBackup, it may change.",
      {
          {"clusterRef", Object("The EtcdCluster to snapshot, in this namespace.",
                                {{"name", String("Name of the EtcdCluster.")}})},
          {"schedule", schedule},
          {"destination",
           BackupDestinationSchema("Where each snapshot goes: s3 (key is a prefix: the object "
                                   "is <key>/<backup>.db) or pvc (file <cluster>-<backup>.db).")},
          {"successfulJobsHistoryLimit",
           Minimum(Int32("Complete EtcdBackup objects to keep (default 3). Their snapshots are "
                         "governed by keepLast/keepWithin, not by this."),
                   0)},
          {"failedJobsHistoryLimit", Minimum(Int32("Failed EtcdBackup objects to keep "
                                                   "(default 1)."),
                                             0)},
          {"keepLast", Minimum(Int32("(Quorum) Keep the newest N snapshots in the destination; "
                                     "older ones are deleted. Unset: no count limit."),
                               1)},
          {"keepWithin", keep_within},
          {"activeBackupJobDeadline",
           Minimum(Int64("Accepted for aenix compatibility; Quorum's backup Job has its own "
                         "deadline."),
                   0)},
          {"finishedBackupJobsTTL",
           Minimum(Int32("Accepted for aenix compatibility; no effect."), 0)},
      });
  spec["required"] = Json::array({"clusterRef", "schedule", "destination"});
  return spec;
}

Json ScheduleStatus() {
  Json conditions = Typed("array",
                          "Ready (the schedule is valid and waiting) and Failed (the "
                          "newest finished backup failed).");
  conditions["items"] = Ref(std::string(kMeta) + "Condition", "A condition.");
  conditions["x-kubernetes-list-type"] = "map";
  conditions["x-kubernetes-list-map-keys"] = Json::array({"type"});
  Json snapshot = Object("A snapshot kept in the destination.",
                         {{"backup", String("The EtcdBackup that took it (may be deleted).")},
                          {"uri", String("s3://bucket/key or pvc://claim/path.")},
                          {"takenAt", String("RFC 3339.")},
                          {"size", Int64("Bytes stored.")},
                          {"revision", Int64("The etcd revision it holds.")}});
  Json snapshots = Typed("array", "(Quorum) The snapshots retention keeps, newest first.");
  snapshots["items"] = snapshot;
  return Object(
      "Written by Quorum.",
      {
          {"observedGeneration", Int64("The generation this status describes.")},
          {"conditions", conditions},
          {"lastScheduleTime", String("The cron time of the newest EtcdBackup created.")},
          {"lastSuccessfulBackupTime", String("When the newest Complete snapshot was taken.")},
          {"nextScheduleTime", String("(Quorum) The next cron time.")},
          {"snapshots", snapshots},
      });
}

}  // namespace

Json EtcdBackupScheduleSchemaSource() {
  return Object(
      "EtcdBackups of an EtcdCluster on a cron schedule, with history limits and snapshot "
      "retention (aenix etcd-operator compatible; keepLast/keepWithin are Quorum's).",
      {
          {"apiVersion", String("etcd.aenix.io/v1alpha1.")},
          {"kind", String("Always EtcdBackupSchedule.")},
          {"metadata", {{"type", "object"}}},
          {"spec", ScheduleSpec()},
          {"status", ScheduleStatus()},
      });
}

Json EtcdBackupSchedulePrinterColumns() {
  return Json::array({
      {{"name", "Cluster"}, {"type", "string"}, {"jsonPath", ".spec.clusterRef.name"}},
      {{"name", "Schedule"}, {"type", "string"}, {"jsonPath", ".spec.schedule"}},
      {{"name", "Last Backup"}, {"type", "date"}, {"jsonPath", ".status.lastSuccessfulBackupTime"}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
}

}  // namespace quorum::api

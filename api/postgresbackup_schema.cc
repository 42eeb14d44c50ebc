#include "api/postgresbackup_schema.h"

#include "api/schema_nodes.h"

namespace quorum::api {

using namespace internal::schema;  // NOLINT(build/namespaces): schema literals read better

Json PostgresBackupSchemaSource() {
  Json type = String(
      "pgBackRest's backup type: full (default), diff (changes since the last "
      "full) or incr (changes since the last backup of any type).");
  type["enum"] = Json::array({"full", "diff", "incr"});
  type["default"] = "full";
  Json repo = String(
      "The repository (repo1..repo4) of the cluster's "
      "spec.backups.pgbackrest.repos that receives the backup.");
  repo["enum"] = Json::array({"repo1", "repo2", "repo3", "repo4"});
  Json spec = Object(
      "Which cluster to back up, into which repository, and how. Immutable: one PostgresBackup "
      "is one backup.",
      {
          {"clusterRef", Object("The PostgresCluster to back up, in this namespace.",
                                {{"name", String("Name of the PostgresCluster.")}})},
          {"repoName", repo},
          {"type", type},
      });
  spec["required"] = Json::array({"clusterRef", "repoName"});
  spec["x-kubernetes-validations"] =
      Json::array({Rule("self == oldSelf", "spec is immutable; create a new PostgresBackup")});
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
                           "(the backup is in the repository) or Failed (see the Failed "
                           "condition).")},
          {"jobName", String("The Job that runs pgbackrest backup.")},
          {"conditions", conditions},
          {"backup",
           Object("What pgBackRest reports of the backup, once Complete (pgbackrest info).",
                  {
                      {"label", String("The backup's label, e.g. 20261204-101500F: what a "
                                       "restore names with --set.")},
                      {"type", String("full, diff or incr.")},
                      {"repo", String("The repository holding it.")},
                      {"startTime", String("When the backup started (RFC 3339).")},
                      {"stopTime", String("When it finished (RFC 3339): the earliest time a "
                                          "point-in-time recovery from it can reach.")},
                      {"lsnStart", String("The WAL position at its start.")},
                      {"lsnStop", String("The WAL position at its end.")},
                      {"walStart", String("The first WAL segment a restore of it needs.")},
                      {"walStop", String("The last WAL segment a consistent restore needs.")},
                      {"size", Int64("Bytes of the database the backup holds.")},
                      {"repoSize", Int64("Bytes it takes in the repository (compressed, and "
                                         "only the changes for diff and incr).")},
                      {"prior", String("The backup a diff or incr builds on.")},
                      {"repository",
                       Object("The repository right after the backup.",
                              {{"walMin", String("The lowest archived WAL segment it holds.")},
                               {"walMax", String("The highest archived WAL segment it holds.")},
                               {"oldestStopTime",
                                String("Its oldest backup's end (RFC 3339): the earliest "
                                       "time a point-in-time recovery reaches.")}})},
                  })},
      });
  return Object("One pgBackRest backup of a PostgresCluster into one of its repositories.",
                {
                    {"apiVersion", String("postgres.quorum.dev/v1alpha1.")},
                    {"kind", String("Always PostgresBackup.")},
                    {"metadata", {{"type", "object"}}},
                    {"spec", spec},
                    {"status", status},
                });
}

Json PostgresBackupPrinterColumns() {
  return Json::array({
      {{"name", "Cluster"}, {"type", "string"}, {"jsonPath", ".spec.clusterRef.name"}},
      {{"name", "Repo"}, {"type", "string"}, {"jsonPath", ".spec.repoName"}},
      {{"name", "Type"}, {"type", "string"}, {"jsonPath", ".spec.type"}},
      {{"name", "Phase"}, {"type", "string"}, {"jsonPath", ".status.phase"}},
      {{"name", "Label"}, {"type", "string"}, {"jsonPath", ".status.backup.label"}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
}

}  // namespace quorum::api

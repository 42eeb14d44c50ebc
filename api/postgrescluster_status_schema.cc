// PostgresClusterStatusSchema and PostgresClusterPrinterColumns (declared in
// postgrescluster_schema.h).
#include <nlohmann/json.hpp>
#include <string>

#include "api/postgrescluster_schema.h"
#include "api/schema_nodes.h"

namespace quorum::api {

using internal::schema::Int32;
using internal::schema::Int64;
using internal::schema::Json;
using internal::schema::kMeta;
using internal::schema::Object;
using internal::schema::String;

namespace {

// status.backups.pgbackrest.repos[]: the newest Complete backup of each type.
Json BackupsStatus() {
  Json ref = Object("The newest Complete PostgresBackup of this type.",
                    {{"backup", String("The PostgresBackup's name.")},
                     {"label", String("pgBackRest's label of the backup.")},
                     {"stopTime", String("When it ended (RFC 3339): a point-in-time recovery "
                                         "from it reaches any time after this.")}});
  Json window = Object(
      "Times a point-in-time recovery (spec.dataSource or restore target.time) surely "
      "reaches, as of the newest backup: from the oldest backup's end to the newest's. Later "
      "times are reachable too as far as WAL is archived (walArchivedUpTo).",
      {{"start", String("The oldest backup's end (RFC 3339).")},
       {"end", String("The newest backup's end (RFC 3339).")}});
  Json repo = Object(
      "One repository.",
      {{"name", String("repo1..repo4.")},
       {"full", ref},
       {"differential", ref},
       {"incremental", ref},
       {"walArchivedUpTo", String("The highest WAL segment archived in the repository when the "
                                  "newest backup ended.")},
       {"recoverableWindow", window}});
  Json repos = {{"type", "array"},
                {"description", "Per repository of spec.backups.pgbackrest.repos."},
                {"items", repo},
                {"x-kubernetes-list-type", "atomic"}};
  Json restore = Object(
      "The last in-place restore (spec.backups.pgbackrest.restore) triggered.",
      {{"id", String("The value of the annotation postgres.quorum.dev/pgbackrest-restore it "
                     "answers.")},
       {"phase", String("Checking (nothing stops until the primary's newest WAL is in the "
                        "repositories), Stopping (the members stop; their volumes and Patroni's "
                        "DCS state go), Restoring (the first member restores and recovers), "
                        "Succeeded, or Failed (refused before anything stopped: no backup known "
                        "in the repository, a time target before its oldest backup, or WAL "
                        "archiving that fails or lags).")},
       {"startedAt", String("When it was triggered (RFC 3339).")},
       {"finishedAt", String("When a primary ran again (RFC 3339).")},
       {"message", String("What it is doing or waiting for.")}});
  return Object(
      "Backups (PostgresBackup objects, on demand or scheduled), as their Jobs reported, and "
      "the last in-place restore.",
      {{"pgbackrest", Object("pgBackRest.", {{"repos", repos}, {"restore", restore}})}});
}

// status.majorUpgrade.
Json MajorUpgradeStatus() {
  return Object(
      "The last major upgrade (a raised spec.postgresVersion), docs/upgrades.md.",
      {{"from", Int32("The data's major when it started.")},
       {"to", Int32("The major it upgrades to.")},
       {"phase",
        String("Preparing (the primary moves to an ordinal-0 pod), StoppingReplicas, Stopping "
               "(the primary shuts down cleanly), Upgrading (a Job runs pg_upgrade on that "
               "pod's volume), Starting (that pod starts on the new major; the others clone "
               "it afterwards), Succeeded, or Failed (pg_upgrade refused or failed: the "
               "members run the old major again; the message says why).")},
       {"member", String("The pod whose data pg_upgrade converts.")},
       {"fromImage", String("The image the members ran before the upgrade.")},
       {"startedAt", String("When it started (RFC 3339).")},
       {"finishedAt", String("When it succeeded or failed (RFC 3339).")},
       {"message", String("What it is doing or waiting for, or why it failed.")}});
}

Json DcsObjectsStatus() {
  Json s = String(
      "With the kubernetes DCS, the objects Patroni keeps its leader lock and configuration in: "
      "ConfigMaps (<cluster>-leader, -config, -failover, -sync) for clusters created by this "
      "operator version or later, Endpoints (<cluster>, <cluster>-config, ...) for older ones. "
      "Recorded at the first reconcile; docs/operations.md describes the move from Endpoints "
      "to ConfigMaps.");
  s["enum"] = {"Endpoints", "ConfigMaps"};
  return s;
}

}  // namespace

Json PostgresClusterStatusSchema() {
  Json conditions = {
      {"type", "array"},
      {"description",
       "Ready (every instance runs and a primary leads), Progressing (objects are being created "
       "or rolled), DCSReady (the DCS and its Secrets are usable), and others."},
      {"items", {{"$ref", std::string(kMeta) + "Condition"}}},
      {"x-kubernetes-list-type", "map"},
      {"x-kubernetes-list-map-keys", Json::array({"type"})},
  };
  Json instance = Object("One instance set as Quorum last saw it.",
                         {
                             {"name", String("Name of the instance set.")},
                             {"replicas", Int32("Pods the StatefulSet has.")},
                             {"readyReplicas", Int32("Pods that are ready.")},
                             {"updatedReplicas", Int32("Pods that run the current template.")},
                         });
  Json switchover =
      Object("The last switchover Quorum handled.",
             {
                 {"trigger", String("Value of the trigger annotation it handled.")},
                 {"type", String("Switchover or Failover.")},
                 {"from", String("The primary before.")},
                 {"to", String("The primary after (or the requested target, if it failed).")},
                 {"result", String("Succeeded or Failed; Waiting while a Switchover's candidate "
                                   "does not stream from the primary yet (not handled yet).")},
                 {"message", String("What Patroni answered, or why Quorum did not ask it.")},
                 {"time",
                  [] {
                    Json t = String("When it finished (Waiting: since when it waits).");
                    t["format"] = "date-time";
                    return t;
                  }()},
             });
  Json user =
      Object("Where to find a user's credentials.",
             {
                 {"name", String("The user (spec.users[].name).")},
                 {"secretName", String("Secret in this namespace with user, password, host, port, "
                                       "dbname and uri.")},
             });
  return Object(
      "What Quorum observed. Written by Quorum only.",
      {
          {"conditions", conditions},
          {"observedGeneration", Int64("The metadata.generation this status describes.")},
          {"instances",
           {{"type", "array"},
            {"description", "Every instance set."},
            {"items", instance},
            {"x-kubernetes-list-type", "atomic"}}},
          {"readyInstances",
           String("Ready pods over desired pods across all instance sets, e.g. \"2/3\".")},
          {"primary", String("Name of the pod that is the primary (the Patroni leader).")},
          {"primaryService", String("Service that routes to the primary (read-write).")},
          {"replicaService", String("Service that routes to the replicas (read-only).")},
          {"users",
           {{"type", "array"},
            {"description", "The Secrets holding each user's credentials."},
            {"items", user},
            {"x-kubernetes-list-type", "atomic"}}},
          {"backups", BackupsStatus()},
          {"postgresVersion",
           Int32("The PostgreSQL major of the members' data; below spec.postgresVersion while "
                 "a major upgrade has not succeeded.")},
          {"majorUpgrade", MajorUpgradeStatus()},
          {"patroni",
           Object("What Patroni reports.",
                  {
                      {"systemIdentifier",
                       String("PostgreSQL's database system identifier: the same for every "
                              "member of one cluster.")},
                      {"dcsObjects", DcsObjectsStatus()},
                      {"switchover", switchover},
                  })},
      });
}

Json PostgresClusterPrinterColumns() {
  return Json::array({
      {{"name", "Version"},
       {"type", "integer"},
       {"jsonPath", ".spec.postgresVersion"},
       {"description", "PostgreSQL major version"}},
      {{"name", "Instances"},
       {"type", "string"},
       {"jsonPath", ".status.readyInstances"},
       {"description", "Ready over desired instances"}},
      {{"name", "Primary"},
       {"type", "string"},
       {"jsonPath", ".status.primary"},
       {"description", "Pod of the primary"}},
      {{"name", "DCS"},
       {"type", "string"},
       {"jsonPath", ".spec.patroni.dcs.type"},
       {"description", "Where Patroni keeps its leader lock"}},
      {{"name", "Ready"},
       {"type", "string"},
       {"jsonPath", ".status.conditions[?(@.type==\"Ready\")].status"},
       {"description", "Status of the Ready condition"}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
}

}  // namespace quorum::api

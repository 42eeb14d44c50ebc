// A PostgresCluster's life against the real control plane: a switchover to
// a non-member refused at once, a cluster created again waiting for its
// predecessor's Secrets and refusing the claims it left, and a deleted
// cluster forgotten by the controller.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "test/integration/controllers/postgrescluster/fixture.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

TEST_F(PostgresClusterControllerTest, ASwitchoverToANonMemberFailsAtOnceNamingTheMembers) {
  ASSERT_TRUE(client()
                  .Create(kPostgresClusters, ns(),
                          Cluster("typo", {{"switchover",
                                            {{"enabled", true}, {"targetInstance", "nobody-0"}}}}))
                  .ok());
  ASSERT_TRUE(
      client()
          .Patch(kPostgresClusters, ns(), "typo", kube::PatchType::kMerge,
                 {{"metadata",
                   {{"annotations", {{std::string(api::kSwitchoverTriggerAnnotation), "t1"}}}}}})
          .ok());
  Json record;
  ASSERT_TRUE(Eventually(
      [&] {
        auto got = client().Get(kPostgresClusters, ns(), "typo");
        if (!got.ok()) return false;
        record = got->value("status", Json::object())
                     .value("patroni", Json::object())
                     .value("switchover", Json::object());
        return record.value("trigger", "") == "t1";
      },
      absl::Seconds(30)))
      << record.dump();
  EXPECT_EQ(record.value("result", ""), "Failed") << record.dump();
  EXPECT_TRUE(absl::StrContains(record.value("message", ""),
                                "spec.patroni.switchover.targetInstance: nobody-0 is not a member "
                                "of this cluster (its members: typo-main-0, typo-main-1)"))
      << record.dump();
}

TEST_F(PostgresClusterControllerTest, ACreatedAgainClusterWaitsForItsPredecessorsSecrets) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("again", Json::object())).ok());
  const std::string old_uid = Uid("again");
  ASSERT_TRUE(Eventually([&] { return client().Get(kSecrets, ns(), "again-superuser").ok(); },
                         absl::Seconds(30)));
  const std::string old_password =
      (*client().Get(kSecrets, ns(), "again-superuser"))["data"].value("password", "");
  ASSERT_TRUE(client()
                  .Patch(kSecrets, ns(), "again-superuser", kube::PatchType::kMerge,
                         {{"metadata", {{"finalizers", Json::array({"quorum.dev/test-hold"})}}}})
                  .ok());
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "again").ok());
  ASSERT_TRUE(Eventually([&] { return Uid("again").empty(); }, absl::Seconds(60)));

  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("again", Json::object())).ok());
  const std::string new_uid = Uid("again");
  auto waiting = [&] {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (e.value("reason", "") == "WaitingForEarlierObjects" &&
          e["involvedObject"].value("uid", "") == new_uid) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(Eventually(waiting, absl::Seconds(30)));
  EXPECT_TRUE(Owned(new_uid).empty()) << testing::PrintToString(Owned(new_uid));

  ASSERT_TRUE(client()
                  .Patch(kSecrets, ns(), "again-superuser", kube::PatchType::kMerge,
                         {{"metadata", {{"finalizers", nullptr}}}})
                  .ok());
  std::string password;
  ASSERT_TRUE(Eventually(
      [&] {
        auto secret = client().Get(kSecrets, ns(), "again-superuser");
        if (!secret.ok()) return false;
        const Json& refs = (*secret)["metadata"].value("ownerReferences", Json::array());
        if (refs.empty() || refs[0].value("uid", "") != new_uid) return false;
        password = (*secret)["data"].value("password", "");
        return true;
      },
      absl::Seconds(60)))
      << "no superuser Secret of the new cluster";
  EXPECT_NE(password, old_password);
}

TEST_F(PostgresClusterControllerTest, AClusterDoesNotStartOnClaimsAnEarlierOneLeft) {
  const Json pvc = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolumeClaim"},
      {"metadata",
       {{"name", "pgdata-left-main-1"},
        {"labels",
         {{"postgres.quorum.dev/cluster", "left"}, {"postgres.quorum.dev/instance-set", "main"}}}}},
      {"spec",
       {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  absl::StatusOr<Json> made = client().Create(kube::kPvcs, ns(), pvc);
  ASSERT_TRUE(made.ok()) << made.status();
  // The cluster must be made in a later second than the claim (timestamps
  // have second precision): wait for this machine's clock to pass it.
  const std::string claim_made = (*made)["metadata"].value("creationTimestamp", "");
  ASSERT_TRUE(Eventually(
      [&] {
        return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone()) >
               claim_made;
      },
      absl::Seconds(5)));
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("left", Json::object())).ok());
  Json ready;
  ASSERT_TRUE(Eventually(
      [&] {
        ready = Condition("left", "Ready");
        return !ready.is_null() && ready.value("reason", "") == "LeftoverClaims";
      },
      absl::Seconds(30)))
      << ready.dump();
  EXPECT_EQ(ready.value("status", ""), "False");
  EXPECT_TRUE(
      absl::StrContains(ready.value("message", ""), "kubectl delete pvc pgdata-left-main-1"))
      << ready.dump();
  EXPECT_TRUE(Eventually([&] { return HasWarning("LeftoverClaims", "pgdata-left-main-1"); },
                         absl::Seconds(30)));
  // Said once, not at each recheck (1 s, 2 s, 4 s, ... apart): absence is
  // observable only by waiting.
  absl::SleepFor(absl::Seconds(8));
  int said = 0;
  std::string events_seen;
  if (auto events = client().List({"", "v1", "events"}, ns()); events.ok()) {
    for (const Json& e : (*events)["items"]) {
      if (e.value("reason", "") != "LeftoverClaims") continue;
      said += e.value("count", 1);
      events_seen += e.dump() + "\n";
    }
  }
  EXPECT_EQ(said, 1) << "the LeftoverClaims event repeats:\n" << events_seen;
  EXPECT_TRUE(absl::IsNotFound(client().Get(kStatefulSets, ns(), "left-main").status()))
      << "a StatefulSet was made on the earlier cluster's claim";
  EXPECT_TRUE(client().Get(kServices, ns(), "left").ok()) << "other objects are applied";

  ASSERT_TRUE(client().Delete(kube::kPvcs, ns(), "pgdata-left-main-1").ok());
  EXPECT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "left-main").ok(); },
                         absl::Seconds(90)))
      << "the StatefulSet was not made once the claim was deleted";
  EXPECT_TRUE(
      Eventually([&] { return Condition("left", "Ready").value("reason", "") != "LeftoverClaims"; },
                 absl::Seconds(30)));
}

TEST_F(PostgresClusterControllerTest, ForgetsADeletedClusterEntirely) {
  // Waiting for a missing Secret keeps a backoff entry for the cluster.
  Json patroni = {
      {"dcs",
       {{"type", "etcd"},
        {"etcd", {{"endpoints", {"https://etcd.example:2379"}}, {"authSecret", "missing"}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("gone", patroni)).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("gone", "DCSReady");
        return c.is_object() && c["reason"] == "SecretNotFound";
      },
      absl::Seconds(30)));
  // The status is written before the reconcile returns its wait.
  EXPECT_TRUE(Eventually([&] { return reconciler_->remembered() > 0; }, absl::Seconds(10)))
      << "waiting for the Secret";
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "gone").ok());
  // Its DCS never resolved, so the DCS-keys finalizer cannot clean up and keeps
  // retrying; a user forces the delete as the DCSCleanupFailed event says.
  ASSERT_TRUE(Eventually(
      [&] {
        return client()
            .Patch(kPostgresClusters, ns(), "gone", kube::PatchType::kMerge,
                   {{"metadata", {{"finalizers", nullptr}}}})
            .ok();
      },
      absl::Seconds(30)));
  EXPECT_TRUE(Eventually([&] { return reconciler_->remembered() == 0; }, absl::Seconds(30)))
      << "memory per cluster must not outlive the cluster";
}

}  // namespace
}  // namespace quorum::postgrescluster

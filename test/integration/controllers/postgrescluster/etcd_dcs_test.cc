// The PostgresCluster controller on an etcd DCS against the real control
// plane and a real etcd: Secret problems as Warning events and a false
// DCSReady condition that clear when the Secret is fixed (without touching
// the PostgresCluster), clusterRef waiting for its EtcdCluster, Patroni's
// keys removed on deletion, an unreachable DCS given up at its deadline.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/finalizer.h"
#include "src/etcd/client.h"
#include "test/integration/controllers/postgrescluster/fixture.h"
#include "test/integration/etcd/etcd_harness.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

TEST_F(PostgresClusterControllerTest, EtcdDcsSecretProblemsAreReportedAndClearWhenFixed) {
  Json patroni = {{"dcs",
                   {{"type", "etcd"},
                    {"etcd",
                     {{"endpoints", {"https://etcd.example:2379"}},
                      {"tlsSecret", "etcd-tls"},
                      {"authSecret", "etcd-auth"}}}}}};
  ASSERT_TRUE(
      client()
          .Create(kSecrets, ns(), Secret("etcd-auth", {{"username", "u"}, {"password", "p"}}))
          .ok());
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("pg", patroni)).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("pg", "DCSReady");
        return c.is_object() && c["reason"] == "SecretNotFound";
      },
      absl::Seconds(30)));
  EXPECT_EQ(Condition("pg", "DCSReady")["status"], "False");
  EXPECT_TRUE(absl::StrContains(Condition("pg", "DCSReady")["message"].get<std::string>(),
                                "spec.patroni.dcs.etcd.tlsSecret"));
  // https:// with credentials the user manages (issue 34).
  EXPECT_EQ(Condition("pg", "DCSSecure")["status"], "True");
  EXPECT_EQ(Condition("pg", "DCSSecure")["reason"], "UserManagedEtcd");
  ASSERT_TRUE(
      Eventually([&] { return HasWarning("SecretNotFound", "etcd-tls"); }, absl::Seconds(30)));
  EXPECT_TRUE(absl::IsNotFound(client().Get(kStatefulSets, ns(), "pg-main").status()))
      << "no members without a usable DCS";
  auto before = client().Get(kPostgresClusters, ns(), "pg");
  const int64_t generation = (*before)["metadata"].value("generation", 0);

  // Incomplete, then complete: each change of the Secret alone moves the cluster on.
  ASSERT_TRUE(client()
                  .Create(kSecrets, ns(), Secret("etcd-tls", {{"ca.crt", "CA"}, {"tls.crt", "C"}}))
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("pg", "DCSReady");
        return c.is_object() && c["reason"] == "SecretIncomplete";
      },
      absl::Seconds(30)));
  EXPECT_TRUE(
      absl::StrContains(Condition("pg", "DCSReady")["message"].get<std::string>(), "tls.key"));
  ASSERT_TRUE(
      Eventually([&] { return HasWarning("SecretIncomplete", "tls.key"); }, absl::Seconds(30)));
  ASSERT_TRUE(client()
                  .Patch(kSecrets, ns(), "etcd-tls", kube::PatchType::kMerge,
                         {{"data", {{"tls.key", absl::Base64Escape("K")}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Condition("pg", "DCSReady")["status"] == "True"; },
                         absl::Seconds(30)));
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "pg-main").ok(); },
                         absl::Seconds(30)));
  EXPECT_EQ((*client().Get(kPostgresClusters, ns(), "pg"))["metadata"]["generation"], generation)
      << "the PostgresCluster was not touched";

  // Issue 15.4: with etcd the pods get no API rights unless the spec asks.
  const std::set<std::string> want = {
      "StatefulSet/pg-main",   "Service/pg",           "Service/pg-replicas",
      "Service/pg-pods",       "ConfigMap/pg-patroni", "Secret/pg-superuser",
      "Secret/pg-replication", "Secret/pg-user-app",   "PodDisruptionBudget/pg",
      "Secret/pg-ca",          "Secret/pg-tls",        "Secret/pg-patroni-api",
      "NetworkPolicy/pg",      "Secret/pg-monitoring"};
  EXPECT_EQ(Owned(Uid("pg")), want) << "no leader-lease or config Service with etcd, no RBAC";
  auto primary = client().Get(kServices, ns(), "pg");
  EXPECT_EQ((*primary)["spec"]["selector"]["role"], "primary");
  auto sts = client().Get(kStatefulSets, ns(), "pg-main");
  EXPECT_TRUE(absl::StrContains(sts->dump(), "\"secretName\":\"etcd-tls\""));
  EXPECT_EQ((*sts)["spec"]["template"]["spec"]["automountServiceAccountToken"], false);
  EXPECT_EQ((*sts)["spec"]["template"]["spec"]["serviceAccountName"], "default");
  auto config = client().Get(kConfigMaps, ns(), "pg-patroni");
  EXPECT_FALSE(
      absl::StrContains((*config)["data"]["patroni.yaml"].get<std::string>(), "on_role_change"))
      << "no role callback: it could not label the pod";

  // Asked for, the pods get a Role for the callback (never endpoints).
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "pg", kube::PatchType::kMerge,
                         {{"spec", {{"patroni", {{"podAPIAccess", true}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "pg-main");
        return client().Get(kRoles, ns(), "pg-instance").ok() && sts.ok() &&
               (*sts)["spec"]["template"]["spec"].value("serviceAccountName", "") == "pg-instance";
      },
      absl::Seconds(30)));
  auto role = client().Get(kRoles, ns(), "pg-instance");
  EXPECT_FALSE(absl::StrContains(role->dump(), "endpoints")) << role->dump();

  // Turning the pods' API access off removes their rights entirely.
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "pg", kube::PatchType::kMerge,
                         {{"spec", {{"patroni", {{"podAPIAccess", false}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        return absl::IsNotFound(client().Get(kRoles, ns(), "pg-instance").status()) &&
               absl::IsNotFound(client().Get(kRoleBindings, ns(), "pg-instance").status()) &&
               absl::IsNotFound(client().Get(kServiceAccounts, ns(), "pg-instance").status());
      },
      absl::Seconds(30)));
  // The pods no longer name the account that is gone: the API server keeps
  // the deprecated serviceAccount field in step and would copy a dropped
  // name back, and the StatefulSet could not create pods (seen on a real
  // node: a rolling update wedged).
  ASSERT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "pg-main");
        if (!sts.ok()) return false;
        const Json& spec = (*sts)["spec"]["template"]["spec"];
        return spec.value("serviceAccountName", "") == "default" &&
               spec.value("serviceAccount", "default") == "default" &&
               spec.value("automountServiceAccountToken", true) == false;
      },
      absl::Seconds(30)))
      << client().Get(kStatefulSets, ns(), "pg-main")->dump();
}

TEST_F(PostgresClusterControllerTest, ClusterRefWaitsForTheEtcdCluster) {
  Json patroni = {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("ref", patroni)).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("ref", "DCSReady");
        return c.is_object() && c["reason"] == "EtcdClusterNotFound";
      },
      absl::Seconds(30)));
  // An EtcdCluster that says it is Ready (no etcd controller runs here).
  ASSERT_TRUE(
      client()
          .Create(kSecrets, ns(),
                  Secret("dcs-client", {{"ca.crt", "A"}, {"tls.crt", "B"}, {"tls.key", "C"}}))
          .ok());
  // Without etcd auth (with it, the pods get their own etcd user:
  // etcd_user_test.cc).
  Json etcd = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
               {"kind", "EtcdCluster"},
               {"metadata", {{"name", "dcs"}}},
               {"spec", {{"replicas", 3}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("ref", "DCSReady");
        return c.is_object() && c["reason"] == "EtcdClusterNotReady";
      },
      absl::Seconds(30)));
  Json status = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                 {"kind", "EtcdCluster"},
                 {"metadata", {{"name", "dcs"}, {"namespace", ns()}}},
                 {"status",
                  {{"conditions",
                    {{{"type", "Ready"},
                      {"status", "True"},
                      {"reason", "StatefulSetReady"},
                      {"message", "test"},
                      {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}},
                   {"clientEndpoint", "https://dcs." + ns() + ".svc:2379"},
                   {"clientSecretName", "dcs-client"}}}};
  ASSERT_TRUE(
      client()
          .ApplyStatus(kEtcdClusters, ns(), status, {.field_manager = "test", .force = true})
          .ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "ref-main").ok(); },
                         absl::Seconds(30)));
  auto sts = client().Get(kStatefulSets, ns(), "ref-main");
  const std::string dump = sts->dump();
  EXPECT_TRUE(absl::StrContains(dump, "\"secretName\":\"dcs-client\"")) << dump;
  auto cm = client().Get(kConfigMaps, ns(), "ref-patroni");
  EXPECT_TRUE(absl::StrContains((*cm)["data"]["patroni.yaml"].get<std::string>(),
                                "dcs." + ns() + ".svc:2379"));
  // Neither client TLS nor auth on that EtcdCluster: DCSSecure says so,
  // naming the field (issue 34).
  const Json secure = Condition("ref", "DCSSecure");
  EXPECT_EQ(secure["status"], "False") << secure.dump();
  EXPECT_EQ(secure["reason"], "EtcdWithoutTlsAndAuth") << secure.dump();
  EXPECT_TRUE(absl::StartsWith(secure.value("message", ""), "spec.patroni.dcs.etcd.clusterRef"))
      << secure.dump();
}

TEST_F(PostgresClusterControllerTest, DeletingRemovesThePatroniKeysFromEtcd) {
  etcd::testing::EtcdHarness harness({.max_members = 1, .name_prefix = "dcs"});
  ASSERT_TRUE(harness.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> etcd = etcd::Client::Create(harness.Config());
  ASSERT_TRUE(etcd.ok());
  ASSERT_TRUE(harness.StartNewCluster(**etcd, 1).ok()) << harness.LogTail(0);
  Json patroni = {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {harness.ClientUrl(0)}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("fin", patroni)).ok());
  auto finalizers = [&](const std::string& name) {
    auto got = client().Get(kPostgresClusters, ns(), name);
    return got.ok() ? (*got)["metadata"].value("finalizers", Json::array()) : Json::array();
  };
  ASSERT_TRUE(Eventually([&] { return finalizers("fin") == Json::array({kDcsFinalizer}); },
                         absl::Seconds(30)))
      << finalizers("fin").dump();
  const std::string prefix = "/quorum/" + ns() + "/";
  for (const char* k : {"fin/initialize", "fin/config", "fin/leader", "fin/members/fin-main-0",
                        "fin2/initialize"}) {
    ASSERT_TRUE((*etcd)->Put(prefix + k, "x").ok()) << k;
  }
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "fin").ok());
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgresClusters, ns(), "fin").status()); },
      absl::Seconds(30)));
  for (const char* k : {"fin/initialize", "fin/config", "fin/leader", "fin/members/fin-main-0"}) {
    absl::StatusOr<etcd::GetResponse> got = (*etcd)->Get(prefix + k);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->value, std::nullopt) << k << " is left: a new \"fin\" would not bootstrap";
  }
  absl::StatusOr<etcd::GetResponse> other = (*etcd)->Get(prefix + "fin2/initialize");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->value, "x") << "another cluster's keys stay";

  // etcd unreachable: the delete waits, and says why and how to force it.
  Json lost = {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {"http://127.0.0.1:1"}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("lost", lost)).ok());
  ASSERT_TRUE(Eventually([&] { return finalizers("lost").size() == 1; }, absl::Seconds(30)));
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "lost").ok());
  EXPECT_TRUE(Eventually([&] { return HasWarning("DCSCleanupFailed", "kubectl patch"); },
                         absl::Seconds(30)));
  EXPECT_TRUE(client().Get(kPostgresClusters, ns(), "lost").ok()) << "kept while it retries";
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "lost", kube::PatchType::kJson,
                         Json::array({{{"op", "remove"}, {"path", "/metadata/finalizers"}}}))
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgresClusters, ns(), "lost").status()); },
      absl::Seconds(30)));
}

TEST_F(PostgresClusterControllerTest, AnUnreachableDcsIsGivenUpAtTheDeadlineOnTheClock) {
  Json lost = {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {"http://127.0.0.1:1"}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("gone", lost)).ok());
  auto finalizers = [&] {
    auto got = client().Get(kPostgresClusters, ns(), "gone");
    return got.ok() ? (*got)["metadata"].value("finalizers", Json::array()) : Json::array();
  };
  ASSERT_TRUE(Eventually([&] { return finalizers().size() == 1; }, absl::Seconds(30)));
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "gone").ok());
  ASSERT_TRUE(
      Eventually([&] { return HasWarning("DCSCleanupFailed", "gone"); }, absl::Seconds(30)));
  EXPECT_TRUE(client().Get(kPostgresClusters, ns(), "gone").ok()) << "kept while it retries";
  EXPECT_FALSE(HasWarning("DCSCleanupAbandoned", "gone"));

  // To the deadline, counted from the API server's deletionTimestamp.
  absl::StatusOr<Json> deleting = client().Get(kPostgresClusters, ns(), "gone");
  ASSERT_TRUE(deleting.ok());
  absl::Time deleted;
  std::string err;
  ASSERT_TRUE(absl::ParseTime(
      absl::RFC3339_full, (*deleting)["metadata"].value("deletionTimestamp", ""), &deleted, &err))
      << err;
  clock_.Advance(deleted + kDcsCleanupDeadline - clock_.Now());
  // Woken at once rather than at the end of the retry's backoff.
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "gone", kube::PatchType::kMerge,
                         {{"metadata", {{"annotations", {{"example.com/touched", "deadline"}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgresClusters, ns(), "gone").status()); },
      absl::Seconds(30)));
  EXPECT_TRUE(HasWarning("DCSCleanupAbandoned", "etcdctl del --prefix"));
}

}  // namespace
}  // namespace quorum::postgrescluster

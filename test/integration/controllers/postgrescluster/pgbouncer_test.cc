// spec.proxy.pgBouncer against the real control plane (no kubelet: the
// pooler's pods stay Pending, no PostgreSQL answers). Checked here: adding
// the pooler to a running cluster makes its Deployment, Service, ConfigMap,
// NetworkPolicy and Secrets, the members' policy admits it and the
// connection Secrets gain pgbouncer-* keys; a poolMode or config change
// rewrites pgbouncer.ini and rolls the pods (a new template digest), a
// replicas change does not; a settled cluster with a pooler reconciles with
// zero writes; removing the pooler deletes its objects and keys.
#include "src/controllers/postgrescluster/pgbouncer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "src/controllers/common/secret_data.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "test/integration/controllers/postgrescluster/fixture.h"
#include "test/integration/testenv.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

Json Cluster(const std::string& name) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"postgresVersion", 17},
            {"instances",
             {{{"name", "main"},
               {"replicas", 1},
               {"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
            {"users", {{{"name", "app"}, {"databases", {"app"}}}}}}}};
}

class PgBouncerControllerTest : public PostgresClusterControllerTest {
 protected:
  void PatchSpec(const std::string& name, Json spec) {
    ASSERT_TRUE(client()
                    .Patch(kPostgresClusters, ns(), name, kube::PatchType::kMerge,
                           {{"spec", std::move(spec)}})
                    .ok());
  }
  Json Get(const kube::GroupVersionResource& gvr, const std::string& name) {
    absl::StatusOr<Json> got = client().Get(gvr, ns(), name);
    return got.ok() ? *got : Json();
  }
  std::string SecretKey(const std::string& name, const char* key) {
    return controllers::SecretValue(Get(kSecrets, name), key);
  }
  Json Digest(const std::string& name) {
    const Json d = Get(kDeployments, name);
    if (d.is_null()) return Json();
    return d["spec"]["template"]["metadata"]["annotations"][kPgBouncerConfigAnnotation];
  }
};

TEST_F(PgBouncerControllerTest, AddedChangedAndRemovedOnARunningCluster) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("pool")).ok());
  ASSERT_TRUE(
      Eventually([&] { return !SecretKey("pool-user-app", "uri").empty(); }, absl::Seconds(30)));
  EXPECT_TRUE(Get(kDeployments, "pool-pgbouncer").is_null());

  // Added to the running cluster.
  PatchSpec("pool", {{"proxy", {{"pgBouncer", Json::object()}}}});
  ASSERT_TRUE(Eventually([&] { return !Get(kDeployments, "pool-pgbouncer").is_null(); },
                         absl::Seconds(30)));
  const Json deployment = Get(kDeployments, "pool-pgbouncer");
  EXPECT_EQ(deployment["spec"]["replicas"], 2);
  for (const auto& gvr : {kServices, kConfigMaps, kNetworkPolicies}) {
    EXPECT_FALSE(Get(gvr, "pool-pgbouncer").is_null()) << gvr.resource;
  }
  EXPECT_FALSE(SecretKey("pool-pgbouncer-auth", "userlist.txt").empty());
  EXPECT_FALSE(SecretKey("pool-pgbouncer-tls", "tls.crt").empty());
  EXPECT_EQ(SecretKey("pool-pgbouncer-tls", "ca.crt"), SecretKey("pool-ca", "ca.crt"));
  const std::string ini = Get(kConfigMaps, "pool-pgbouncer")["data"]["pgbouncer.ini"];
  EXPECT_TRUE(absl::StrContains(ini, "pool_mode = transaction")) << ini;
  ASSERT_TRUE(Eventually([&] { return !SecretKey("pool-user-app", "pgbouncer-uri").empty(); },
                         absl::Seconds(30)));
  EXPECT_EQ(SecretKey("pool-user-app", "pgbouncer-host"), "pool-pgbouncer." + ns() + ".svc");
  EXPECT_TRUE(absl::StrContains(SecretKey("pool-user-app", "pgbouncer-uri"),
                                "@pool-pgbouncer." + ns() + ".svc:5432/app?sslmode=verify-full"));
  EXPECT_TRUE(absl::StrContains(Get(kNetworkPolicies, "pool")["spec"].dump(),
                                "postgres.quorum.dev/pgbouncer"));
  ASSERT_TRUE(Eventually(
      [&] {
        const Json s = Get(kPostgresClusters, "pool").value("status", Json::object());
        return s.contains("proxy") && s["proxy"]["pgBouncer"]["service"] == "pool-pgbouncer";
      },
      absl::Seconds(30)));

  // A settled cluster with a pooler: a no-op reconcile writes nothing.
  ASSERT_TRUE(testenv::SettlesToZeroWrites(client(), manager(), controller(), kPostgresClusters,
                                           ns(), "pool"));
  const std::optional<double> writes =
      testenv::WritesOfATouch(client(), manager(), controller(), kPostgresClusters, ns(), "pool");
  ASSERT_TRUE(writes.has_value());
  EXPECT_EQ(*writes, 0);

  // poolMode and config roll the pods; replicas does not.
  const Json first = Digest("pool-pgbouncer");
  PatchSpec("pool", {{"proxy", {{"pgBouncer", {{"replicas", 3}}}}}});
  ASSERT_TRUE(
      Eventually([&] { return Get(kDeployments, "pool-pgbouncer")["spec"]["replicas"] == 3; },
                 absl::Seconds(30)));
  EXPECT_EQ(Digest("pool-pgbouncer"), first);
  PatchSpec(
      "pool",
      {{"proxy",
        {{"pgBouncer", {{"poolMode", "session"}, {"config", {{"max_client_conn", "321"}}}}}}}});
  ASSERT_TRUE(Eventually([&] { return Digest("pool-pgbouncer") != first; }, absl::Seconds(30)));
  const std::string changed = Get(kConfigMaps, "pool-pgbouncer")["data"]["pgbouncer.ini"];
  EXPECT_TRUE(absl::StrContains(changed, "pool_mode = session")) << changed;
  EXPECT_TRUE(absl::StrContains(changed, "max_client_conn = 321")) << changed;

  // Removed: its objects and the Secrets' keys go; its own Secrets stay.
  PatchSpec("pool", {{"proxy", nullptr}});
  ASSERT_TRUE(
      Eventually([&] { return Get(kDeployments, "pool-pgbouncer").is_null(); }, absl::Seconds(30)));
  ASSERT_TRUE(Eventually(
      [&] {
        return Get(kServices, "pool-pgbouncer").is_null() &&
               Get(kConfigMaps, "pool-pgbouncer").is_null() &&
               Get(kNetworkPolicies, "pool-pgbouncer").is_null();
      },
      absl::Seconds(30)));
  ASSERT_TRUE(Eventually([&] { return SecretKey("pool-user-app", "pgbouncer-uri").empty(); },
                         absl::Seconds(30)));
  EXPECT_FALSE(SecretKey("pool-user-app", "uri").empty());
  EXPECT_TRUE(Eventually(
      [&] { return !absl::StrContains(Get(kNetworkPolicies, "pool")["spec"].dump(), "pgbouncer"); },
      absl::Seconds(30)))
      << Get(kNetworkPolicies, "pool")["spec"].dump();
  EXPECT_TRUE(Eventually(
      [&] {
        return !Get(kPostgresClusters, "pool").value("status", Json::object()).contains("proxy");
      },
      absl::Seconds(30)));
}

}  // namespace
}  // namespace quorum::postgrescluster

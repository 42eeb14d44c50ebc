// Table tests for who may call the members (src/controllers/postgrescluster/access.h):
// the generated NetworkPolicy's content (this test bed's CNI enforces no
// NetworkPolicy, so its content is what is tested) and the REST API Secret.
#include "src/controllers/postgrescluster/access.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "api/postgrescluster_types.h"

namespace quorum::postgrescluster {
namespace {

PostgresCluster Cluster(Json extra_spec) {
  Json c = {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", "hippo"}, {"namespace", "db"}, {"uid", "u1"}}},
      {"spec",
       {{"postgresVersion", 17},
        {"instances",
         {{{"name", "main"},
           {"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}}};
  for (const auto& [k, v] : extra_spec.items()) c["spec"][k] = v;
  absl::StatusOr<PostgresCluster> parsed = api::ParsePostgresCluster(c);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : PostgresCluster{};
}

const Json kMembers = {
    {"podSelector", {{"matchLabels", {{"postgres.quorum.dev/cluster", "hippo"}}}}}};

Json Operator(const std::string& ns) {
  Json op = {{"podSelector", {{"matchLabels", {{"app.kubernetes.io/name", "quorum-operator"}}}}}};
  op["namespaceSelector"] =
      ns.empty() ? Json::object() : Json{{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}};
  return op;
}

// The ingress rule that opens `port`, or null.
Json RuleFor(const Json& policy, int port) {
  for (const Json& rule : policy["spec"]["ingress"]) {
    for (const Json& p : rule["ports"]) {
      if (p["port"] == port) return rule;
    }
  }
  return nullptr;
}

TEST(NetworkPolicyTest, OnByDefaultAndOffWhenDisabled) {
  EXPECT_TRUE(BuildNetworkPolicy(Cluster(Json::object()), {}).has_value());
  EXPECT_FALSE(
      BuildNetworkPolicy(Cluster({{"networkPolicy", {{"enabled", false}}}}), {}).has_value());
}

TEST(NetworkPolicyTest, WhoReachesWhichPort) {
  struct Case {
    const char* name;
    Json spec;
    std::string operator_ns;
    Json rest_from;  // the 8008 rule's `from`
    Json pg_from;    // the 5432 rule's `from`; null: from anywhere
  } cases[] = {
      {"ClusterIP, operator namespace known",
       Json::object(),
       "quorum-system",
       {kMembers, Operator("quorum-system")},
       {{{"podSelector", Json::object()}}, kMembers, Operator("quorum-system")}},
      {"operator namespace unknown: its label in any namespace",
       Json::object(),
       "",
       {kMembers, Operator("")},
       {{{"podSelector", Json::object()}}, kMembers, Operator("")}},
      {"LoadBalancer: PostgreSQL from anywhere, the REST API still closed",
       {{"service", {{"type", "LoadBalancer"}}}},
       "quorum-system",
       {kMembers, Operator("quorum-system")},
       nullptr},
      {"postgresFrom: only the user's peers, the members and the operator",
       {{"networkPolicy",
         {{"postgresFrom",
           {{{"podSelector", {{"matchLabels", {{"app", "web"}}}}}},
            {{"ipBlock", {{"cidr", "10.8.0.0/16"}}}}}}}}},
       "quorum-system",
       {kMembers, Operator("quorum-system")},
       {{{"podSelector", {{"matchLabels", {{"app", "web"}}}}}},
        {{"ipBlock", {{"cidr", "10.8.0.0/16"}}}},
        kMembers,
        Operator("quorum-system")}},
      {"postgresFrom also closes a LoadBalancer's port to the rest",
       {{"service", {{"type", "LoadBalancer"}}},
        {"networkPolicy", {{"postgresFrom", {{{"ipBlock", {{"cidr", "203.0.113.0/24"}}}}}}}}},
       "quorum-system",
       {kMembers, Operator("quorum-system")},
       {{{"ipBlock", {{"cidr", "203.0.113.0/24"}}}}, kMembers, Operator("quorum-system")}},
      {"postgresFrom: [] admits nobody but the members and the operator",
       {{"networkPolicy", {{"postgresFrom", Json::array()}}}},
       "quorum-system",
       {kMembers, Operator("quorum-system")},
       {kMembers, Operator("quorum-system")}},
  };
  for (const Case& c : cases) {
    std::optional<Json> policy = BuildNetworkPolicy(Cluster(c.spec), {.ns = c.operator_ns});
    ASSERT_TRUE(policy.has_value()) << c.name;
    EXPECT_EQ((*policy)["metadata"]["name"], "hippo") << c.name;
    EXPECT_EQ((*policy)["spec"]["podSelector"], kMembers["podSelector"]) << c.name;
    EXPECT_EQ((*policy)["spec"]["policyTypes"], Json::array({"Ingress"})) << c.name;
    // The members' REST API and PostgreSQL; not the exporter's metrics
    // (monitoring_test.cc).
    EXPECT_EQ((*policy)["spec"]["ingress"].size(), 2u) << c.name;
    const Json rest = RuleFor(*policy, 8008);
    ASSERT_FALSE(rest.is_null()) << c.name;
    EXPECT_EQ(rest["ports"].size(), 1u) << c.name;
    EXPECT_EQ(rest["from"], c.rest_from) << c.name;
    const Json pg = RuleFor(*policy, 5432);
    ASSERT_FALSE(pg.is_null()) << c.name;
    EXPECT_EQ(pg["ports"].size(), 1u) << c.name;
    if (c.pg_from.is_null()) {
      EXPECT_FALSE(pg.contains("from")) << c.name;
    } else {
      EXPECT_EQ(pg["from"], c.pg_from) << c.name;
    }
  }
}

TEST(RestApiSecretTest, BasicAuthOwnedByTheCluster) {
  const Json s = BuildRestApiSecret(Cluster(Json::object()), "pw");
  EXPECT_EQ(s["metadata"]["name"], "hippo-patroni-api");
  EXPECT_EQ(s["type"], "kubernetes.io/basic-auth");
  std::string password;
  absl::Base64Unescape(s["data"]["password"].get<std::string>(), &password);
  EXPECT_EQ(password, "pw");
  EXPECT_EQ(s["metadata"]["ownerReferences"][0]["uid"], "u1");
}

}  // namespace
}  // namespace quorum::postgrescluster

// The EtcdCluster's NetworkPolicy (network_policy.h), as a table: which
// sources each member port admits for a spec, the operator's namespace and
// the PostgresClusters that reference the cluster. That the policy is
// enforced is e2e_network_policy_test's part.
#include "src/controllers/etcdcluster/network_policy.h"

#include <gtest/gtest.h>

#include "api/etcdcluster_types.h"

namespace quorum::etcdcluster {
namespace {

// Parsed as the reconciler parses it (defaults, validation): an aenix
// manifest is `spec` without networkPolicy.
EtcdCluster Cluster(Json spec) {
  const Json obj = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                    {"kind", "EtcdCluster"},
                    {"metadata", {{"name", "dcs"}, {"namespace", "db"}, {"uid", "u1"}}},
                    {"spec", std::move(spec)}};
  absl::StatusOr<EtcdCluster> parsed = api::ParseEtcdCluster(obj);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : EtcdCluster{};
}

const Json kMembers = {
    {"podSelector",
     {{"matchLabels",
       {{"app.kubernetes.io/name", "etcd"}, {"app.kubernetes.io/instance", "dcs"}}}}}};
const Json kBackupJobs = {
    {"podSelector", {{"matchLabels", {{"etcd.aenix.io/snapshot-client", "dcs"}}}}}};
const Json kNamespace = {{"podSelector", Json::object()}};
const Json kWeb = {{"podSelector", {{"matchLabels", {{"app", "web"}}}}}};

Json Operator(const std::string& ns) {
  return {
      {"podSelector", {{"matchLabels", {{"app.kubernetes.io/name", "quorum-operator"}}}}},
      {"namespaceSelector",
       ns.empty() ? Json::object() : Json{{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}}}};
}

Json Postgres(std::vector<std::string> names) {
  return {{"podSelector",
           {{"matchExpressions", Json::array({{{"key", "postgres.quorum.dev/cluster"},
                                               {"operator", "In"},
                                               {"values", std::move(names)}}})}}}};
}

// The rule for `port`, or null.
Json RuleFor(const Json& policy, int port) {
  for (const Json& rule : policy["spec"]["ingress"]) {
    if (rule["ports"][0]["port"] == port) return rule;
  }
  return nullptr;
}

TEST(EtcdNetworkPolicyTest, AnAenixManifestGetsOneAndEnabledFalseNone) {
  std::optional<Json> policy = BuildNetworkPolicy(Cluster(Json::object()), {}, {});
  ASSERT_TRUE(policy.has_value());
  EXPECT_EQ((*policy)["apiVersion"], "networking.k8s.io/v1");
  EXPECT_EQ((*policy)["metadata"]["name"], "dcs");
  EXPECT_EQ((*policy)["metadata"]["namespace"], "db");
  EXPECT_EQ((*policy)["metadata"]["labels"]["app.kubernetes.io/managed-by"], "quorum-operator");
  EXPECT_EQ((*policy)["metadata"]["ownerReferences"][0]["uid"], "u1");
  EXPECT_EQ((*policy)["metadata"]["ownerReferences"][0]["kind"], "EtcdCluster");
  EXPECT_EQ((*policy)["spec"]["podSelector"], kMembers["podSelector"]);
  EXPECT_EQ((*policy)["spec"]["policyTypes"], Json::array({"Ingress"}));
  EXPECT_FALSE(BuildNetworkPolicy(Cluster({{"networkPolicy", {{"enabled", false}}}}), {}, {"pg"})
                   .has_value());
}

TEST(EtcdNetworkPolicyTest, WhoReachesWhichPort) {
  struct Case {
    const char* name;
    Json spec;
    std::string operator_ns;
    std::vector<std::string> postgres;
    Json client_from;  // the 2379 rule's `from`; null: from anywhere
  } cases[] = {
      {"aenix manifest: the namespace, members, operator, backup Jobs",
       Json::object(),
       "quorum-system",
       {},
       {kNamespace, kMembers, Operator("quorum-system"), kBackupJobs}},
      {"operator outside a pod: its label in any namespace",
       Json::object(),
       "",
       {},
       {kNamespace, kMembers, Operator(""), kBackupJobs}},
      {"referencing PostgresClusters, sorted and once each",
       Json::object(),
       "quorum-system",
       {"web-db", "billing", "web-db"},
       {kNamespace, kMembers, Operator("quorum-system"), kBackupJobs,
        Postgres({"billing", "web-db"})}},
      {"clientFrom: the user's peers first, then ours",
       {{"networkPolicy",
         {{"clientFrom", Json::array({kWeb, {{"ipBlock", {{"cidr", "10.8.0.0/16"}}}}})}}}},
       "quorum-system",
       {"billing"},
       {kWeb,
        {{"ipBlock", {{"cidr", "10.8.0.0/16"}}}},
        kMembers,
        Operator("quorum-system"),
        kBackupJobs,
        Postgres({"billing"})}},
      {"clientFrom: [] admits nobody else, not the namespace",
       {{"networkPolicy", {{"clientFrom", Json::array()}}}},
       "quorum-system",
       {"billing"},
       {kMembers, Operator("quorum-system"), kBackupJobs, Postgres({"billing"})}},
      {"LoadBalancer client Service without clientFrom: anyone",
       {{"serviceTemplate", {{"spec", {{"type", "LoadBalancer"}}}}}},
       "quorum-system",
       {"billing"},
       nullptr},
      {"NodePort: anyone",
       {{"serviceTemplate", {{"spec", {{"type", "NodePort"}}}}}},
       "quorum-system",
       {},
       nullptr},
      {"LoadBalancer with clientFrom: clientFrom holds",
       {{"serviceTemplate", {{"spec", {{"type", "LoadBalancer"}}}}},
        {"networkPolicy", {{"clientFrom", Json::array({kWeb})}}}},
       "quorum-system",
       {},
       {kWeb, kMembers, Operator("quorum-system"), kBackupJobs}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::optional<Json> policy =
        BuildNetworkPolicy(Cluster(c.spec), {.ns = c.operator_ns}, c.postgres);
    ASSERT_TRUE(policy.has_value());
    ASSERT_EQ((*policy)["spec"]["ingress"].size(), 3u);
    // Whatever the spec: peers from the members only, metrics from the
    // members and the operator.
    const Json peer = RuleFor(*policy, 2380);
    ASSERT_FALSE(peer.is_null());
    EXPECT_EQ(peer["ports"], Json::array({{{"protocol", "TCP"}, {"port", 2380}}}));
    EXPECT_EQ(peer["from"], Json::array({kMembers}));
    const Json metrics = RuleFor(*policy, 2381);
    ASSERT_FALSE(metrics.is_null());
    EXPECT_EQ(metrics["ports"].size(), 1u);
    EXPECT_EQ(metrics["from"], Json::array({kMembers, Operator(c.operator_ns)}));
    const Json client = RuleFor(*policy, 2379);
    ASSERT_FALSE(client.is_null());
    EXPECT_EQ(client["ports"].size(), 1u);
    if (c.client_from.is_null()) {
      EXPECT_FALSE(client.contains("from"));
    } else {
      EXPECT_EQ(client["from"], c.client_from);
    }
  }
}

TEST(EtcdNetworkPolicyTest, NothingElseChangesItsContent) {
  // Applying it twice writes nothing: the same inputs in another order build
  // the same policy.
  const EtcdCluster cluster = Cluster(Json::object());
  EXPECT_EQ(BuildNetworkPolicy(cluster, {.ns = "q"}, {"a", "b"}),
            BuildNetworkPolicy(cluster, {.ns = "q"}, {"b", "a"}));
}

}  // namespace
}  // namespace quorum::etcdcluster

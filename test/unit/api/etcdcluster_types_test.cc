// ParseEtcdCluster: defaults in one place, errors naming the field path,
// and a serialised form that reads back the same.
#include "api/etcdcluster_types.h"

#include <gtest/gtest.h>

#include "test/examples/examples.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Object(Json spec) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", {{"name", "kv"}, {"namespace", "db"}, {"uid", "u"}, {"generation", 4}}},
          {"spec", std::move(spec)}};
}

TEST(ParseEtcdClusterTest, AppliesTheDefaults) {
  absl::StatusOr<EtcdCluster> c = ParseEtcdCluster(Object(Json::object()));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->metadata.name, "kv");
  EXPECT_EQ(c->metadata.generation, 4);
  EXPECT_EQ(c->spec.replicas, 3);
  EXPECT_FALSE(c->spec.storage.empty_dir.has_value());
  EXPECT_EQ(c->spec.storage.volume_claim_template.spec,
            (Json{{"accessModes", {"ReadWriteOnce"}},
                  {"resources", {{"requests", {{"storage", "4Gi"}}}}}}));
  EXPECT_FALSE(c->spec.pdb_template.has_value());
}

TEST(ParseEtcdClusterTest, ReadsEveryField) {
  absl::StatusOr<EtcdCluster> c = ParseEtcdCluster(Object(
      {{"replicas", 5},
       {"options", {{"max-wals", "5"}}},
       {"storage", {{"emptyDir", {{"medium", "Memory"}}}}},
       {"podTemplate",
        {{"metadata", {{"labels", {{"env", "prod"}}}}},
         {"spec", {{"nodeSelector", {{"a", "b"}}}}}}},
       {"serviceTemplate", {{"metadata", {{"name", "client"}}}, {"spec", {{"type", "NodePort"}}}}},
       {"headlessServiceTemplate", {{"metadata", {{"annotations", {{"x", "y"}}}}}}},
       {"podDisruptionBudgetTemplate", {{"spec", {{"maxUnavailable", 1}}}}},
       {"security",
        {{"enableAuth", true},
         {"tls",
          {{"serverSecret", "s"},
           {"serverTrustedCASecret", "sca"},
           {"clientSecret", "c"},
           {"clientTrustedCASecret", "cca"}}}}}}));
  ASSERT_TRUE(c.ok()) << c.status();
  const EtcdClusterSpec& s = c->spec;
  EXPECT_EQ(s.replicas, 5);
  EXPECT_EQ(s.options.at("max-wals"), "5");
  EXPECT_EQ(*s.storage.empty_dir, (Json{{"medium", "Memory"}}));
  EXPECT_EQ(s.pod_template.metadata.labels.at("env"), "prod");
  EXPECT_EQ(s.pod_template.spec["nodeSelector"]["a"], "b");
  EXPECT_EQ(s.service_template.metadata.name, "client");
  EXPECT_EQ(s.headless_service_metadata.annotations.at("x"), "y");
  ASSERT_TRUE(s.pdb_template.has_value());
  EXPECT_EQ(*s.pdb_template->max_unavailable, 1);
  EXPECT_FALSE(s.pdb_template->min_available.has_value());
  EXPECT_TRUE(s.security.enable_auth);
  EXPECT_EQ(s.security.tls.client_secret, "c");
  EXPECT_EQ(s.security.tls.server_trusted_ca_secret, "sca");
}

TEST(ParseEtcdClusterTest, NetworkPolicyIsOnUnlessTurnedOffAndKeepsItsPeers) {
  absl::StatusOr<EtcdCluster> c = ParseEtcdCluster(Object(Json::object()));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->spec.network_policy.enabled);
  EXPECT_TRUE(c->spec.network_policy.client_from.is_null());
  EXPECT_FALSE(ToJson(c->spec).contains("networkPolicy"));  // an aenix manifest stays one

  const Json peers = Json::array({{{"podSelector", {{"matchLabels", {{"app", "web"}}}}}}});
  c = ParseEtcdCluster(Object({{"networkPolicy", {{"enabled", false}, {"clientFrom", peers}}}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->spec.network_policy.enabled);
  EXPECT_EQ(c->spec.network_policy.client_from, peers);
  EXPECT_EQ(ToJson(c->spec)["networkPolicy"], (Json{{"enabled", false}, {"clientFrom", peers}}));

  c = ParseEtcdCluster(Object({{"networkPolicy", {{"clientFrom", Json::array()}}}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(ToJson(c->spec)["networkPolicy"], (Json{{"clientFrom", Json::array()}}));
}

TEST(ParseEtcdClusterTest, ErrorsNameTheFieldPath) {
  absl::StatusOr<EtcdCluster> c = ParseEtcdCluster(Object({{"replicas", "three"}}));
  ASSERT_TRUE(absl::IsInvalidArgument(c.status()));
  EXPECT_NE(c.status().message().find("spec.replicas"), absl::string_view::npos) << c.status();

  c = DecodeEtcdCluster(Object({{"security", {{"tls", {{"peerSecret", 3}}}}}}));
  ASSERT_TRUE(absl::IsInvalidArgument(c.status()));
  EXPECT_EQ(c.status().message(), "spec.security.tls.peerSecret: want a string, got 3");

  c = DecodeEtcdCluster(Object({{"podTemplate", {{"metadata", {{"labels", {{"a", 1}}}}}}}}));
  EXPECT_EQ(c.status().message(), "spec.podTemplate.metadata.labels[a]: want a string, got 1");
}

TEST(ParseEtcdClusterTest, SpecSerialisesToWhatParsesBackTheSame) {
  Json obj = Object(examples::EtcdClusterDesignExample()["spec"]);
  absl::StatusOr<EtcdCluster> c = ParseEtcdCluster(obj);
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<EtcdCluster> again = ParseEtcdCluster(Object(ToJson(c->spec)));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ToJson(again->spec), ToJson(c->spec));
}

TEST(EtcdClusterStatusTest, RoundTripsThroughJson) {
  EtcdClusterStatus s{.observed_generation = 2,
                      .conditions = {{.type = "Ready",
                                      .status = "True",
                                      .reason = "StatefulSetReady",
                                      .message = "3 of 3 members healthy",
                                      .observed_generation = 2,
                                      .last_transition_time = "2026-01-01T00:00:00Z"}},
                      .ready_replicas = 3,
                      .members = {{.name = "kv-0",
                                   .id = "a1",
                                   .peer_url = "http://p",
                                   .healthy = true,
                                   .version = "3.6.16",
                                   .data_uid = "pvc-1"}},
                      .leader = "kv-0",
                      .client_endpoint = "http://kv.db.svc:2379",
                      .auth_secret_name = "kv-root-auth"};
  Json obj = Object(Json::object());
  obj["status"] = ToJson(s);
  absl::StatusOr<EtcdCluster> c = DecodeEtcdCluster(obj);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->status, s);
  ASSERT_NE(FindCondition(c->status, "Ready"), nullptr);
  EXPECT_EQ(FindCondition(c->status, "Initialized"), nullptr);
}

}  // namespace
}  // namespace quorum::api

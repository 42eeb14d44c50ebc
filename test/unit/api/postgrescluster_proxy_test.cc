// spec.proxy.pgBouncer, table-driven: admission refuses each bad value naming
// the field, defaults fill replicas and poolMode, and the typed spec and
// status round-trip through their JSON forms.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_defaults.h"
#include "api/postgrescluster_pgbouncer.h"
#include "api/postgrescluster_types.h"
#include "api/postgrescluster_validation.h"
#include "test/examples/examples.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json With(const char* merge_patch) {
  Json obj = examples::PostgresClusterDesignExample();
  obj.merge_patch(Json::parse(merge_patch));
  DefaultPostgresCluster(obj);
  return obj;
}

std::string Describe(const std::vector<FieldError>& errors) {
  return errors.empty() ? "(no errors)" : JoinFieldErrors(errors);
}

struct InvalidCase {
  const char* name;
  const char* patch;
  const char* field;
  const char* message_part;
};

class PgBouncerInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(PgBouncerInvalidTest, IsRefusedNamingTheField) {
  const InvalidCase& c = GetParam();
  const std::vector<FieldError> errors = ValidatePostgresCluster(With(c.patch), nullptr);
  bool found = false;
  for (const FieldError& e : errors) {
    found |= e.field == c.field && absl::StrContains(e.message, c.message_part);
  }
  EXPECT_TRUE(found) << "want " << c.field << ": ..." << c.message_part << "...; got "
                     << Describe(errors);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PgBouncerInvalidTest,
    ::testing::Values(
        InvalidCase{"ProxyNotAnObject", R"({"spec": {"proxy": 3}})", "spec.proxy",
                    "must be an object"},
        InvalidCase{"PgBouncerNotAnObject", R"({"spec": {"proxy": {"pgBouncer": "yes"}}})",
                    "spec.proxy.pgBouncer", "must be an object"},
        InvalidCase{"NegativeReplicas", R"({"spec": {"proxy": {"pgBouncer": {"replicas": -1}}}})",
                    "spec.proxy.pgBouncer.replicas", "0 to 16"},
        InvalidCase{"TooManyReplicas", R"({"spec": {"proxy": {"pgBouncer": {"replicas": 17}}}})",
                    "spec.proxy.pgBouncer.replicas", "0 to 16"},
        InvalidCase{"ReplicasAsText", R"({"spec": {"proxy": {"pgBouncer": {"replicas": "2"}}}})",
                    "spec.proxy.pgBouncer.replicas", "whole number"},
        InvalidCase{"UnknownPoolMode",
                    R"({"spec": {"proxy": {"pgBouncer": {"poolMode": "connection"}}}})",
                    "spec.proxy.pgBouncer.poolMode", "session, transaction or statement"},
        InvalidCase{"OwnedListenPort",
                    R"({"spec": {"proxy": {"pgBouncer": {"config": {"listen_port": "6432"}}}}})",
                    "spec.proxy.pgBouncer.config.listen_port", "is set by Quorum"},
        InvalidCase{"OwnedAuthQuery",
                    R"({"spec": {"proxy": {"pgBouncer": {"config": {"auth_query": "x"}}}}})",
                    "spec.proxy.pgBouncer.config.auth_query", "is set by Quorum"},
        InvalidCase{"OwnedTlsSetting",
                    R"({"spec": {"proxy": {"pgBouncer": {"config":
                        {"server_tls_sslmode": "disable"}}}}})",
                    "spec.proxy.pgBouncer.config.server_tls_sslmode", "is set by Quorum"},
        InvalidCase{"ClientTlsSetting",
                    R"({"spec": {"proxy": {"pgBouncer": {"config":
                        {"client_tls_key_file": "/tmp/k"}}}}})",
                    "spec.proxy.pgBouncer.config.client_tls_key_file", "is set by Quorum"},
        InvalidCase{"PoolModeAsSetting",
                    R"({"spec": {"proxy": {"pgBouncer": {"config": {"pool_mode": "session"}}}}})",
                    "spec.proxy.pgBouncer.config.pool_mode", "use poolMode"},
        InvalidCase{"BadSettingName",
                    R"({"spec": {"proxy": {"pgBouncer": {"config": {"Max Conn": "1"}}}}})",
                    "spec.proxy.pgBouncer.config.Max Conn", "not a PgBouncer setting name"},
        InvalidCase{"IncludeDirective",
                    R"({"spec": {"proxy": {"pgBouncer": {"config": {"%include": "/x"}}}}})",
                    "spec.proxy.pgBouncer.config.%include", "not a PgBouncer setting name"},
        InvalidCase{"ValueNotAString",
                    R"({"spec": {"proxy": {"pgBouncer": {"config": {"max_client_conn": 5}}}}})",
                    "spec.proxy.pgBouncer.config.max_client_conn", "must be a string"},
        InvalidCase{"ValueOfTwoLines",
                    R"({"spec": {"proxy": {"pgBouncer": {"config":
                        {"max_client_conn": "5\nauth_type = trust"}}}}})",
                    "spec.proxy.pgBouncer.config.max_client_conn", "one line"},
        InvalidCase{"ResourcesNotAnObject",
                    R"({"spec": {"proxy": {"pgBouncer": {"resources": "1 cpu"}}}})",
                    "spec.proxy.pgBouncer.resources", "must be an object"},
        InvalidCase{"ImageNotAString", R"({"spec": {"proxy": {"pgBouncer": {"image": 1}}}})",
                    "spec.proxy.pgBouncer.image", "must be a string"},
        InvalidCase{"UserNamedLikeThePoolerRole",
                    R"({"spec": {"users": [{"name": "quorum_pooler"}]}})", "spec.users[0].name",
                    "one of Quorum's own roles"},
        InvalidCase{"UserNamedLikeThePoolerConsoleUser",
                    R"({"spec": {"users": [{"name": "quorum_pooler_admin"}]}})",
                    "spec.users[0].name", "one of Quorum's own roles"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(PgBouncerValidationTest, AcceptsAPoolerWithEverySetting) {
  const Json obj = With(R"({"spec": {"proxy": {"pgBouncer": {
      "replicas": 3, "poolMode": "session", "image": "example.com/pgbouncer:1.24",
      "resources": {"requests": {"cpu": "100m"}},
      "config": {"max_client_conn": "1000", "default_pool_size": "20",
                 "ignore_startup_parameters": "extra_float_digits"}}}}})");
  EXPECT_EQ(Describe(ValidatePostgresCluster(obj, nullptr)), "(no errors)");
}

TEST(PgBouncerValidationTest, AcceptsAnEmptyPooler) {
  EXPECT_EQ(
      Describe(ValidatePostgresCluster(With(R"({"spec": {"proxy": {"pgBouncer": {}}}})"), nullptr)),
      "(no errors)");
}

TEST(PgBouncerDefaultsTest, FillsReplicasAndPoolModeOnlyWhenThePoolerIsAsked) {
  const Json on = With(R"({"spec": {"proxy": {"pgBouncer": {}}}})");
  EXPECT_EQ(on["spec"]["proxy"]["pgBouncer"]["replicas"], kDefaultPgBouncerReplicas);
  EXPECT_EQ(on["spec"]["proxy"]["pgBouncer"]["poolMode"], "transaction");
  const Json set = With(R"({"spec": {"proxy": {"pgBouncer": {"replicas": 1,
                                                              "poolMode": "session"}}}})");
  EXPECT_EQ(set["spec"]["proxy"]["pgBouncer"]["replicas"], 1);
  EXPECT_EQ(set["spec"]["proxy"]["pgBouncer"]["poolMode"], "session");
  EXPECT_FALSE(With("{}")["spec"].contains("proxy"));
}

TEST(PgBouncerTypesTest, ParsesAndSerialisesThePooler) {
  absl::StatusOr<PostgresCluster> c = ParsePostgresCluster(With(R"({"spec": {"proxy":
      {"pgBouncer": {"config": {"max_client_conn": "500"}, "image": "x/pgb:1"}}}})"));
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->spec.proxy.pgbouncer.has_value());
  const PgBouncerSpec& p = *c->spec.proxy.pgbouncer;
  EXPECT_EQ(p.replicas, kDefaultPgBouncerReplicas);
  EXPECT_EQ(p.pool_mode, "transaction");
  EXPECT_EQ(p.config.at("max_client_conn"), "500");
  EXPECT_EQ(PgBouncerImage(p), "x/pgb:1");
  const Json spec = ToJson(c->spec);
  EXPECT_EQ(spec["proxy"]["pgBouncer"]["config"]["max_client_conn"], "500");
  EXPECT_EQ(spec["proxy"]["pgBouncer"]["poolMode"], "transaction");
}

TEST(PgBouncerTypesTest, NoPoolerMeansNoProxyField) {
  absl::StatusOr<PostgresCluster> c = ParsePostgresCluster(With("{}"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->spec.proxy.pgbouncer.has_value());
  EXPECT_FALSE(ToJson(c->spec).contains("proxy"));
  EXPECT_FALSE(ToJson(c->status).contains("proxy"));
  EXPECT_EQ(PgBouncerImage(PgBouncerSpec{}), kDefaultPgBouncerImage);
}

TEST(PgBouncerTypesTest, StatusRoundTrips) {
  Json obj = With("{}");
  obj["status"] = {
      {"proxy",
       {{"pgBouncer", {{"replicas", 2}, {"readyReplicas", 1}, {"service", "hippo-pgbouncer"}}}}}};
  absl::StatusOr<PostgresCluster> c = DecodePostgresCluster(obj);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->status.pgbouncer.has_value());
  EXPECT_EQ(c->status.pgbouncer->ready_replicas, 1);
  EXPECT_EQ(ToJson(c->status)["proxy"], obj["status"]["proxy"]);
}

TEST(PgBouncerOwnedSettingsTest, CoversListenAuthTlsAndFiles) {
  for (const char* key : {"listen_addr", "auth_type", "auth_dbname", "client_tls_sslmode",
                          "server_tls_ca_file", "logfile", "admin_users", "unix_socket_dir"}) {
    EXPECT_TRUE(IsPgBouncerOwnedSetting(key)) << key;
  }
  for (const char* key : {"max_client_conn", "default_pool_size", "server_lifetime"}) {
    EXPECT_FALSE(IsPgBouncerOwnedSetting(key)) << key;
  }
}

}  // namespace
}  // namespace quorum::api

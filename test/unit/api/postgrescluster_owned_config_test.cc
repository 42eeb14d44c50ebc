// The dynamicConfiguration keys Quorum owns: each is refused at admission
// naming the key (unless stored before the rule), tuning keys pass, and the
// reconciler strips them.
#include "api/postgrescluster_owned_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Cluster(const Json& dynamic) {
  return {{"metadata", {{"name", "hippo"}}},
          {"spec", {{"patroni", {{"dynamicConfiguration", dynamic}}}}}};
}

std::string Describe(const std::vector<FieldError>& errors) {
  return errors.empty() ? "(no errors)" : JoinFieldErrors(errors);
}

struct OwnedCase {
  const char* dynamic;       // the dynamicConfiguration
  const char* field;         // the field the error names, after the base path
  const char* message_part;  // and a part of its message
};

class OwnedKeyTest : public ::testing::TestWithParam<OwnedCase> {};

TEST_P(OwnedKeyTest, IsRefusedNamingTheKey) {
  const OwnedCase& c = GetParam();
  const std::vector<FieldError> errors =
      ValidateOwnedDynamicConfiguration(Cluster(Json::parse(c.dynamic)), nullptr);
  const std::string field = absl::StrCat("spec.patroni.dynamicConfiguration.", c.field);
  ASSERT_EQ(errors.size(), 1u) << Describe(errors);
  EXPECT_EQ(errors[0].field, field);
  EXPECT_TRUE(absl::StrContains(errors[0].message, c.message_part)) << errors[0].message;
}

const OwnedCase kOwned[] = {
    {R"({"postgresql": {"pg_hba": ["host all all 0.0.0.0/0 trust"]}})", "postgresql.pg_hba",
     "spec.authentication.rules"},
    {R"({"postgresql": {"parameters": {"ssl": "off"}}})", "postgresql.parameters.ssl", "spec.tls"},
    {R"({"postgresql": {"parameters": {"ssl": false}}})", "postgresql.parameters.ssl", "spec.tls"},
    {R"({"postgresql": {"parameters": {"ssl_cert_file": "/tmp/x"}}})",
     "postgresql.parameters.ssl_cert_file", "spec.tls"},
    {R"({"postgresql": {"parameters": {"ssl_ciphers": "NULL"}}})",
     "postgresql.parameters.ssl_ciphers", "ssl_min_protocol_version"},
    {R"({"postgresql": {"parameters": {"ssl_min_protocol_version": "TLSv1"}}})",
     "postgresql.parameters.ssl_min_protocol_version", "TLSv1.2 or TLSv1.3"},
    {R"({"postgresql": {"parameters": {"archive_command": "/bin/true"}}})",
     "postgresql.parameters.archive_command", "spec.backups.pgbackrest"},
    {R"({"postgresql": {"parameters": {"archive_mode": "off"}}})",
     "postgresql.parameters.archive_mode", "WAL archiving"},
    {R"({"postgresql": {"parameters": {"archive_library": "basic_archive"}}})",
     "postgresql.parameters.archive_library", "WAL archiving"},
    {R"({"postgresql": {"parameters": {"restore_command": "cp /x %p"}}})",
     "postgresql.parameters.restore_command", "recovery"},
    {R"({"postgresql": {"parameters": {"recovery_target_time": "2026-01-01"}}})",
     "postgresql.parameters.recovery_target_time", "recovery"},
    {R"({"postgresql": {"parameters": {"primary_conninfo": "host=evil"}}})",
     "postgresql.parameters.primary_conninfo", "Patroni"},
    {R"({"postgresql": {"parameters": {"listen_addresses": "*"}}})",
     "postgresql.parameters.listen_addresses", "listens"},
    {R"({"postgresql": {"parameters": {"port": 6432}}})", "postgresql.parameters.port", "listens"},
    {R"({"postgresql": {"parameters": {"unix_socket_directories": "/tmp"}}})",
     "postgresql.parameters.unix_socket_directories", "listens"},
    {R"({"postgresql": {"parameters": {"data_directory": "/tmp"}}})",
     "postgresql.parameters.data_directory", "files"},
    {R"({"postgresql": {"parameters": {"hba_file": "/tmp/hba"}}})",
     "postgresql.parameters.hba_file", "pg_hba"},
    {R"({"postgresql": {"parameters": {"wal_level": "minimal"}}})",
     "postgresql.parameters.wal_level", "replica"},
    {R"({"postgresql": {"parameters": {"hot_standby": "off"}}})",
     "postgresql.parameters.hot_standby", "hot_standby stays on"},
    {R"({"postgresql": {"parameters": {"password_encryption": "md5"}}})",
     "postgresql.parameters.password_encryption", "scram-sha-256"},
    {R"({"postgresql": {"use_slots": false}})", "postgresql.use_slots",
     "only postgresql.parameters"},
    {R"({"postgresql": {"authentication": {"replication": {"username": "x"}}}})",
     "postgresql.authentication", "Quorum owns it"},
    {R"({"postgresql": {"data_dir": "/tmp"}})", "postgresql.data_dir", "Quorum owns it"},
    {R"({"ttl": 60})", "ttl", "leaderLeaseDurationSeconds"},
    {R"({"loop_wait": 5})", "loop_wait", "syncPeriodSeconds"},
    {R"({"retry_timeout": 5})", "retry_timeout", "retryTimeoutSeconds"},
    {R"({"standby_cluster": {"host": "evil"}})", "standby_cluster", "not supported yet"},
    {R"({"restapi": {"listen": "0.0.0.0:1"}})", "restapi", "local configuration"},
    {R"({"bootstrap": {}})", "bootstrap", "local configuration"},
};

INSTANTIATE_TEST_SUITE_P(Keys, OwnedKeyTest, ::testing::ValuesIn(kOwned));

TEST(OwnedDynamicConfigurationTest, AcceptsTuning) {
  const Json dynamic = Json::parse(R"({
    "maximum_lag_on_failover": 1048576, "synchronous_mode": true, "failsafe_mode": false,
    "slots": {"cdc": {"type": "logical", "database": "app", "plugin": "pgoutput"}},
    "postgresql": {"pg_ident": ["certmap /^(.*)$ \\1"],
                   "parameters": {"max_connections": "200", "work_mem": "8MB",
                                  "archive_timeout": "30s", "wal_level": "logical",
                                  "hot_standby": true, "password_encryption": "scram-sha-256",
                                  "ssl_min_protocol_version": "TLSv1.3",
                                  "shared_preload_libraries": "pg_stat_statements"}}})");
  EXPECT_EQ(Describe(ValidateOwnedDynamicConfiguration(Cluster(dynamic), nullptr)), "(no errors)");
}

TEST(OwnedDynamicConfigurationTest, AnUnchangedKeyStoredBeforeTheRuleStaysWritable) {
  const Json stored = Cluster(Json::parse(
      R"({"ttl": 60, "postgresql": {"pg_hba": ["host all all all md5"], "parameters": {"ssl": "off"}}})"));
  Json edited = stored;
  edited["spec"]["patroni"]["dynamicConfiguration"]["postgresql"]["parameters"]["work_mem"] = "8MB";
  EXPECT_EQ(Describe(ValidateOwnedDynamicConfiguration(edited, &stored)), "(no errors)");

  edited["spec"]["patroni"]["dynamicConfiguration"]["postgresql"]["pg_hba"] =
      Json::array({"host all all all trust"});
  const std::vector<FieldError> changed = ValidateOwnedDynamicConfiguration(edited, &stored);
  ASSERT_EQ(changed.size(), 1u) << Describe(changed);
  EXPECT_EQ(changed[0].field, "spec.patroni.dynamicConfiguration.postgresql.pg_hba");
}

TEST(OwnedDynamicConfigurationTest, NeverThrowsOnOddJson) {
  for (const char* dynamic : {"null", "[]", "\"x\"", R"({"postgresql": 1})",
                              R"({"postgresql": {"parameters": [1]}})", R"({"ttl": null})"}) {
    Json obj = Cluster(Json::parse(dynamic));
    EXPECT_NO_THROW(ValidateOwnedDynamicConfiguration(obj, nullptr)) << dynamic;
    Json d = Json::parse(dynamic);
    EXPECT_NO_THROW(StripOwnedDynamicConfiguration(d)) << dynamic;
  }
  EXPECT_TRUE(ValidateOwnedDynamicConfiguration(Json::object(), nullptr).empty());
}

TEST(OwnedDynamicConfigurationTest, StripRemovesOnlyOwnedKeys) {
  Json dynamic = Json::parse(
      R"({"ttl": 60, "synchronous_mode": true,
          "postgresql": {"pg_hba": ["host all all all trust"], "use_slots": false,
                         "parameters": {"ssl": "off", "work_mem": "8MB"}}})");
  const std::vector<OwnedConfigKey> removed = StripOwnedDynamicConfiguration(dynamic);
  EXPECT_EQ(removed.size(), 4u);
  EXPECT_EQ(dynamic, Json::parse(R"({"synchronous_mode": true,
                                     "postgresql": {"parameters": {"work_mem": "8MB"}}})"));
}

}  // namespace
}  // namespace quorum::api

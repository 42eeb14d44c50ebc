// The PostgresRole and PostgresDatabase validating handlers, called directly:
// a reserved name, an unknown extension, a bad privilege and a changed
// cluster are denied (422) naming the field; good objects, DELETE and status
// writes pass.
#include "src/webhooks/postgres_objects_webhook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "src/runtime/http_server.h"

namespace quorum::webhooks {
namespace {

using Json = nlohmann::json;
using runtime::AdmissionRequest;
using runtime::AdmissionResponse;

AdmissionRequest Request(std::string operation, const char* kind, Json object,
                         std::string subresource = "") {
  AdmissionRequest r;
  r.uid = "uid-1";
  r.kind = {"postgres.quorum.dev", "v1alpha1", kind};
  r.name = "app";
  r.namespace_name = "db";
  r.operation = std::move(operation);
  r.sub_resource = std::move(subresource);
  r.object = std::move(object);
  return r;
}

Json Object(const char* kind, const char* spec) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", kind},
          {"metadata", {{"name", "app"}, {"namespace", "db"}}},
          {"spec", Json::parse(spec)}};
}

TEST(ValidatePostgresRoleTest, DeniesNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"cluster": "hippo", "name": "replicator"})", "spec.name: \"replicator\" is one of"},
      {R"({"cluster": "hippo", "name": "pg_app"})", "spec.name"},
      {R"({"name": "x"})", "spec.cluster"},
      {R"({"cluster": "hippo", "reclaimPolicy": "keep"})", "spec.reclaimPolicy"},
  };
  for (const auto& [spec, want] : cases) {
    const AdmissionResponse r = ValidatePostgresRoleAdmission(
        Request("CREATE", "PostgresRole", Object("PostgresRole", spec)));
    EXPECT_FALSE(r.allowed) << spec;
    EXPECT_EQ(r.code, 422) << spec;
    EXPECT_TRUE(absl::StrContains(r.message, want)) << r.message;
    EXPECT_TRUE(absl::StrContains(r.message, "PostgresRole \"app\"")) << r.message;
  }
  EXPECT_TRUE(ValidatePostgresRoleAdmission(
                  Request("CREATE", "PostgresRole", Object("PostgresRole", R"({"cluster": "h"})")))
                  .allowed);
}

TEST(ValidatePostgresRoleTest, ClusterCannotChange) {
  AdmissionRequest r =
      Request("UPDATE", "PostgresRole", Object("PostgresRole", R"({"cluster": "other"})"));
  r.old_object = Object("PostgresRole", R"({"cluster": "hippo"})");
  const AdmissionResponse got = ValidatePostgresRoleAdmission(r);
  EXPECT_FALSE(got.allowed);
  EXPECT_TRUE(absl::StrContains(got.message, "spec.cluster: is immutable")) << got.message;
}

TEST(ValidatePostgresDatabaseTest, DeniesNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"cluster": "h", "extensions": [{"name": "postgis"}]})",
       "spec.extensions[0].name: \"postgis\" is not an extension the images ship"},
      {R"({"cluster": "h", "grants": [{"role": "r", "privileges": ["SELECT"]}]})",
       "spec.grants[0].privileges[0]"},
      {R"({"cluster": "h", "schemas": [{"name": "9lives"}]})", "spec.schemas[0].name"},
  };
  for (const auto& [spec, want] : cases) {
    const AdmissionResponse r = ValidatePostgresDatabaseAdmission(
        Request("CREATE", "PostgresDatabase", Object("PostgresDatabase", spec)));
    EXPECT_FALSE(r.allowed) << spec;
    EXPECT_EQ(r.code, 422) << spec;
    EXPECT_TRUE(absl::StrContains(r.message, want)) << r.message;
  }
}

TEST(ValidatePostgresDatabaseTest, DeleteAndStatusPass) {
  const Json bad = Object("PostgresDatabase", R"({"extensions": [{"name": "postgis"}]})");
  EXPECT_TRUE(
      ValidatePostgresDatabaseAdmission(Request("DELETE", "PostgresDatabase", bad)).allowed);
  EXPECT_TRUE(
      ValidatePostgresDatabaseAdmission(Request("UPDATE", "PostgresDatabase", bad, "status"))
          .allowed);
}

}  // namespace
}  // namespace quorum::webhooks

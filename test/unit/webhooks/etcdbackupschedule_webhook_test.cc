// The EtcdBackupSchedule validating handler, called directly: a bad cron,
// duration or limit is denied (422) naming the field; a good one, DELETE and
// status writes pass.
#include "src/webhooks/etcdbackupschedule_webhook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "src/runtime/http_server.h"

namespace quorum::webhooks {
namespace {

using Json = nlohmann::json;
using runtime::AdmissionRequest;
using runtime::AdmissionResponse;

AdmissionRequest Request(std::string operation, Json object, std::string subresource = "") {
  AdmissionRequest r;
  r.uid = "uid-1";
  r.kind = {"etcd.aenix.io", "v1alpha1", "EtcdBackupSchedule"};
  r.resource = {"etcd.aenix.io", "v1alpha1", "etcdbackupschedules"};
  r.name = "nightly";
  r.namespace_name = "db";
  r.operation = std::move(operation);
  r.sub_resource = std::move(subresource);
  r.object = std::move(object);
  return r;
}

Json Schedule(const char* spec_patch) {
  Json obj = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
              {"kind", "EtcdBackupSchedule"},
              {"metadata", {{"name", "nightly"}, {"namespace", "db"}}},
              {"spec",
               {{"clusterRef", {{"name", "main"}}},
                {"schedule", "0 3 * * *"},
                {"destination", {{"pvc", {{"claimName", "backups"}}}}}}}};
  obj["spec"].merge_patch(Json::parse(spec_patch));
  return obj;
}

TEST(ValidateEtcdBackupScheduleTest, DeniesNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"schedule": "0 25 * * *"})", "spec.schedule: hour: 25 is out of range 0-23"},
      {R"({"keepWithin": "a week"})", "spec.keepWithin"},
      {R"({"successfulJobsHistoryLimit": -1})", "spec.successfulJobsHistoryLimit"},
      {R"({"keepLast": 0})", "spec.keepLast"},
  };
  for (const auto& [patch, want] : cases) {
    const AdmissionResponse r =
        ValidateEtcdBackupScheduleAdmission(Request("CREATE", Schedule(patch)));
    EXPECT_FALSE(r.allowed) << patch;
    EXPECT_EQ(r.code, 422) << patch;
    EXPECT_TRUE(absl::StrContains(r.message, want)) << r.message;
    EXPECT_TRUE(absl::StrContains(r.message, "EtcdBackupSchedule \"nightly\"")) << r.message;
  }
}

TEST(ValidateEtcdBackupScheduleTest, AllowsGoodSpecsUpdatesDeletesAndStatus) {
  const Json good = Schedule(R"({"keepLast": 7, "keepWithin": "168h"})");
  EXPECT_TRUE(ValidateEtcdBackupScheduleAdmission(Request("CREATE", good)).allowed);
  EXPECT_TRUE(ValidateEtcdBackupScheduleAdmission(Request("UPDATE", good)).allowed);
  const Json bad = Schedule(R"({"schedule": "nope"})");
  EXPECT_TRUE(ValidateEtcdBackupScheduleAdmission(Request("DELETE", bad)).allowed);
  EXPECT_TRUE(ValidateEtcdBackupScheduleAdmission(Request("UPDATE", bad, "status")).allowed);
}

}  // namespace
}  // namespace quorum::webhooks

// Admission parity with the aenix etcd-operator v0.4.5 for EtcdCluster: every
// case of its api/v1alpha1/etcdcluster_webhook_test.go, one row each named
// after the case (a suffix tells apart cases aenix names alike), run through
// Quorum's webhook handlers as the API server calls them (mutating, then
// validating). The expected outcome is aenix's; docs/aenix-compatibility.md
// lists the differences, and the rows that pin them say so. Also: every
// example manifest of aenix v0.4.5 is admitted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "api/etcdcluster_defaults.h"
#include "api/etcdcluster_types.h"
#include "test/examples/aenix_examples.h"
#include "test/unit/webhooks/aenix_admission.h"

namespace quorum::webhooks::aenix {
namespace {

constexpr char kSize[] = "spec.storage.volumeClaimTemplate.spec.resources.requests.storage";
constexpr char kPdb[] = "spec.podDisruptionBudgetTemplate.spec.";

// Defaulting: aenix's "When creating EtcdCluster under Defaulting Webhook".
TEST(AenixParityEtcdClusterTest, DefaultingFillsTheStorageOfAnEmptySpec) {
  // "Should fill in the default value if a required field is empty". aenix
  // leaves replicas to the CRD's default (3); Quorum's webhook writes the same 3.
  const Json spec = Mutated(Object("EtcdCluster", Json::object()))["spec"];
  EXPECT_FALSE(spec["storage"].contains("emptyDir"));
  EXPECT_EQ(spec["storage"]["volumeClaimTemplate"]["spec"]["resources"]["requests"]["storage"],
            "4Gi");
  EXPECT_EQ(spec["replicas"], 3);
}

TEST(AenixParityEtcdClusterTest, DefaultingDoesNotOverrideFieldsThatAreSet) {
  // "Should not override fields with default values if not empty".
  const Json spec = Json::parse(R"({"replicas": 5,
      "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": 2}},
      "storage": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
          "storageClassName": "local-path", "resources": {"requests": {"storage": "10Gi"}}}}}})");
  EXPECT_EQ(Mutated(Object("EtcdCluster", spec))["spec"], spec);
}

// aenix's Default() beyond its tests: a zero request (storage.IsZero()) is
// replaced by 4Gi, so the cluster is admitted.
TEST(AenixParityEtcdClusterTest, DefaultingGivesAZeroStorageRequestTheDefaultSize) {
  const Json obj = Object("EtcdCluster", Json::parse(R"({"storage": {"volumeClaimTemplate":
      {"spec": {"resources": {"requests": {"storage": "0"}}}}}})"));
  EXPECT_EQ(Mutated(obj)["spec"]["storage"]["volumeClaimTemplate"]["spec"]["resources"]["requests"],
            (Json{{"storage", "4Gi"}}));
  EXPECT_TRUE(AdmitEtcdCluster(obj).allowed);
}

struct ClusterCase {
  const char* name;      // aenix's case
  const char* old_spec;  // nullptr: CREATE
  const char* spec;
  Outcome want;
  const char* mention;  // refused: a part of the message; admitted: of a warning ("": none)
};

// aenix's "Validate Security" context starts from {replicas: 3, security: {}};
// "Validate PDB" from {replicas: 3, podDisruptionBudgetTemplate: {}}.
const ClusterCase kClusterCases[] = {
    {"Should admit if all required fields are provided", nullptr, R"({"replicas": 1})",
     Outcome::kAdmitted, ""},
    {"Should reject changing storage type", R"({"replicas": 1})",
     R"({"replicas": 1, "storage": {"emptyDir": {}}})", Outcome::kRefused, "spec.storage"},
    {"Should reject decreasing storage size",
     R"({"replicas": 1, "storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "10Gi"}}}}}})",
     R"({"replicas": 1, "storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "5Gi"}}}}}})",
     Outcome::kRefused, kSize},
    {"Should allow changing emptydir size",
     R"({"replicas": 1, "storage": {"emptyDir": {"sizeLimit": "10Gi"}}})",
     R"({"replicas": 1, "storage": {"emptyDir": {"sizeLimit": "4Gi"}}})", Outcome::kAdmitted, ""},
    // Validate Security.
    {"Should admit enabled empty security", nullptr, R"({"replicas": 3, "security": {}})",
     Outcome::kAdmitted, ""},
    {"Should reject if only one peer secret is defined (peerTrustedCASecret)", nullptr,
     R"({"replicas": 3, "security": {"tls": {"peerTrustedCASecret": "test-peer-ca-cert"}}})",
     Outcome::kRefused, "spec.security.tls.peerSecret"},
    {"Should reject if only one peer secret is defined (peerSecret)", nullptr,
     R"({"replicas": 3, "security": {"tls": {"peerSecret": "test-peer-cert"}}})", Outcome::kRefused,
     "spec.security.tls.peerTrustedCASecret"},
    {"Should reject if only one client secret is defined (first)", nullptr,
     R"({"replicas": 3, "security": {"tls": {"clientTrustedCASecret": "test-client-ca-cert"}}})",
     Outcome::kRefused, "spec.security.tls.clientSecret"},
    {"Should reject if only one client secret is defined (second)", nullptr,
     R"({"replicas": 3, "security": {"tls": {"clientTrustedCASecret": "test-client-cert"}}})",
     Outcome::kRefused, "spec.security.tls.clientSecret"},
    // Issue 35: Quorum also wanted serverTrustedCASecret here.
    {"Shouldn't reject if auth is enabled and security client certs are defined", nullptr,
     R"({"replicas": 3, "security": {"enableAuth": true, "tls": {
         "clientTrustedCASecret": "test-client-trusted-ca-cert",
         "clientSecret": "test-client-cert", "serverSecret": "test-server-cert"}}})",
     Outcome::kAdmitted, ""},
    {"Should reject if auth is enabled and one of client and server certs is defined (client)",
     nullptr,
     R"({"replicas": 3, "security": {"enableAuth": true, "tls": {
         "clientSecret": "test-client-cert", "clientTrustedCASecret": "test-client-trusted-ca-cert"}}})",
     Outcome::kRefused, "spec.security.enableAuth"},
    {"Should reject if auth is enabled and one of client and server certs is defined (server)",
     nullptr,
     R"({"replicas": 3, "security": {"enableAuth": true, "tls": {"serverSecret": "test-server-cert"}}})",
     Outcome::kRefused, "spec.security.enableAuth"},
    // Validate Bootstrap.
    {"Should admit cluster without bootstrap", nullptr, R"({"replicas": 3})", Outcome::kAdmitted,
     ""},
    {"Should admit valid bootstrap with PVC source", nullptr,
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {"pvc": {"claimName": "my-pvc", "subPath": "backup.db"}}}}})",
     Outcome::kAdmitted, ""},
    {"Should admit valid bootstrap with S3 source", nullptr,
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {"s3": {"endpoint": "https://s3.example.com",
         "bucket": "my-bucket", "key": "backup.db", "credentialsSecretRef": {"name": "creds"}}}}}})",
     Outcome::kAdmitted, ""},
    {"Should reject bootstrap with both S3 and PVC", nullptr,
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {"s3": {"endpoint": "e", "bucket": "b",
         "key": "k", "credentialsSecretRef": {"name": "c"}}, "pvc": {"claimName": "pvc"}}}}})",
     Outcome::kRefused, "spec.bootstrap.restore.source"},
    {"Should reject bootstrap with empty source", nullptr,
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {}}}})", Outcome::kRefused,
     "spec.bootstrap.restore.source"},
    {"Should reject update changing bootstrap",
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {"pvc": {"claimName": "old-pvc"}}}}})",
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {"pvc": {"claimName": "new-pvc"}}}}})",
     Outcome::kRefused, "immutable"},
    {"Should allow update not changing bootstrap",
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {"pvc": {"claimName": "same-pvc"}}}}})",
     R"({"replicas": 3, "bootstrap": {"restore": {"source": {"pvc": {"claimName": "same-pvc"}}}}})",
     Outcome::kAdmitted, ""},
    // Validate PDB.
    {"Should admit enabled empty PDB", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {}})", Outcome::kAdmitted, ""},
    {"Should reject if negative spec.podDisruptionBudget.minAvailable", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"minAvailable": -1}}})",
     Outcome::kRefused, "spec.podDisruptionBudgetTemplate.spec.minAvailable"},
    {"Should reject if negative spec.podDisruptionBudget.maxUnavailable", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": -1}}})",
     Outcome::kRefused, "spec.podDisruptionBudgetTemplate.spec.maxUnavailable"},
    {"Should reject if min available field larger than replicas", nullptr,
     R"({"replicas": 1, "podDisruptionBudgetTemplate": {"spec": {"minAvailable": 2}}})",
     Outcome::kRefused, "spec.podDisruptionBudgetTemplate.spec.minAvailable"},
    {"Should reject if max unavailable field larger than replicas", nullptr,
     R"({"replicas": 1, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": 2}}})",
     Outcome::kRefused, "spec.podDisruptionBudgetTemplate.spec.maxUnavailable"},
    {"should accept correct percentage value for minAvailable", nullptr,
     R"({"replicas": 4, "podDisruptionBudgetTemplate": {"spec": {"minAvailable": "50%"}}})",
     Outcome::kAdmitted, "spec.podDisruptionBudgetTemplate.spec.minAvailable"},
    {"should accept correct percentage value for maxUnavailable", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "50%"}}})",
     Outcome::kAdmitted, "spec.podDisruptionBudgetTemplate.spec.maxUnavailable"},
    {"Should reject incorrect value for maxUnavailable", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "50$"}}})",
     Outcome::kRefused, "spec.podDisruptionBudgetTemplate.spec.maxUnavailable"},
    {"should correctly use zero numeric value for maxUnavailable PDB", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": 0}}})",
     Outcome::kAdmitted, ""},
    // Issue 35: Quorum refused the string "0".
    {"should correctly use zero string value for PDB", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "0"}}})",
     Outcome::kAdmitted, ""},
    // aenix's webhook code beyond its tests: validateOptions and validatePdb.
    {"validateOptions: a flag the operator generates is refused", nullptr,
     R"({"options": {"data-dir": "/data"}})", Outcome::kRefused, "spec.options[data-dir]"},
    {"validateOptions: a flag with a leading dash is refused", nullptr,
     R"({"options": {"-debug": "true"}})", Outcome::kRefused, "spec.options[-debug]"},
    {"validatePdb: minAvailable and maxUnavailable together are refused", nullptr,
     R"({"podDisruptionBudgetTemplate": {"spec": {"minAvailable": 2, "maxUnavailable": 1}}})",
     Outcome::kRefused, kPdb},
    {"validatePdb: a count written as a string is read as that count", nullptr,
     R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"minAvailable": "4"}}})",
     Outcome::kRefused, "spec.podDisruptionBudgetTemplate.spec.minAvailable"},
};

TEST(AenixParityEtcdClusterTest, EveryValidatingCaseHasAenixsOutcome) {
  for (const ClusterCase& c : kClusterCases) {
    SCOPED_TRACE(c.name);
    const Json old =
        c.old_spec == nullptr ? Json() : Object("EtcdCluster", Json::parse(c.old_spec));
    const runtime::AdmissionResponse r =
        AdmitEtcdCluster(Object("EtcdCluster", Json::parse(c.spec)), old);
    EXPECT_EQ(Mismatch(r, c.want, c.mention), "");
    if (c.want == Outcome::kAdmitted && *c.mention != '\0') {
      EXPECT_TRUE(Warns(r, c.mention));
    }
  }
}

TEST(AenixParityEtcdClusterTest, EveryExampleManifestIsAdmitted) {
  for (const std::string& file : examples::AenixExampleFiles()) {
    SCOPED_TRACE(file);
    const Json example = examples::LoadAenixExample(file);
    ASSERT_TRUE(example.is_object());
    const runtime::AdmissionResponse r = AdmitEtcdCluster(example);
    EXPECT_TRUE(r.allowed) << r.message;
  }
}

// The full example sets both storage kinds: aenix uses emptyDir and ignores
// the template; Quorum does the same and says so.
TEST(AenixParityEtcdClusterTest, TheFullExampleWarnsThatItsVolumeClaimTemplateIsIgnored) {
  const runtime::AdmissionResponse r =
      AdmitEtcdCluster(examples::LoadAenixExample("etcdcluster-full.yaml"));
  ASSERT_TRUE(r.allowed) << r.message;
  EXPECT_TRUE(Warns(r, "spec.storage.volumeClaimTemplate: ignored")) << r.warnings.size();
  // Adding a template next to emptyDir later is no switch of the storage kind.
  const Json ephemeral = Object("EtcdCluster", Json::parse(R"({"storage": {"emptyDir": {}}})"));
  Json both = ephemeral;
  both["spec"]["storage"]["volumeClaimTemplate"] = {{"spec", {{"storageClassName", "gp3"}}}};
  EXPECT_TRUE(AdmitEtcdCluster(both, ephemeral).allowed);
}

// Issue 35: without the webhooks (make demo) an object gets only the CRD's
// defaults (spec {}, replicas 3, storage when absent); the parser then
// applies the rest of what the mutating webhook would have, so the cluster
// the reconciler builds is the same. test/integration/api/aenix_examples_test.cc
// does this against a real API server.
TEST(AenixParityEtcdClusterTest, ParsingWithoutTheWebhookGivesTheSameCluster) {
  for (const std::string& file : examples::AenixExampleFiles()) {
    SCOPED_TRACE(file);
    const Json example = examples::LoadAenixExample(file);
    Json schema_defaulted = example;
    Json& spec = schema_defaulted["spec"];
    if (!spec.contains("replicas")) spec["replicas"] = 3;
    if (!spec.contains("storage")) spec["storage"] = api::DefaultEtcdStorage();
    absl::StatusOr<api::EtcdCluster> unhooked = api::ParseEtcdCluster(schema_defaulted);
    absl::StatusOr<api::EtcdCluster> hooked = api::ParseEtcdCluster(Mutated(example));
    ASSERT_TRUE(unhooked.ok()) << unhooked.status();
    ASSERT_TRUE(hooked.ok()) << hooked.status();
    EXPECT_EQ(api::ToJson(unhooked->spec), api::ToJson(hooked->spec));
  }
  // storage: {} (the Kamaji example) is a 4Gi ReadWriteOnce claim per member.
  absl::StatusOr<api::EtcdCluster> kamaji =
      api::ParseEtcdCluster(examples::LoadAenixExample("etcdcluster-kamaji.yaml"));
  ASSERT_TRUE(kamaji.ok()) << kamaji.status();
  EXPECT_FALSE(kamaji->spec.storage.empty_dir.has_value());
  EXPECT_EQ(kamaji->spec.storage.volume_claim_template.spec,
            api::DefaultEtcdStorage()["volumeClaimTemplate"]["spec"]);
}

}  // namespace
}  // namespace quorum::webhooks::aenix

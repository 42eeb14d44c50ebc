// Every admission rule of API.md, table-driven: each invalid object is
// refused with an error naming the field, each valid variant is accepted.
#include "api/etcdcluster_validation.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "api/etcdcluster.h"
#include "api/etcdcluster_types.h"
#include "test/examples/examples.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

// The warnings as the webhook computes them: from the decoded, typed spec
// (none for an object that does not decode; validation refuses it).
std::vector<std::string> Warnings(const Json& obj) {
  absl::StatusOr<EtcdCluster> cluster = DecodeEtcdCluster(obj);
  return cluster.ok() ? EtcdClusterWarnings(cluster->spec) : std::vector<std::string>{};
}

// API.md's example manifest, as the mutating webhook leaves it.
// API.md's example manifest.
Json Example() { return examples::EtcdClusterDesignExample(); }

Json With(const char* merge_patch) {
  Json obj = Example();
  obj.merge_patch(Json::parse(merge_patch));
  return obj;
}

std::string Describe(const std::vector<FieldError>& errors) {
  return errors.empty() ? "(no errors)" : JoinFieldErrors(errors);
}

struct InvalidCase {
  const char* name;
  const char* patch;         // merge patch over Example()
  const char* field;         // the field an error must name
  const char* message_part;  // and a part of its message
};

class InvalidCreateTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidCreateTest, IsRefusedNamingTheField) {
  const InvalidCase& c = GetParam();
  const std::vector<FieldError> errors = ValidateEtcdCluster(With(c.patch), nullptr);
  bool found = false;
  for (const FieldError& e : errors) {
    found |= e.field == c.field && absl::StrContains(e.message, c.message_part);
  }
  EXPECT_TRUE(found) << "want " << c.field << ": ..." << c.message_part << "...; got "
                     << Describe(errors);
}

const InvalidCase kInvalid[] = {
    {"NegativeReplicas", R"({"spec": {"replicas": -1}})", "spec.replicas", "0 or more"},
    {"StringReplicas", R"({"spec": {"replicas": "3"}})", "spec.replicas", "whole number"},
    {"HugeReplicas", R"({"spec": {"replicas": 4294967296}})", "spec.replicas", "whole number"},
    // Issue 14: 50000000 members passed admission and made every reconcile
    // allocate per desired member until the operator ran out of memory.
    {"FiftyMillionReplicas", R"({"spec": {"replicas": 50000000}})", "spec.replicas", "at most 9"},
    {"TenReplicas", R"({"spec": {"replicas": 10}})", "spec.replicas", "at most 9"},
    {"OptionWithLeadingDashes", R"({"spec": {"options": {"--max-wals": "5"}}})",
     "spec.options[--max-wals]", "without the leading dashes"},
    {"OptionWithTrailingDash", R"({"spec": {"options": {"max-wals-": "5"}}})",
     "spec.options[max-wals-]", "must not start or end with '-'"},
    {"OptionUppercase", R"({"spec": {"options": {"Max-Wals": "5"}}})", "spec.options[Max-Wals]",
     "lowercase"},
    {"OptionEmptyKey", R"({"spec": {"options": {"": "5"}}})", "spec.options", "empty"},
    {"OptionNotAString", R"({"spec": {"options": {"max-wals": 5}}})", "spec.options[max-wals]",
     "must be a string"},
    {"ReservedDataDir", R"({"spec": {"options": {"data-dir": "/x"}}})", "spec.options[data-dir]",
     "spec.storage"},
    {"ReservedName", R"({"spec": {"options": {"name": "x"}}})", "spec.options[name]",
     "set by Quorum"},
    {"ReservedInitialClusterState", R"({"spec": {"options": {"initial-cluster-state": "new"}}})",
     "spec.options[initial-cluster-state]", "set by Quorum"},
    {"ReservedListenFamily", R"({"spec": {"options": {"listen-client-http-urls": "x"}}})",
     "spec.options[listen-client-http-urls]", "set by Quorum"},
    {"ReservedTlsFile", R"({"spec": {"options": {"peer-cert-file": "/c"}}})",
     "spec.options[peer-cert-file]", "spec.security.tls"},
    {"ReservedAutoTls", R"({"spec": {"options": {"auto-tls": "true"}}})", "spec.options[auto-tls]",
     "spec.security.tls"},
    {"ReservedDiscovery", R"({"spec": {"options": {"discovery-srv": "example.com"}}})",
     "spec.options[discovery-srv]", "set by Quorum"},
    {"NoStorageKind", R"({"spec": {"storage": {"volumeClaimTemplate": null}}})", "spec.storage",
     "either emptyDir"},
    {"StorageNotAnObject", R"({"spec": {"storage": "10Gi"}})", "spec.storage", "required"},
    {"UnparsableSize",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "ten gigs"}}}}}}})",
     "spec.storage.volumeClaimTemplate.spec.resources.requests.storage", "invalid quantity"},
    {"ZeroSize",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "0"}}}}}}})",
     "spec.storage.volumeClaimTemplate.spec.resources.requests.storage", "larger than 0"},
    {"MissingSize",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": null}}}}})",
     "spec.storage.volumeClaimTemplate.spec.resources.requests.storage", "required"},
    {"BadEmptyDirLimit",
     R"({"spec": {"storage": {"volumeClaimTemplate": null, "emptyDir": {"sizeLimit": "1 GB"}}}})",
     "spec.storage.emptyDir.sizeLimit", "invalid quantity"},
    {"BothBudgets", R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"minAvailable": 2}}}})",
     "spec.podDisruptionBudgetTemplate.spec.minAvailable", "mutually exclusive"},
    {"MinAvailableAboveReplicas",
     R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": null, "minAvailable": 4}}}})",
     "spec.podDisruptionBudgetTemplate.spec.minAvailable", "between 0 and spec.replicas (3)"},
    {"NegativeMinAvailable",
     R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": null, "minAvailable": -1}}}})",
     "spec.podDisruptionBudgetTemplate.spec.minAvailable", "percentage"},
    {"MinAvailableNotAPercentage",
     R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": null, "minAvailable": "two"}}}})",
     "spec.podDisruptionBudgetTemplate.spec.minAvailable", "\"two\""},
    {"MaxUnavailableOver100Percent",
     R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "150%"}}}})",
     "spec.podDisruptionBudgetTemplate.spec.maxUnavailable", "percentage"},
    {"MaxUnavailableAboveReplicas",
     R"({"spec": {"replicas": 1, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": 2}}}})",
     "spec.podDisruptionBudgetTemplate.spec.maxUnavailable", "between 0 and spec.replicas (1)"},
    {"PeerSecretWithoutCa", R"({"spec": {"security": {"tls": {"peerSecret": "peer"}}}})",
     "spec.security.tls.peerTrustedCASecret", "required when peerSecret is set"},
    {"PeerCaWithoutSecret", R"({"spec": {"security": {"tls": {"peerTrustedCASecret": "ca"}}}})",
     "spec.security.tls.peerSecret", "required when peerTrustedCASecret is set"},
    {"ClientSecretWithoutCa", R"({"spec": {"security": {"tls": {"clientSecret": "c"}}}})",
     "spec.security.tls.clientTrustedCASecret", "required when clientSecret is set"},
    {"AuthWithoutTls", R"({"spec": {"security": {"enableAuth": true}}})",
     "spec.security.enableAuth",
     "requires client and server TLS; set security.tls.managed: true (Quorum issues the "
     "certificates), or security.tls.clientSecret/clientTrustedCASecret and "
     "serverSecret (missing: clientSecret, serverSecret)"},
    {"AuthWithoutServerTls",
     R"({"spec": {"security": {"enableAuth": true, "tls": {"clientSecret": "c", "clientTrustedCASecret": "ca"}}}})",
     "spec.security.enableAuth", "(missing: serverSecret)"},
    {"ManagedWithASecret",
     R"({"spec": {"security": {"tls": {"managed": true, "serverSecret": "server"}}}})",
     "spec.security.tls.serverSecret", "cannot be set with managed: true"},
    {"BadSecretName", R"({"spec": {"security": {"tls": {"serverSecret": "Server_Cert"}}}})",
     "spec.security.tls.serverSecret", "not a valid Secret name"},
    {"ClusterNameStartsWithDigit", R"({"metadata": {"name": "1etcd"}})", "metadata.name",
     "starting with a letter"},
    {"ClusterNameTooLong",
     R"({"metadata": {"name": "a23456789012345678901234567890123456789012345678901234"}})",
     "metadata.name", "at most 52"},
    {"BadServiceName", R"({"spec": {"serviceTemplate": {"metadata": {"name": "Client"}}}})",
     "spec.serviceTemplate.metadata.name", "not a valid Service name"},
    {"SameServiceNames",
     R"({"spec": {"serviceTemplate": {"metadata": {"name": "etcd"}}, "headlessServiceTemplate": {"metadata": {"name": "etcd"}}}})",
     "spec.headlessServiceTemplate.metadata.name", "different names"},
    {"BadBudgetName",
     R"({"spec": {"podDisruptionBudgetTemplate": {"metadata": {"name": "-pdb"}}}})",
     "spec.podDisruptionBudgetTemplate.metadata.name", "not a valid object name"},
    {"NoSpec", R"({"spec": null})", "spec", "required"},
    {"SpecNotAnObject", R"({"spec": [1]})", "spec", "required"},
    // The etcd container's identity is Quorum's (issue 14.3).
    {"EtcdContainerCommand",
     R"({"spec": {"podTemplate": {"spec": {"containers": [{"name": "etcd", "command": ["sh"]}]}}}})",
     "spec.podTemplate.spec.containers[0].command", "spec.options"},
    {"EtcdContainerArgs",
     R"({"spec": {"podTemplate": {"spec": {"containers": [{"name": "side"}, {"name": "etcd", "args": ["--name=x"]}]}}}})",
     "spec.podTemplate.spec.containers[1].args", "spec.options"},
    {"EtcdContainerEnvFrom",
     R"({"spec": {"podTemplate": {"spec": {"containers": [{"name": "etcd", "envFrom": [{"configMapRef": {"name": "x"}}]}]}}}})",
     "spec.podTemplate.spec.containers[0].envFrom", "ETCD_"},
    {"EtcdContainerEtcdEnv",
     R"({"spec": {"podTemplate": {"spec": {"containers": [{"name": "etcd", "env": [{"name": "TZ", "value": "UTC"}, {"name": "ETCD_INITIAL_CLUSTER", "value": "x"}]}]}}}})",
     "spec.podTemplate.spec.containers[0].env[1].name", "spec.options"},
    // spec.networkPolicy (Quorum's extension): the peers become a
    // NetworkPolicy verbatim, so what the API server would refuse there is
    // refused here, with the PostgresCluster's rules (network_policy_peers.h).
    {"NetworkPolicyNotAnObject", R"({"spec": {"networkPolicy": true}})", "spec.networkPolicy",
     "must be an object"},
    {"NetworkPolicyEnabledNotABool", R"({"spec": {"networkPolicy": {"enabled": "no"}}})",
     "spec.networkPolicy.enabled", "true or false"},
    {"ClientFromNotAList", R"({"spec": {"networkPolicy": {"clientFrom": {"podSelector": {}}}}})",
     "spec.networkPolicy.clientFrom", "list of NetworkPolicy peers"},
    {"ClientFromEmptyPeer", R"({"spec": {"networkPolicy": {"clientFrom": [{}]}}})",
     "spec.networkPolicy.clientFrom[0]", "podSelector, namespaceSelector or ipBlock"},
    {"ClientFromIpBlockWithSelector",
     R"({"spec": {"networkPolicy": {"clientFrom": [{"namespaceSelector": {}, "ipBlock": {"cidr": "10.0.0.0/8"}}]}}})",
     "spec.networkPolicy.clientFrom[0].ipBlock", "cannot be combined"},
    {"ClientFromCidrWithHostBits",
     R"({"spec": {"networkPolicy": {"clientFrom": [{"podSelector": {}}, {"ipBlock": {"cidr": "10.1.2.3/8"}}]}}})",
     "spec.networkPolicy.clientFrom[1].ipBlock.cidr", "without host bits"},
    {"ClientFromExceptOutside",
     R"({"spec": {"networkPolicy": {"clientFrom": [{"ipBlock": {"cidr": "fd00::/8", "except": ["10.0.0.0/8"]}}]}}})",
     "spec.networkPolicy.clientFrom[0].ipBlock.except[0]", "strictly inside"},
    {"ClientFromBadLabelKey",
     R"({"spec": {"networkPolicy": {"clientFrom": [{"namespaceSelector": {"matchLabels": {"kamaji/": "x"}}}]}}})",
     "spec.networkPolicy.clientFrom[0].namespaceSelector.matchLabels[kamaji/]", "label key"},
    {"ClientFromExistsWithValues",
     R"({"spec": {"networkPolicy": {"clientFrom": [{"podSelector": {"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x"]}]}}]}}})",
     "spec.networkPolicy.clientFrom[0].podSelector.matchExpressions[0].values", "must be empty"},
};

INSTANTIATE_TEST_SUITE_P(Rules, InvalidCreateTest, ::testing::ValuesIn(kInvalid),
                         [](const auto& info) { return std::string(info.param.name); });

struct ValidCase {
  const char* name;
  const char* patch;
};

class ValidCreateTest : public ::testing::TestWithParam<ValidCase> {};

TEST_P(ValidCreateTest, IsAccepted) {
  EXPECT_EQ(Describe(ValidateEtcdCluster(With(GetParam().patch), nullptr)), "(no errors)");
}

const ValidCase kValid[] = {
    {"TheExample", "{}"},
    {"EtcdContainerResourcesAndOtherEnvAndASidecarWithACommand",
     R"({"spec": {"podTemplate": {"spec": {"containers": [{"name": "etcd", "image": "e", "env": [{"name": "GOMAXPROCS", "value": "2"}]}, {"name": "side", "command": ["sh"], "envFrom": [{"secretRef": {"name": "s"}}], "env": [{"name": "ETCD_X", "value": "y"}]}]}}}})"},
    {"ScaledToZero", R"({"spec": {"replicas": 0, "podDisruptionBudgetTemplate": null}})"},
    {"ScaledToZeroWithAPercentageBudget",
     R"({"spec": {"replicas": 0, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "50%"}}}})"},
    {"EmptyDir",
     R"({"spec": {"storage": {"volumeClaimTemplate": null, "emptyDir": {"sizeLimit": "1Gi"}}}})"},
    {"IntegerSize",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": 10737418240}}}}}}})"},
    {"PercentBudget",
     R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "34%"}}}})"},
    {"EmptyBudget",
     R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": null}}}})"},
    {"BareFlag",
     R"({"spec": {"options": {"enable-pprof": "", "quota-backend-bytes": "8589934592"}}})"},
    {"FullTlsAndAuth", R"({"spec": {"security": {"enableAuth": true, "tls": {
        "peerTrustedCASecret": "peer-ca", "peerSecret": "peer",
        "serverTrustedCASecret": "server-ca", "serverSecret": "server",
        "clientTrustedCASecret": "client-ca", "clientSecret": "client"}}}})"},
    // aenix v0.4.5 admits these (docs/aenix-compatibility.md).
    {"BothStorageKindsEmptyDirWins", R"({"spec": {"storage": {"emptyDir": {}}}})"},
    {"ZeroBudgetAsAString",
     R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "0"}}}})"},
    {"AuthWithoutServerTrustedCa", R"({"spec": {"security": {"enableAuth": true, "tls": {
        "serverSecret": "server", "clientTrustedCASecret": "client-ca",
        "clientSecret": "client"}}}})"},
    {"ManagedTlsAndAuth",
     R"({"spec": {"security": {"enableAuth": true, "tls": {"managed": true}}}})"},
    {"EmptySecretNamesMeanUnset",
     R"({"spec": {"security": {"tls": {"peerSecret": "", "clientSecret": ""}}}})"},
    {"RenamedServices",
     R"({"spec": {"serviceTemplate": {"metadata": {"name": "etcd-client"}}, "headlessServiceTemplate": {"metadata": {"name": "etcd-peers"}}}})"},
    {"GeneratedName", R"({"metadata": {"name": null, "generateName": "etcd-"}})"},
    {"NetworkPolicyOff", R"({"spec": {"networkPolicy": {"enabled": false}}})"},
    {"ClientFromNobodyElse", R"({"spec": {"networkPolicy": {"clientFrom": []}}})"},
    {"ClientFromKamajiTenantsAndARange",
     R"({"spec": {"networkPolicy": {"clientFrom": [
        {"namespaceSelector": {"matchExpressions": [{"key": "tenant", "operator": "Exists"}]},
         "podSelector": {"matchLabels": {"kamaji.clastix.io/name": "tcp"}}},
        {"podSelector": {"matchLabels": {"app": "web"}}},
        {"ipBlock": {"cidr": "10.20.0.0/16", "except": ["10.20.1.0/24"]}}]}}})"},
};

INSTANTIATE_TEST_SUITE_P(Rules, ValidCreateTest, ::testing::ValuesIn(kValid),
                         [](const auto& info) { return std::string(info.param.name); });

struct UpdateCase {
  const char* name;
  const char* old_patch;
  const char* new_patch;
  const char* field;  // nullptr: the update is allowed
  const char* message_part;
};

class UpdateTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(UpdateTest, FollowsTheImmutabilityRules) {
  const UpdateCase& c = GetParam();
  const Json old_obj = With(c.old_patch);
  const std::vector<FieldError> errors = ValidateEtcdCluster(With(c.new_patch), &old_obj);
  if (c.field == nullptr) {
    EXPECT_EQ(Describe(errors), "(no errors)");
    return;
  }
  bool found = false;
  for (const FieldError& e : errors) {
    found |= e.field == c.field && absl::StrContains(e.message, c.message_part);
  }
  EXPECT_TRUE(found) << "want " << c.field << "; got " << Describe(errors);
}

constexpr char kEmptyDir[] =
    R"({"spec": {"storage": {"volumeClaimTemplate": null, "emptyDir": {}}}})";
constexpr char kSize[] = "spec.storage.volumeClaimTemplate.spec.resources.requests.storage";

constexpr char kPeerTls[] =
    R"({"spec": {"security": {"tls": {"peerSecret": "peer", "peerTrustedCASecret": "ca"}}}})";
constexpr char kServerTls[] =
    R"({"spec": {"security": {"tls": {"serverSecret": "srv", "serverTrustedCASecret": "ca"}}}})";
constexpr char kAllTls[] =
    R"({"spec": {"security": {"tls": {"serverSecret": "srv", "serverTrustedCASecret": "ca",
        "clientSecret": "cli", "clientTrustedCASecret": "ca"}}}})";
constexpr char kAuth[] =
    R"({"spec": {"security": {"enableAuth": true, "tls": {"serverSecret": "srv",
        "serverTrustedCASecret": "ca", "clientSecret": "cli", "clientTrustedCASecret": "ca"}}}})";

const UpdateCase kUpdates[] = {
    {"EmptyDirToPvc", kEmptyDir, "{}", "spec.storage", "cannot switch"},
    {"PvcToEmptyDir", "{}", kEmptyDir, "spec.storage", "keep volumeClaimTemplate"},
    // aenix: emptyDir wins when both are set, so adding a template keeps emptyDir.
    {"AddingAPvcNextToEmptyDir", kEmptyDir, R"({"spec": {"storage": {"emptyDir": {}}}})", nullptr,
     nullptr},
    {"Shrinking", "{}",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "5Gi"}}}}}}})",
     kSize, "cannot shrink from 10Gi to 5Gi"},
    {"ShrinkingByAByte", "{}",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": 10737418239}}}}}}})",
     kSize, "cannot shrink"},
    {"Growing", "{}",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "20Gi"}}}}}}})",
     nullptr, nullptr},
    {"SameSizeOtherUnit", "{}",
     R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "10240Mi"}}}}}}})",
     nullptr, nullptr},
    {"ScalingToZeroAndBack", R"({"spec": {"replicas": 0, "podDisruptionBudgetTemplate": null}})",
     R"({"spec": {"replicas": 5}})", nullptr, nullptr},
    {"EmptyDirStaysEmptyDir", kEmptyDir,
     R"({"spec": {"replicas": 5, "storage": {"volumeClaimTemplate": null, "emptyDir": {"medium": "Memory"}}}})",
     nullptr, nullptr},
    // Security settings a running cluster cannot switch in place.
    {"AddingPeerTls", "{}", kPeerTls, "spec.security.tls.peerSecret",
     "cannot be turned on or off in a running cluster"},
    {"RemovingPeerTls", kPeerTls, "{}", "spec.security.tls.peerSecret", "restore a snapshot"},
    {"RenamingThePeerSecret", kPeerTls,
     R"({"spec": {"security": {"tls": {"peerSecret": "peer-2", "peerTrustedCASecret": "ca"}}}})",
     nullptr, nullptr},
    {"AddingServerTls", "{}", kServerTls, "spec.security.tls.serverSecret",
     "between http:// and https://"},
    {"TurningAuthOff", kAuth, kAllTls, "spec.security.enableAuth", "cannot be turned off"},
    {"TurningAuthOn", kAllTls, kAuth, nullptr, nullptr},
    {"TurningManagedOn", "{}", R"({"spec": {"security": {"tls": {"managed": true}}}})",
     "spec.security.tls.managed", "cannot change in a running cluster"},
    {"FromOwnSecretsToManaged", kAllTls, R"({"spec": {"security": {"tls": {"managed": true}}}})",
     "spec.security.tls.managed", "stop trusting each other"},
    {"ManagedTurningAuthOn", R"({"spec": {"security": {"tls": {"managed": true}}}})",
     R"({"spec": {"security": {"enableAuth": true, "tls": {"managed": true}}}})", nullptr, nullptr},
    // An object stored before a rule existed stays writable (finalizers,
    // labels) as long as its spec does not change.
    {"UnchangedInvalidSpec", R"({"spec": {"options": {"data-dir": "/x"}}})",
     R"({"metadata": {"finalizers": ["etcd.aenix.io/members"]}, "spec": {"options": {"data-dir": "/x"}}})",
     nullptr, nullptr},
};

INSTANTIATE_TEST_SUITE_P(Rules, UpdateTest, ::testing::ValuesIn(kUpdates),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(EtcdClusterValidationTest, AtMost64ClientPeers) {
  Json obj = Example();
  Json peers = Json::array();
  for (int i = 0; i < 64; ++i) peers.push_back({{"ipBlock", {{"cidr", "10.0.0.0/8"}}}});
  obj["spec"]["networkPolicy"] = {{"clientFrom", peers}};
  EXPECT_EQ(Describe(ValidateEtcdCluster(obj, nullptr)), "(no errors)");
  obj["spec"]["networkPolicy"]["clientFrom"].push_back(peers[0]);
  EXPECT_EQ(Describe(ValidateEtcdCluster(obj, nullptr)),
            "spec.networkPolicy.clientFrom: has 65 peers; at most 64");
}

TEST(EtcdClusterValidationTest, ReportsEveryErrorAtOnce) {
  const std::vector<FieldError> errors = ValidateEtcdCluster(
      With(
          R"({"spec": {"replicas": -2, "options": {"name": "x"}, "security": {"enableAuth": true}}})"),
      nullptr);
  EXPECT_EQ(errors.size(), 3u) << Describe(errors);
}

TEST(EtcdClusterValidationTest, NeverThrowsOnOddJson) {
  for (const char* text :
       {"null", "5", "[]", R"({"spec": {"storage": {"emptyDir": 5}}})",
        R"({"spec": {"podDisruptionBudgetTemplate": 1, "security": "x"}})",
        R"({"metadata": 1, "spec": {"serviceTemplate": {"metadata": 2}}})",
        R"({"spec": {"security": {"tls": {"peerSecret": 7}, "enableAuth": "yes"}}})"}) {
    const Json obj = Json::parse(text);
    EXPECT_NO_THROW(ValidateEtcdCluster(obj, nullptr)) << text;
    EXPECT_NO_THROW(ValidateEtcdCluster(obj, &obj)) << text;
    EXPECT_NO_THROW(Warnings(obj)) << text;
  }
}

TEST(EtcdClusterWarningsTest, WarnsWhenTheBudgetCanLoseQuorum) {
  auto warnings = [](const char* patch) { return Warnings(With(patch)); };
  EXPECT_TRUE(warnings("{}").empty());  // maxUnavailable 1 of 3 keeps 2 = quorum
  auto min1 = warnings(
      R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": null, "minAvailable": 1}}}})");
  ASSERT_EQ(min1.size(), 1u);
  EXPECT_TRUE(absl::StrContains(min1[0], "spec.podDisruptionBudgetTemplate.spec.minAvailable"));
  EXPECT_TRUE(absl::StrContains(min1[0], "quorum of 2"));
  auto max2 =
      warnings(R"({"spec": {"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": 2}}}})");
  ASSERT_EQ(max2.size(), 1u);
  EXPECT_TRUE(absl::StrContains(max2[0], "use at most 1"));
  // 50% of 5 rounds up to 3 unavailable: 2 left < quorum 3.
  EXPECT_EQ(
      warnings(
          R"({"spec": {"replicas": 5, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "50%"}}}})")
          .size(),
      1u);
  // 60% of 5 rounds up to 3 available = quorum.
  EXPECT_TRUE(
      warnings(
          R"({"spec": {"replicas": 5, "podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": null, "minAvailable": "60%"}}}})")
          .empty());
  EXPECT_TRUE(
      warnings(R"({"spec": {"replicas": 0, "podDisruptionBudgetTemplate": null}})").empty());
}

TEST(EtcdClusterWarningsTest, WarnsAboutEvenMembersAndTlsWithoutEffect) {
  auto even = Warnings(With(R"({"spec": {"replicas": 4}})"));
  ASSERT_FALSE(even.empty());
  EXPECT_TRUE(absl::StrContains(even[0], "spec.replicas"));
  auto tls = Warnings(With(
      R"({"spec": {"security": {"tls": {"clientSecret": "c", "clientTrustedCASecret": "ca"}}}})"));
  ASSERT_EQ(tls.size(), 1u);
  EXPECT_TRUE(absl::StrContains(tls[0], "spec.security.tls.clientTrustedCASecret"));
}

TEST(EtcdClusterNamesTest, ReservedOptionsAreSortedAndRecognised) {
  auto reserved = ReservedEtcdOptions();
  EXPECT_TRUE(std::is_sorted(reserved.begin(), reserved.end()));
  for (std::string_view key : reserved) EXPECT_TRUE(IsReservedEtcdOption(key)) << key;
  for (const char* key :
       {"name", "data-dir", "initial-cluster", "initial-cluster-token", "listen-peer-urls",
        "advertise-client-urls", "trusted-ca-file", "discovery-token", "listen-anything"}) {
    EXPECT_TRUE(IsReservedEtcdOption(key)) << key;
  }
  for (const char* key : {"election-timeout", "max-wals", "quota-backend-bytes",
                          "auto-compaction-retention", "log-level", "names"}) {
    EXPECT_FALSE(IsReservedEtcdOption(key)) << key;
  }
}

TEST(EtcdClusterNamesTest, KubernetesNameRules) {
  EXPECT_TRUE(IsDns1035Label("etcd-0"));
  EXPECT_FALSE(IsDns1035Label("0etcd"));
  EXPECT_FALSE(IsDns1035Label("etcd-"));
  EXPECT_FALSE(IsDns1035Label(std::string(64, 'a')));
  EXPECT_TRUE(IsDns1123Subdomain("tls.etcd-0"));
  EXPECT_TRUE(IsDns1123Subdomain("0tls"));
  EXPECT_FALSE(IsDns1123Subdomain("tls..x"));
  EXPECT_FALSE(IsDns1123Subdomain("Tls"));
  EXPECT_FALSE(IsDns1123Subdomain(""));
}

TEST(EtcdClusterNamesTest, ResolvesBudgetsLikeTheDisruptionController) {
  int n = -1;
  EXPECT_TRUE(ResolveIntOrPercent(Json(2), 5, n));
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(ResolveIntOrPercent(Json("50%"), 5, n));
  EXPECT_EQ(n, 3);
  EXPECT_TRUE(ResolveIntOrPercent(Json("0%"), 5, n));
  EXPECT_EQ(n, 0);
  EXPECT_TRUE(ResolveIntOrPercent(Json("100%"), 3, n));
  EXPECT_EQ(n, 3);
  // A string of digits counts as that number, as aenix's intstr.IntValue reads it.
  EXPECT_TRUE(ResolveIntOrPercent(Json("0"), 5, n));
  EXPECT_EQ(n, 0);
  EXPECT_TRUE(ResolveIntOrPercent(Json("2"), 5, n));
  EXPECT_EQ(n, 2);
  for (const Json& bad : {Json("101%"), Json("%"), Json("-5"), Json("2 "), Json("-5%"), Json(-1),
                          Json(1.5), Json(nullptr)}) {
    EXPECT_FALSE(ResolveIntOrPercent(bad, 5, n)) << bad.dump();
  }
}

}  // namespace
}  // namespace quorum::api

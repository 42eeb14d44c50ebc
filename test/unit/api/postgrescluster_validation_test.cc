// Every PostgresCluster admission rule, table-driven: each invalid object is
// refused with an error naming the field, each valid variant is accepted,
// and updates follow the immutability rules.
#include "api/postgrescluster_validation.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "api/postgrescluster_defaults.h"
#include "api/postgrescluster_types.h"
#include "test/examples/examples.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

// The warnings as the webhook computes them: from the decoded, typed spec
// (none for an object that does not decode; validation refuses it).
std::vector<std::string> Warnings(const Json& obj) {
  absl::StatusOr<PostgresCluster> cluster = DecodePostgresCluster(obj);
  return cluster.ok() ? PostgresClusterWarnings(cluster->spec) : std::vector<std::string>{};
}

// API.md's example manifest (etcd DCS through clusterRef), as the mutating
// webhook leaves it — except podAPIAccess, whose default follows dcs.type,
// which the cases below change (issue 15.4).
Json Example() {
  Json obj = examples::PostgresClusterDesignExample();
  DefaultPostgresCluster(obj);
  obj["spec"]["patroni"].erase("podAPIAccess");
  return obj;
}

Json With(const char* merge_patch) {
  Json obj = Example();
  obj.merge_patch(Json::parse(merge_patch));
  return obj;
}

std::string Describe(const std::vector<FieldError>& errors) {
  return errors.empty() ? "(no errors)" : JoinFieldErrors(errors);
}

bool HasError(const std::vector<FieldError>& errors, const std::string& field,
              const std::string& message_part) {
  for (const FieldError& e : errors) {
    if (e.field == field && absl::StrContains(e.message, message_part)) return true;
  }
  return false;
}

struct InvalidCase {
  const char* name;
  const char* patch;         // merge patch over Example()
  const char* field;         // the field an error must name
  const char* message_part;  // and a part of its message
};

class PostgresInvalidCreateTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(PostgresInvalidCreateTest, IsRefusedNamingTheField) {
  const InvalidCase& c = GetParam();
  const std::vector<FieldError> errors = ValidatePostgresCluster(With(c.patch), nullptr);
  EXPECT_TRUE(HasError(errors, c.field, c.message_part))
      << "want " << c.field << ": ..." << c.message_part << "...; got " << Describe(errors);
}

// Switch the example to the kubernetes DCS / to etcd endpoints.
#define KUBERNETES_DCS R"("dcs": {"type": "kubernetes", "etcd": null})"
// A valid pgBackRest repository.
#define REPO1 \
  R"({"name": "repo1", "s3": {"bucket": "backups", "endpoint": "s3.eu-west-1.amazonaws.com", "region": "eu-west-1"}})"
#define ENDPOINTS(list) R"("dcs": {"etcd": {"clusterRef": null, "endpoints": )" list "}}"

const InvalidCase kInvalid[] = {
    {"VersionTooOld", R"({"spec": {"postgresVersion": 12}})", "spec.postgresVersion",
     "13 to 18 (got 12)"},
    {"VersionTooNew", R"({"spec": {"postgresVersion": 19}})", "spec.postgresVersion", "13 to 18"},
    {"VersionAsString", R"({"spec": {"postgresVersion": "17"}})", "spec.postgresVersion",
     "13 to 18"},
    {"VersionMissing", R"({"spec": {"postgresVersion": null}})", "spec.postgresVersion",
     "required"},
    {"ImageNotAString", R"({"spec": {"image": 5}})", "spec.image", "must be a string"},
    {"NoInstanceSets", R"({"spec": {"instances": []}})", "spec.instances", "at least one"},
    {"InstancesMissing", R"({"spec": {"instances": null}})", "spec.instances", "required"},
    {"DuplicateInstanceSetNames",
     R"({"spec": {"instances": [{"name": "main", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}, {"name": "main", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})",
     "spec.instances[1].name", "duplicate \"main\""},
    {"InstanceSetNameNotADnsLabel",
     R"({"spec": {"instances": [{"name": "Main", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})",
     "spec.instances[0].name", "not a valid instance set name"},
    {"StatefulSetNameTooLong",
     R"({"spec": {"instances": [{"name": "a2345678901234567890123456789012345678901234567", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})",
     "spec.instances[0].name", "53 characters, more than 52"},
    {"NegativeReplicas",
     R"({"spec": {"instances": [{"name": "main", "replicas": -1, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})",
     "spec.instances[0].replicas", "0 or more"},
    {"FiftyMillionReplicas",
     R"({"spec": {"instances": [{"name": "main", "replicas": 50000000, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})",
     "spec.instances[0].replicas", "at most 32"},
    {"NoDataVolume", R"({"spec": {"instances": [{"name": "main"}]}})",
     "spec.instances[0].dataVolumeClaimSpec", "required"},
    {"NoStorageRequest",
     R"({"spec": {"instances": [{"name": "main", "dataVolumeClaimSpec": {"accessModes": ["ReadWriteOnce"]}}]}})",
     "spec.instances[0].dataVolumeClaimSpec.resources.requests.storage", "required"},
    {"ZeroStorage",
     R"({"spec": {"instances": [{"name": "main", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "0"}}}}]}})",
     "spec.instances[0].dataVolumeClaimSpec.resources.requests.storage", "larger than 0"},
    {"UnparsableStorage",
     R"({"spec": {"instances": [{"name": "main", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "ten gigs"}}}}]}})",
     "spec.instances[0].dataVolumeClaimSpec.resources.requests.storage", "invalid quantity"},
    {"LeaseTooShort", R"({"spec": {"patroni": {"leaderLeaseDurationSeconds": 19}}})",
     "spec.patroni.leaderLeaseDurationSeconds", "at least 20"},
    {"TimingsInconsistent",
     R"({"spec": {"patroni": {"leaderLeaseDurationSeconds": 25, "syncPeriodSeconds": 10, "retryTimeoutSeconds": 10}}})",
     "spec.patroni.leaderLeaseDurationSeconds", "(10 + 2*10 = 30) must not exceed"},
    {"ZeroSyncPeriod", R"({"spec": {"patroni": {"syncPeriodSeconds": 0}}})",
     "spec.patroni.syncPeriodSeconds", "at least 1"},
    {"ZeroRetryTimeout", R"({"spec": {"patroni": {"retryTimeoutSeconds": 0}}})",
     "spec.patroni.retryTimeoutSeconds", "at least 1"},
    {"DynamicConfigurationNotAnObject", R"({"spec": {"patroni": {"dynamicConfiguration": "x"}}})",
     "spec.patroni.dynamicConfiguration", "must be an object"},
    {"UnknownDcsType", R"({"spec": {"patroni": {"dcs": {"type": "consul"}}}})",
     "spec.patroni.dcs.type", "kubernetes or etcd"},
    {"EtcdWithoutItsBlock", R"({"spec": {"patroni": {"dcs": {"etcd": null}}}})",
     "spec.patroni.dcs.etcd", "required for dcs.type etcd"},
    {"KubernetesWithAnEtcdBlock", R"({"spec": {"patroni": {"dcs": {"type": "kubernetes"}}}})",
     "spec.patroni.dcs.etcd", "only for dcs.type etcd"},
    {"EndpointsAndClusterRef",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"endpoints": ["https://e:2379"]}}}}})",
     "spec.patroni.dcs.etcd", "not both"},
    {"NeitherEndpointsNorClusterRef",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": null}}}}})", "spec.patroni.dcs.etcd",
     "exactly one of endpoints"},
    {"EightEndpoints",
     R"({"spec": {"patroni": {)" ENDPOINTS(
         R"(["http://a", "http://b", "http://c", "http://d", "http://e", "http://f", "http://g", "http://h"])") "}}}",
     "spec.patroni.dcs.etcd.endpoints", "at most 7"},
    {"MixedSchemes",
     R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://a:2379", "http://b:2379"])") "}}}",
     "spec.patroni.dcs.etcd.endpoints", "mixes http:// and https://"},
    {"EndpointWithAPath", R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://a:2379/v3"])") "}}}",
     "spec.patroni.dcs.etcd.endpoints[0]", "not an etcd URL"},
    {"EndpointWithAnotherScheme", R"({"spec": {"patroni": {)" ENDPOINTS(R"(["etcd://a"])") "}}}",
     "spec.patroni.dcs.etcd.endpoints[0]", "not an etcd URL"},
    {"EndpointPortOutOfRange",
     R"({"spec": {"patroni": {)" ENDPOINTS(R"(["http://a", "http://b:70000"])") "}}}",
     "spec.patroni.dcs.etcd.endpoints[1]", "not an etcd URL"},
    {"DuplicateEndpoints",
     R"({"spec": {"patroni": {)" ENDPOINTS(R"(["http://a:2379", "http://a:2379"])") "}}}",
     "spec.patroni.dcs.etcd.endpoints[1]", "duplicate"},
    {"TlsSecretWithHttp",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": null, "endpoints": ["http://a:2379"], "tlsSecret": "etcd-tls"}}}}})",
     "spec.patroni.dcs.etcd.tlsSecret", "needs https:// endpoints"},
    {"TlsSecretWithClusterRef",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"tlsSecret": "etcd-tls"}}}}})",
     "spec.patroni.dcs.etcd.tlsSecret", "cannot be used with clusterRef"},
    {"AuthSecretWithClusterRef",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"authSecret": "etcd-auth"}}}}})",
     "spec.patroni.dcs.etcd.authSecret", "cannot be used with clusterRef"},
    {"BadSecretName",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": null, "endpoints": ["https://a:2379"], "tlsSecret": "Etcd_TLS"}}}}})",
     "spec.patroni.dcs.etcd.tlsSecret", "not a valid Secret name"},
    {"EmptyClusterRefName",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": {"name": ""}}}}}})",
     "spec.patroni.dcs.etcd.clusterRef.name", "not a valid EtcdCluster name"},
    {"BadKeyPrefix", R"({"spec": {"patroni": {"dcs": {"etcd": {"namespace": "a b"}}}}})",
     "spec.patroni.dcs.etcd.namespace", "only letters"},
    {"NoPodApiAccessWithTheKubernetesDcs",
     R"({"spec": {"patroni": {"podAPIAccess": false, )" KUBERNETES_DCS "}}}",
     "spec.patroni.podAPIAccess", "needs the etcd DCS"},
    {"NoPodApiAccessWithAnAbsentDcs",
     R"({"spec": {"patroni": {"podAPIAccess": false, "dcs": null}}})", "spec.patroni.podAPIAccess",
     "needs the etcd DCS"},
    {"FailoverWithoutTarget",
     R"({"spec": {"patroni": {"switchover": {"enabled": true, "type": "Failover"}}}})",
     "spec.patroni.switchover.targetInstance", "required for type Failover"},
    {"UnknownSwitchoverType", R"({"spec": {"patroni": {"switchover": {"type": "Restart"}}}})",
     "spec.patroni.switchover.type", "Switchover or Failover"},
    {"UserNamedPostgres", R"({"spec": {"users": [{"name": "postgres"}]}})", "spec.users[0].name",
     "Quorum's own roles"},
    {"UserNamedReplicator", R"({"spec": {"users": [{"name": "replicator"}]}})",
     "spec.users[0].name", "Quorum's own roles"},
    {"UserWithPgPrefix", R"({"spec": {"users": [{"name": "pg_app"}]}})", "spec.users[0].name",
     "reserved by PostgreSQL"},
    {"UppercaseUser", R"({"spec": {"users": [{"name": "App"}]}})", "spec.users[0].name",
     "not a valid role name"},
    {"UserStartingWithADigit", R"({"spec": {"users": [{"name": "1app"}]}})", "spec.users[0].name",
     "not a valid role name"},
    {"DuplicateUsers", R"({"spec": {"users": [{"name": "app"}, {"name": "app"}]}})",
     "spec.users[1].name", "duplicate"},
    {"DatabaseWithADash", R"({"spec": {"users": [{"name": "app", "databases": ["my-db"]}]}})",
     "spec.users[0].databases[0]", "not a valid database name"},
    {"TemplateDatabase", R"({"spec": {"users": [{"name": "app", "databases": ["template1"]}]}})",
     "spec.users[0].databases[0]", "templates"},
    {"DuplicateDatabase", R"({"spec": {"users": [{"name": "app", "databases": ["a", "a"]}]}})",
     "spec.users[0].databases[1]", "duplicate"},
    {"SuperuserOption", R"({"spec": {"users": [{"name": "app", "options": ["SUPERUSER"]}]}})",
     "spec.users[0].options[0]", "not an allowed role attribute"},
    {"ContradictingOptions",
     R"({"spec": {"users": [{"name": "app", "options": ["LOGIN", "NOLOGIN"]}]}})",
     "spec.users[0].options", "LOGIN and NOLOGIN contradict"},
    {"CreateRoleBefore16",
     R"({"spec": {"postgresVersion": 15, "users": [{"name": "app", "options": ["CREATEROLE"]}]}})",
     "spec.users[0].options[0]", "postgresVersion 16 or later"},
    {"UnknownServiceType", R"({"spec": {"service": {"type": "ExternalName"}}})",
     "spec.service.type", "ClusterIP, NodePort or LoadBalancer"},
    {"ClusterNameTooLong",
     R"({"metadata": {"name": "a23456789012345678901234567890123456789012345678901"}})",
     "metadata.name", "at most 50"},
    {"ClusterNameStartsWithADigit", R"({"metadata": {"name": "1hippo"}})", "metadata.name",
     "starting with a letter"},
    {"NoSpec", R"({"spec": null})", "spec", "required"},
    {"SpecNotAnObject", R"({"spec": [1]})", "spec", "required"},
    {"TlsCustomAndCaSecret", R"({"spec": {"tls": {"customSecret": "mine", "caSecret": "my-ca"}}})",
     "spec.tls.caSecret", "cannot be combined with spec.tls.customSecret"},
    {"TlsBadSecretName", R"({"spec": {"tls": {"customSecret": "Not_A_Name"}}})",
     "spec.tls.customSecret", "not a valid Secret name"},
    {"TlsNotAnObject", R"({"spec": {"tls": "on"}})", "spec.tls", "must be an object"},
    {"TlsPlaintextNotABool", R"({"spec": {"tls": {"allowPlaintext": "yes"}}})",
     "spec.tls.allowPlaintext", "true or false"},
    {"NetworkPolicyNotABool", R"({"spec": {"networkPolicy": {"enabled": 1}}})",
     "spec.networkPolicy.enabled", "true or false"},
    {"PostgresFromNotAList",
     R"({"spec": {"networkPolicy": {"postgresFrom": {"podSelector": {}}}}})",
     "spec.networkPolicy.postgresFrom", "list of NetworkPolicy peers"},
    {"PostgresFromEmptyPeer", R"({"spec": {"networkPolicy": {"postgresFrom": [{}]}}})",
     "spec.networkPolicy.postgresFrom[0]", "podSelector, namespaceSelector or ipBlock"},
    {"PostgresFromIpBlockWithSelector",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"podSelector": {}, "ipBlock": {"cidr": "10.0.0.0/8"}}]}}})",
     "spec.networkPolicy.postgresFrom[0].ipBlock", "cannot be combined"},
    {"PostgresFromBadCidr",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"ipBlock": {"cidr": "10.0.0.300/8"}}]}}})",
     "spec.networkPolicy.postgresFrom[0].ipBlock.cidr", "must be a CIDR"},
    {"PostgresFromCidrWithHostBits",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"ipBlock": {"cidr": "10.1.2.3/8"}}]}}})",
     "spec.networkPolicy.postgresFrom[0].ipBlock.cidr", "without host bits"},
    {"PostgresFromExceptOutside",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16", "192.168.0.0/16"]}}]}}})",
     "spec.networkPolicy.postgresFrom[0].ipBlock.except[1]", "strictly inside"},
    {"PostgresFromBadLabelKey",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"podSelector": {"matchLabels": {"-app": "web"}}}]}}})",
     "spec.networkPolicy.postgresFrom[0].podSelector.matchLabels[-app]", "label key"},
    {"PostgresFromBadLabelValue",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"namespaceSelector": {"matchLabels": {"team": "a b"}}}]}}})",
     "spec.networkPolicy.postgresFrom[0].namespaceSelector.matchLabels[team]", "label value"},
    {"PostgresFromBadOperator",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"podSelector": {"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["web"]}]}}]}}})",
     "spec.networkPolicy.postgresFrom[0].podSelector.matchExpressions[0].operator",
     "In, NotIn, Exists or DoesNotExist"},
    {"PostgresFromInWithoutValues",
     R"({"spec": {"networkPolicy": {"postgresFrom": [{"podSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}]}}})",
     "spec.networkPolicy.postgresFrom[0].podSelector.matchExpressions[0].values",
     "must not be empty"},
    {"PgBackRestWithoutRepos", R"({"spec": {"backups": {"pgbackrest": {}}}})",
     "spec.backups.pgbackrest.repos", "required"},
    {"PgBackRestEmptyRepos", R"({"spec": {"backups": {"pgbackrest": {"repos": []}}}})",
     "spec.backups.pgbackrest.repos", "1 to 4"},
    {"PgBackRestRepoName",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)"
     R"({"name": "repo5", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}}]}}}})",
     "spec.backups.pgbackrest.repos[0].name", "repo1, repo2, repo3 or repo4"},
    {"PgBackRestRepoTwice",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(, {"name": "repo1", "s3": {"bucket": "c", "endpoint": "s3", "region": "r"}}]}}}})",
     "spec.backups.pgbackrest.repos[1].name", "listed twice"},
    {"PgBackRestRepoWithoutS3",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo1"}]}}}})",
     "spec.backups.pgbackrest.repos[0].s3", "bucket, endpoint and region"},
    {"PgBackRestS3WithoutBucket",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)"
     R"({"name": "repo1", "s3": {"endpoint": "s3", "region": "r"}}]}}}})",
     "spec.backups.pgbackrest.repos[0].s3.bucket", "required"},
    {"PgBackRestEndpointWithScheme",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)"
     R"({"name": "repo1", "s3": {"bucket": "b", "endpoint": "https://s3:9000", "region": "r"}}]}}}})",
     "spec.backups.pgbackrest.repos[0].s3.endpoint", "without scheme"},
    {"PgBackRestEndpointBadPort",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)"
     R"({"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3:99999", "region": "r"}}]}}}})",
     "spec.backups.pgbackrest.repos[0].s3.endpoint", "host:port"},
    {"PgBackRestConfigurationNotASecret",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "configuration": [{"configMap": {"name": "x"}}]}}}})",
     "spec.backups.pgbackrest.configuration[0].secret.name", "only Secrets"},
    {"PgBackRestGlobalSecret",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"repo1-s3-key-secret": "hunter2"}}}}})",
     "spec.backups.pgbackrest.global.repo1-s3-key-secret", "is a secret"},
    {"PgBackRestGlobalOwnedPath",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"pg1-path": "/tmp"}}}}})",
     "spec.backups.pgbackrest.global.pg1-path", "set by Quorum"},
    {"PgBackRestGlobalOwnedRepoField",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"repo1-s3-bucket": "other"}}}}})",
     "spec.backups.pgbackrest.global.repo1-s3-bucket", "from spec.backups.pgbackrest.repos"},
    {"PgBackRestGlobalUnknownRepo",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"repo2-retention-full": "2"}}}}})",
     "spec.backups.pgbackrest.global.repo2-retention-full", "does not have"},
    {"PgBackRestGlobalTwoLines",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"repo1-retention-full": "2\n[db]\npg1-path=/x"}}}}})",
     "spec.backups.pgbackrest.global.repo1-retention-full", "one line"},
    {"PgBackRestGlobalNumber",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"repo1-retention-full": 2}}}}})",
     "spec.backups.pgbackrest.global.repo1-retention-full", "quote numbers"},
    {"PgBackRestGlobalRelativePath",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"repo1-path": "backups"}}}}})",
     "spec.backups.pgbackrest.global.repo1-path", "absolute path"},
    {"PgBackRestGlobalUnindexedRepo",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "global": {"repo-path": "/x"}}}}})",
     "spec.backups.pgbackrest.global.repo-path", "repoN-path"},
    {"PgBackRestScheduleBad",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}, "schedules": {"full": "0 25 * * *"}}]}}}})",
     "spec.backups.pgbackrest.repos[0].schedules.full", "hour"},
    {"PgBackRestScheduleType",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}, "schedules": {"weekly": "0 1 * * 0"}}]}}}})",
     "spec.backups.pgbackrest.repos[0].schedules.weekly", "full, differential or incremental"},
    {"InPlaceRestoreUnknownRepo",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "restore": {"enabled": true, "repoName": "repo2"}}}}})",
     "spec.backups.pgbackrest.restore.repoName", "one of spec.backups.pgbackrest.repos"},
    {"InPlaceRestoreTwoTargets",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "restore": {"enabled": true, "repoName": "repo1", "target": {"time": "2026-12-04T10:15:00Z", "xid": "7"}}}}}})",
     "spec.backups.pgbackrest.restore.target", "exactly one"},
    {"InPlaceRestoreBadXid",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "restore": {"enabled": true, "repoName": "repo1", "target": {"xid": "seven"}}}}}})",
     "spec.backups.pgbackrest.restore.target.xid", "transaction id"},
    {"InPlaceRestoreBadSet",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "restore": {"enabled": true, "repoName": "repo1", "set": "latest"}}}}})",
     "spec.backups.pgbackrest.restore.set", "backup label"},
    {"InPlaceRestoreEnabledNotBool",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
     R"(], "restore": {"enabled": "yes", "repoName": "repo1"}}}}})",
     "spec.backups.pgbackrest.restore.enabled", "true or false"},
    {"RestoreWithoutRepo", R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old"}}}})",
     "spec.dataSource.pgbackrest.repo", "required"},
    {"RestoreWithoutWhere", R"({"spec": {"dataSource": {"pgbackrest": {"repo": )" REPO1 "}}}}",
     "spec.dataSource.pgbackrest.clusterName", "repoN-path"},
    {"RestoreGlobalOtherRepo",
     R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": )" REPO1
     R"(, "global": {"repo2-path": "/x"}}}}})",
     "spec.dataSource.pgbackrest.global.repo2-path", "does not have"},
    {"RestoreGlobalSecret",
     R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": )" REPO1
     R"(, "global": {"repo1-s3-key": "AKIA"}}}}})",
     "spec.dataSource.pgbackrest.global.repo1-s3-key", "spec.dataSource.pgbackrest.configuration"},
    {"RestoreTwoTargets",
     R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": )" REPO1
     R"(, "target": {"time": "2026-12-04T10:15:00Z", "xid": "1000"}}}}})",
     "spec.dataSource.pgbackrest.target", "exactly one"},
    {"RestoreTimeNotRfc3339",
     R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": )" REPO1
     R"(, "target": {"time": "2026-12-04 10:15:00"}}}}})",
     "spec.dataSource.pgbackrest.target.time", "RFC 3339"},
    {"RestoreBadLsn",
     R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": )" REPO1
     R"(, "target": {"lsn": "5000100"}}}}})",
     "spec.dataSource.pgbackrest.target.lsn", "WAL position"},
    {"RestoreBadSet",
     R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": )" REPO1
     R"(, "set": "latest; rm -rf /"}}}})",
     "spec.dataSource.pgbackrest.set", "backup label"},
    {"VolumeRepoWithoutSize",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo2", "volume": {"volumeClaimSpec": {}}}]}}}})",
     "spec.backups.pgbackrest.repos[0].volume.volumeClaimSpec.resources.requests.storage",
     "required"},
    {"VolumeRepoWithoutClaim",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo2", "volume": {}}]}}}})",
     "spec.backups.pgbackrest.repos[0].volume.volumeClaimSpec", "required"},
    {"VolumeRepoReadWriteOncePod",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo2", "volume": {"volumeClaimSpec": {"accessModes": ["ReadWriteOncePod"], "resources": {"requests": {"storage": "1Gi"}}}}}]}}}})",
     "spec.backups.pgbackrest.repos[0].volume.volumeClaimSpec.accessModes", "ReadWriteOnce"},
    {"VolumeAndS3",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}, "volume": {"volumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}}]}}}})",
     "spec.backups.pgbackrest.repos[0]", "exactly one of s3 and volume"},
    {"VolumeRepoPath",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo2", "volume": {"volumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}}], "global": {"repo2-path": "/x"}}}}})",
     "spec.backups.pgbackrest.global.repo2-path", "is a volume"},
    {"VolumeRepoLongClusterName",
     R"({"metadata": {"name": "a234567890123456789012345678901234567890123"}, "spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo2", "volume": {"volumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}}]}}}})",
     "spec.backups.pgbackrest.repos[0].volume", "at most 42"},
    {"RestoreFromAVolume",
     R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": {"name": "repo2", "volume": {"volumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}}}}}})",
     "spec.dataSource.pgbackrest.repo.volume", "restore that cluster in place"},
    // spec.authentication.rules: pg_hba lines PostgreSQL parses and that keep TLS and
    // Quorum's roles.
    {"HbaTrustFromTheNetwork",
     R"({"spec": {"authentication": {"rules": [{"address": "10.0.0.0/8", "method": "trust"}]}}})",
     "spec.authentication.rules[0].method", "trust admits anyone from the network"},
    {"HbaPasswordFromTheNetwork",
     R"({"spec": {"authentication": {"rules": [{"connection": "hostssl", "method": "password"}]}}})",
     "spec.authentication.rules[0].method", "clear text"},
    {"HbaHostWithoutPlaintext",
     R"({"spec": {"authentication": {"rules": [{"connection": "host", "method": "scram-sha-256"}]}}})",
     "spec.authentication.rules[0].connection", "spec.tls.allowPlaintext"},
    {"HbaHostnossl",
     R"({"spec": {"authentication": {"rules": [{"connection": "hostnossl", "method": "md5"}]}}})",
     "spec.authentication.rules[0].connection", "must be hostssl (default), host or local"},
    {"HbaQuorumsRole",
     R"({"spec": {"authentication": {"rules": [{"users": ["app", "postgres"], "method": "reject"}]}}})",
     "spec.authentication.rules[0].users[1]", "one of Quorum's own roles"},
    {"HbaQuorumsRoleMembers",
     R"({"spec": {"authentication": {"rules": [{"users": ["+replicator"], "method": "reject"}]}}})",
     "spec.authentication.rules[0].users[0]", "one of Quorum's own roles"},
    {"HbaFileInclusion",
     R"({"spec": {"authentication": {"rules": [{"users": ["@admins"], "method": "md5"}]}}})",
     "spec.authentication.rules[0].users[0]", "not a name pg_hba can match"},
    {"HbaInjectedLine",
     R"({"spec": {"authentication": {"rules": [{"databases": ["app all all trust\nhost"], "method": "md5"}]}}})",
     "spec.authentication.rules[0].databases[0]", "not a name pg_hba can match"},
    {"HbaAddressWithHostBits",
     R"({"spec": {"authentication": {"rules": [{"address": "10.1.2.3/8", "method": "md5"}]}}})",
     "spec.authentication.rules[0].address", "a CIDR without host bits"},
    {"HbaHostName",
     R"({"spec": {"authentication": {"rules": [{"address": "app.example.com", "method": "md5"}]}}})",
     "spec.authentication.rules[0].address", "must be all, samehost, samenet or a CIDR"},
    {"HbaLocalAddress",
     R"({"spec": {"authentication": {"rules": [{"connection": "local", "address": "all", "method": "peer"}]}}})",
     "spec.authentication.rules[0].address", "take no address"},
    {"HbaNoMethod", R"({"spec": {"authentication": {"rules": [{"users": ["app"]}]}}})",
     "spec.authentication.rules[0].method", "required"},
    {"HbaPeerFromTheNetwork", R"({"spec": {"authentication": {"rules": [{"method": "peer"}]}}})",
     "spec.authentication.rules[0].method", "not supported on host rules"},
    {"HbaLdapUnsupported", R"({"spec": {"authentication": {"rules": [{"method": "ldap"}]}}})",
     "spec.authentication.rules[0].method", "not supported"},
    {"HbaCertWithoutTls",
     R"({"spec": {"tls": {"allowPlaintext": true}, "authentication": {"rules": [{"connection": "host", "method": "cert"}]}}})",
     "spec.authentication.rules[0].method", "cert needs connection hostssl"},
    {"HbaCertVerifyCa",
     R"({"spec": {"authentication": {"rules": [{"method": "cert", "options": {"clientcert": "verify-ca"}}]}}})",
     "spec.authentication.rules[0].options.clientcert", "verify-full with method cert"},
    {"HbaUnknownOption",
     R"({"spec": {"authentication": {"rules": [{"method": "md5", "options": {"ldapbindpasswd": "x"}}]}}})",
     "spec.authentication.rules[0].options.ldapbindpasswd", "not supported with method"},
    {"HbaEmptyUsers",
     R"({"spec": {"authentication": {"rules": [{"users": [], "method": "md5"}]}}})",
     "spec.authentication.rules[0].users", "leave it out to mean all"},
    {"HbaRulesNotAList", R"({"spec": {"authentication": {"rules": {"method": "md5"}}}})",
     "spec.authentication.rules", "must be a list of rules"},
};

INSTANTIATE_TEST_SUITE_P(Rules, PostgresInvalidCreateTest, ::testing::ValuesIn(kInvalid),
                         [](const auto& info) { return std::string(info.param.name); });

struct ValidCase {
  const char* name;
  const char* patch;
};

class PostgresValidCreateTest : public ::testing::TestWithParam<ValidCase> {};

TEST_P(PostgresValidCreateTest, IsAccepted) {
  EXPECT_EQ(Describe(ValidatePostgresCluster(With(GetParam().patch), nullptr)), "(no errors)");
}

const ValidCase
    kValid[] =
        {
            {"TheExample", "{}"},
            {"HbaRules",
             R"({"spec": {"tls": {"allowPlaintext": true}, "authentication": {"rules": [
               {"databases": ["app"], "users": ["app", "+readers"], "address": "10.0.0.0/8", "method": "scram-sha-256", "options": {"clientcert": "verify-ca"}},
               {"connection": "host", "users": ["legacy"], "address": "fd00::/8", "method": "md5"},
               {"users": ["batch"], "method": "cert", "options": {"clientcert": "verify-full", "map": "certmap"}},
               {"connection": "local", "users": ["ops"], "method": "peer"},
               {"connection": "local", "method": "trust"},
               {"databases": ["replication"], "address": "samenet", "method": "reject"}]}}})"},
            {"TlsCustomSecret", R"({"spec": {"tls": {"customSecret": "my-tls"}}})"},
            {"TlsCaSecretAndPlaintext",
             R"({"spec": {"tls": {"caSecret": "my-ca", "allowPlaintext": true}}})"},
            {"NetworkPolicyOff", R"({"spec": {"networkPolicy": {"enabled": false}}})"},
            {"PostgresFromPeers",
             R"({"spec": {"networkPolicy": {"postgresFrom": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "web"}}, "namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "Exists"}]}}, {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}, {"ipBlock": {"cidr": "2001:db8::/32"}}]}}})"},
            {"PostgresFromNobody", R"({"spec": {"networkPolicy": {"postgresFrom": []}}})"},
            {"KubernetesDcs", R"({"spec": {"patroni": {)" KUBERNETES_DCS "}}}"},
            {"AbsentDcs", R"({"spec": {"patroni": {"dcs": null}}})"},
            {"AbsentPatroni", R"({"spec": {"patroni": null}})"},
            {"HttpsEndpointsWithTlsAndAuth",
             R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": null, "endpoints": ["https://etcd-0.etcd:2379", "https://10.0.0.2:2379/", "https://[fd00::1]:2379"], "tlsSecret": "etcd-tls", "authSecret": "etcd-auth", "namespace": "/db/"}}}}})"},
            {"HttpEndpoints", R"({"spec": {"patroni": {)" ENDPOINTS(
                                  R"(["http://etcd", "http://127.0.0.1:2379"])") "}}}"},
            {"NoPodApiAccessWithEtcd", R"({"spec": {"patroni": {"podAPIAccess": false}}})"},
            {"TimingsAtTheLimit",
             R"({"spec": {"patroni": {"leaderLeaseDurationSeconds": 20, "syncPeriodSeconds": 10, "retryTimeoutSeconds": 5}}})"},
            {"ScaledToZero",
             R"({"spec": {"instances": [{"name": "main", "replicas": 0, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})"},
            {"IntegerStorage",
             R"({"spec": {"instances": [{"name": "main", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": 10737418240}}}}]}})"},
            {"TwoInstanceSets",
             R"({"spec": {"instances": [{"name": "zone-a", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}, {"name": "zone-b", "replicas": 2, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})"},
            {"CreateRoleFrom16",
             R"({"spec": {"postgresVersion": 16, "users": [{"name": "admin", "options": ["CREATEROLE", "CREATEDB", "NOLOGIN"]}]}})"},
            {"UsersWithDatabases",
             R"({"spec": {"users": [{"name": "app", "databases": ["app", "_audit"]}, {"name": "_ro", "databases": []}]}})"},
            {"SwitchoverToAMemberNotRunningYet",
             R"({"spec": {"patroni": {"switchover": {"enabled": true, "targetInstance": "hippo-main-7"}}}})"},
            {"FailoverWithTarget",
             R"({"spec": {"patroni": {"switchover": {"enabled": true, "type": "Failover", "targetInstance": "hippo-main-1"}}}})"},
            {"NodePortService", R"({"spec": {"service": {"type": "NodePort"}}})"},
            {"EveryMajor13", R"({"spec": {"postgresVersion": 13}})"},
            {"EveryMajor18", R"({"spec": {"postgresVersion": 18}})"},
            {"GeneratedName", R"({"metadata": {"name": null, "generateName": "hippo-"}})"},
            {"PgBackRestOneRepo",
             R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1 "]}}}}"},
            {"PgBackRestEverything",
             R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
             R"(, {"name": "repo3", "s3": {"bucket": "b.c", "endpoint": "10.0.0.1:9000", "region": "us-east-1"}}], "configuration": [{"secret": {"name": "s3-keys"}}, {"secret": {"name": "s3-ca"}}], "global": {"repo1-retention-full": "7", "repo3-path": "/db", "repo3-s3-uri-style": "path", "repo3-storage-ca-file": "/etc/pgbackrest/conf.d/ca.crt", "start-fast": "y"}}}}})"},
            {"PgBackRestVolumeBesideS3",
             R"({"metadata": {"name": "a23456789012345678901234567890123456789012"}, "spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
             R"(, {"name": "repo2", "volume": {"volumeClaimSpec": {"resources": {"requests": {"storage": "10Gi"}}}}, "schedules": {"full": "0 1 * * 0"}}], "global": {"repo2-retention-full": "2", "repo1-path": "/x"}}}}})"},
            {"PgBackRestSchedules",
             R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}, "schedules": {"full": "0 1 * * 0", "differential": "0 1 * * 3", "incremental": "0 */6 * * *"}}]}}}})"},
            {"InPlaceRestoreToATime",
             R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
             R"(], "restore": {"enabled": true, "repoName": "repo1", "set": "20261204-101500F", "target": {"time": "2026-12-04T10:15:00Z"}}}}}})"},
            {"RestoreToTheEnd",
             R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "repo": )" REPO1
             "}}}}"},
            {"RestoreToATimeFromAPath",
             R"({"spec": {"dataSource": {"pgbackrest": {"repo": )" REPO1 R"(, "configuration": [{"secret": {"name": "s3-keys"}}], "global": {"repo1-path": "/old", "repo1-s3-uri-style": "path"}, "set": "20261204-101500F", "target": {"time": "2026-12-04T10:15:00.5+01:00"}}}}})"},
            {"RestoreToAnLsn",
             R"({"spec": {"dataSource": {"pgbackrest": {"clusterName": "old", "clusterNamespace": "prod", "repo": )" REPO1
             R"(, "target": {"lsn": "0/5000100"}}}}})"},
            {"LongestStatefulSetName",
             R"({"spec": {"instances": [{"name": "a234567890123456789012345678901234567890123456", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})"},
};

INSTANTIATE_TEST_SUITE_P(Rules, PostgresValidCreateTest, ::testing::ValuesIn(kValid),
                         [](const auto& info) { return std::string(info.param.name); });

struct UpdateCase {
  const char* name;
  const char* old_patch;
  const char* new_patch;
  const char* field;  // nullptr: the update is allowed
  const char* message_part;
};

class PostgresUpdateTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(PostgresUpdateTest, FollowsTheImmutabilityRules) {
  const UpdateCase& c = GetParam();
  const Json old_obj = With(c.old_patch);
  const std::vector<FieldError> errors = ValidatePostgresCluster(With(c.new_patch), &old_obj);
  if (c.field == nullptr) {
    EXPECT_EQ(Describe(errors), "(no errors)");
    return;
  }
  EXPECT_TRUE(HasError(errors, c.field, c.message_part))
      << "want " << c.field << ": ..." << c.message_part << "...; got " << Describe(errors);
}

constexpr char kNoDcs[] = R"({"spec": {"patroni": {"dcs": null}}})";
constexpr char kKubernetes[] = R"({"spec": {"patroni": {)" KUBERNETES_DCS "}}}";
constexpr char kSize[] = "spec.instances[0].dataVolumeClaimSpec.resources.requests.storage";

#define VOLUME2(size)                                                                                \
  R"({"name": "repo2", "volume": {"volumeClaimSpec": {"resources": {"requests": {"storage": ")" size \
  R"("}}}}})"
#define S3_2 R"({"name": "repo2", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}})"
#define REPOS(list) R"({"spec": {"backups": {"pgbackrest": {"repos": [)" list "]}}}}"

const UpdateCase kUpdates[] = {
    {"VolumeRepoGrows", REPOS(VOLUME2("1Gi")), REPOS(VOLUME2("2Gi")), nullptr, nullptr},
    {"VolumeRepoShrinks", REPOS(VOLUME2("2Gi")), REPOS(VOLUME2("1Gi")),
     "spec.backups.pgbackrest.repos[0].volume.volumeClaimSpec.resources.requests.storage",
     "cannot shrink"},
    {"VolumeRepoBecomesS3", REPOS(VOLUME2("1Gi")), REPOS(S3_2),
     "spec.backups.pgbackrest.repos[0].s3", "cannot change between s3 and volume"},
    {"S3RepoBecomesAVolume", REPOS(S3_2), REPOS(VOLUME2("1Gi")),
     "spec.backups.pgbackrest.repos[0].volume", "cannot change between s3 and volume"},
    {"VolumeRepoRemovedAndAnotherAdded", REPOS(VOLUME2("1Gi")), REPOS(REPO1), nullptr, nullptr},
    {"EtcdToKubernetes", "{}", kKubernetes, "spec.patroni.dcs.type",
     "cannot change from etcd to kubernetes"},
    {"KubernetesToEtcd", kKubernetes, "{}", "spec.patroni.dcs.type",
     "cannot change from kubernetes to etcd"},
    {"AddingAnEtcdDcsLater", kNoDcs, "{}", "spec.patroni.dcs.type",
     "cannot change from kubernetes to etcd"},
    {"RemovingTheEtcdDcs", "{}", kNoDcs, "spec.patroni.dcs.type",
     "cannot change from etcd to kubernetes"},
    {"AddingTheKubernetesDcsExplicitly", kNoDcs, kKubernetes, nullptr, nullptr},
    // Issue 14: the DCS location is fixed while the cluster runs (members at
    // the old and the new location could both lead).
    {"ClusterRefToEndpoints", "{}",
     R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://etcd:2379"])") "}}}",
     "spec.patroni.dcs.etcd.clusterRef", "cannot change from dcs to (unset)"},
    {"AnotherEtcdCluster", "{}",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": {"name": "other"}}}}}})",
     "spec.patroni.dcs.etcd.clusterRef", "create a new PostgresCluster"},
    {"AnotherKeyPrefix", "{}",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"namespace": "/elsewhere/"}}}}})",
     "spec.patroni.dcs.etcd.namespace", "cannot change from (unset) to /elsewhere/"},
    {"OtherEndpoints", R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://a:2379"])") "}}}",
     R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://b:2379"])") "}}}",
     "spec.patroni.dcs.etcd.endpoints", "cannot change"},
    {"SameEndpointsReordered",
     R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://a:2379", "https://b:2379"])") "}}}",
     R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://b:2379", "https://a:2379"])") "}}}",
     nullptr, nullptr},
    {"RotatingTheEtcdCredentials",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": null, "endpoints": ["https://a:2379"], "tlsSecret": "tls-1", "authSecret": "auth-1"}}}}})",
     R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": null, "endpoints": ["https://a:2379"], "tlsSecret": "tls-2", "authSecret": "auth-2"}}}}})",
     nullptr, nullptr},
    {"MajorUpgradeTheDefaultImageCannotMake", "{}", R"({"spec": {"postgresVersion": 18}})",
     "spec.postgresVersion", "the default image of PostgreSQL 18 cannot upgrade from 17"},
    {"MajorUpgrade15To17", R"({"spec": {"postgresVersion": 15}})", "{}", nullptr, nullptr},
    {"MajorUpgradeWithBackups",
     R"({"spec": {"postgresVersion": 15, "backups": {"pgbackrest": {"repos": [{"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}}]}}}})",
     R"({"spec": {"backups": {"pgbackrest": {"repos": [{"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3", "region": "r"}}]}}}})",
     "spec.postgresVersion", "spec.backups.pgbackrest is not supported yet"},
    {"MajorDowngrade", "{}", R"({"spec": {"postgresVersion": 15}})", "spec.postgresVersion",
     "cannot go down from 17 to 15"},
    {"MajorUpgradeKeepingTheOldImage", R"({"spec": {"postgresVersion": 15, "image": "pg:15"}})",
     R"({"spec": {"image": "pg:15"}})", "spec.image", "still names the image of PostgreSQL 15"},
    {"MajorUpgradeWithItsOwnImage", R"({"spec": {"postgresVersion": 15, "image": "pg:15"}})",
     R"({"spec": {"image": "pg:17"}})", nullptr, nullptr},
    {"MajorChangeDuringAnUpgrade",
     R"({"status": {"postgresVersion": 15, "majorUpgrade": {"from": 15, "to": 17, "phase": "Upgrading"}}})",
     R"({"spec": {"postgresVersion": 15}})", "spec.postgresVersion",
     "cannot change while the major upgrade from 15 to 17 is Upgrading"},
    {"BackToTheDataAfterAFailedUpgrade",
     R"({"status": {"postgresVersion": 15, "majorUpgrade": {"from": 15, "to": 17, "phase": "Failed"}}})",
     R"({"spec": {"postgresVersion": 15}})", nullptr, nullptr},
    {"BelowTheDataAfterAnUpgrade",
     R"({"status": {"postgresVersion": 17, "majorUpgrade": {"from": 15, "to": 17, "phase": "Succeeded"}}})",
     R"({"spec": {"postgresVersion": 15}})", "spec.postgresVersion",
     "the members' data is at PostgreSQL 17"},
    {"Shrinking", "{}",
     R"({"spec": {"instances": [{"name": "main", "replicas": 3, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "5Gi"}}}}]}})",
     kSize, "cannot shrink from 10Gi to 5Gi"},
    {"Growing", "{}",
     R"({"spec": {"instances": [{"name": "main", "replicas": 3, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "20Gi"}}}}]}})",
     nullptr, nullptr},
    {"SameSizeOtherUnit", "{}",
     R"({"spec": {"instances": [{"name": "main", "replicas": 3, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "10240Mi"}}}}]}})",
     nullptr, nullptr},
    {"ANewSmallerInstanceSet", "{}",
     R"({"spec": {"instances": [{"name": "main", "replicas": 3, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "10Gi"}}}}, {"name": "small", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})",
     nullptr, nullptr},
    {"ScalingAndTuning", "{}",
     R"({"spec": {"patroni": {"leaderLeaseDurationSeconds": 60}, "users": [{"name": "app"}, {"name": "report"}]}})",
     nullptr, nullptr},
    // An object stored before a rule existed stays writable (finalizers,
    // labels) as long as its spec does not change.
    {"UnchangedInvalidSpec", R"({"spec": {"users": [{"name": "postgres"}]}})",
     R"({"metadata": {"finalizers": ["postgres.quorum.dev/x"]}, "spec": {"users": [{"name": "postgres"}]}})",
     nullptr, nullptr},
};

INSTANTIATE_TEST_SUITE_P(Rules, PostgresUpdateTest, ::testing::ValuesIn(kUpdates),
                         [](const auto& info) { return std::string(info.param.name); });

Json InstanceSets(int n) {
  Json sets = Json::array();
  for (int i = 0; i < n; ++i) {
    sets.push_back(
        {{"name", "s" + std::to_string(i)},
         {"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  }
  return sets;
}

TEST(PostgresClusterValidationTest, AllowsSixteenInstanceSetsButNotSeventeen) {
  Json obj = Example();
  obj["spec"]["instances"] = InstanceSets(16);
  EXPECT_EQ(Describe(ValidatePostgresCluster(obj, nullptr)), "(no errors)");
  obj["spec"]["instances"] = InstanceSets(17);
  EXPECT_TRUE(HasError(ValidatePostgresCluster(obj, nullptr), "spec.instances", "at most 16"));
}

TEST(PostgresClusterValidationTest, TheDataSourceNeverChanges) {
  const Json source = Json::parse(R"({"pgbackrest": {"clusterName": "old", "repo": )" REPO1 "}}");
  Json old = With("{}");
  Json with = old;
  with["spec"]["dataSource"] = source;
  Json changed = with;
  changed["spec"]["dataSource"]["pgbackrest"]["clusterName"] = "other";
  EXPECT_TRUE(ValidatePostgresCluster(with, &with).empty());
  EXPECT_TRUE(HasError(ValidatePostgresCluster(changed, &with), "spec.dataSource", "immutable"));
  EXPECT_TRUE(HasError(ValidatePostgresCluster(old, &with), "spec.dataSource", "immutable"));
  EXPECT_TRUE(HasError(ValidatePostgresCluster(with, &old), "spec.dataSource", "existing"));
}

// The restore annotation's new value needs restore.enabled; the trigger of
// a create is the reconciler's to ignore (it parses without an old object).
TEST(PostgresClusterValidationTest, ARestoreTriggerNeedsTheRestoreEnabled) {
  const std::string field = "metadata.annotations[postgres.quorum.dev/pgbackrest-restore]";
  Json old = With(R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1 "]}}}}");
  Json triggered = old;
  triggered["metadata"]["annotations"]["postgres.quorum.dev/pgbackrest-restore"] = "one";
  EXPECT_TRUE(HasError(ValidatePostgresCluster(triggered, &old), field, "enabled is not true"));
  EXPECT_TRUE(ValidatePostgresCluster(triggered, nullptr).empty());
  Json enabled = triggered;
  enabled["spec"]["backups"]["pgbackrest"]["restore"] = {{"enabled", true}, {"repoName", "repo1"}};
  EXPECT_EQ(Describe(ValidatePostgresCluster(enabled, &old)), "(no errors)");
  // Disabled after a restore: the old value stays, a new one is refused.
  Json disabled = enabled;
  disabled["spec"]["backups"]["pgbackrest"]["restore"]["enabled"] = false;
  EXPECT_EQ(Describe(ValidatePostgresCluster(disabled, &enabled)), "(no errors)");
  Json again = disabled;
  again["metadata"]["annotations"]["postgres.quorum.dev/pgbackrest-restore"] = "two";
  EXPECT_TRUE(HasError(ValidatePostgresCluster(again, &disabled), field, "enabled is not true"));
}

// While a restore runs, what it restores changes only with a new trigger.
TEST(PostgresClusterValidationTest, ARunningRestoreChangesOnlyWithANewTrigger) {
  Json running = With(R"({"spec": {"backups": {"pgbackrest": {"repos": [)" REPO1
                      R"(], "restore": {"enabled": true, "repoName": "repo1"}}}}})");
  running["metadata"]["annotations"]["postgres.quorum.dev/pgbackrest-restore"] = "one";
  running["status"] = {
      {"backups", {{"pgbackrest", {{"restore", {{"id", "one"}, {"phase", "Restoring"}}}}}}}};
  Json retarget = running;
  retarget["spec"]["backups"]["pgbackrest"]["restore"]["target"] = {{"xid", "7"}};
  EXPECT_TRUE(HasError(ValidatePostgresCluster(retarget, &running),
                       "spec.backups.pgbackrest.restore", "cannot change while"));
  Json removed = running;
  removed["spec"]["backups"]["pgbackrest"].erase("restore");
  EXPECT_TRUE(HasError(ValidatePostgresCluster(removed, &running),
                       "spec.backups.pgbackrest.restore", "cannot change while"));
  // With a new trigger it starts over; other edits and finished restores pass.
  retarget["metadata"]["annotations"]["postgres.quorum.dev/pgbackrest-restore"] = "two";
  EXPECT_EQ(Describe(ValidatePostgresCluster(retarget, &running)), "(no errors)");
  Json scaled = running;
  scaled["spec"]["backups"]["pgbackrest"]["global"] = {{"start-fast", "y"}};
  EXPECT_EQ(Describe(ValidatePostgresCluster(scaled, &running)), "(no errors)");
  Json done = running;
  done["status"]["backups"]["pgbackrest"]["restore"]["phase"] = "Succeeded";
  Json after = done;
  after["spec"]["backups"]["pgbackrest"]["restore"]["enabled"] = false;
  EXPECT_EQ(Describe(ValidatePostgresCluster(after, &done)), "(no errors)");
}

TEST(PostgresClusterValidationTest, ReportsEveryErrorAtOnce) {
  const std::vector<FieldError> errors = ValidatePostgresCluster(
      With(R"({"spec": {"postgresVersion": 9, "users": [{"name": "postgres"}],
               "patroni": {"leaderLeaseDurationSeconds": 5}}})"),
      nullptr);
  EXPECT_EQ(errors.size(), 3u) << Describe(errors);
}

TEST(PostgresClusterValidationTest, NeverThrowsOnOddJson) {
  for (
      const char* text :
      {"null", "5", "[]", R"({"spec": {"instances": 5}})", R"({"spec": {"instances": [5, null]}})",
       R"({"spec": {"patroni": 1, "users": "x", "service": 2}})",
       R"({"spec": {"patroni": {"dcs": {"type": 5, "etcd": []}}}})",
       R"({"spec": {"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": 5, "clusterRef": 1}}}}})",
       R"({"spec": {"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": [1, null]}}}}})",
       R"({"spec": {"users": [{"name": 1, "databases": [2], "options": [3]}]}})",
       R"({"metadata": 1, "spec": {"instances": [{"dataVolumeClaimSpec": {"resources": 1}}]}})",
       R"({"spec": {"patroni": {"switchover": {"type": 1, "targetInstance": []}}}})"}) {
    const Json obj = Json::parse(text);
    EXPECT_NO_THROW(ValidatePostgresCluster(obj, nullptr)) << text;
    EXPECT_NO_THROW(ValidatePostgresCluster(obj, &obj)) << text;
    const Json example = Example();
    EXPECT_NO_THROW(ValidatePostgresCluster(obj, &example)) << text;
    EXPECT_NO_THROW(ValidatePostgresCluster(example, &obj)) << text;
    EXPECT_NO_THROW(Warnings(obj)) << text;
  }
}

TEST(PostgresClusterWarningsTest, WarnsAboutASingleInstance) {
  EXPECT_TRUE(Warnings(Example()).empty());
  auto single = Warnings(With(
      R"({"spec": {"instances": [{"name": "main", "replicas": 1, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})"));
  ASSERT_EQ(single.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(single[0], "spec.instances: ")) << single[0];
  // Stopped (0) is deliberate; two sets of one each fail over to each other.
  EXPECT_TRUE(
      Warnings(
          With(
              R"({"spec": {"instances": [{"name": "main", "replicas": 0, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})"))
          .empty());
}

TEST(PostgresClusterWarningsTest, WarnsAboutEtcdTransportSecurity) {
  auto no_tls =
      Warnings(With(R"({"spec": {"patroni": {)" ENDPOINTS(R"(["https://etcd:2379"])") "}}}"));
  ASSERT_EQ(no_tls.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(no_tls[0], "spec.patroni.dcs.etcd.tlsSecret: ")) << no_tls[0];
  auto clear = Warnings(With(
      R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": null, "endpoints": ["http://etcd:2379"], "authSecret": "a"}}}}})"));
  ASSERT_EQ(clear.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(clear[0], "spec.patroni.dcs.etcd.authSecret: ")) << clear[0];
}

TEST(PostgresClusterWarningsTest, WarnsThatOwnedDynamicKeysAreIgnored) {
  auto w = Warnings(With(
      R"({"spec": {"patroni": {"dynamicConfiguration": {"ttl": 60, "loop_wait": 5, "postgresql": {"pg_hba": ["host all all 0.0.0.0/0 trust"], "parameters": {"work_mem": "8MB"}}}}}})"));
  ASSERT_EQ(w.size(), 3u);
  // nlohmann's objects iterate in key order.
  EXPECT_TRUE(absl::StartsWith(w[0], "spec.patroni.dynamicConfiguration.loop_wait: ignored"))
      << w[0];
  EXPECT_TRUE(absl::StartsWith(w[1], "spec.patroni.dynamicConfiguration.postgresql.pg_hba: "))
      << w[1];
  EXPECT_TRUE(absl::StrContains(w[1], "spec.authentication.rules")) << w[1];
  EXPECT_TRUE(absl::StartsWith(w[2], "spec.patroni.dynamicConfiguration.ttl: ")) << w[2];
}

// Admission only (not in ValidatePostgresCluster, which the reconciler's
// parse applies too): a switchover target that cannot name a member.
TEST(ValidateSwitchoverTargetTest, RefusesANameThatCannotBeAMember) {
  const auto target = [](const char* name) {
    return With(
        absl::StrCat(R"({"spec": {"patroni": {"switchover": {"enabled": true, "targetInstance": ")",
                     name, R"("}}}})")
            .c_str());
  };
  EXPECT_TRUE(HasError(ValidateSwitchoverTarget(target("nobody-0"), nullptr),
                       "spec.patroni.switchover.targetInstance",
                       "\"nobody-0\" cannot be a member of this cluster: members are named "
                       "hippo-main-N"));
  EXPECT_TRUE(HasError(ValidateSwitchoverTarget(target("hippo-zone-a-0"), nullptr),
                       "spec.patroni.switchover.targetInstance", "cannot be a member"));
  EXPECT_TRUE(HasError(ValidateSwitchoverTarget(target("hippo-main-x"), nullptr),
                       "spec.patroni.switchover.targetInstance", "cannot be a member"));
  EXPECT_TRUE(ValidateSwitchoverTarget(target("hippo-main-7"), nullptr).empty())
      << "a member that may not run yet is the reconciler's to answer";
  EXPECT_TRUE(ValidateSwitchoverTarget(With("{}"), nullptr).empty());
  const Json stored = target("nobody-0");
  EXPECT_TRUE(ValidateSwitchoverTarget(stored, &stored).empty())
      << "an update that leaves the spec alone (the trigger annotation) is never refused";
  EXPECT_TRUE(ValidatePostgresCluster(stored, nullptr).empty())
      << "the reconciler's parse must not refuse it: it answers the trigger Failed";
}

}  // namespace
}  // namespace quorum::api

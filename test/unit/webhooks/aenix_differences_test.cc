// What the aenix etcd-operator v0.4.5's webhooks admit and Quorum refuses on
// purpose, one row per line of docs/aenix-compatibility.md "Refused on
// purpose": each is a spec aenix stores but cannot run (its Secrets,
// Services or restore cannot exist or work) or one that breaks the member
// Quorum builds. The refusal names the field and says how to fix it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test/unit/webhooks/aenix_admission.h"

namespace quorum::webhooks::aenix {
namespace {

struct Difference {
  const char* what;
  const char* spec;
  const char* field;
};

const Difference kClusterDifferences[] = {
    {"more than 9 members", R"({"replicas": 11})", "spec.replicas"},
    {"an option Quorum sets (initial-cluster-state)",
     R"({"options": {"initial-cluster-state": "existing"}})",
     "spec.options[initial-cluster-state]"},
    {"an option naming a TLS file", R"({"options": {"cert-file": "/x"}})",
     "spec.options[cert-file]"},
    {"an option that is no etcd flag name", R"({"options": {"Debug": "true"}})",
     "spec.options[Debug]"},
    {"a command for the etcd container",
     R"({"podTemplate": {"spec": {"containers": [{"name": "etcd", "command": ["etcd"]}]}}})",
     "spec.podTemplate.spec.containers[0].command"},
    {"an ETCD_ variable in the etcd container",
     R"({"podTemplate": {"spec": {"containers": [{"name": "etcd", "env": [{"name": "ETCD_NAME", "value": "x"}]}]}}})",
     "spec.podTemplate.spec.containers[0].env[0].name"},
    {"a Secret name that no Secret can have",
     R"({"security": {"tls": {"peerSecret": "Peer_TLS", "peerTrustedCASecret": "ca"}}})",
     "spec.security.tls.peerSecret"},
    {"the same name for both Services",
     R"({"serviceTemplate": {"metadata": {"name": "etcd"}}, "headlessServiceTemplate": {"metadata": {"name": "etcd"}}})",
     "spec.headlessServiceTemplate.metadata.name"},
    {"an S3 restore source without a key",
     R"({"bootstrap": {"restore": {"source": {"s3": {"endpoint": "https://s3.example.com",
         "bucket": "bucket", "credentialsSecretRef": {"name": "c"}}}}}})",
     "spec.bootstrap.restore.source.s3.key"},
};

TEST(AenixDifferencesTest, ClusterSpecsAenixAdmitsButCannotRunAreRefused) {
  for (const Difference& d : kClusterDifferences) {
    SCOPED_TRACE(d.what);
    EXPECT_EQ(Mismatch(AdmitEtcdCluster(Object("EtcdCluster", Json::parse(d.spec))),
                       Outcome::kRefused, d.field),
              "");
  }
  // A name too long for the StatefulSet's pods and their labels.
  const Json long_name = Object("EtcdCluster", Json::object(),
                                "a-name-that-is-fifty-three-characters-long-abcdefghij");
  EXPECT_EQ(Mismatch(AdmitEtcdCluster(long_name), Outcome::kRefused, "metadata.name"), "");
}

const Difference kDestinationDifferences[] = {
    {"an S3 endpoint with a path",
     R"({"s3": {"endpoint": "https://s3.example.com/tenant", "bucket": "bucket",
         "credentialsSecretRef": {"name": "c"}}})",
     "spec.destination.s3.endpoint"},
    {"a bucket name S3 does not allow",
     R"({"s3": {"endpoint": "https://s3.example.com", "bucket": "My_Bucket",
         "credentialsSecretRef": {"name": "c"}}})",
     "spec.destination.s3.bucket"},
    {"an S3 key with a leading slash",
     R"({"s3": {"endpoint": "https://s3.example.com", "bucket": "bucket", "key": "/etcd",
         "credentialsSecretRef": {"name": "c"}}})",
     "spec.destination.s3.key"},
    {"a subPath with a '.' part (aenix refuses it later, in the Job)",
     R"({"pvc": {"claimName": "backups", "subPath": "./etcd"}})", "spec.destination.pvc.subPath"},
};

TEST(AenixDifferencesTest, DestinationsAenixAdmitsButCannotUseAreRefused) {
  for (const Difference& d : kDestinationDifferences) {
    SCOPED_TRACE(d.what);
    const Json spec = {{"clusterRef", {{"name", "main"}}}, {"destination", Json::parse(d.spec)}};
    EXPECT_EQ(Mismatch(AdmitEtcdBackup(Object("EtcdBackup", spec)), Outcome::kRefused, d.field),
              "");
  }
}

}  // namespace
}  // namespace quorum::webhooks::aenix

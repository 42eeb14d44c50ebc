// The EtcdCluster example manifests of the aenix etcd-operator v0.4.5
// (examples/manifests/*.yaml, kept under test/examples/aenix/), shared by the
// admission parity tests (unit, through the webhook handlers) and the CRD
// test (integration, applied to a real API server without webhooks).
// Header-only; needs yaml-cpp (through quorum_kube).
#ifndef QUORUM_TEST_EXAMPLES_AENIX_EXAMPLES_H_
#define QUORUM_TEST_EXAMPLES_AENIX_EXAMPLES_H_

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cmd/crdgen/yaml_to_json.h"
#include "test/testmain/paths.h"

namespace quorum::examples {

// Every example file of aenix v0.4.5's examples/manifests/ (each holds one
// EtcdCluster; the cert-manager objects of two of them are left out).
inline const std::vector<std::string>& AenixExampleFiles() {
  static const auto* files = new std::vector<std::string>{
      "etcdcluster-custom-image.yaml",
      "etcdcluster-emptydir.yaml",
      "etcdcluster-full.yaml",
      "etcdcluster-kamaji.yaml",
      "etcdcluster-persistent.yaml",
      "etcdcluster-resources.yaml",
      "etcdcluster-simple.yaml",
      "etcdcluster-with-default-pdb.yaml",
      "etcdcluster-with-external-certificates.yaml",
  };
  return *files;
}

// The EtcdCluster in test/examples/aenix/<file> as JSON; null when the file
// is missing or holds no EtcdCluster (which fails the caller's assertions).
inline nlohmann::json LoadAenixExample(const std::string& file) {
  const std::string path = std::string(QUORUM_SOURCE_DIR) + "/test/examples/aenix/" + file;
  try {
    for (const YAML::Node& doc : YAML::LoadAllFromFile(path)) {
      nlohmann::json j = crdgen::YamlNodeToJson(doc);
      if (j.is_object() && j.value("kind", "") == "EtcdCluster") return j;
    }
  } catch (const YAML::Exception&) {
  }
  return nullptr;
}

}  // namespace quorum::examples

#endif  // QUORUM_TEST_EXAMPLES_AENIX_EXAMPLES_H_

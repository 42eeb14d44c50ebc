// Manifests shared by tests, kept as files under test/examples/ so that unit,
// webhook and controller tests all use the same API.md example.
#ifndef QUORUM_TEST_EXAMPLES_EXAMPLES_H_
#define QUORUM_TEST_EXAMPLES_EXAMPLES_H_

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "test/testmain/paths.h"

namespace quorum::examples {

// The manifest in test/examples/<file>, parsed; a null JSON value if the
// file cannot be read or parsed, which fails the calling test's assertions.
inline nlohmann::json LoadExample(const char* file) {
  std::ifstream in(std::string(QUORUM_SOURCE_DIR) + "/test/examples/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

// API.md's EtcdCluster example ("test" in "default").
inline nlohmann::json EtcdClusterDesignExample() {
  return LoadExample("etcdcluster_design_example.json");
}

// API.md's PostgresCluster example ("hippo" in "db"; etcd DCS via clusterRef).
inline nlohmann::json PostgresClusterDesignExample() {
  return LoadExample("postgrescluster_design_example.json");
}

}  // namespace quorum::examples

#endif  // QUORUM_TEST_EXAMPLES_EXAMPLES_H_

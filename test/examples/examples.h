// Manifests shared by tests, kept as files under test/examples/ so that unit,
// webhook and controller tests all use the same API.md example.
#ifndef QUORUM_TEST_EXAMPLES_EXAMPLES_H_
#define QUORUM_TEST_EXAMPLES_EXAMPLES_H_

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace quorum::examples {

// API.md's EtcdCluster example ("test" in "default"); a null JSON value if
// the file cannot be read, which fails the calling test's assertions.
inline nlohmann::json EtcdClusterDesignExample() {
  std::ifstream in(std::string(QUORUM_SOURCE_DIR) +
                   "/test/examples/etcdcluster_design_example.json");
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

}  // namespace quorum::examples

#endif  // QUORUM_TEST_EXAMPLES_EXAMPLES_H_

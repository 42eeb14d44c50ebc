// Golden-file assertions for unit tests: compare what a builder produced with
// a reviewed file under testdata/. To change a golden file on purpose, run the
// test once with QUORUM_UPDATE_GOLDEN=1 (the file is rewritten) and read the
// diff before committing it. Header-only.
#ifndef QUORUM_TEST_UNIT_GOLDEN_H_
#define QUORUM_TEST_UNIT_GOLDEN_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace quorum::testing {

inline void ExpectGoldenJson(const std::string& path, const nlohmann::json& got) {
  if (std::getenv("QUORUM_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << got.dump(2) << "\n";
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run once with QUORUM_UPDATE_GOLDEN=1 and review it)";
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json want = nlohmann::json::parse(ss.str(), nullptr, false);
  ASSERT_FALSE(want.is_discarded()) << path;
  EXPECT_EQ(got, want) << "differs from " << path
                       << "; diff: " << nlohmann::json::diff(want, got).dump();
}

}  // namespace quorum::testing

#endif  // QUORUM_TEST_UNIT_GOLDEN_H_

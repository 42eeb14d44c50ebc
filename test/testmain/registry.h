// The tests registered in this program, read from GoogleTest's registry:
// what `--source` chooses from (main.cc) and what a global environment asks
// before it starts something only one file's tests need. Header-only.
// Thread-compatible: read it from the main thread (GoogleTest's).
#ifndef QUORUM_TEST_TESTMAIN_REGISTRY_H_
#define QUORUM_TEST_TESTMAIN_REGISTRY_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/testmain/source_filter.h"

namespace quorum::testmain {

// Every test of the program; `should_run` is known once RUN_ALL_TESTS has
// applied the filter (in an Environment's SetUp, say), false before.
inline std::vector<TestCase> RegisteredTests() {
  std::vector<TestCase> cases;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(j);
      cases.push_back({.full_name = std::string(suite.name()) + "." + info.name(),
                       .file = info.file(),
                       .should_run = info.should_run()});
    }
  }
  return cases;
}

}  // namespace quorum::testmain

#endif  // QUORUM_TEST_TESTMAIN_REGISTRY_H_

// The main of every Quorum test program: GoogleTest's, plus `--source=<path>`,
// which runs only the tests defined in that file of the program's folder
// (test/testmain/source_filter.h). A path that defines no test of the program
// is an error, so a renamed file cannot pass by running nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "test/testmain/registry.h"
#include "test/testmain/source_filter.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  constexpr std::string_view kSource = "--source=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kSource.size()) != kSource) continue;
    const std::string_view source = arg.substr(kSource.size());
    const std::string user_filter = GTEST_FLAG_GET(filter);
    const auto filter =
        quorum::testmain::FilterForSource(quorum::testmain::RegisteredTests(), source, user_filter);
    if (!filter.has_value()) {
      std::fprintf(stderr, "%s: no test of this program is defined in %.*s\n", argv[0],
                   static_cast<int>(source.size()), source.data());
      return 1;
    }
    GTEST_FLAG_SET(filter, *filter);
  }
  return RUN_ALL_TESTS();
}

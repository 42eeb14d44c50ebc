// Choosing one source file's tests in a test program built from a whole test
// folder. CTest runs each folder's program once per source file
// (`--source=test/unit/api/cron_test.cc`), so each file keeps its own CTest
// name, label, fixtures and timeout while the folder links once.
// Pure functions; thread-compatible.
#ifndef QUORUM_TEST_TESTMAIN_SOURCE_FILTER_H_
#define QUORUM_TEST_TESTMAIN_SOURCE_FILTER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quorum::testmain {

// One test of the program: "Suite.Name" (parameterized: "Prefix/Suite.Name/0")
// and the path of the file that defines it, as the compiler saw it (absolute,
// or relative to the build folder when a compiler cache rewrote it).
struct TestCase {
  std::string full_name;
  std::string file;
  bool should_run = false;  // chosen by the filter in force (registry.h)
};

// Whether `name` passes a GoogleTest filter: ':'-separated patterns with '*'
// and '?', positive patterns first, then optionally '-' and negative ones; an
// empty positive part means "*".
bool MatchesGtestFilter(std::string_view filter, std::string_view name);

// The filter that runs exactly those of `cases` defined in `source` (a path
// relative to the checkout, matched as a suffix of each test's file at a '/')
// that also pass `user_filter` (GoogleTest's filter as the user gave it).
// "-*" (run nothing) when the user's filter leaves none of them; nullopt when
// no test of the program is defined in `source` at all.
std::optional<std::string> FilterForSource(const std::vector<TestCase>& cases,
                                           std::string_view source, std::string_view user_filter);

}  // namespace quorum::testmain

#endif  // QUORUM_TEST_TESTMAIN_SOURCE_FILTER_H_

// The text renderer's helpers: ages, sizes, and tables whose columns line up
// with and without colour.
#include "src/kubectl/text_table.h"

#include <gtest/gtest.h>

#include "test/unit/kubectl/fixtures.h"

namespace quorum::kubectl {
namespace {

TEST(AgeTest, RoundsDownToTheLargestUsefulUnit) {
  const absl::Time now = fixtures::Now();  // 2026-12-06T16:00:00Z
  struct Case {
    const char* time;
    const char* want;
  } cases[] = {
      {"2026-12-06T15:59:15Z", "45s"},
      {"2026-12-06T15:48:00Z", "12m"},
      {"2026-12-06T11:00:00Z", "5h"},
      {"2026-12-03T16:00:00Z", "3d"},
      {"2026-12-06T16:05:00Z", "0s"},
      {"", ""},
      {"yesterday", ""},
      {"2026-12-06T15:59:59.5+00:00", "0s"},
  };
  for (const Case& c : cases) EXPECT_EQ(Age(c.time, now), c.want) << c.time;
}

TEST(HumanBytesTest, UsesBinaryUnits) {
  EXPECT_EQ(HumanBytes(0), "");
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(2097152), "2.0 MiB");
}

TEST(FormatTableTest, PadsColumnsIgnoringColourCodes) {
  const std::vector<std::vector<Cell>> rows = {{{"A"}, {"STATUS"}, {"X"}},
                                               {{"long-name"}, {"ok", Colour::kGreen}, {"y"}}};
  EXPECT_EQ(FormatTable(rows, false), "A          STATUS  X\nlong-name  ok      y\n");
  EXPECT_EQ(FormatTable(rows, true), "A          STATUS  X\nlong-name  \x1b[32mok\x1b[0m      y\n");
}

TEST(PaintTest, LeavesTextAloneWhenColourIsOff) {
  EXPECT_EQ(Paint("Ready", Colour::kGreen, false), "Ready");
  EXPECT_EQ(Paint("Ready", Colour::kNone, true), "Ready");
  EXPECT_EQ(Paint("Ready", Colour::kRed, true), "\x1b[31mReady\x1b[0m");
}

}  // namespace
}  // namespace quorum::kubectl

#include "src/runtime/metrics.h"

#include <gtest/gtest.h>

namespace quorum::runtime {
namespace {

TEST(CounterFamilyTest, TotalSumsEverySeriesWhateverItsLabels) {
  Registry registry;
  CounterFamily& writes = registry.Counter("writes_total", "Writes.", {"verb", "code"});
  EXPECT_EQ(writes.Total(), 0);
  writes.Inc({"create", "201"});
  writes.Inc({"patch", "403"}, 2);
  writes.Inc({"delete", "<error>"});
  EXPECT_EQ(writes.Total(), 4);
  EXPECT_EQ(registry.Counter("writes_total", "").Total(), 4);  // the same family by name
}

TEST(CounterFamilyTest, RenderShowsEachSeries) {
  Registry registry;
  registry.Counter("writes_total", "Writes.", {"verb"}).Inc({"patch"}, 3);
  const std::string text = registry.Render();
  EXPECT_NE(text.find("# TYPE writes_total counter"), std::string::npos) << text;
  EXPECT_NE(text.find("writes_total{verb=\"patch\"} 3"), std::string::npos) << text;
}

}  // namespace
}  // namespace quorum::runtime

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

TEST(CollectorFamilyTest, RenderShowsWhatTheCollectorReturnsNowSortedByLabels) {
  Registry registry;
  std::vector<Sample> now = {{{"db", "b"}, 2}, {{"db", "a"}, 1.5}};
  registry.Collector("things_seconds", "Things.", MetricType::kGauge, {"namespace", "name"},
                     [&now] { return now; });
  const std::string text = registry.Render();
  EXPECT_NE(text.find("# HELP things_seconds Things.\n# TYPE things_seconds gauge\n"
                      "things_seconds{namespace=\"db\",name=\"a\"} 1.5\n"
                      "things_seconds{namespace=\"db\",name=\"b\"} 2\n"),
            std::string::npos)
      << text;
  now.erase(now.begin());  // "b" is gone: so is its series, at the next scrape
  const std::string after = registry.Render();
  EXPECT_EQ(after.find("name=\"b\""), std::string::npos) << after;
  EXPECT_NE(after.find("things_seconds{namespace=\"db\",name=\"a\"} 1.5"), std::string::npos);
}

TEST(CollectorFamilyTest, AnEmptyCollectionRendersOnlyTheHeader) {
  Registry registry;
  registry.Collector("things_total", "Things.", MetricType::kCounter, {"name"},
                     [] { return std::vector<Sample>{}; });
  EXPECT_EQ(registry.Render(), "# HELP things_total Things.\n# TYPE things_total counter\n");
}

TEST(CollectorFamilyTest, ACollectorMayReadTheRegistryItRendersFrom) {
  // Render runs collectors outside the registry's lock.
  Registry registry;
  registry.Gauge("g", "G.").Set({}, 1);
  registry.Collector("c", "C.", MetricType::kGauge, {}, [&registry] {
    return std::vector<Sample>{{{}, registry.Gauge("g", "").Value()}};
  });
  EXPECT_NE(registry.Render().find("\nc 1\n"), std::string::npos);
}

}  // namespace
}  // namespace quorum::runtime

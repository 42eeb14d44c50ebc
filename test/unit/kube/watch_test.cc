#include "src/kube/watch.h"

#include <gtest/gtest.h>

namespace quorum::kube {
namespace {

std::string Line(const std::string& type, const std::string& name, const std::string& rv) {
  return R"({"type":")" + type + R"(","object":{"kind":"ConfigMap","metadata":{"name":")" + name +
         R"(","resourceVersion":")" + rv + "\"}}}\n";
}

TEST(WatchDecoderTest, ReassemblesEventsAcrossArbitraryChunks) {
  const std::string stream = Line("ADDED", "a", "1") + Line("MODIFIED", "a", "2") +
                             Line("BOOKMARK", "", "3") + Line("DELETED", "a", "4");
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    WatchDecoder decoder;
    std::vector<WatchEventType> types;
    std::vector<std::string> rvs;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      ASSERT_TRUE(decoder
                      .Feed(std::string_view(stream).substr(i, chunk),
                            [&](WatchEvent ev) {
                              types.push_back(ev.type);
                              rvs.push_back(ev.object["metadata"]["resourceVersion"]);
                              return true;
                            })
                      .ok());
    }
    EXPECT_EQ(types,
              (std::vector<WatchEventType>{WatchEventType::kAdded, WatchEventType::kModified,
                                           WatchEventType::kBookmark, WatchEventType::kDeleted}))
        << "chunk size " << chunk;
    EXPECT_EQ(rvs, (std::vector<std::string>{"1", "2", "3", "4"}));
    EXPECT_EQ(decoder.buffered(), 0u);
  }
}

TEST(WatchDecoderTest, StopsWhenTheHandlerSaysSo) {
  WatchDecoder decoder;
  int seen = 0;
  ASSERT_TRUE(decoder
                  .Feed(Line("ADDED", "a", "1") + Line("ADDED", "b", "2"),
                        [&](WatchEvent) { return ++seen < 1; })
                  .ok());
  EXPECT_EQ(seen, 1);
}

TEST(ParseWatchEventTest, ErrorEventCarriesTheStatus) {
  auto ev = ParseWatchEvent(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})");
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(ev->type, WatchEventType::kError);
  EXPECT_EQ(ev->object["code"], 410);
}

TEST(ParseWatchEventTest, MalformedLinesAreErrorsNotCrashes) {
  for (std::string line : {"not json", "[]", R"({"object":{}})", R"({"type":"ADDED"})",
                           R"({"type":"EXPLODED","object":{}})", R"({"type":7,"object":{}})",
                           R"({"type":"ADDED","object":"x"})", "{\"type\":\"ADDED\",\"obj"}) {
    auto ev = ParseWatchEvent(line);
    EXPECT_FALSE(ev.ok()) << line;
    EXPECT_EQ(ev.status().code(), absl::StatusCode::kInternal) << line;
  }
}

TEST(WatchDecoderTest, MalformedLineIsReportedAndSkipped) {
  WatchDecoder decoder;
  int seen = 0;
  absl::Status s =
      decoder.Feed("garbage\n" + Line("ADDED", "a", "1"), [&](WatchEvent) { return ++seen; });
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(seen, 0);
}

TEST(BackoffTest, DoublesFromInitialToCap) {
  const absl::Duration initial = absl::Milliseconds(800), max = absl::Seconds(30);
  absl::Duration d = absl::ZeroDuration();
  std::vector<absl::Duration> got;
  for (int i = 0; i < 8; ++i) got.push_back(d = NextBackoff(d, initial, max));
  EXPECT_EQ(got.front(), absl::Milliseconds(800));
  EXPECT_EQ(got[1], absl::Milliseconds(1600));
  EXPECT_EQ(got[5], absl::Milliseconds(25600));
  EXPECT_EQ(got.back(), max);
}

TEST(BackoffTest, JitterStretchesByAtMostAQuarter) {
  EXPECT_EQ(Jittered(absl::Seconds(4), 0), absl::Seconds(4));
  EXPECT_EQ(Jittered(absl::Seconds(4), 0.5), absl::Seconds(4.5));
  EXPECT_LE(Jittered(absl::Seconds(4), 0.999), absl::Seconds(5));
  EXPECT_EQ(Jittered(absl::Seconds(4), 7), absl::Seconds(5));  // clamped
}

}  // namespace
}  // namespace quorum::kube

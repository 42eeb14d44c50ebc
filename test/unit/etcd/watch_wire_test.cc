#include "src/etcd/watch_wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/etcd/errors.h"

namespace quorum::etcd {
namespace {

std::vector<std::string> FeedAll(WatchFramer& framer, const std::vector<std::string>& chunks) {
  std::vector<std::string> out;
  for (const std::string& c : chunks) {
    EXPECT_TRUE(framer
                    .Feed(c,
                          [&](std::string_view o) {
                            out.emplace_back(o);
                            return true;
                          })
                    .ok());
  }
  return out;
}

TEST(WatchWireTest, CreateRequestCarriesKeyRangeAndRevisionInGatewayForm) {
  EXPECT_EQ(wire::WatchCreateRequest("/pg/a/leader", "", 0),
            R"({"create_request":{"key":"L3BnL2EvbGVhZGVy","progress_notify":true}})");
  EXPECT_EQ(wire::WatchCreateRequest("a/", "a0", 42),
            R"({"create_request":{"key":"YS8=","progress_notify":true,"range_end":"YTA=",)"
            R"("start_revision":"42"}})");
}

TEST(WatchWireTest, PrefixRangeEndIncrementsTheLastByteThatCan) {
  EXPECT_EQ(wire::PrefixRangeEnd("/pg/"), "/pg0");
  EXPECT_EQ(wire::PrefixRangeEnd(std::string("a\xff", 2)), "b");
  EXPECT_EQ(wire::PrefixRangeEnd(std::string("\xff\xff", 2)), std::string(1, '\0'));
  EXPECT_EQ(wire::PrefixRangeEnd(""), std::string(1, '\0'));
}

TEST(WatchWireTest, ParsesCreatedPutAndDeleteEvents) {
  absl::StatusOr<WatchMessage> created = wire::ParseWatchMessage(
      R"({"result":{"header":{"cluster_id":"1","revision":"7"},"created":true}})");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(created->created);
  EXPECT_EQ(created->revision, 7);
  EXPECT_TRUE(created->events.empty());

  // PUT is the zero value and omitted; DELETE is named; keys and values base64.
  absl::StatusOr<WatchMessage> m = wire::ParseWatchMessage(
      R"({"result":{"header":{"revision":"9"},"events":[)"
      R"({"kv":{"key":"L3BnL2EvbGVhZGVy","value":"cGctMQ==","mod_revision":"8"}},)"
      R"({"type":"DELETE","kv":{"key":"L3BnL2EvbGVhZGVy","mod_revision":"9"}}]}})");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->events.size(), 2u);
  EXPECT_EQ(m->events[0], (KeyEvent{KeyEvent::Type::kPut, "/pg/a/leader", "pg-1", 8}));
  EXPECT_EQ(m->events[1], (KeyEvent{KeyEvent::Type::kDelete, "/pg/a/leader", "", 9}));
}

TEST(WatchWireTest, CompactedAndDeniedWatchesBecomeTypedStatuses) {
  absl::StatusOr<WatchMessage> compacted = wire::ParseWatchMessage(
      R"({"result":{"header":{"revision":"90"},"canceled":true,"compact_revision":"50",)"
      R"("cancel_reason":"mvcc: required revision has been compacted"}})");
  ASSERT_TRUE(compacted.ok());
  EXPECT_EQ(compacted->compact_revision, 50);
  EXPECT_TRUE(absl::IsOutOfRange(wire::CancelStatus(*compacted, "watch")));

  absl::StatusOr<WatchMessage> denied =
      wire::ParseWatchMessage(R"({"result":{"created":true,"canceled":true,)"
                              R"("cancel_reason":"etcdserver: permission denied"}})");
  ASSERT_TRUE(denied.ok());
  EXPECT_TRUE(absl::IsPermissionDenied(wire::CancelStatus(*denied, "watch")));

  absl::StatusOr<WatchMessage> stale = wire::ParseWatchMessage(
      R"({"result":{"canceled":true,"cancel_reason":"etcdserver: invalid auth token"}})");
  ASSERT_TRUE(stale.ok());
  EXPECT_TRUE(IsStaleToken(wire::CancelStatus(*stale, "watch")));

  absl::StatusOr<WatchMessage> unknown = wire::ParseWatchMessage(R"({"result":{"canceled":true}})");
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(wire::CancelStatus(*unknown, "watch")));
}

TEST(WatchWireTest, GatewayErrorsAndGarbageAreStatusesNotThrows) {
  absl::StatusOr<WatchMessage> e = wire::ParseWatchMessage(
      R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader"}})");
  EXPECT_TRUE(absl::IsUnavailable(e.status())) << e.status();
  e = wire::ParseWatchMessage(
      R"({"error":{"code":16,"message":"etcdserver: invalid auth token"}})");
  EXPECT_TRUE(IsStaleToken(e.status())) << e.status();
  EXPECT_TRUE(absl::IsInternal(wire::ParseWatchMessage("not json").status()));
  EXPECT_TRUE(absl::IsInternal(wire::ParseWatchMessage(R"({"other":1})").status()));
  EXPECT_TRUE(absl::IsInternal(wire::ParseWatchMessage("[1]").status()));
  // Fields of unexpected types are ignored.
  absl::StatusOr<WatchMessage> odd = wire::ParseWatchMessage(
      R"({"result":{"header":{"revision":[]},"events":[{"kv":7},{"x":1}],"created":"yes"}})");
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->revision, 0);
  EXPECT_FALSE(odd->created);
  EXPECT_TRUE(odd->events.empty());
}

TEST(WatchFramerTest, SplitsObjectsWhateverTheChunkBoundaries) {
  const std::string a = R"({"result":{"x":"a}b{\"c"}})";
  const std::string b = R"({"result":{"events":[{"kv":{}}]}})";
  const std::string stream = a + "\n" + b + "\r\n" + a;  // the last one without a separator
  for (size_t cut1 = 0; cut1 <= stream.size(); ++cut1) {
    for (size_t cut2 = cut1; cut2 <= stream.size(); cut2 += 7) {
      WatchFramer framer;
      const std::vector<std::string> got = FeedAll(
          framer, {stream.substr(0, cut1), stream.substr(cut1, cut2 - cut1), stream.substr(cut2)});
      ASSERT_EQ(got, (std::vector<std::string>{a, b, a})) << cut1 << " " << cut2;
      EXPECT_EQ(framer.buffered(), 0u);
    }
  }
}

TEST(WatchFramerTest, KeepsTheRestWhenTheReaderStopsAndRefusesNonObjects) {
  WatchFramer framer;
  int seen = 0;
  ASSERT_TRUE(framer.Feed(R"({"a":1}{"b":2})", [&](std::string_view) { return ++seen < 1; }).ok());
  EXPECT_EQ(seen, 1);
  std::vector<std::string> rest = FeedAll(framer, {""});
  EXPECT_EQ(rest, (std::vector<std::string>{R"({"b":2})"}));

  WatchFramer bad;
  EXPECT_TRUE(absl::IsInternal(bad.Feed("<html>", [](std::string_view) { return true; })));
  EXPECT_EQ(bad.buffered(), 0u);
}

}  // namespace
}  // namespace quorum::etcd

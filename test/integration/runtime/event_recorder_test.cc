// The event recorder against the real API server: what `kubectl describe`
// would show after Flush().
#include "src/runtime/event_recorder.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "absl/time/clock.h"
#include "src/kube/errors.h"
#include "test/integration/testenv.h"

namespace quorum::runtime {
namespace {

const kube::GroupVersionResource kEvents{"", "v1", "events"};
const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

class EventRecorderTest : public testenv::IntegrationTest {
 protected:
  kube::Json CreateConfigMap(const std::string& name) {
    absl::StatusOr<kube::Json> cm = client().Create(
        kConfigMaps, ns(),
        {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}});
    EXPECT_TRUE(cm.ok()) << cm.status();
    return cm.ok() ? *cm : kube::Json::object();
  }
  // The Events about the object with `uid`, oldest first.
  std::vector<kube::Json> EventsAbout(const std::string& uid, const std::string& in_ns) {
    absl::StatusOr<kube::Json> list =
        client().List(kEvents, in_ns, {.field_selector = "involvedObject.uid=" + uid});
    EXPECT_TRUE(list.ok()) << list.status();
    std::vector<kube::Json> out;
    if (list.ok()) {
      for (const kube::Json& e : (*list)["items"]) out.push_back(e);
    }
    std::sort(out.begin(), out.end(), [](const kube::Json& a, const kube::Json& b) {
      return a["metadata"]["creationTimestamp"] < b["metadata"]["creationTimestamp"];
    });
    return out;
  }
  static std::string Uid(const kube::Json& o) { return o["metadata"]["uid"].get<std::string>(); }
};

TEST_F(EventRecorderTest, FiveIdenticalWarningsBecomeOneEventWithCountFive) {
  const kube::Json cm = CreateConfigMap("settings");
  EventRecorder recorder(client(), {.host = "test-host"});
  for (int i = 0; i < 5; ++i) recorder.Warning(cm, "InvalidConfig", "key 'mode' is missing");
  recorder.Flush();

  std::vector<kube::Json> events = EventsAbout(Uid(cm), ns());
  ASSERT_EQ(events.size(), 1u);
  const kube::Json& e = events[0];
  EXPECT_EQ(e["count"], 5);
  EXPECT_EQ(e["type"], "Warning");
  EXPECT_EQ(e["reason"], "InvalidConfig");
  EXPECT_EQ(e["message"], "key 'mode' is missing");
  EXPECT_EQ(e["source"]["component"], "quorum-operator");
  EXPECT_EQ(e["source"]["host"], "test-host");
  EXPECT_EQ(e["reportingComponent"], "quorum-operator");
  EXPECT_EQ(e["involvedObject"]["kind"], "ConfigMap");
  EXPECT_EQ(e["involvedObject"]["name"], "settings");
  EXPECT_EQ(e["involvedObject"]["namespace"], ns());
  EXPECT_TRUE(std::regex_match(e["metadata"]["name"].get<std::string>(),
                               std::regex(R"(settings\.[0-9a-f]{16})")))
      << e["metadata"]["name"];
  EXPECT_LE(e["firstTimestamp"].get<std::string>(), e["lastTimestamp"].get<std::string>());

  // A different message is a different Event; the first keeps its count.
  recorder.Warning(cm, "InvalidConfig", "key 'size' is missing");
  recorder.Flush();
  events = EventsAbout(Uid(cm), ns());
  ASSERT_EQ(events.size(), 2u);
  int with_five = 0, with_one = 0;
  for (const kube::Json& ev : events) {
    with_five += ev["count"] == 5 && ev["message"] == "key 'mode' is missing";
    with_one += ev["count"] == 1 && ev["message"] == "key 'size' is missing";
  }
  EXPECT_EQ(with_five, 1);
  EXPECT_EQ(with_one, 1);
}

TEST_F(EventRecorderTest, NormalEventsNameTheirInvolvedObject) {
  const kube::Json cm = CreateConfigMap("owned");
  EventRecorder recorder(client(), {});
  recorder.Normal(cm, "Created", "created the configuration");
  recorder.Flush();

  std::vector<kube::Json> events = EventsAbout(Uid(cm), ns());
  ASSERT_EQ(events.size(), 1u);
  const kube::Json& involved = events[0]["involvedObject"];
  EXPECT_EQ(events[0]["type"], "Normal");
  EXPECT_EQ(events[0]["count"], 1);
  EXPECT_EQ(involved["uid"], Uid(cm));
  EXPECT_EQ(involved["kind"], "ConfigMap");
  EXPECT_EQ(involved["apiVersion"], "v1");
  EXPECT_EQ(involved["name"], "owned");
  EXPECT_EQ(involved["resourceVersion"], cm["metadata"]["resourceVersion"]);
}

TEST_F(EventRecorderTest, EventsAboutClusterScopedObjectsGoToTheDefaultNamespace) {
  absl::StatusOr<kube::Json> namespace_object = client().Get({"", "v1", "namespaces"}, "", ns());
  ASSERT_TRUE(namespace_object.ok()) << namespace_object.status();
  {
    EventRecorder recorder(client(), {});
    recorder.Normal(*namespace_object, "Observed", "the test namespace exists");
  }  // the destructor writes what is queued

  std::vector<kube::Json> events = EventsAbout(Uid(*namespace_object), "default");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["involvedObject"]["kind"], "Namespace");
  EXPECT_FALSE(events[0]["involvedObject"].contains("namespace"));
  for (const kube::Json& e : events) {  // the default namespace outlives the test
    (void)client().Delete(kEvents, "default", e["metadata"]["name"].get<std::string>());
  }
}

TEST_F(EventRecorderTest, ARepeatAfterTheEventWasDeletedWritesItAgain) {
  const kube::Json cm = CreateConfigMap("flaky");
  EventRecorder recorder(client(), {});
  recorder.Warning(cm, "Unreachable", "cannot reach the database");
  recorder.Flush();
  std::vector<kube::Json> events = EventsAbout(Uid(cm), ns());
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(
      client().Delete(kEvents, ns(), events[0]["metadata"]["name"].get<std::string>()).ok());

  recorder.Warning(cm, "Unreachable", "cannot reach the database");
  recorder.Flush();
  events = EventsAbout(Uid(cm), ns());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["count"], 2);
}

TEST_F(EventRecorderTest, AFloodAboutOneObjectIsCutAtTheBurstAndCounted) {
  const kube::Json cm = CreateConfigMap("noisy");
  Registry metrics;
  EventRecorder recorder(client(), {.burst_per_object = 3, .metrics = &metrics});
  for (int i = 0; i < 5; ++i) recorder.Normal(cm, "Tick", "tick " + std::to_string(i));
  recorder.Flush();
  EXPECT_EQ(EventsAbout(Uid(cm), ns()).size(), 3u);
  EXPECT_EQ(metrics.Counter("events_dropped_total", "", {"cause"}).Value({"rate_limit"}), 2);
}

TEST_F(EventRecorderTest, AMessageThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  const kube::Json cm = CreateConfigMap("binary");
  EventRecorder recorder(client(), {});
  recorder.Warning(cm, "BadInput", std::string("value \xff\xfe is not text"));
  recorder.Normal(kube::Json::array(), "Ignored", "not an object at all");
  recorder.Flush();
  std::vector<kube::Json> events = EventsAbout(Uid(cm), ns());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["message"], "value \xEF\xBF\xBD\xEF\xBF\xBD is not text");
}

TEST_F(EventRecorderTest, AnUnreachableApiServerNeverBlocksCallersOrShutdown) {
  auto unreachable = kube::Client::Create({.server = "https://127.0.0.1:1"});
  ASSERT_TRUE(unreachable.ok()) << unreachable.status();
  const kube::Json cm = CreateConfigMap("lonely");
  Registry metrics;
  const absl::Time start = absl::Now();
  {
    EventRecorder recorder(**unreachable, {.metrics = &metrics});
    for (int i = 0; i < 50; ++i) recorder.Warning(cm, "Lost", "message " + std::to_string(i));
    EXPECT_LT(absl::Now() - start, absl::Seconds(1)) << "recording must not wait for the API";
  }
  EXPECT_LT(absl::Now() - start, absl::Seconds(10)) << "shutdown must not retry forever";
  EXPECT_EQ(metrics.Counter("events_dropped_total", "", {"cause"}).Value({"write_error"}) +
                metrics.Counter("events_dropped_total", "", {"cause"}).Value({"rate_limit"}),
            50);
}

}  // namespace
}  // namespace quorum::runtime

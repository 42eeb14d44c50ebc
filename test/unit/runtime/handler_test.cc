#include "src/runtime/handler.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "src/runtime/transforms.h"

namespace quorum::runtime {
namespace {

// One row of a predicate's update table: a change to a base object and
// whether the update passes.
struct PredicateCase {
  const char* name;
  std::function<void(Json&)> change;
  bool passes;
};

Json Owned(const std::string& api_version, const std::string& kind, const std::string& owner,
           bool controller) {
  return {{"metadata",
           {{"name", "child"},
            {"namespace", "db"},
            {"ownerReferences", Json::array({{{"apiVersion", api_version},
                                              {"kind", kind},
                                              {"name", owner},
                                              {"uid", "u"},
                                              {"controller", controller}}})}}}};
}

TEST(HandlerTest, ForObjectEnqueuesItself) {
  auto reqs = EnqueueRequestForObject()({{"metadata", {{"name", "a"}, {"namespace", "db"}}}});
  EXPECT_EQ(reqs, (std::vector<Request>{{"db", "a"}}));
  EXPECT_EQ(reqs[0].Key(), "db/a");
  EXPECT_EQ(Request::FromKey("db/a"), (Request{"db", "a"}));
  EXPECT_EQ(Request::FromKey("node"), (Request{"", "node"}));
}

TEST(HandlerTest, ForOwnerMatchesGroupKindAndControllerFlag) {
  MapFunc map = EnqueueRequestForOwner("etcd.aenix.io", "EtcdCluster");
  EXPECT_EQ(map(Owned("etcd.aenix.io/v1alpha1", "EtcdCluster", "e", true)),
            (std::vector<Request>{{"db", "e"}}));
  EXPECT_TRUE(map(Owned("etcd.aenix.io/v1alpha1", "EtcdCluster", "e", false)).empty());
  EXPECT_TRUE(map(Owned("other.io/v1", "EtcdCluster", "e", true)).empty());
  EXPECT_TRUE(map(Owned("etcd.aenix.io/v1alpha1", "Other", "e", true)).empty());
  EXPECT_TRUE(map({{"metadata", {{"name", "x"}}}}).empty());
  MapFunc core = EnqueueRequestForOwner("", "ConfigMap", /*only_controller=*/false);
  EXPECT_EQ(core(Owned("v1", "ConfigMap", "cm", false)).size(), 1u);
}

TEST(HandlerTest, FromIndexFindsReferrers) {
  Store store;
  store.AddIndex("secret", [](const Json& o) -> std::vector<std::string> {
    return {o["metadata"]["namespace"].get<std::string>() + "/" +
            o["spec"]["secret"].get<std::string>()};
  });
  store.Upsert(std::make_shared<const Json>(
      Json{{"metadata", {{"name", "pg"}, {"namespace", "db"}}}, {"spec", {{"secret", "s"}}}}));
  MapFunc map = EnqueueRequestsFromIndex(store, "secret", [](const Json& secret) {
    return std::vector<std::string>{secret["metadata"]["namespace"].get<std::string>() + "/" +
                                    secret["metadata"]["name"].get<std::string>()};
  });
  EXPECT_EQ(map({{"metadata", {{"name", "s"}, {"namespace", "db"}}}}),
            (std::vector<Request>{{"db", "pg"}}));
  EXPECT_TRUE(map({{"metadata", {{"name", "t"}, {"namespace", "db"}}}}).empty());
}

TEST(PredicateTest, GenerationChangedIgnoresStatusOnlyUpdatesAndResyncs) {
  Predicate p = GenerationChangedPredicate();
  Json a = {{"metadata", {{"generation", 1}, {"resourceVersion", "1"}}}};
  Json b = {{"metadata", {{"generation", 1}, {"resourceVersion", "2"}}}, {"status", {}}};
  Json c = {{"metadata", {{"generation", 2}, {"resourceVersion", "3"}}}};
  EXPECT_FALSE(p.update(a, b));
  EXPECT_TRUE(p.update(b, c));
  EXPECT_FALSE(p.create) << "creates pass";
}

TEST(PredicateTest, ResourceVersionAndLabelsChanged) {
  Json a = {{"metadata", {{"resourceVersion", "1"}, {"labels", {{"x", "1"}}}}}};
  Json b = {{"metadata", {{"resourceVersion", "2"}, {"labels", {{"x", "1"}}}}}};
  Json c = {{"metadata", {{"resourceVersion", "3"}, {"labels", {{"x", "2"}}}}}};
  EXPECT_FALSE(ResourceVersionChangedPredicate().update(a, a));
  EXPECT_TRUE(ResourceVersionChangedPredicate().update(a, b));
  EXPECT_FALSE(LabelChangedPredicate().update(a, b));
  EXPECT_TRUE(LabelChangedPredicate().update(b, c));
}

TEST(PredicateTest, IgnoreStatusOnlyChanges) {
  Predicate p = IgnoreStatusOnlyChangesPredicate();
  const Json base = {{"metadata", {{"name", "s"}, {"resourceVersion", "1"}, {"generation", 1}}},
                     {"spec", {{"replicas", 1}}},
                     {"status", {{"replicas", 0}}}};
  const std::vector<PredicateCase> cases = {
      {"resync", [](Json&) {}, false},
      {"status only", [](Json& j) { j["status"]["replicas"] = 1; }, false},
      {"status and resourceVersion",
       [](Json& j) {
         j["status"]["replicas"] = 1;
         j["metadata"]["resourceVersion"] = "2";
       },
       false},
      {"status appears", [](Json& j) { j.erase("status"); }, false},
      {"spec", [](Json& j) { j["spec"]["replicas"] = 3; }, true},
      {"label",
       [](Json& j) {
         j["metadata"]["labels"] = {{"x", "1"}};
       },
       true},
      {"deletion", [](Json& j) { j["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"; },
       true},
      {"new top-level field",
       [](Json& j) {
         j["data"] = {{"k", "v"}};
       },
       true},
  };
  for (const PredicateCase& c : cases) {
    Json changed = base;
    c.change(changed);
    EXPECT_EQ(p.update(base, changed), c.passes) << c.name;
  }
  EXPECT_FALSE(p.create) << "creates pass";
}

TEST(ReconcilerTest, TerminalErrorsAreMarked) {
  absl::Status s = TerminalError(absl::InvalidArgumentError("spec.replicas: must be >= 0"));
  EXPECT_TRUE(IsTerminal(s));
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_FALSE(IsTerminal(absl::UnavailableError("x")));
  EXPECT_TRUE(IsTerminal(TerminalError(absl::OkStatus())));
}

TEST(PredicateTest, ContentChanged) {
  Predicate p = ContentChangedPredicate();
  const Json base = {
      {"metadata", {{"name", "p"}, {"resourceVersion", "1"}, {"labels", {{"role", "replica"}}}}},
      {"spec", {{"nodeName", "n1"}}},
      {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  const std::vector<PredicateCase> cases = {
      {"resync", [](Json&) {}, false},
      {"only resourceVersion", [](Json& j) { j["metadata"]["resourceVersion"] = "2"; }, false},
      {"label", [](Json& j) { j["metadata"]["labels"]["role"] = "primary"; }, true},
      {"label removed", [](Json& j) { j["metadata"].erase("labels"); }, true},
      {"deletion", [](Json& j) { j["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"; },
       true},
      {"status", [](Json& j) { j["status"]["conditions"][0]["status"] = "False"; }, true},
      {"status appears", [](Json& j) { j["status"]["podIP"] = "10.0.0.1"; }, true},
      {"status gone", [](Json& j) { j.erase("status"); }, true},
      {"spec", [](Json& j) { j["spec"]["nodeName"] = "n2"; }, true},
  };
  for (const PredicateCase& c : cases) {
    Json changed = base;
    c.change(changed);
    EXPECT_EQ(p.update(base, changed), c.passes) << c.name;
  }
  EXPECT_FALSE(p.create) << "creates pass";
  EXPECT_FALSE(p.del) << "deletes pass";
}

TEST(PredicateTest, ContentChangedSeesOnlyWhatTheCacheKeepsOfAPod) {
  // Patroni's kubernetes DCS rewrites a pod's status annotation as its
  // member moves on; the cache drops annotations (StripPod), so such an
  // update reaches the predicate as a new resourceVersion only.
  Json old_pod = {
      {"metadata",
       {{"name", "pg-0"},
        {"resourceVersion", "1"},
        {"annotations", {{"status", "{\"xlog_location\": 1}"}}}}},
      {"status",
       {{"conditions", {{{"type", "Ready"}, {"status", "True"}, {"lastProbeTime", "t1"}}}}}}};
  Json new_pod = old_pod;
  new_pod["metadata"]["resourceVersion"] = "2";
  new_pod["metadata"]["annotations"]["status"] = "{\"xlog_location\": 2}";
  new_pod["status"]["conditions"][0]["lastProbeTime"] = "t2";
  EXPECT_TRUE(ContentChangedPredicate().update(old_pod, new_pod)) << "unstripped, it differs";
  StripPod(old_pod);
  StripPod(new_pod);
  EXPECT_FALSE(ContentChangedPredicate().update(old_pod, new_pod));
}

}  // namespace
}  // namespace quorum::runtime

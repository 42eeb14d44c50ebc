// Defaulting adds exactly what API.md says is implied, and nothing else.
#include "api/etcdcluster_defaults.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Defaulted(Json obj) {
  DefaultEtcdCluster(obj);
  return obj;
}

TEST(EtcdClusterDefaultsTest, AnEmptySpecGetsThreeMembersOnFourGiPvcs) {
  EXPECT_EQ(Defaulted({{"spec", Json::object()}})["spec"],
            Json::parse(R"({"replicas": 3, "storage": {"volumeClaimTemplate": {"spec": {
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "4Gi"}}}}}})"));
  EXPECT_EQ(Defaulted(Json::object())["spec"]["replicas"], 3);
  EXPECT_EQ(Defaulted({{"spec", nullptr}})["spec"]["storage"], DefaultEtcdStorage());
}

TEST(EtcdClusterDefaultsTest, NeverChangesWhatTheUserSet) {
  const Json spec = Json::parse(R"({"replicas": 0, "options": {"max-wals": "5"},
      "storage": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteMany"],
        "storageClassName": "gp3", "resources": {"requests": {"storage": "10Gi"}}}}},
      "podDisruptionBudgetTemplate": {"spec": {}}})");
  EXPECT_EQ(Defaulted({{"spec", spec}})["spec"], spec);
}

TEST(EtcdClusterDefaultsTest, EmptyDirStorageIsLeftAlone) {
  const Json spec = {{"replicas", 1}, {"storage", {{"emptyDir", Json::object()}}}};
  EXPECT_EQ(Defaulted({{"spec", spec}})["spec"], spec);
}

TEST(EtcdClusterDefaultsTest, APartialVolumeClaimTemplateIsCompleted) {
  Json obj = {{"spec",
               {{"storage",
                 {{"volumeClaimTemplate",
                   {{"metadata", {{"labels", {{"a", "b"}}}}},
                    {"spec", {{"storageClassName", "fast"}, {"accessModes", Json::array()}}}}}}}}}};
  const Json pvc = Defaulted(obj)["spec"]["storage"]["volumeClaimTemplate"];
  EXPECT_EQ(pvc["metadata"], (Json{{"labels", {{"a", "b"}}}}));
  EXPECT_EQ(pvc["spec"]["storageClassName"], "fast");
  EXPECT_EQ(pvc["spec"]["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_EQ(pvc["spec"]["resources"]["requests"]["storage"], "4Gi");

  Json only_storage = {{"spec", {{"storage", Json::object()}}}};
  EXPECT_EQ(Defaulted(only_storage)["spec"]["storage"], DefaultEtcdStorage());
}

// aenix's webhook gives a zero storage request the default size too.
TEST(EtcdClusterDefaultsTest, AZeroStorageRequestGetsTheDefaultSize) {
  for (const Json& zero : {Json("0"), Json(0), Json("0Gi")}) {
    Json obj = {{"spec",
                 {{"storage",
                   {{"volumeClaimTemplate",
                     {{"spec", {{"resources", {{"requests", {{"storage", zero}}}}}}}}}}}}}};
    EXPECT_EQ(Defaulted(obj)["spec"]["storage"]["volumeClaimTemplate"]["spec"]["resources"]
                            ["requests"]["storage"],
              "4Gi")
        << zero.dump();
  }
}

// Both kinds: emptyDir wins (as in aenix), so the template is not completed.
TEST(EtcdClusterDefaultsTest, BothStorageKindsAreLeftAsWritten) {
  const Json storage = {{"emptyDir", Json::object()},
                        {"volumeClaimTemplate", {{"spec", Json::object()}}}};
  EXPECT_EQ(Defaulted({{"spec", {{"storage", storage}}}})["spec"]["storage"], storage);
}

TEST(EtcdClusterDefaultsTest, WrongTypesDoNotCrashAndAreKept) {
  EXPECT_EQ(Defaulted(Json("x")), Json("x"));
  EXPECT_EQ(Defaulted({{"spec", 5}})["spec"], 5);
  EXPECT_EQ(Defaulted({{"spec", {{"storage", "big"}}}})["spec"]["storage"], "big");
  EXPECT_EQ(Defaulted({{"spec", {{"storage", {{"volumeClaimTemplate", 1}}}}}})["spec"]["storage"],
            (Json{{"volumeClaimTemplate", 1}}));
  Json odd = {{"spec", {{"storage", {{"volumeClaimTemplate", {{"spec", {{"resources", "x"}}}}}}}}}};
  EXPECT_EQ(Defaulted(odd)["spec"]["storage"]["volumeClaimTemplate"]["spec"]["resources"], "x");
}

}  // namespace
}  // namespace quorum::api

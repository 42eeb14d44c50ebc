#include "src/controllers/common/claim_templates.h"

#include <gtest/gtest.h>

namespace quorum::controllers {
namespace {

using kube::Json;

Json Sts(const std::string& storage, Json labels = Json::object()) {
  Json tmpl = {{"metadata", {{"name", "data"}}},
               {"spec",
                {{"accessModes", {"ReadWriteOnce"}},
                 {"resources", {{"requests", {{"storage", storage}}}}}}}};
  if (!labels.empty()) tmpl["metadata"]["labels"] = labels;
  return {{"metadata", {{"name", "kv"}, {"namespace", "db"}}},
          {"spec", {{"replicas", 3}, {"volumeClaimTemplates", {tmpl}}}}};
}

// What the API server returns: the same plus defaults.
Json Live(const std::string& storage, Json labels = Json::object()) {
  Json sts = Sts(storage, std::move(labels));
  sts["spec"]["volumeClaimTemplates"][0]["spec"]["volumeMode"] = "Filesystem";
  sts["spec"]["volumeClaimTemplates"][0]["status"] = {{"phase", "Pending"}};
  return sts;
}

TEST(DiffClaimTemplatesTest, DefaultsAddedByTheApiServerAreNoChange) {
  const ClaimTemplateDiff d = DiffClaimTemplates(Live("1Gi"), Sts("1Gi"));
  EXPECT_FALSE(d.changed);
  EXPECT_TRUE(d.growth.empty());
  EXPECT_FALSE(DiffClaimTemplates(Live("1024Mi"), Sts("1Gi")).changed) << "same quantity";
}

TEST(DiffClaimTemplatesTest, GrowthShrinkAndLabels) {
  ClaimTemplateDiff d = DiffClaimTemplates(Live("1Gi"), Sts("2Gi"));
  EXPECT_TRUE(d.changed);
  ASSERT_EQ(d.growth.size(), 1u);
  EXPECT_EQ(d.growth[0].template_name, "data");
  EXPECT_EQ(d.growth[0].from, "1Gi");
  EXPECT_EQ(d.growth[0].to, "2Gi");
  EXPECT_FALSE(d.shrink);

  d = DiffClaimTemplates(Live("2Gi"), Sts("1Gi"));
  EXPECT_TRUE(d.changed);
  EXPECT_TRUE(d.shrink);
  EXPECT_TRUE(d.growth.empty());

  d = DiffClaimTemplates(Live("1Gi"), Sts("1Gi", {{"team", "db"}}));
  EXPECT_TRUE(d.changed);
  EXPECT_TRUE(d.growth.empty());
  EXPECT_TRUE(DiffClaimTemplates(Live("1Gi", {{"team", "db"}}), Sts("1Gi")).changed)
      << "a removed label is a change too";
}

TEST(DiffClaimTemplatesTest, OtherSpecFieldsAndTemplateCount) {
  Json desired = Sts("1Gi");
  desired["spec"]["volumeClaimTemplates"][0]["spec"]["storageClassName"] = "fast";
  EXPECT_TRUE(DiffClaimTemplates(Live("1Gi"), desired).changed);
  Json none = Sts("1Gi");
  none["spec"].erase("volumeClaimTemplates");
  EXPECT_TRUE(DiffClaimTemplates(Live("1Gi"), none).changed);
  EXPECT_FALSE(DiffClaimTemplates(none, none).changed);
}

TEST(DiffClaimTemplatesTest, GarbageNeverThrows) {
  for (const Json& j : {Json(), Json::array(), Json{{"spec", 5}},
                        Json{{"spec", {{"volumeClaimTemplates", {1, "x", Json::object()}}}}}}) {
    (void)DiffClaimTemplates(j, Sts("1Gi"));
    (void)DiffClaimTemplates(Sts("1Gi"), j);
  }
}

TEST(ResizeProgressTest, CountsClaimsBelowTheirRequest) {
  auto pvc = [](const std::string& name, const std::string& want, const std::string& have) {
    return std::make_shared<const Json>(
        Json{{"metadata", {{"name", name}}},
             {"spec", {{"resources", {{"requests", {{"storage", want}}}}}}},
             {"status", {{"capacity", {{"storage", have}}}}}});
  };
  ResizeProgress p =
      ResizeProgressOf({pvc("data-kv-0", "2Gi", "2Gi"), pvc("data-kv-1", "2Gi", "1Gi"), nullptr});
  EXPECT_EQ(p.claims, 2);
  EXPECT_EQ(p.resizing, 1);
  EXPECT_NE(p.message.find("data-kv-1 (1Gi of 2Gi)"), std::string::npos) << p.message;
  p = ResizeProgressOf({pvc("data-kv-0", "2Gi", "2Gi")});
  EXPECT_EQ(p.resizing, 0);
  EXPECT_TRUE(p.message.empty());
}

TEST(ClaimsOlderThanTest, OnlyClaimsMadeBeforeTheOwnerSecond) {
  auto pvc = [](const std::string& name, const std::string& made) {
    Json meta = {{"name", name}};
    if (!made.empty()) meta["creationTimestamp"] = made;
    return std::make_shared<const Json>(Json{{"metadata", meta}});
  };
  const std::vector<runtime::ObjectPtr> pvcs = {
      pvc("data-kv-2", "2026-12-06T10:00:00Z"),
      pvc("data-kv-0", "2026-12-07T09:59:59Z"),
      pvc("data-kv-1", "2026-12-07T10:00:00Z"),  // the owner's own second: its own
      pvc("data-kv-3", "2026-12-07T10:05:00Z"),
      pvc("data-kv-4", ""),
      nullptr};
  EXPECT_EQ(ClaimsOlderThan(pvcs, "2026-12-07T10:00:00Z"),
            (std::vector<std::string>{"data-kv-0", "data-kv-2"}));
  EXPECT_TRUE(ClaimsOlderThan(pvcs, "").empty()) << "an owner of unknown age claims nothing";
}

TEST(ClaimNameTest, AsTheStatefulSetControllerNamesThem) {
  EXPECT_EQ(ClaimName("data", "kv", 2), "data-kv-2");
}

}  // namespace
}  // namespace quorum::controllers

// RFC 6902 patches between documents: applying the patch gives the target.
#include "src/webhooks/json_patch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quorum::webhooks {
namespace {

using Json = nlohmann::json;

void ExpectPatchTurns(const Json& from, const Json& to) {
  const Json ops = CreateJsonPatch(from, to);
  EXPECT_EQ(from.patch(ops), to) << "ops: " << ops.dump();
}

TEST(JsonPatchTest, EqualDocumentsGiveNoOperations) {
  const Json doc = Json::parse(R"({"a": {"b": [1, 2]}, "c": null})");
  EXPECT_EQ(CreateJsonPatch(doc, doc), Json::array());
}

TEST(JsonPatchTest, AddsOnlyWhatIsMissing) {
  const Json from = Json::parse(R"({"spec": {"replicas": 3, "options": {"a": "1"}}})");
  const Json to = Json::parse(
      R"({"spec": {"replicas": 3, "options": {"a": "1"}, "storage": {"emptyDir": {}}}})");
  EXPECT_EQ(CreateJsonPatch(from, to), Json::parse(R"([
      {"op": "add", "path": "/spec/storage", "value": {"emptyDir": {}}}])"));
  ExpectPatchTurns(from, to);
}

TEST(JsonPatchTest, ReplacesScalarsAndArraysWholeAndRemovesMembers) {
  const Json from = Json::parse(R"({"a": 1, "b": [1, 2, 3], "c": {"d": true}, "gone": "x"})");
  const Json to = Json::parse(R"({"a": "one", "b": [1, 3], "c": {"d": false, "e": []}})");
  EXPECT_EQ(CreateJsonPatch(from, to), Json::parse(R"([
      {"op": "remove", "path": "/gone"},
      {"op": "replace", "path": "/a", "value": "one"},
      {"op": "replace", "path": "/b", "value": [1, 3]},
      {"op": "replace", "path": "/c/d", "value": false},
      {"op": "add", "path": "/c/e", "value": []}])"));
  ExpectPatchTurns(from, to);
}

TEST(JsonPatchTest, EscapesMemberNames) {
  EXPECT_EQ(EscapeJsonPointerToken("example.com/annotation"), "example.com~1annotation");
  EXPECT_EQ(EscapeJsonPointerToken("a~b/c"), "a~0b~1c");
  const Json from = Json::parse(R"({"metadata": {"labels": {}}})");
  const Json to = Json::parse(R"({"metadata": {"labels": {"quorum.dev/x~y": "1"}}})");
  EXPECT_EQ(CreateJsonPatch(from, to)[0]["path"], "/metadata/labels/quorum.dev~1x~0y");
  ExpectPatchTurns(from, to);
}

TEST(JsonPatchTest, DifferentRootTypesReplaceTheDocument) {
  EXPECT_EQ(CreateJsonPatch(Json::array(), Json::object()),
            Json::parse(R"([{"op": "replace", "path": "", "value": {}}])"));
  ExpectPatchTurns(Json(1), Json::parse(R"({"a": 1})"));
}

TEST(JsonPatchTest, ManyShapes) {
  const Json docs[] = {
      Json::parse(R"({})"),
      Json::parse(R"({"a": null})"),
      Json::parse(R"({"a": {"b": {"c": [{"d": 1}]}}})"),
      Json::parse(R"({"a": {"b": {"c": [{"d": 2}], "e": "f"}}, "g": 0})"),
      Json::parse(R"({"": {"/": {"~": 1}}})"),
  };
  for (const Json& from : docs) {
    for (const Json& to : docs) ExpectPatchTurns(from, to);
  }
}

}  // namespace
}  // namespace quorum::webhooks

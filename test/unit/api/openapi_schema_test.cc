// Inlining OpenAPI v3 references into a CRD structural schema, on a small
// synthetic document shaped like the API server's: allOf-wrapped $refs,
// IntOrString and Quantity, list-map keys and their defaults, ObjectMeta.
#include "api/openapi_schema.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

constexpr char kDoc[] = R"({"components": {"schemas": {
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
    "description": "IntOrString holds an int32 or a string.", "format": "int-or-string",
    "oneOf": [{"type": "integer"}, {"type": "string"}]},
  "io.k8s.apimachinery.pkg.api.resource.Quantity": {
    "description": "Quantity is a fixed-point number.",
    "oneOf": [{"type": "string"}, {"type": "number"}]},
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
    "description": "Standard object metadata.", "type": "object",
    "properties": {
      "name": {"description": "Name.", "type": "string"},
      "labels": {"description": "Labels.", "type": "object", "additionalProperties": {"type": "string", "default": ""}},
      "uid": {"type": "string"},
      "managedFields": {"type": "array", "items": {"type": "object"}}}},
  "test.Port": {
    "description": "A port.", "type": "object", "required": ["port"],
    "properties": {
      "port": {"description": "Number.", "type": "integer", "format": "int32", "default": 0},
      "protocol": {"description": "Protocol.", "type": "string", "default": "TCP", "enum": ["TCP", "UDP"]},
      "name": {"type": "string", "default": ""}}},
  "test.Ref": {
    "type": "object", "x-kubernetes-map-type": "atomic",
    "properties": {"name": {"description": "Referent.", "type": "string", "default": ""}}},
  "test.Spec": {
    "description": "The spec.", "type": "object", "required": ["ports"],
    "x-kubernetes-unions": [{"fields-to-discriminateBy": {"a": "A"}}],
    "properties": {
      "ports": {"description": "Ports of the thing.", "type": "array",
        "items": {"default": {}, "allOf": [{"$ref": "#/components/schemas/test.Port"}]},
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
        "x-kubernetes-patch-merge-key": "port", "x-kubernetes-patch-strategy": "merge"},
      "refs": {"type": "array", "items": {"default": {}, "allOf": [{"$ref": "#/components/schemas/test.Ref"}]},
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
      "size": {"description": "How big.", "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}]},
      "target": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
      "limits": {"type": "object", "additionalProperties": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}]}},
      "meta": {"description": "Embedded metadata.", "default": {}, "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
      "flag": {"type": "boolean", "default": false},
      "mode": {"type": "string", "default": "Shared"},
      "tags": {"type": "array", "items": {"type": "string", "default": ""}, "x-kubernetes-list-type": "set"}}},
  "test.Loop": {"type": "object", "properties": {"next": {"allOf": [{"$ref": "#/components/schemas/test.Loop"}]}}},
  "test.Union": {"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}},
  "test.Odd": {"type": "object", "properties": {"x": {"type": "string", "x-new-keyword": 1}}},
  "test.Untyped": {"type": "object", "properties": {"x": {"description": "no type"}}}
}}})";

class OpenApiSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(index_.Add(Json::parse(kDoc)).ok()); }

  Json Inline(const Json& schema, InlineOptions options = {}) {
    absl::StatusOr<Json> out = InlineStructuralSchema(schema, index_, options);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : Json();
  }

  static Json Ref(const std::string& name) {
    return {{"$ref", "#/components/schemas/" + name}, {"description", "Ours."}};
  }

  OpenApiIndex index_;
};

TEST_F(OpenApiSchemaTest, InlinesReferencesAndKeepsListSemantics) {
  const Json spec = Inline(Ref("test.Spec"));
  EXPECT_EQ(spec["type"], "object");
  EXPECT_EQ(spec["description"], "Ours.");  // the referring node's description wins
  EXPECT_EQ(spec["required"], Json::array({"ports"}));
  EXPECT_FALSE(spec.contains("x-kubernetes-unions"));

  const Json& ports = spec["properties"]["ports"];
  EXPECT_EQ(ports["x-kubernetes-list-type"], "map");
  EXPECT_EQ(ports["x-kubernetes-list-map-keys"], Json::array({"port", "protocol"}));
  EXPECT_FALSE(ports.contains("x-kubernetes-patch-merge-key"));
  EXPECT_FALSE(ports.contains("x-kubernetes-patch-strategy"));
  const Json& port = ports["items"];
  EXPECT_EQ(port["type"], "object");
  EXPECT_FALSE(port.contains("default")) << "a zero default on items is dropped";
  EXPECT_FALSE(port.contains("allOf"));
  EXPECT_EQ(port["description"], "A port.");
  EXPECT_EQ(port["properties"]["port"],
            (Json{{"description", "Number."}, {"type", "integer"}, {"format", "int32"}}));
  EXPECT_EQ(port["properties"]["protocol"]["default"], "TCP");
  EXPECT_EQ(port["properties"]["protocol"]["enum"], Json::array({"TCP", "UDP"}));
  EXPECT_FALSE(port["properties"]["name"].contains("default"));

  // A list-map key that is not required keeps even a zero default: the API
  // server requires one of the two.
  const Json& ref = spec["properties"]["refs"]["items"];
  EXPECT_EQ(ref["properties"]["name"]["default"], "");
  EXPECT_EQ(ref["x-kubernetes-map-type"], "atomic");

  EXPECT_EQ(spec["properties"]["tags"]["x-kubernetes-list-type"], "set");
  EXPECT_FALSE(spec["properties"]["tags"]["items"].contains("default"));
  EXPECT_FALSE(spec["properties"]["flag"].contains("default"));
  EXPECT_EQ(spec["properties"]["mode"]["default"], "Shared");
}

TEST_F(OpenApiSchemaTest, IntOrStringAndQuantityBecomeIntOrString) {
  const Json spec = Inline(Ref("test.Spec"));
  const Json& target = spec["properties"]["target"];
  EXPECT_EQ(target["x-kubernetes-int-or-string"], true);
  EXPECT_EQ(target["anyOf"], Json::parse(R"([{"type": "integer"}, {"type": "string"}])"));
  EXPECT_FALSE(target.contains("type"));
  EXPECT_FALSE(target.contains("format"));
  EXPECT_FALSE(target.contains("oneOf"));

  const Json& size = spec["properties"]["size"];
  EXPECT_EQ(size["x-kubernetes-int-or-string"], true);
  EXPECT_EQ(size["description"], "How big.");
  ASSERT_TRUE(size.contains("pattern"));
  EXPECT_TRUE(absl::StrContains(size["pattern"].get<std::string>(), "[KMGTPE]i"));
  EXPECT_EQ(spec["properties"]["limits"]["additionalProperties"]["x-kubernetes-int-or-string"],
            true);
}

TEST_F(OpenApiSchemaTest, NestedObjectMetaKeepsOnlyWhatAnEmbeddedObjectMaySet) {
  const Json meta = Inline(Ref("test.Spec"))["properties"]["meta"];
  EXPECT_EQ(meta["description"], "Embedded metadata.");
  EXPECT_FALSE(meta.contains("default"));
  ASSERT_TRUE(meta["properties"].is_object());
  EXPECT_TRUE(meta["properties"].contains("name"));
  EXPECT_TRUE(meta["properties"].contains("labels"));
  EXPECT_FALSE(meta["properties"].contains("uid"));
  EXPECT_FALSE(meta["properties"].contains("managedFields"));
}

TEST_F(OpenApiSchemaTest, OurOwnNodesKeepEverything) {
  const Json ours = Json::parse(R"({"type": "object", "description": "Root.", "default": {},
    "x-kubernetes-validations": [{"rule": "self.a == oldSelf.a", "message": "immutable"}],
    "properties": {
      "a": {"type": "integer", "default": 0, "minimum": 0},
      "b": {"description": "B.", "x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}]}}})");
  EXPECT_EQ(Inline(ours), ours);
}

TEST_F(OpenApiSchemaTest, PartialReferencesDropTheTypesRequiredFields) {
  Json partial = Ref("test.Spec");
  partial["x-quorum-partial"] = true;
  const Json spec = Inline(partial);
  EXPECT_FALSE(spec.contains("required"));
  EXPECT_FALSE(spec.contains("x-quorum-partial"));
  EXPECT_EQ(spec["properties"]["ports"]["items"]["required"], Json::array({"port"}));
}

TEST_F(OpenApiSchemaTest, KubernetesDescriptionsCanBeDroppedKeepingOurs) {
  const Json root = {
      {"type", "object"}, {"description", "Root."}, {"properties", {{"spec", Ref("test.Spec")}}}};
  const Json out = Inline(root, {.kubernetes_descriptions = false});
  EXPECT_EQ(out["description"], "Root.");
  EXPECT_EQ(out["properties"]["spec"]["description"], "Ours.");
  const std::string dumped = out["properties"]["spec"]["properties"].dump();
  EXPECT_FALSE(absl::StrContains(dumped, "description")) << dumped;
}

TEST_F(OpenApiSchemaTest, RefusesWhatHasNoStructuralForm) {
  struct Case {
    const char* type;
    absl::StatusCode code;
    const char* message_part;
  } cases[] = {
      {"test.Loop", absl::StatusCode::kInvalidArgument, "next: recursive type test.Loop"},
      {"test.Union", absl::StatusCode::kInvalidArgument, "x: oneOf"},
      {"test.Odd", absl::StatusCode::kInvalidArgument,
       "x: unsupported schema keyword \"x-new-keyword\""},
      {"test.Untyped", absl::StatusCode::kInvalidArgument, "x: schema has no type"},
      {"test.Missing", absl::StatusCode::kNotFound, "test.Missing is not in the OpenAPI documents"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Json> out = InlineStructuralSchema(Ref(c.type), index_);
    EXPECT_EQ(out.status().code(), c.code) << c.type << ": " << out.status();
    EXPECT_TRUE(absl::StrContains(out.status().message(), c.message_part))
        << c.type << ": " << out.status();
  }
  const Json two_refs = Json::parse(
      R"({"allOf": [{"$ref": "#/components/schemas/test.Ref"}, {"$ref": "#/components/schemas/test.Port"}]})");
  EXPECT_TRUE(absl::IsInvalidArgument(InlineStructuralSchema(two_refs, index_).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      InlineStructuralSchema(Json{{"type", "object"}, {"x-quorum-partial", true}}, index_)
          .status()));
}

TEST(OpenApiIndexTest, FindsByNameOrReferenceAndKeepsTheFirstDefinition) {
  OpenApiIndex index;
  EXPECT_TRUE(absl::IsInvalidArgument(index.Add(Json::object())));
  EXPECT_TRUE(absl::IsInvalidArgument(index.Add(Json::parse(R"({"components": []})"))));
  ASSERT_TRUE(
      index.Add(Json::parse(R"({"components": {"schemas": {"a.B": {"type": "string"}}}})")).ok());
  ASSERT_TRUE(
      index
          .Add(Json::parse(
              R"({"components": {"schemas": {"a.B": {"type": "integer"}, "a.C": {"type": "object"}}}})"))
          .ok());
  EXPECT_EQ(index.size(), 2u);
  ASSERT_NE(index.Find("a.B"), nullptr);
  EXPECT_EQ((*index.Find("#/components/schemas/a.B"))["type"], "string");
  EXPECT_EQ(index.Find("a.D"), nullptr);
}

}  // namespace
}  // namespace quorum::api

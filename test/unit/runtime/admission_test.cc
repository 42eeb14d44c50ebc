#include "src/runtime/admission.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/escaping.h"

namespace quorum::runtime {
namespace {

using kube::Json;

Json Review() {
  return Json::parse(R"({
    "apiVersion": "admission.k8s.io/v1",
    "kind": "AdmissionReview",
    "request": {
      "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
      "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
      "resource": {"group": "", "version": "v1", "resource": "configmaps"},
      "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
      "name": "cfg",
      "namespace": "team-a",
      "operation": "UPDATE",
      "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
      "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"},
                 "data": {"a": "2"}},
      "oldObject": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"},
                    "data": {"a": "1"}},
      "dryRun": true,
      "options": {"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"}
    }
  })");
}

Json ParseResponse(const std::string& body) {
  Json j = Json::parse(body, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << body;
  EXPECT_EQ(j["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(j["kind"], "AdmissionReview");
  return j["response"];
}

TEST(ParseAdmissionReviewTest, ReadsEveryFieldOfAnUpdate) {
  auto req = ParseAdmissionReview(Review().dump());
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_EQ(req->uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(req->kind, (kube::GroupVersionKind{"", "v1", "ConfigMap"}));
  EXPECT_EQ(req->resource, (kube::GroupVersionResource{"", "v1", "configmaps"}));
  EXPECT_EQ(req->sub_resource, "");
  EXPECT_EQ(req->name, "cfg");
  EXPECT_EQ(req->namespace_name, "team-a");
  EXPECT_EQ(req->operation, "UPDATE");
  EXPECT_EQ(req->object["data"]["a"], "2");
  EXPECT_EQ(req->old_object["data"]["a"], "1");
  EXPECT_TRUE(req->dry_run);
  EXPECT_EQ(req->username, "alice");
}

TEST(ParseAdmissionReviewTest, CreateHasNoOldObjectAndOptionalFieldsMayBeAbsent) {
  Json review = Review();
  Json& r = review["request"];
  r["operation"] = "CREATE";
  r["oldObject"] = nullptr;
  r.erase("dryRun");
  r.erase("userInfo");
  r.erase("name");
  r["kind"]["group"] = "quorum.dev";
  r["subResource"] = "status";
  auto req = ParseAdmissionReview(review.dump());
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_TRUE(req->old_object.is_null());
  EXPECT_FALSE(req->dry_run);
  EXPECT_EQ(req->username, "");
  EXPECT_EQ(req->name, "");
  EXPECT_EQ(req->kind.group, "quorum.dev");
  EXPECT_EQ(req->sub_resource, "status");
}

TEST(ParseAdmissionReviewTest, MalformedReviewsAreInvalidArgumentNamingTheProblem) {
  struct Case {
    std::string name;
    std::string body;
    std::string mentions;
  };
  auto with = [](auto&& edit) {
    Json j = Review();
    edit(j);
    return j.dump();
  };
  const std::vector<Case> cases = {
      {"not json", "{\"apiVersion\": ", "not JSON"},
      {"empty", "", "not JSON"},
      {"array", "[]", "not a JSON object"},
      {"old api", with([](Json& j) { j["apiVersion"] = "admission.k8s.io/v1beta1"; }),
       "apiVersion"},
      {"no api", with([](Json& j) { j.erase("apiVersion"); }), "apiVersion"},
      {"api not string", with([](Json& j) { j["apiVersion"] = 1; }), "apiVersion"},
      {"wrong kind", with([](Json& j) { j["kind"] = "Pod"; }), "kind"},
      {"no request", with([](Json& j) { j.erase("request"); }), "request"},
      {"request not object", with([](Json& j) { j["request"] = "x"; }), "request"},
      {"no uid", with([](Json& j) { j["request"].erase("uid"); }), "request.uid"},
      {"empty uid", with([](Json& j) { j["request"]["uid"] = ""; }), "request.uid"},
      {"uid not string", with([](Json& j) { j["request"]["uid"] = 7; }), "request.uid"},
      {"no kind", with([](Json& j) { j["request"].erase("kind"); }), "request.kind"},
      {"no kind.kind", with([](Json& j) { j["request"]["kind"].erase("kind"); }),
       "request.kind.kind"},
      {"no resource", with([](Json& j) { j["request"]["resource"] = 3; }), "request.resource"},
      {"no operation", with([](Json& j) { j["request"].erase("operation"); }), "request.operation"},
      {"bad operation", with([](Json& j) { j["request"]["operation"] = "PATCH"; }), "PATCH"},
      {"object not object", with([](Json& j) { j["request"]["object"] = "x"; }), "request.object"},
      {"dryRun not bool", with([](Json& j) { j["request"]["dryRun"] = "yes"; }), "request.dryRun"},
      {"username not string", with([](Json& j) { j["request"]["userInfo"]["username"] = 1; }),
       "username"},
  };
  for (const Case& c : cases) {
    auto req = ParseAdmissionReview(c.body);
    ASSERT_FALSE(req.ok()) << c.name;
    EXPECT_EQ(req.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(req.status().message().find(c.mentions), absl::string_view::npos)
        << c.name << ": " << req.status();
  }
}

TEST(BuildAdmissionReviewResponseTest, AllowedEchoesTheUidAndNothingElse) {
  Json r = ParseResponse(BuildAdmissionReviewResponse("uid-1", Allowed()));
  EXPECT_EQ(r, (Json{{"uid", "uid-1"}, {"allowed", true}}));
}

TEST(BuildAdmissionReviewResponseTest, DenialCarriesCodeMessageAndReason) {
  Json r = ParseResponse(BuildAdmissionReviewResponse("u", Denied("spec.replicas: too many")));
  EXPECT_EQ(r["allowed"], false);
  EXPECT_EQ(r["status"]["code"], 403);
  EXPECT_EQ(r["status"]["message"], "spec.replicas: too many");
  EXPECT_EQ(r["status"]["reason"], "Forbidden");
  EXPECT_FALSE(r.contains("patch"));

  Json invalid = ParseResponse(BuildAdmissionReviewResponse("u", Denied("bad", 422)));
  EXPECT_EQ(invalid["status"]["code"], 422);
  EXPECT_EQ(invalid["status"]["reason"], "Invalid");

  AdmissionResponse custom = Denied("nope", 409);
  custom.reason = "AlreadyExists";
  EXPECT_EQ(ParseResponse(BuildAdmissionReviewResponse("u", custom))["status"]["reason"],
            "AlreadyExists");
}

TEST(BuildAdmissionReviewResponseTest, PatchIsBase64OfTheOpsWithPatchTypeJsonPatch) {
  const Json ops = Json::array(
      {{{"op", "add"}, {"path", "/metadata/labels/quorum.dev~1mutated"}, {"value", "true"}}});
  AdmissionResponse patched = Patched(ops);
  patched.warnings = {"spec.x is deprecated"};
  Json r = ParseResponse(BuildAdmissionReviewResponse("u", patched));
  EXPECT_EQ(r["allowed"], true);
  EXPECT_EQ(r["patchType"], "JSONPatch");
  EXPECT_EQ(r["warnings"], Json::array({"spec.x is deprecated"}));
  std::string decoded;
  ASSERT_TRUE(absl::Base64Unescape(r["patch"].get<std::string>(), &decoded));
  EXPECT_EQ(Json::parse(decoded), ops);
}

TEST(BuildAdmissionReviewResponseTest, DeniedResponseDropsItsPatch) {
  AdmissionResponse r = Patched(Json::array());
  r.allowed = false;
  r.message = "no";
  Json out = ParseResponse(BuildAdmissionReviewResponse("u", r));
  EXPECT_FALSE(out.contains("patch"));
  EXPECT_FALSE(out.contains("patchType"));
}

TEST(BuildAdmissionReviewResponseTest, InvalidUtf8InAMessageDoesNotThrow) {
  const std::string body = BuildAdmissionReviewResponse("u", Denied("bad \xff\xfe byte"));
  Json r = ParseResponse(body);
  EXPECT_EQ(r["allowed"], false);
}

}  // namespace
}  // namespace quorum::runtime

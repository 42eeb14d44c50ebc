// The client against the real kube-apiserver (and kube-controller-manager for
// garbage collection).
#include "src/kube/client.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "src/kube/discovery.h"
#include "src/kube/errors.h"
#include "test/integration/testenv.h"

namespace quorum::kube {
namespace {

using testenv::Eventually;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions"};
const GroupVersionResource kWidgets{"test.quorum.dev", "v1", "widgets"};
const GroupVersionResource kServiceAccounts{"", "v1", "serviceaccounts"};

Json ConfigMap(const std::string& name, Json data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}}},
          {"data", std::move(data)}};
}

std::string Rv(const Json& o) { return o["metadata"]["resourceVersion"].get<std::string>(); }

class ClientTest : public testenv::IntegrationTest {};

TEST_F(ClientTest, CreateGetUpdateDeleteConfigMap) {
  auto created = client().Create(kConfigMaps, ns(), ConfigMap("cfg", {{"a", "1"}}));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_FALSE((*created)["metadata"]["uid"].get<std::string>().empty());

  auto again = client().Create(kConfigMaps, ns(), ConfigMap("cfg", {{"a", "1"}}));
  EXPECT_TRUE(IsAlreadyExists(again.status())) << again.status();

  auto got = client().Get(kConfigMaps, ns(), "cfg");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)["data"]["a"], "1");

  (*got)["data"]["a"] = "2";
  auto updated = client().Update(kConfigMaps, ns(), *got);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_NE(Rv(*updated), Rv(*got));
  EXPECT_EQ((*client().Get(kConfigMaps, ns(), "cfg"))["data"]["a"], "2");

  ASSERT_TRUE(client().Delete(kConfigMaps, ns(), "cfg").ok());
  auto gone = client().Get(kConfigMaps, ns(), "cfg");
  EXPECT_TRUE(IsNotFound(gone.status())) << gone.status();
  EXPECT_TRUE(IsNotFound(client().Delete(kConfigMaps, ns(), "cfg")));
}

TEST_F(ClientTest, SecondIdenticalServerSideApplyWritesNothing) {
  const Json desired = ConfigMap("applied", {{"key", "value"}});
  auto first = client().Apply(kConfigMaps, ns(), desired, {.field_manager = "quorum-test"});
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = client().Apply(kConfigMaps, ns(), desired, {.field_manager = "quorum-test"});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(Rv(*first), Rv(*second)) << "an identical apply must not write";

  Json changed = desired;
  changed["data"]["key"] = "other";
  auto third = client().Apply(kConfigMaps, ns(), changed, {.field_manager = "quorum-test"});
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_NE(Rv(*third), Rv(*second));
  bool managed = false;
  for (const Json& mf : (*third)["metadata"]["managedFields"]) {
    managed |= mf["manager"] == "quorum-test" && mf["operation"] == "Apply";
  }
  EXPECT_TRUE(managed);
}

TEST_F(ClientTest, ApplyConflictsWithAnotherManagerUnlessForced) {
  ASSERT_TRUE(
      client()
          .Apply(kConfigMaps, ns(), ConfigMap("shared", {{"k", "a"}}), {.field_manager = "first"})
          .ok());
  auto conflict = client().Apply(kConfigMaps, ns(), ConfigMap("shared", {{"k", "b"}}),
                                 {.field_manager = "second", .force = false});
  EXPECT_TRUE(IsConflict(conflict.status())) << conflict.status();
  auto forced = client().Apply(kConfigMaps, ns(), ConfigMap("shared", {{"k", "b"}}),
                               {.field_manager = "second", .force = true});
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_EQ((*forced)["data"]["k"], "b");
}

TEST_F(ClientTest, StaleUpdateGetsConflict) {
  auto created = client().Create(kConfigMaps, ns(), ConfigMap("cas", {{"n", "0"}}));
  ASSERT_TRUE(created.ok()) << created.status();
  Json stale = *created;
  Json fresh = *created;
  fresh["data"]["n"] = "1";
  ASSERT_TRUE(client().Update(kConfigMaps, ns(), fresh).ok());
  stale["data"]["n"] = "2";
  auto lost = client().Update(kConfigMaps, ns(), stale);
  ASSERT_TRUE(IsConflict(lost.status())) << lost.status();
  EXPECT_EQ(Reason(lost.status()), "Conflict");
  EXPECT_EQ(HttpCode(lost.status()), 409);
  EXPECT_EQ((*client().Get(kConfigMaps, ns(), "cas"))["data"]["n"], "1");
}

TEST_F(ClientTest, InvalidObjectNamesTheField) {
  auto bad = client().Create(kConfigMaps, ns(), ConfigMap("Not_A_Valid_Name", {{"a", "1"}}));
  ASSERT_TRUE(IsInvalid(bad.status())) << bad.status();
  std::vector<StatusCause> causes = Causes(bad.status());
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].field, "metadata.name");
}

TEST_F(ClientTest, MergeAndJsonPatch) {
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("p", {{"a", "1"}})).ok());
  auto merged = client().Patch(kConfigMaps, ns(), "p", PatchType::kMerge,
                               {{"data", {{"b", "2"}, {"a", nullptr}}}});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ((*merged)["data"], (Json{{"b", "2"}}));
  auto jsonp = client().Patch(kConfigMaps, ns(), "p", PatchType::kJson,
                              Json::array({{{"op", "add"}, {"path", "/data/c"}, {"value", "3"}},
                                           {{"op", "test"}, {"path", "/data/b"}, {"value", "2"}}}));
  ASSERT_TRUE(jsonp.ok()) << jsonp.status();
  EXPECT_EQ((*jsonp)["data"]["c"], "3");
  auto failed_test =
      client().Patch(kConfigMaps, ns(), "p", PatchType::kJson,
                     Json::array({{{"op", "test"}, {"path", "/data/b"}, {"value", "nope"}}}));
  EXPECT_FALSE(failed_test.ok());
}

TEST_F(ClientTest, ListPaginatesAndListAllCollectsEveryPage) {
  for (int i = 0; i < 25; ++i) {
    ASSERT_TRUE(
        client().Create(kConfigMaps, ns(), ConfigMap("item-" + std::to_string(i), {})).ok());
  }
  auto page = client().List(kConfigMaps, ns(), {.limit = 10});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ((*page)["items"].size(), 10u);
  EXPECT_FALSE((*page)["metadata"].value("continue", "").empty());

  auto all = client().ListAll(kConfigMaps, ns(), {.limit = 10});
  ASSERT_TRUE(all.ok()) << all.status();
  int items = 0;
  for (const Json& cm : (*all)["items"]) {
    items += cm["metadata"]["name"].get<std::string>().rfind("item-", 0) == 0;
  }
  EXPECT_EQ(items, 25);
  EXPECT_FALSE((*all)["metadata"].contains("continue"));
  EXPECT_FALSE((*all)["metadata"].value("resourceVersion", "").empty());

  auto selected = client().List(kConfigMaps, ns(), {.field_selector = "metadata.name=item-7"});
  ASSERT_TRUE(selected.ok());
  EXPECT_EQ((*selected)["items"].size(), 1u);
}

TEST_F(ClientTest, DeletePreconditionOnUidIsEnforced) {
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("pre", {})).ok());
  absl::Status s = client().Delete(kConfigMaps, ns(), "pre", {.precondition_uid = "not-the-uid"});
  EXPECT_TRUE(IsConflict(s)) << s;
  EXPECT_TRUE(client().Get(kConfigMaps, ns(), "pre").ok());
}

TEST_F(ClientTest, OwnedObjectIsGarbageCollectedAfterItsOwnerIsDeleted) {
  auto owner = client().Create(kConfigMaps, ns(), ConfigMap("owner", {}));
  ASSERT_TRUE(owner.ok()) << owner.status();
  Json dependent = ConfigMap("dependent", {});
  dependent["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "v1"},
                                                           {"kind", "ConfigMap"},
                                                           {"name", "owner"},
                                                           {"uid", (*owner)["metadata"]["uid"]},
                                                           {"controller", true},
                                                           {"blockOwnerDeletion", true}}});
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), dependent).ok());
  ASSERT_TRUE(
      client()
          .Delete(kConfigMaps, ns(), "owner", {.propagation = PropagationPolicy::kBackground})
          .ok());
  EXPECT_TRUE(
      Eventually([&] { return IsNotFound(client().Get(kConfigMaps, ns(), "dependent").status()); },
                 absl::Seconds(90)))
      << "kube-controller-manager's garbage collector did not delete the dependent";
}

// Installs (idempotently) a namespaced CRD with a status subresource.
void InstallWidgetCrd(Client& client) {
  const Json schema = {
      {"type", "object"},
      {"properties",
       {{"spec", {{"type", "object"}, {"properties", {{"size", {{"type", "integer"}}}}}}},
        {"status", {{"type", "object"}, {"properties", {{"phase", {{"type", "string"}}}}}}}}}};
  const Json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "widgets.test.quorum.dev"}}},
      {"spec",
       {{"group", "test.quorum.dev"},
        {"scope", "Namespaced"},
        {"names", {{"plural", "widgets"}, {"singular", "widget"}, {"kind", "Widget"}}},
        {"versions", Json::array({{{"name", "v1"},
                                   {"served", true},
                                   {"storage", true},
                                   {"subresources", {{"status", Json::object()}}},
                                   {"schema", {{"openAPIV3Schema", schema}}}}})}}}};
  auto applied = client.Apply(kCrds, "", crd, {.field_manager = "quorum-test", .force = true});
  ASSERT_TRUE(applied.ok()) << applied.status();
  ASSERT_TRUE(Eventually(
      [&] {
        auto got = client.Get(kCrds, "", "widgets.test.quorum.dev");
        if (!got.ok()) return false;
        for (const Json& c : (*got)["status"].value("conditions", Json::array())) {
          if (c["type"] == "Established" && c["status"] == "True") return true;
        }
        return false;
      },
      absl::Seconds(30)));
  // Discovery may lag a moment behind Established.
  ASSERT_TRUE(Eventually([&] { return client.List(kWidgets, "default").ok(); }, absl::Seconds(30)));
}

TEST_F(ClientTest, StatusOfACustomResourceChangesOnlyThroughTheStatusSubresource) {
  InstallWidgetCrd(client());
  Json widget = {{"apiVersion", "test.quorum.dev/v1"},
                 {"kind", "Widget"},
                 {"metadata", {{"name", "w"}}},
                 {"spec", {{"size", 3}}},
                 {"status", {{"phase", "Sneaky"}}}};
  auto created = client().Create(kWidgets, ns(), widget);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_FALSE(created->contains("status") && (*created)["status"].contains("phase"))
      << "status in a create must be ignored";

  Json main = *created;
  main["status"] = {{"phase", "ViaMain"}};
  main["spec"]["size"] = 4;
  auto updated = client().Update(kWidgets, ns(), main);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ((*updated)["spec"]["size"], 4);
  EXPECT_FALSE(updated->contains("status") && (*updated)["status"].contains("phase"));

  Json with_status = *updated;
  with_status["status"] = {{"phase", "Ready"}};
  auto status = client().UpdateStatus(kWidgets, ns(), with_status);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ((*status)["status"]["phase"], "Ready");

  auto applied = client().ApplyStatus(kWidgets, ns(),
                                      {{"apiVersion", "test.quorum.dev/v1"},
                                       {"kind", "Widget"},
                                       {"metadata", {{"name", "w"}}},
                                       {"status", {{"phase", "Applied"}}}},
                                      {.field_manager = "quorum-test", .force = true});
  ASSERT_TRUE(applied.ok()) << applied.status();
  auto got = client().Get(kWidgets, ns(), "w");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["status"]["phase"], "Applied");
  EXPECT_EQ((*got)["spec"]["size"], 4) << "a status write must not touch spec";
}

TEST_F(ClientTest, DiscoveryMapsKindsToResources) {
  InstallWidgetCrd(client());
  RestMapper mapper(client());
  auto cm = mapper.ResourceFor("v1", "ConfigMap");
  ASSERT_TRUE(cm.ok()) << cm.status();
  EXPECT_EQ(cm->gvr, kConfigMaps);
  EXPECT_TRUE(cm->namespaced);
  auto sts = mapper.ResourceFor("apps/v1", "StatefulSet");
  ASSERT_TRUE(sts.ok()) << sts.status();
  EXPECT_EQ(sts->gvr.resource, "statefulsets");
  EXPECT_NE(std::find(sts->subresources.begin(), sts->subresources.end(), "scale"),
            sts->subresources.end());
  auto ns_kind = mapper.ResourceFor("v1", "Namespace");
  ASSERT_TRUE(ns_kind.ok());
  EXPECT_FALSE(ns_kind->namespaced);
  auto widget = mapper.ResourceFor("test.quorum.dev/v1", "Widget");
  ASSERT_TRUE(widget.ok()) << widget.status();
  EXPECT_EQ(widget->gvr, kWidgets);
  EXPECT_TRUE(IsNotFound(mapper.ResourceFor("v1", "NoSuchKind").status()));
  EXPECT_TRUE(IsNotFound(mapper.ResourceFor("nope.example.com/v9", "X").status()));
}

TEST_F(ClientTest, BadCredentialsGetUnauthorizedNotACrash) {
  RestConfig config = control_plane().config;
  config.client_cert_pem.clear();
  config.client_key_pem.clear();
  config.bearer_token = "definitely-not-a-valid-token";
  auto bad = Client::Create(config);
  ASSERT_TRUE(bad.ok());
  auto got = (*bad)->Get(kConfigMaps, ns(), "anything");
  ASSERT_TRUE(IsUnauthorized(got.status())) << got.status();
  EXPECT_EQ(HttpCode(got.status()), 401);
}

TEST_F(ClientTest, UntrustedServerCertificateIsAnError) {
  RestConfig config = control_plane().config;
  config.ca_pem.clear();  // the system trust store does not know our test CA
  auto bad = Client::Create(config);
  ASSERT_TRUE(bad.ok());
  auto got = (*bad)->Get(kConfigMaps, ns(), "anything");
  EXPECT_TRUE(absl::IsUnavailable(got.status())) << got.status();
}

// A service-account token obtained through the TokenRequest API, handed to the
// client first through a token file and then by an exec credential plugin.
TEST_F(ClientTest, TokenFileAndExecPluginAuthenticateAsTheServiceAccount) {
  ASSERT_TRUE(
      client()
          .Create(
              kServiceAccounts, ns(),
              {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "robot"}}}})
          .ok());
  auto tr = client().CreateSubresource(kServiceAccounts, ns(), "robot", "token",
                                       {{"apiVersion", "authentication.k8s.io/v1"},
                                        {"kind", "TokenRequest"},
                                        {"spec", {{"expirationSeconds", 3600}}}});
  ASSERT_TRUE(tr.ok()) << tr.status();
  const std::string token = (*tr)["status"]["token"];
  ASSERT_FALSE(token.empty());

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("quorum-auth-" + ns());
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "token") << token << "\n";
    std::ofstream plugin(dir / "plugin.sh");
    plugin << "#!/bin/sh\ncat <<'EOF'\n"
           << Json{{"apiVersion", "client.authentication.k8s.io/v1"},
                   {"kind", "ExecCredential"},
                   {"status", {{"token", token}}}}
                  .dump()
           << "\nEOF\n";
  }
  std::filesystem::permissions(dir / "plugin.sh", std::filesystem::perms::owner_all);

  RestConfig base = control_plane().config;
  base.client_cert_pem.clear();
  base.client_key_pem.clear();
  RestConfig file = base;
  file.bearer_token_file = (dir / "token").string();
  RestConfig exec = base;
  exec.exec = ExecConfig{.api_version = "client.authentication.k8s.io/v1",
                         .command = (dir / "plugin.sh").string()};
  for (const RestConfig& config : {file, exec}) {
    auto c = Client::Create(config);
    ASSERT_TRUE(c.ok());
    // Authenticated (not 401) but not authorized: RBAC names the identity.
    auto got = (*c)->List(kConfigMaps, ns());
    ASSERT_TRUE(IsForbidden(got.status())) << got.status();
    EXPECT_NE(got.status().message().find("system:serviceaccount:" + ns() + ":robot"),
              std::string::npos)
        << got.status();
  }
  std::filesystem::remove_all(dir);
}

TEST_F(ClientTest, ThousandsOfRequestsReuseAHandfulOfConnections) {
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("hot", {})).ok());
  const TransportStats before = client().transport().stats();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(client().Get(kConfigMaps, ns(), "hot").ok());
  }
  const TransportStats after = client().transport().stats();
  EXPECT_EQ(after.requests - before.requests, 1000);
  EXPECT_LE(after.connections_opened - before.connections_opened, 2);
}

}  // namespace
}  // namespace quorum::kube

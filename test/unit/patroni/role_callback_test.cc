// The role callback script, run with /bin/sh against a local HTTP server that
// records the PATCH it sends: the request line, headers and body for each
// (action, role), and its retry and give-up behaviour.
#include "src/patroni/role_callback.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "src/patroni/role.h"
#include "test/testmain/paths.h"

namespace quorum::patroni {
namespace {

using nlohmann::json;

struct Recorded {
  std::string method, path, content_type, authorization, body;
};

class RoleCallbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Patch(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))",
                  [this](const httplib::Request& req, httplib::Response& res) {
                    std::lock_guard<std::mutex> lock(mu_);
                    requests_.push_back({req.method, req.path, req.get_header_value("Content-Type"),
                                         req.get_header_value("Authorization"), req.body});
                    const int status = failures_left_ > 0 ? 500 : answer_;
                    if (failures_left_ > 0) --failures_left_;
                    res.status = status;
                    res.set_content("{}", "application/json");
                  });
    // The list of the cluster's other primaries (PartialObjectMetadataList).
    server_.Get(R"(/api/v1/namespaces/([^/]+)/pods)", [this](const httplib::Request& req,
                                                             httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      lists_.push_back({req.get_param_value("labelSelector"), req.get_param_value("fieldSelector"),
                        req.get_header_value("Accept")});
      json items = json::array();
      for (const std::string& name : other_primaries_) {
        items.push_back(
            {{"kind", "PartialObjectMetadata"},
             {"apiVersion", "meta.k8s.io/v1"},
             {"metadata",
              {{"name", name},
               {"namespace", "db"},
               {"ownerReferences", json::array({{{"kind", "StatefulSet"}, {"name", "hippo"}}})}}}});
      }
      res.status = list_answer_;
      // Like the API server, which pretty-prints for a curl user agent
      // unless the query says pretty=false.
      const int indent = req.get_param_value("pretty") == "false" ? -1 : 2;
      res.set_content(json{{"kind", "PartialObjectMetadataList"},
                           {"apiVersion", "meta.k8s.io/v1"},
                           {"metadata", {{"resourceVersion", "7"}}},
                           {"items", items}}
                          .dump(indent),
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op before the loop runs, so wait for it (TearDown would hang).
    while (!server_.is_running()) std::this_thread::yield();
    char tmpl[] = "/tmp/quorum-callback-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    script_ = dir_ + "/role-callback.sh";
    std::ofstream(script_, std::ios::binary) << RoleCallbackScript();
    std::ofstream(dir_ + "/token") << "s3cret-token";
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
    std::filesystem::remove_all(dir_);
  }

  // Runs the script; returns its exit code.
  int Run(const std::string& action, const std::string& role, const std::string& api = "",
          const std::string& extra_env = "") {
    const std::string base = api.empty() ? "http://127.0.0.1:" + std::to_string(port_) : api;
    const std::string cmd =
        "env -i PATH=/usr/bin:/bin POD_NAME=hippo-0 POD_NAMESPACE=db " +
        std::string("QUORUM_KUBE_API=") + base + " QUORUM_KUBE_TOKEN_FILE=" + dir_ +
        "/token QUORUM_KUBE_CA_FILE=" + dir_ + "/none " + extra_env + " /bin/sh " + script_ + " " +
        action + " '" + role + "' hippo 2>" + dir_ + "/stderr";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  std::vector<Recorded> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string dir_, script_;
  std::mutex mu_;
  std::vector<Recorded> requests_;
  int failures_left_ = 0;
  int answer_ = 200;
  struct ListCall {
    std::string label_selector, field_selector, accept;
  };
  std::vector<ListCall> lists_;
  std::vector<std::string> other_primaries_;
  int list_answer_ = 200;
};

struct Case {
  const char* action;
  const char* role;
  const char* expected_body;  // JSON
};

TEST_F(RoleCallbackTest, PatchesItsOwnPodWithTheRoleOfEachCallback) {
  const Case cases[] = {
      {"on_start", "primary",
       R"({"metadata":{"labels":{"role":"primary"},"annotations":{"status":"{\"role\":\"primary\"}"}}})"},
      {"on_role_change", "standby_leader",
       R"({"metadata":{"labels":{"role":"primary"},"annotations":{"status":"{\"role\":\"standby_leader\"}"}}})"},
      {"on_role_change", "master",
       R"({"metadata":{"labels":{"role":"primary"},"annotations":{"status":"{\"role\":\"master\"}"}}})"},
      {"on_start", "replica",
       R"({"metadata":{"labels":{"role":"replica"},"annotations":{"status":"{\"role\":\"replica\"}"}}})"},
      {"on_role_change", "sync_standby",
       R"({"metadata":{"labels":{"role":"replica"},"annotations":{"status":"{\"role\":\"sync_standby\"}"}}})"},
      {"on_role_change", "demoted",
       R"({"metadata":{"labels":{"role":null},"annotations":{"status":"{\"role\":\"demoted\"}"}}})"},
      {"on_role_change", "uninitialized",
       R"({"metadata":{"labels":{"role":null},"annotations":{"status":"{\"role\":\"uninitialized\"}"}}})"},
      {"on_stop", "primary",
       R"({"metadata":{"labels":{"role":null},"annotations":{"status":"{\"role\":\"stopped\"}"}}})"},
      {"on_stop", "replica",
       R"({"metadata":{"labels":{"role":null},"annotations":{"status":"{\"role\":\"stopped\"}"}}})"},
      {"on_role_change", "x\"y",
       R"({"metadata":{"labels":{"role":null},"annotations":{"status":"{\"role\":\"unknown\"}"}}})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.action) + " " + c.role);
    const size_t before = Requests().size();
    ASSERT_EQ(Run(c.action, c.role), 0);
    const std::vector<Recorded> got = Requests();
    ASSERT_EQ(got.size(), before + 1);
    const Recorded& r = got.back();
    EXPECT_EQ(r.method, "PATCH");
    EXPECT_EQ(r.path, "/api/v1/namespaces/db/pods/hippo-0");
    EXPECT_EQ(r.content_type, "application/merge-patch+json");
    EXPECT_EQ(r.authorization, "Bearer s3cret-token");
    const json body = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << r.body;
    EXPECT_EQ(body, json::parse(c.expected_body)) << r.body;
    // The script's table is role.h's table.
    const json& label = body["metadata"]["labels"]["role"];
    const std::optional<std::string> want = RoleLabelAfterCallback(c.action, c.role);
    EXPECT_EQ(label.is_null() ? std::nullopt : std::optional<std::string>(label), want);
  }
}

// Issue 18.3: the new primary takes the label away from the old one first.
TEST_F(RoleCallbackTest, TakesPrimaryAwayFromTheOtherPodsBeforeLabellingItself) {
  other_primaries_ = {"hippo-1", "hippo-2"};
  ASSERT_EQ(Run("on_role_change", "primary"), 0);
  const std::vector<Recorded> got = Requests();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].path, "/api/v1/namespaces/db/pods/hippo-1");
  EXPECT_EQ(json::parse(got[0].body), json::parse(R"({"metadata":{"labels":{"role":null}}})"));
  EXPECT_EQ(got[1].path, "/api/v1/namespaces/db/pods/hippo-2");
  EXPECT_EQ(got[2].path, "/api/v1/namespaces/db/pods/hippo-0");
  EXPECT_EQ(json::parse(got[2].body)["metadata"]["labels"]["role"], "primary");
  ASSERT_EQ(lists_.size(), 1u);
  EXPECT_EQ(lists_[0].label_selector, "postgres.quorum.dev/cluster=hippo,role=primary");
  EXPECT_EQ(lists_[0].field_selector, "metadata.name!=hippo-0");

  // A replica's callback touches no other pod.
  ASSERT_EQ(Run("on_role_change", "replica"), 0);
  EXPECT_EQ(Requests().size(), 4u);
  EXPECT_EQ(lists_.size(), 1u);
}

TEST_F(RoleCallbackTest, DoesNotLabelItselfPrimaryWhileTheOldPrimaryCannotBeCleared) {
  list_answer_ = 500;
  EXPECT_EQ(Run("on_role_change", "primary", "", "QUORUM_CALLBACK_ATTEMPTS=2"), 1);
  EXPECT_TRUE(Requests().empty()) << "no PATCH of its own pod";
  EXPECT_EQ(lists_.size(), 2u);
  // Without the right to list pods it labels itself and leaves the rest to the operator.
  list_answer_ = 403;
  EXPECT_EQ(Run("on_role_change", "primary"), 0);
  ASSERT_EQ(Requests().size(), 1u);
  EXPECT_EQ(Requests()[0].path, "/api/v1/namespaces/db/pods/hippo-0");
}

TEST_F(RoleCallbackTest, RetriesWhileTheApiServerFails) {
  failures_left_ = 2;
  EXPECT_EQ(Run("on_role_change", "primary"), 0);
  EXPECT_EQ(Requests().size(), 3u);
}

TEST_F(RoleCallbackTest, GivesUpAfterTheConfiguredAttempts) {
  failures_left_ = 100;
  EXPECT_EQ(Run("on_role_change", "primary", "", "QUORUM_CALLBACK_ATTEMPTS=2"), 1);
  EXPECT_EQ(Requests().size(), 2u);
}

TEST_F(RoleCallbackTest, StopsAtOnceWhenThePodIsGone) {
  answer_ = 404;
  EXPECT_EQ(Run("on_start", "replica"), 1);
  EXPECT_EQ(Requests().size(), 1u);
}

TEST_F(RoleCallbackTest, FailsWhenNothingAnswers) {
  EXPECT_EQ(Run("on_start", "replica", "http://127.0.0.1:1", "QUORUM_CALLBACK_ATTEMPTS=2"), 1);
  EXPECT_TRUE(Requests().empty());
}

TEST(RoleCallbackScriptTest, EmbeddedTextIsTheScriptFile) {
  std::ifstream in(std::string(QUORUM_SOURCE_DIR) + "/src/patroni/role-callback.sh",
                   std::ios::binary);
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_EQ(RoleCallbackScript(), file.str());
  EXPECT_EQ(RoleCallbackScript().substr(0, 10), "#!/bin/sh\n");
}

}  // namespace
}  // namespace quorum::patroni

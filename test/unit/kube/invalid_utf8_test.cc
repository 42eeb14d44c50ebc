// Text that reaches a request body from libpq, Patroni or etcd may hold
// invalid UTF-8 (issue 14.9). The client must send it with each bad byte
// replaced by U+FFFD, never throw. A local HTTP server records what arrives;
// it is not an API server stand-in (integration tests use the real one).
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "src/kube/client.h"

namespace quorum::kube {
namespace {

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
// "primary \xff\xfe lost": two bytes that can never appear in UTF-8.
const std::string kBadText = std::string("primary ") + "\xff\xfe" + " lost";
const std::string kReplaced = "primary \xEF\xBF\xBD\xEF\xBF\xBD lost";

TEST(DumpJsonTest, ReplacesInvalidBytes) {
  Json j = {{"message", kBadText}, {"ok", "caf\xC3\xA9"}};
  const std::string out = DumpJson(j);
  const Json back = Json::parse(out);  // valid UTF-8 again
  EXPECT_EQ(back["message"], kReplaced);
  EXPECT_EQ(back["ok"], "caf\xC3\xA9");  // valid text is untouched, not escaped
}

class InvalidUtf8Test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto record = [this](const httplib::Request& req, httplib::Response& res) {
      absl::MutexLock lock(&mu_);
      bodies_.push_back(req.body);
      res.set_content("{}", "application/json");
    };
    server_.Post(".*", record);
    server_.Put(".*", record);
    server_.Patch(".*", record);
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    config.qps = 0;
    auto client = Client::Create(config);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::vector<std::string> Bodies() {
    absl::MutexLock lock(&mu_);
    return bodies_;
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::unique_ptr<Client> client_;
  absl::Mutex mu_;
  std::vector<std::string> bodies_;
};

TEST_F(InvalidUtf8Test, EveryWriteVerbSendsReplacedText) {
  const Json object = {{"apiVersion", "v1"},
                       {"kind", "ConfigMap"},
                       {"metadata", {{"name", "c"}, {"namespace", "ns"}}},
                       {"status", {{"message", kBadText}}}};
  // Before the fix each of these threw nlohmann::json::type_error (316).
  EXPECT_NO_THROW({
    EXPECT_TRUE(client_->Create(kConfigMaps, "ns", object).ok());
    EXPECT_TRUE(client_->Update(kConfigMaps, "ns", object).ok());
    EXPECT_TRUE(client_->UpdateStatus(kConfigMaps, "ns", object).ok());
    EXPECT_TRUE(client_->Apply(kConfigMaps, "ns", object).ok());
    EXPECT_TRUE(client_->ApplyStatus(kConfigMaps, "ns", object).ok());
    EXPECT_TRUE(client_->Patch(kConfigMaps, "ns", "c", PatchType::kMerge, object).ok());
  });
  const std::vector<std::string> bodies = Bodies();
  ASSERT_EQ(bodies.size(), 6u);
  for (const std::string& body : bodies) {
    const Json sent = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(sent.is_discarded()) << body;
    EXPECT_EQ(sent["status"]["message"], kReplaced);
  }
}

}  // namespace
}  // namespace quorum::kube

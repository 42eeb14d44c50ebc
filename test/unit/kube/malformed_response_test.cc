// The client against a local HTTP server that misbehaves on purpose (broken
// JSON, HTML errors, truncated streams, silence). This is not a stand-in for
// the API server — integration tests use the real one — it proves that bad
// bytes give clear errors and never crash the client.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "src/kube/client.h"
#include "src/kube/errors.h"
#include "src/kube/watch.h"

namespace quorum::kube {
namespace {

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

class MalformedResponseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/api/v1/namespaces/ns/configmaps/garbage",
                [](const httplib::Request&, httplib::Response& res) {
                  res.set_content("{\"kind\":\"ConfigMap\",\"metadata\":{", "application/json");
                });
    server_.Get("/api/v1/namespaces/ns/configmaps/html",
                [](const httplib::Request&, httplib::Response& res) {
                  res.status = 503;
                  res.set_content("<html><body>Bad gateway</body></html>", "text/html");
                });
    server_.Get("/api/v1/namespaces/ns/configmaps/slow",
                [](const httplib::Request&, httplib::Response& res) {
                  std::this_thread::sleep_for(std::chrono::seconds(3));
                  res.set_content("{}", "application/json");
                });
    server_.Get("/api/v1/namespaces/ns/configmaps",
                [this](const httplib::Request& req, httplib::Response& res) {
                  if (req.has_param("watch")) {
                    ++watches_;
                    // One good event, then a line that is not JSON.
                    res.set_content(
                        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\","
                        "\"resourceVersion\":\"5\"}}}\n{\"type\":\"MODIF",
                        "application/json");
                    return;
                  }
                  res.set_content("\x01\x02 binary", "application/json");
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    config.qps = 0;
    config.timeout = absl::Seconds(1);
    auto client = Client::Create(config);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }
  void TearDown() override {
    client_.reset();  // closes kept-alive connections so the server stops at once
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> watches_{0};
  std::unique_ptr<Client> client_;
};

TEST_F(MalformedResponseTest, TruncatedJsonIsAnInternalErrorNamingTheRequest) {
  auto got = client_->Get(kConfigMaps, "ns", "garbage");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(got.status().message().find("malformed response"), std::string::npos);
  EXPECT_NE(got.status().message().find("/configmaps/garbage"), std::string::npos);
}

TEST_F(MalformedResponseTest, BinaryListBodyIsAnError) {
  auto got = client_->List(kConfigMaps, "ns");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInternal);
}

TEST_F(MalformedResponseTest, HtmlErrorPageBecomesUnavailable) {
  auto got = client_->Get(kConfigMaps, "ns", "html");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(absl::IsUnavailable(got.status())) << got.status();
  EXPECT_NE(got.status().message().find("Bad gateway"), std::string::npos);
}

TEST_F(MalformedResponseTest, SlowServerHitsTheClientTimeout) {
  auto got = client_->Get(kConfigMaps, "ns", "slow");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(absl::IsDeadlineExceeded(got.status())) << got.status();
}

TEST_F(MalformedResponseTest, ConnectionRefusedIsUnavailable) {
  RestConfig config;
  config.server = "http://127.0.0.1:1";
  auto client = Client::Create(config);
  ASSERT_TRUE(client.ok());
  auto got = (*client)->Get(kConfigMaps, "ns", "x");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(absl::IsUnavailable(got.status())) << got.status();
}

TEST_F(MalformedResponseTest, BadServerUrlIsRefusedUpFront) {
  for (const char* url :
       {"", "127.0.0.1:6443", "ftp://x", "https://:443", "https://h:99999", "https://[::1"}) {
    RestConfig config;
    config.server = url;
    EXPECT_TRUE(absl::IsInvalidArgument(Client::Create(config).status())) << url;
  }
}

TEST_F(MalformedResponseTest, WatchDeliversGoodEventsThenRetriesAfterGarbage) {
  Watcher::Options options;
  options.initial_backoff = absl::Milliseconds(10);
  std::vector<absl::Status> errors;
  options.on_error = [&](const absl::Status& s, absl::Duration) { errors.push_back(s); };
  Watcher watcher(*client_, kConfigMaps, "ns", options);
  Cancellation cancel;
  int events = 0;
  absl::Status s = watcher.Run(
      [&](const WatchEvent& ev) {
        ++events;
        if (watches_ >= 3) cancel.Cancel();
        return true;
      },
      cancel);
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
  EXPECT_GE(events, 3);
  EXPECT_EQ(watcher.resource_version(), "5");
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace quorum::kube

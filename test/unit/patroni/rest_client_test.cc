// RestClient against a local HTTP server that plays Patroni's REST API.
#include "src/patroni/rest_client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace quorum::patroni {
namespace {

TEST(RestClientParseTest, ReadsAPrimarysStatus) {
  absl::StatusOr<MemberStatus> s = ParseMemberStatus(R"({
    "state": "running", "postmaster_start_time": "2026-11-30 01:00:00+00:00",
    "role": "primary", "server_version": 150018, "xlog": {"location": 67108960},
    "timeline": 2, "dcs_last_seen": 1, "replication": [
      {"usename": "replicator", "application_name": "hippo-1", "client_addr": "10.0.0.2",
       "state": "streaming", "sync_state": "async", "sync_priority": 0},
      {"usename": "replicator", "application_name": "hippo-2", "client_addr": "10.0.0.3",
       "state": "catchup", "sync_state": "async", "sync_priority": 0}],
    "database_system_identifier": "7441234567890123456", "pending_restart": true,
    "patroni": {"version": "4.1.5", "scope": "hippo", "name": "hippo-0"}})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->name, "hippo-0");
  EXPECT_EQ(s->scope, "hippo");
  EXPECT_EQ(s->state, "running");
  EXPECT_EQ(s->role, "primary");
  EXPECT_EQ(s->database_system_identifier, "7441234567890123456");
  EXPECT_TRUE(s->pending_restart);
  EXPECT_EQ(s->timeline, 2);
  EXPECT_EQ(s->xlog_location, 67108960);
  EXPECT_EQ(s->streaming_to, std::vector<std::string>{"hippo-1"}) << "hippo-2 only catches up";
}

TEST(RestClientParseTest, ReadsAReplicasStatus) {
  absl::StatusOr<MemberStatus> s = ParseMemberStatus(R"({"state": "running", "role": "replica",
    "xlog": {"received_location": 100, "replayed_location": 90, "paused": false}})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->role, "replica");
  EXPECT_FALSE(s->pending_restart);
  EXPECT_EQ(s->xlog_received_location, 100);
  EXPECT_EQ(s->xlog_replayed_location, 90);
}

TEST(RestClientParseTest, ReadsTheClusterAndItsLeader) {
  absl::StatusOr<ClusterStatus> c = ParseClusterStatus(R"({"scope": "hippo", "members": [
    {"name": "hippo-0", "role": "replica", "state": "streaming", "api_url": "http://a:8008/patroni",
     "host": "a", "port": 5432, "timeline": 2, "lag": 16},
    {"name": "hippo-1", "role": "leader", "state": "running", "host": "b", "port": 5432,
     "timeline": 2},
    {"name": "hippo-2", "role": "replica", "state": "stopped", "lag": "unknown"}]})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->scope, "hippo");
  ASSERT_EQ(c->members.size(), 3u);
  EXPECT_EQ(c->Leader(), "hippo-1");
  EXPECT_EQ(c->members[0].lag, 16);
  EXPECT_EQ(c->members[0].port, 5432);
  EXPECT_EQ(c->members[1].lag, std::nullopt);
  EXPECT_EQ(c->members[2].lag, std::nullopt);
}

TEST(RestClientParseTest, RejectsWhatIsNotAnObject) {
  EXPECT_TRUE(absl::IsInvalidArgument(ParseMemberStatus("nope").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseClusterStatus("[]").status()));
}

class RestClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/patroni", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"state":"running","role":"replica","patroni":{"name":"m1"}})",
                      "application/json");
    });
    server_.Get("/cluster", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"members":[{"name":"m0","role":"leader"}]})", "application/json");
    });
    server_.Post("/switchover", [this](const httplib::Request& req, httplib::Response& res) {
      last_body_ = req.body;
      res.status = switchover_status_;
      res.set_content(switchover_status_ == 200 ? "Successfully switched over to \"m1\""
                                                : "candidate name does not match",
                      "text/plain");
    });
    server_.Post("/failover", [this](const httplib::Request& req, httplib::Response& res) {
      last_body_ = req.body;
      res.status = 503;
      res.set_content("Failover failed", "text/plain");
    });
    // Patroni's compare-and-set of the DCS copy lost to a concurrent write.
    server_.Patch("/config", [](const httplib::Request&, httplib::Response& res) {
      res.status = 409;
      res.set_content("<!DOCTYPE HTML>", "text/html");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op before the loop runs, so wait for it (TearDown would hang).
    while (!server_.is_running()) std::this_thread::yield();
    url_ = "http://127.0.0.1:" + std::to_string(port_);
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string url_;
  std::string last_body_;
  int switchover_status_ = 200;
};

TEST_F(RestClientTest, ReadsStatusAndCluster) {
  RestClient c({});
  absl::StatusOr<MemberStatus> s = c.GetPatroni(url_);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->role, "replica");
  EXPECT_EQ(s->name, "m1");
  absl::StatusOr<ClusterStatus> cl = c.GetCluster(url_ + "/");
  ASSERT_TRUE(cl.ok()) << cl.status();
  EXPECT_EQ(cl->Leader(), "m0");
}

TEST_F(RestClientTest, SendsSwitchoverAndMapsRefusals) {
  RestClient c({});
  ASSERT_TRUE(c.Switchover(url_, "m0", "m1").ok());
  EXPECT_EQ(nlohmann::json::parse(last_body_),
            nlohmann::json::parse(R"({"leader":"m0","candidate":"m1"})"));
  switchover_status_ = 412;
  absl::Status s = c.Switchover(url_, "m0", "");
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_EQ(nlohmann::json::parse(last_body_), nlohmann::json::parse(R"({"leader":"m0"})"));
  s = c.Failover(url_, "m2");
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_EQ(nlohmann::json::parse(last_body_), nlohmann::json::parse(R"({"candidate":"m2"})"));
}

TEST_F(RestClientTest, AConfigConflictIsAbortedToBeReadAgain) {
  RestClient c({});
  absl::Status s = c.PatchConfig(url_, {{"loop_wait", 5}});
  EXPECT_TRUE(absl::IsAborted(s)) << s;
}

TEST_F(RestClientTest, UnreachableMemberIsUnavailable) {
  RestClient c({.timeout = absl::Seconds(2)});
  absl::StatusOr<MemberStatus> s = c.GetPatroni("http://127.0.0.1:1");
  EXPECT_TRUE(absl::IsUnavailable(s.status())) << s.status();
}

// Issue 14.10: members come and go (new pod IPs after every reschedule); the
// connections kept for them must stay bounded, and the newest still works.
TEST_F(RestClientTest, KeepsABoundedNumberOfMemberConnections) {
  RestClient c({.timeout = absl::Seconds(2), .max_cached_connections = 3});
  for (int port = 1; port <= 10; ++port) {
    (void)c.GetPatroni("http://127.0.0.1:" + std::to_string(port));  // refused: nothing listens
    EXPECT_LE(c.cached_connections(), 3u);
  }
  absl::StatusOr<MemberStatus> s = c.GetPatroni(url_);
  EXPECT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(c.cached_connections(), 3u);
}

}  // namespace
}  // namespace quorum::patroni

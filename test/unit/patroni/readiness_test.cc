// The readiness probe command run with /bin/sh against a local HTTP server
// that answers as Patroni's REST API would in each member state (issue 18.2).
#include "src/patroni/readiness.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

namespace quorum::patroni {
namespace {

struct Answers {
  std::string patroni;  // GET /patroni body; "" closes with 503 and no body
  int leader = 503;     // GET /leader
  int readiness = 503;  // GET /readiness
};

class ReadinessProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/patroni", [this](const httplib::Request&, httplib::Response& res) {
      res.status = answers_.patroni.empty() ? 503 : 200;
      res.set_content(answers_.patroni, "application/json");
    });
    server_.Get("/leader", [this](const httplib::Request&, httplib::Response& res) {
      res.status = answers_.leader;
    });
    server_.Get("/readiness", [this](const httplib::Request&, httplib::Response& res) {
      res.status = answers_.readiness;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
  }

  // Runs the probe command; returns its exit code.
  int Probe(int port, const std::string& data_volume = "") {
    const std::vector<std::string> command = ReadinessProbeCommand(port, false, data_volume);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      execvp(argv[0], argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  Answers answers_;
};

TEST_F(ReadinessProbeTest, ReadyOnlyWhenAPrimaryAcceptsWritesOrAReplicaStreams) {
  struct Case {
    const char* name;
    Answers answers;
    bool ready;
  };
  const Case cases[] = {
      {"the leader running as primary",
       {R"({"state": "running", "role": "primary"})", 200, 200},
       true},
      {"the leader restarting read-only after a crash (role replica)",
       {R"({"state": "running", "role": "replica"})", 200, 200},
       false},
      {"the leader starting PostgreSQL",
       {R"({"state": "starting", "role": "primary"})", 200, 200},
       false},
      {"a primary that lost the leader lock",
       {R"({"state": "running", "role": "primary"})", 503, 503},
       false},
      {"a standby leader", {R"({"state": "running", "role": "standby_leader"})", 200, 200}, true},
      {"a streaming replica", {R"({"state": "running", "role": "replica"})", 503, 200}, true},
      {"a lagging or not streaming replica",
       {R"({"state": "running", "role": "replica"})", 503, 503},
       false},
      {"compact JSON is read too", {R"({"state":"running","role":"primary"})", 200, 200}, true},
      {"Patroni not answering", {"", 503, 503}, false},
  };
  for (const Case& c : cases) {
    answers_ = c.answers;
    EXPECT_EQ(Probe(port_), c.ready ? 0 : 1) << c.name;
  }
}

// A member whose data volume is full is not ready, whatever its role: /proc
// stands for a full volume (df reports 0 KiB available for it).
TEST_F(ReadinessProbeTest, AFullDataVolumeIsNotReady) {
  const Answers primary = {R"({"state": "running", "role": "primary"})", 200, 200};
  const Answers replica = {R"({"state": "running", "role": "replica"})", 503, 200};
  for (const Answers& a : {primary, replica}) {
    answers_ = a;
    EXPECT_EQ(Probe(port_, "/proc"), 1) << a.patroni;
    EXPECT_EQ(Probe(port_, ::testing::TempDir()), 0) << a.patroni;
    // df cannot read it: the check is skipped, Patroni's answer decides.
    EXPECT_EQ(Probe(port_, "/nonexistent/pgdata"), 0) << a.patroni;
  }
}

TEST_F(ReadinessProbeTest, NothingListeningIsNotReady) {
  // A port nobody listens on (our own, after the server stopped).
  server_.stop();
  thread_.join();
  thread_ = std::thread([] {});
  EXPECT_NE(Probe(port_), 0);
}

// Over HTTPS the loopback probe asks https://127.0.0.1 and does not check
// the certificate (the integration test runs it against a real member).
TEST(ReadinessProbeCommandTest, HttpsAsksTheLoopbackOverTls) {
  const std::vector<std::string> https = ReadinessProbeCommand(8008, true);
  EXPECT_EQ(https[4], "https://127.0.0.1:8008");
  EXPECT_NE(https[2].find("curl -s -k"), std::string::npos);
  EXPECT_EQ(ReadinessProbeCommand(8008)[4], "http://127.0.0.1:8008");
  EXPECT_EQ(ReadinessProbeCommand(8008, false, "/pgdata").back(), "/pgdata");
}

}  // namespace
}  // namespace quorum::patroni

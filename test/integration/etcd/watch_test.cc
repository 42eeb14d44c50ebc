// KeyWatcher against real etcd processes: events, revision resume, a member
// restart, compaction, TLS with auth and an expiring token, a denied range.
#include "src/etcd/watch.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "src/etcd/errors.h"
#include "test/integration/etcd/etcd_harness.h"

namespace quorum::etcd {
namespace {

using testing::EtcdHarness;
using testing::HarnessOptions;

// Runs a KeyWatcher on its own thread and records what it delivers.
class Recorder {
 public:
  Recorder(Client& client, WatchOptions options) {
    options.initial_backoff = absl::Milliseconds(50);
    options.max_backoff = absl::Milliseconds(400);
    options.on_error = [this](const absl::Status& s, absl::Duration) {
      absl::MutexLock lock(&mu_);
      errors_.push_back(s);
    };
    options.on_connected = [this](int64_t) {
      absl::MutexLock lock(&mu_);
      ++connections_;
    };
    watcher_ = std::make_unique<KeyWatcher>(client, std::move(options));
  }
  ~Recorder() { Stop(); }

  void Start() {
    cancel_ = std::make_unique<Cancellation>();
    thread_ = std::thread([this] {
      absl::Status s = watcher_->Run(
          [this](const WatchUpdate& u) {
            absl::MutexLock lock(&mu_);
            if (u.resync) ++resyncs_;
            for (const KeyEvent& e : u.events) events_.push_back(e);
            return true;
          },
          *cancel_);
      absl::MutexLock lock(&mu_);
      result_ = s;
      done_ = true;
    });
  }
  void Stop() {
    if (!thread_.joinable()) return;
    cancel_->Cancel();
    thread_.join();
    absl::MutexLock lock(&mu_);
    done_ = false;
  }

  // Each waits (on the recorder's condition, not a poll) until it holds.
  bool WaitEvents(size_t n) {
    return WaitFor([&] { return events_.size() >= n; });
  }
  bool WaitConnections(int n) {
    return WaitFor([&] { return connections_ >= n; });
  }
  bool WaitErrors(size_t n) {
    return WaitFor([&] { return errors_.size() >= n; });
  }
  bool WaitResyncs(int n) {
    return WaitFor([&] { return resyncs_ >= n; });
  }
  bool WaitLastValue(const std::string& v) {
    return WaitFor([&] { return !events_.empty() && events_.back().value == v; });
  }
  bool WaitDone() {
    return WaitFor([&] { return done_; });
  }

  std::vector<KeyEvent> events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }
  int resyncs() {
    absl::MutexLock lock(&mu_);
    return resyncs_;
  }
  size_t errors() {
    absl::MutexLock lock(&mu_);
    return errors_.size();
  }
  // The result of Run once it returned by itself.
  std::optional<absl::Status> result() {
    absl::MutexLock lock(&mu_);
    return done_ ? std::optional(result_) : std::nullopt;
  }
  KeyWatcher& watcher() { return *watcher_; }

 private:
  bool WaitFor(const std::function<bool()>& pred) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&pred, &std::function<bool()>::operator()),
                                absl::Seconds(20));
  }

  std::unique_ptr<KeyWatcher> watcher_;
  std::unique_ptr<Cancellation> cancel_;
  std::thread thread_;
  absl::Mutex mu_;
  std::vector<KeyEvent> events_;
  std::vector<absl::Status> errors_;
  int connections_ = 0;
  int resyncs_ = 0;
  bool done_ = false;
  absl::Status result_;
};

class WatchTest : public ::testing::Test {
 protected:
  void StartCluster(HarnessOptions options = {}) {
    options.max_members = 1;
    harness_ = std::make_unique<EtcdHarness>(options);
    ASSERT_TRUE(harness_->Init().ok());
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(harness_->Config());
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = *std::move(c);
    absl::Status s = harness_->StartNewCluster(*client_, 1);
    ASSERT_TRUE(s.ok()) << s;
  }

  std::unique_ptr<EtcdHarness> harness_;
  std::unique_ptr<Client> client_;
};

TEST_F(WatchTest, FollowsOneKeyAndResumesFromTheLastRevisionSeen) {
  StartCluster();
  Recorder r(*client_, {.key = "/pg/a/leader"});
  r.Start();
  ASSERT_TRUE(r.WaitConnections(1));
  absl::StatusOr<int64_t> put = client_->Put("/pg/a/leader", "pg-a-0");
  ASSERT_TRUE(put.ok()) << put.status();
  ASSERT_TRUE(client_->Put("/pg/a/members/pg-a-0", "{}").ok());  // not followed
  ASSERT_TRUE(client_->DeletePrefix("/pg/a/leader").ok());
  ASSERT_TRUE(r.WaitEvents(2));
  std::vector<KeyEvent> events = r.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], (KeyEvent{KeyEvent::Type::kPut, "/pg/a/leader", "pg-a-0", *put}));
  EXPECT_EQ(events[1].type, KeyEvent::Type::kDelete);
  EXPECT_EQ(events[1].mod_revision, *put + 2);

  // Changes made while nobody watched arrive when the watch resumes.
  r.Stop();
  ASSERT_TRUE(client_->Put("/pg/a/leader", "pg-a-1").ok());
  ASSERT_TRUE(client_->Put("/pg/a/leader", "pg-a-2").ok());
  r.Start();
  ASSERT_TRUE(r.WaitEvents(4));
  events = r.events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2].value, "pg-a-1");
  EXPECT_EQ(events[3].value, "pg-a-2");
  EXPECT_EQ(r.watcher().next_revision(), events[3].mod_revision + 1);
}

TEST_F(WatchTest, ReconnectsAfterTheMemberRestartsAndMissesNothing) {
  StartCluster();
  Recorder r(*client_, {.key = "/pg/", .range_end = PrefixRangeEnd("/pg/")});
  r.Start();
  ASSERT_TRUE(r.WaitConnections(1));
  ASSERT_TRUE(client_->Put("/pg/a/leader", "pg-a-0").ok());
  ASSERT_TRUE(r.WaitEvents(1));
  harness_->Stop(0);
  ASSERT_TRUE(r.WaitErrors(1));
  ASSERT_TRUE(harness_->Start(0, false, harness_->InitialCluster({0})).ok());
  ASSERT_TRUE(harness_->WaitReady(*client_, 0, absl::Seconds(20)).ok());
  ASSERT_TRUE(client_->Put("/pg/b/leader", "pg-b-1").ok());
  ASSERT_TRUE(r.WaitEvents(2));
  EXPECT_GE(r.errors(), 1u);
  const std::vector<KeyEvent> events = r.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1],
            (KeyEvent{KeyEvent::Type::kPut, "/pg/b/leader", "pg-b-1", events[0].mod_revision + 1}));
}

TEST_F(WatchTest, ACompactedResumeRevisionAsksForAResync) {
  StartCluster();
  int64_t last = 0;
  for (int i = 0; i < 5; ++i) last = client_->Put("/pg/a/leader", std::to_string(i)).value_or(0);
  ASSERT_GT(last, 0);
  ASSERT_TRUE(client_->Compact(last).ok());
  Recorder r(*client_, {.key = "/pg/a/leader", .start_revision = 2});
  r.Start();
  ASSERT_TRUE(r.WaitResyncs(1));
  ASSERT_TRUE(client_->Put("/pg/a/leader", "after").ok());
  ASSERT_TRUE(r.WaitLastValue("after"));
  EXPECT_EQ(r.resyncs(), 1);
}

TEST_F(WatchTest, WatchesOverTlsWithAuthRenewTheTokenAndStopWhenDenied) {
  StartCluster({.tls = true, .extra_flags = {"--auth-token-ttl=1"}});
  ASSERT_TRUE(client_->UserAdd("root", "root-secret").ok());
  ASSERT_TRUE(client_->UserGrantRole("root", "root").ok());
  ASSERT_TRUE(client_->RoleAdd("pg").ok());
  ASSERT_TRUE(client_->RoleGrantPermission("pg", "/pg/", "/pg0", Permission::kRead).ok());
  ASSERT_TRUE(client_->UserAdd("pg", "pg-secret").ok());
  ASSERT_TRUE(client_->UserGrantRole("pg", "pg").ok());
  ASSERT_TRUE(client_->AuthEnable().ok());
  ClientConfig root_config = harness_->Config();
  root_config.username = "root";
  root_config.password = "root-secret";
  std::unique_ptr<Client> root = *Client::Create(root_config);
  ClientConfig pg_config = harness_->Config();
  pg_config.username = "pg";
  pg_config.password = "pg-secret";
  std::unique_ptr<Client> pg = *Client::Create(pg_config);

  Recorder r(*pg, {.key = "/pg/a/leader"});
  r.Start();
  ASSERT_TRUE(r.WaitConnections(1));
  ASSERT_TRUE(root->Put("/pg/a/leader", "pg-a-0").ok());
  ASSERT_TRUE(r.WaitEvents(1));
  // The token expires (simple tokens live 1 s here without use), and the
  // restart drops every token: the watch authenticates again by itself.
  absl::SleepFor(absl::Seconds(2));
  harness_->Stop(0);
  ASSERT_TRUE(harness_->Start(0, false, harness_->InitialCluster({0})).ok());
  ASSERT_TRUE(harness_->WaitReady(*root, 0, absl::Seconds(20)).ok());
  ASSERT_TRUE(root->Put("/pg/a/leader", "pg-a-1").ok());
  ASSERT_TRUE(r.WaitEvents(2));
  EXPECT_EQ(r.events()[1].value, "pg-a-1");
  r.Stop();

  // A range the credentials may not read ends the watch: retrying cannot help.
  Recorder denied(*pg, {.key = "/other/leader"});
  denied.Start();
  ASSERT_TRUE(denied.WaitDone());
  EXPECT_TRUE(absl::IsPermissionDenied(*denied.result())) << *denied.result();
}

}  // namespace
}  // namespace quorum::etcd

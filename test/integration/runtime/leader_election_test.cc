// Leader election against the real API server: candidates are separate
// clients in threads with short durations (lease 3 s, renew 2 s, retry 0.5 s).
// Timing assertions use generous bounds around what the protocol promises.
#include "src/runtime/leader_election.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/kube/errors.h"
#include "test/integration/testenv.h"

namespace quorum::runtime {
namespace {

using testenv::Eventually;

const kube::GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};
constexpr char kLeaseName[] = "quorum-test";

// One candidate: its own client, elector and thread.
class Candidate {
 public:
  Candidate(const kube::RestConfig& rest, LeaderElectionConfig config) {
    auto client = kube::Client::Create(rest);
    EXPECT_TRUE(client.ok()) << client.status();
    client_ = std::move(client).value();
    elector_ = std::make_unique<LeaderElector>(*client_, std::move(config), RealClock(), &metrics_);
  }
  ~Candidate() { Stop(); }

  void Start() {
    thread_ = std::thread([this] {
      absl::Status s = elector_->Run(
          cancel_,
          [this] {
            absl::MutexLock lock(&mu_);
            started_at_ = absl::Now();
          },
          [this] {
            absl::MutexLock lock(&mu_);
            stopped_at_ = absl::Now();
          });
      absl::MutexLock lock(&mu_);
      result_ = s;
      done_ = true;
    });
  }
  // Cancels and waits for Run to return.
  void Stop() {
    cancel_.Cancel();
    if (thread_.joinable()) thread_.join();
  }

  LeaderElector& elector() { return *elector_; }
  double MasterStatus() {
    return metrics_.Gauge("leader_election_master_status", "", {"name"}).Value({kLeaseName});
  }
  bool done() {
    absl::MutexLock lock(&mu_);
    return done_;
  }
  absl::Status result() {
    absl::MutexLock lock(&mu_);
    return result_;
  }
  absl::Time started_at() {
    absl::MutexLock lock(&mu_);
    return started_at_;
  }
  absl::Time stopped_at() {
    absl::MutexLock lock(&mu_);
    return stopped_at_;
  }

 private:
  std::unique_ptr<kube::Client> client_;
  Registry metrics_;
  std::unique_ptr<LeaderElector> elector_;
  Cancellation cancel_;
  std::thread thread_;
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status result_ ABSL_GUARDED_BY(mu_);
  absl::Time started_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time stopped_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

// A TCP proxy to the API server that can be cut: after Cut() it forwards
// nothing and answers nothing, like a network partition (requests hang until
// their timeout).
class BlackholeProxy {
 public:
  explicit BlackholeProxy(int upstream_port) : upstream_port_(upstream_port) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        listen(listener_, 16) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
    }
    port_ = ntohs(addr.sin_port);
    accepter_ = std::thread([this] { Accept(); });
  }
  ~BlackholeProxy() {
    stop_ = true;
    accepter_.join();  // first: it is the one adding pumps
    for (std::thread& t : pumps_) t.join();
    for (int fd : fds_) close(fd);
    close(listener_);
  }
  int port() const { return port_; }
  void Cut() { cut_ = true; }

 private:
  void Accept() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int down = accept(listener_, nullptr, nullptr);
      if (down < 0) continue;
      fds_.push_back(down);  // fds_ and pumps_: this thread only, until joined
      if (cut_) continue;    // held open, never answered
      const int up = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(upstream_port_));
      fds_.push_back(up);
      if (connect(up, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) continue;
      pumps_.emplace_back([this, down, up] { Pump(down, up); });
    }
  }
  void Pump(int a, int b) {
    char buf[16384];
    while (!stop_) {
      pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
      if (poll(p, 2, 50) <= 0 || cut_) continue;
      for (int i = 0; i < 2; ++i) {
        if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = read(p[i].fd, buf, sizeof(buf));
        if (n <= 0) return;
        if (write(p[1 - i].fd, buf, n) != n) return;
      }
    }
  }

  const int upstream_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false}, cut_{false};
  std::thread accepter_;
  std::vector<std::thread> pumps_;
  std::vector<int> fds_;
};

class LeaderElectionTest : public testenv::IntegrationTest {
 protected:
  LeaderElectionConfig Config(std::string identity) {
    return {.lease_namespace = ns(),
            .lease_name = kLeaseName,
            .identity = std::move(identity),
            .lease_duration = absl::Seconds(3),
            .renew_deadline = absl::Seconds(2),
            .retry_period = absl::Milliseconds(500)};
  }
  std::unique_ptr<Candidate> NewCandidate(LeaderElectionConfig config) {
    return std::make_unique<Candidate>(control_plane().config, std::move(config));
  }
  LeaderElectionRecord Lease() {
    absl::StatusOr<kube::Json> lease = client().Get(kLeases, ns(), kLeaseName);
    EXPECT_TRUE(lease.ok()) << lease.status();
    return lease.ok() ? RecordFromLease(*lease) : LeaderElectionRecord{};
  }
  // Waits until exactly one of `a` and `b` leads and returns it.
  Candidate* WaitForLeader(Candidate& a, Candidate& b, absl::Duration timeout) {
    Candidate* leader = nullptr;
    Eventually(
        [&] {
          if (a.elector().IsLeader() != b.elector().IsLeader()) {
            leader = a.elector().IsLeader() ? &a : &b;
          }
          return leader != nullptr;
        },
        timeout);
    return leader;
  }
};

TEST_F(LeaderElectionTest, ExactlyOneOfTwoCandidatesLeads) {
  auto a = NewCandidate(Config("a"));
  auto b = NewCandidate(Config("b"));
  a->Start();
  b->Start();
  Candidate* leader = WaitForLeader(*a, *b, absl::Seconds(10));
  ASSERT_NE(leader, nullptr);
  Candidate* follower = leader == a.get() ? b.get() : a.get();
  const std::string leader_id = leader == a.get() ? "a" : "b";

  // Over several lease durations: never two leaders, and the same one throughout.
  const absl::Time until = absl::Now() + absl::Seconds(7);
  while (absl::Now() < until) {
    ASSERT_TRUE(leader->elector().IsLeader());
    ASSERT_FALSE(follower->elector().IsLeader());
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(Lease().holder_identity, leader_id);
  EXPECT_EQ(Lease().lease_transitions, 0);
  EXPECT_EQ(follower->elector().ObservedHolder(), leader_id);
  EXPECT_EQ(leader->MasterStatus(), 1);
  EXPECT_EQ(follower->MasterStatus(), 0);
  EXPECT_EQ(follower->started_at(), absl::InfinitePast());
}

TEST_F(LeaderElectionTest, ACancelledLeaderReleasesTheLeaseAndTheOtherTakesOverAtOnce) {
  // A long lease, so that "at once" is clearly not "after the lease expired".
  LeaderElectionConfig config_a = Config("a"), config_b = Config("b");
  config_a.lease_duration = config_b.lease_duration = absl::Seconds(8);
  config_a.renew_deadline = config_b.renew_deadline = absl::Seconds(5);
  auto a = NewCandidate(config_a);
  a->Start();
  ASSERT_TRUE(Eventually([&] { return a->elector().IsLeader(); }, absl::Seconds(10)));
  auto b = NewCandidate(config_b);
  b->Start();
  ASSERT_TRUE(Eventually([&] { return b->elector().ObservedHolder() == "a"; }, absl::Seconds(5)));

  a->Stop();
  const absl::Time released = absl::Now();
  EXPECT_TRUE(a->result().ok()) << a->result();
  EXPECT_NE(a->stopped_at(), absl::InfinitePast());
  EXPECT_EQ(a->MasterStatus(), 0);
  ASSERT_TRUE(Eventually([&] { return b->elector().IsLeader(); }, absl::Seconds(8)));
  EXPECT_LT(absl::Now() - released, absl::Seconds(4)) << "must not wait for the lease to expire";
  const LeaderElectionRecord lease = Lease();
  EXPECT_EQ(lease.holder_identity, "b");
  EXPECT_EQ(lease.lease_transitions, 1);
}

TEST_F(LeaderElectionTest, ACrashedLeaderIsReplacedAfterAboutOneLeaseDuration) {
  LeaderElectionConfig config_a = Config("a");
  config_a.release_on_cancel = false;  // stops renewing, leaves the lease as it was: a crash
  auto a = NewCandidate(config_a);
  a->Start();
  ASSERT_TRUE(Eventually([&] { return a->elector().IsLeader(); }, absl::Seconds(10)));
  auto b = NewCandidate(Config("b"));
  b->Start();
  ASSERT_TRUE(Eventually([&] { return b->elector().ObservedHolder() == "a"; }, absl::Seconds(5)));

  a->Stop();
  const absl::Time crashed = absl::Now();
  EXPECT_EQ(Lease().holder_identity, "a") << "a crashed leader does not release";
  ASSERT_TRUE(Eventually([&] { return b->elector().IsLeader(); }, absl::Seconds(15)));
  const absl::Duration takeover = absl::Now() - crashed;
  // a renewed at most one retry period before it stopped; b takes over a lease
  // duration after it saw that renewal, checking every retry period (jittered).
  EXPECT_GE(takeover, absl::Seconds(2)) << "taken over before the lease could have expired";
  EXPECT_LE(takeover, absl::Seconds(3 + 3 * 1.1)) << "took more than a few retry periods";
  const LeaderElectionRecord lease = Lease();
  EXPECT_EQ(lease.holder_identity, "b");
  EXPECT_EQ(lease.lease_transitions, 1);
}

TEST_F(LeaderElectionTest, APartitionedLeaderStopsBeforeAnyoneElseStarts) {
  // a reaches the API server through a proxy that will go silent.
  const std::string& server = control_plane().config.server;
  const int api_port = std::stoi(server.substr(server.rfind(':') + 1));
  BlackholeProxy proxy(api_port);
  kube::RestConfig via_proxy = control_plane().config;
  via_proxy.server = absl::StrCat("https://127.0.0.1:", proxy.port());
  Candidate a(via_proxy, Config("a"));
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.elector().IsLeader(); }, absl::Seconds(10)));
  auto b = NewCandidate(Config("b"));
  b->Start();

  proxy.Cut();
  const absl::Time cut = absl::Now();
  ASSERT_TRUE(Eventually([&] { return a.done(); }, absl::Seconds(6)));
  EXPECT_TRUE(absl::IsAborted(a.result())) << a.result();
  EXPECT_LE(a.stopped_at() - cut, absl::Seconds(2 + 1)) << "must stop within the renew deadline";
  EXPECT_FALSE(a.elector().IsLeader());
  EXPECT_EQ(a.MasterStatus(), 0);
  ASSERT_TRUE(Eventually([&] { return b->elector().IsLeader(); }, absl::Seconds(10)));
  EXPECT_LT(a.stopped_at(), b->started_at()) << "two leaders at once";
  EXPECT_EQ(Lease().lease_transitions, 1);
}

TEST_F(LeaderElectionTest, ALeaderWhoseLeaseIsTakenAwayStopsAndReportsTheLoss) {
  auto a = NewCandidate(Config("a"));
  a->Start();
  ASSERT_TRUE(Eventually([&] { return a->elector().IsLeader(); }, absl::Seconds(10)));
  // Someone (an admin, a buggy candidate) overwrites the holder; retried
  // when it races with a renewal.
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Json> lease = client().Get(kLeases, ns(), kLeaseName);
        if (!lease.ok()) return false;
        (*lease)["spec"]["holderIdentity"] = "usurper";
        return client().Update(kLeases, ns(), *lease).ok();
      },
      absl::Seconds(5)));

  ASSERT_TRUE(Eventually([&] { return a->done(); }, absl::Seconds(5)));
  EXPECT_TRUE(absl::IsAborted(a->result())) << a->result();
  EXPECT_NE(a->stopped_at(), absl::InfinitePast());
  EXPECT_EQ(a->elector().ObservedHolder(), "usurper");
  EXPECT_EQ(Lease().holder_identity, "usurper") << "a loser must not write the lease";
}

TEST_F(LeaderElectionTest, ALeaseHeldByAStrangerThatKeepsRenewingIsNeverTaken) {
  const absl::Time start = absl::Now();
  kube::Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", {{"name", kLeaseName}}}};
  // The stranger's clock is an hour behind: only the record changing matters.
  WriteRecordToLease({.holder_identity = "stranger",
                      .lease_duration_seconds = 3,
                      .acquire_time = start - absl::Hours(1),
                      .renew_time = start - absl::Hours(1)},
                     lease);
  ASSERT_TRUE(client().Create(kLeases, ns(), lease).ok());
  std::atomic<bool> renewing{true};
  std::thread stranger([&] {
    while (renewing) {
      absl::StatusOr<kube::Json> current = client().Get(kLeases, ns(), kLeaseName);
      if (current.ok()) {
        (*current)["spec"]["renewTime"] = FormatMicroTime(absl::Now() - absl::Hours(1));
        (void)client().Update(kLeases, ns(), *current);
      }
      absl::SleepFor(absl::Milliseconds(500));
    }
  });

  auto a = NewCandidate(Config("a"));
  a->Start();
  const absl::Time until = absl::Now() + absl::Seconds(8);  // well over two lease durations
  bool ever_led = false;
  while (absl::Now() < until) {
    ever_led |= a->elector().IsLeader();
    absl::SleepFor(absl::Milliseconds(50));
  }
  renewing = false;
  stranger.join();
  EXPECT_FALSE(ever_led);
  EXPECT_EQ(a->elector().ObservedHolder(), "stranger");

  // Once the stranger stops, its lease expires and a takes over.
  ASSERT_TRUE(Eventually([&] { return a->elector().IsLeader(); }, absl::Seconds(10)));
  EXPECT_EQ(Lease().lease_transitions, 1);
}

}  // namespace
}  // namespace quorum::runtime

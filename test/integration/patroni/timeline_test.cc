// Patroni's check_timeline as patroni::DynamicConfig turns it on: two real
// Patroni + PostgreSQL members on real etcd.
//
// AMemberBehind...: the primary (A) stops and B takes over on timeline 2 and
// acknowledges rows; B then stops too, the way a deleted pod does (SIGTERM:
// Patroni stops PostgreSQL and releases the leader key); A starts again,
// still on timeline 1 and less than maximum_lag_on_failover behind B's last
// position — as the old primary of a switchover is until it follows the new
// one. Without check_timeline A wins the leader race and serves timeline 1 —
// B's rows are gone and B can never rejoin (the pooler e2e lost 6
// acknowledged rows that way). With it, A says it is behind the cluster's
// timeline and waits; when B returns it leads with every row and A rejoins
// as its replica.
//
// TheOldPrimaryTakesOver...: the cost side. Once the old primary of a
// switchover follows the new timeline it must still win the race when the
// new primary crashes (CI saw such a member refuse: "My timeline 1 is behind
// last known cluster timeline 2").
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/etcd/client.h"
#include "src/patroni/config.h"
#include "src/patroni/rest_client.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/patroni/patroni_harness.h"
#include "test/integration/testenv.h"

namespace quorum::patroni {
namespace {

using etcd::testing::EtcdHarness;
using etcd::testing::FreePorts;
using testenv::Eventually;

constexpr int kMembers = 2;
constexpr char kSuperuserPassword[] = "su-pass-tl";
constexpr char kKeys[] = "/quorum/timeline/tl/";

class TimelineTest : public ::testing::Test {
 protected:
  std::string Pod(int k) const { return absl::StrCat("tl-", k); }
  std::string ApiUrl(int k) const { return absl::StrCat("http://127.0.0.1:", ports_[2 * k]); }
  int PgPort(int k) const { return ports_[2 * k + 1]; }

  // Starts member k with the configuration it was first given.
  absl::Status Start(int k) { return patroni_.Start(k, yaml_[k], env_[k]); }

  int Primary(RestClient& rest) {
    std::vector<std::string> urls;
    for (int k = 0; k < kMembers; ++k) urls.push_back(ApiUrl(k));
    return testing::RunningPrimary(rest, urls);
  }

  // The value of the cluster's DCS key `name` ("" when absent).
  std::string Key(etcd::Client& client, const std::string& name) {
    absl::StatusOr<etcd::GetResponse> r = client.Get(kKeys + name);
    return r.ok() && r->value.has_value() ? *r->value : "";
  }

  int Count(int k) {
    absl::StatusOr<std::string> n =
        patroni_.Sql(PgPort(k), kSuperuserPassword, "SELECT count(*) FROM t");
    return n.ok() ? std::atoi(n->c_str()) : -1;
  }

  std::string Logs() {
    return absl::StrCat("--- etcd ---\n", etcd_.LogTail(0, 1500),
                        patroni_.LogTails([this](int k) { return Pod(k); }, 4000));
  }

  // Starts two members with check_timeline (as DynamicConfig sets it) and
  // no failsafe mode; sets a_ to the primary once the other streams, with
  // rows 1..10 in table t on both.
  void StartTwo() {
    ASSERT_TRUE(etcd_.Init().ok());
    absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(etcd_.Config());
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
    ASSERT_TRUE(etcd_.StartNewCluster(*client_, 1).ok()) << etcd_.LogTail(0);
    const absl::Status init = patroni_.Init(kMembers);
    ASSERT_TRUE(init.ok()) << init;
    ports_ = FreePorts(2 * kMembers);
    ASSERT_EQ(ports_.size(), 2u * kMembers);
    const std::string etcd_host = etcd_.ClientUrl(0).substr(std::string("http://").size());
    for (int k = 0; k < kMembers; ++k) {
      ConfigInput in = patroni_.LocalMember(k, ports_[2 * k], PgPort(k));
      in.scope = "tl";
      in.key_namespace = "/quorum/timeline/";
      in.ttl = 10;
      in.loop_wait = 2;
      in.retry_timeout = 4;
      in.dcs = EtcdDcs{.hosts = {etcd_host}};
      // Failsafe mode would hold A back as well (the failsafe list B writes
      // while A is down names only B), which is not the case the e2e met: A
      // was alive when B was promoted. Off, so that only the timeline can.
      in.dynamic_configuration = {{"failsafe_mode", false}};
      ASSERT_EQ(DynamicConfig(in).value("check_timeline", false), true);
      testing::MemberEnv m;
      m.pod_name = Pod(k);
      m.pod_namespace = "timeline";
      m.superuser_password = kSuperuserPassword;
      m.replication_password = "repl-pass-tl";
      m.rewind_password = "rewind-pass-tl";
      yaml_[k] = RenderConfig(in);
      env_[k] = testing::ResolveEnv(in, m);
      ASSERT_TRUE(Start(k).ok());
    }

    // A primary (a) and a streaming replica (b) that has the first rows.
    RestClient rest({.timeout = absl::Seconds(2)});
    int a = -1;
    ASSERT_TRUE(Eventually(
        [&] {
          a = Primary(rest);
          if (a < 0) return false;
          absl::StatusOr<ClusterStatus> c = rest.GetCluster(ApiUrl(a));
          if (!c.ok() || c->members.size() != kMembers) return false;
          for (const ClusterMember& m : c->members) {
            if (m.name != Pod(a) && m.state != "streaming") return false;
          }
          return true;
        },
        absl::Seconds(150)))
        << Logs();
    const int b = 1 - a;
    a_ = a;
    ASSERT_TRUE(
        patroni_
            .Sql(PgPort(a), kSuperuserPassword,
                 "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 10)")
            .ok());
    ASSERT_TRUE(Eventually([&] { return Count(b) == 10; }, absl::Seconds(60))) << Logs();
  }

  std::vector<int> ports_;
  int a_ = -1;
  std::map<int, std::string> yaml_;
  std::map<int, std::map<std::string, std::string>> env_;
  // Destroyed in reverse order: the members stop while etcd still runs.
  EtcdHarness etcd_{{.max_members = 1, .name_prefix = "tl"}};
  std::unique_ptr<etcd::Client> client_;
  testing::PatroniHarness patroni_;
};

TEST_F(TimelineTest, AMemberBehindTheClusterTimelineWaitsAndTheNewTimelineKeepsEveryRow) {
  StartTwo();
  if (HasFatalFailure()) return;
  const int a = a_, b = 1 - a_;
  RestClient rest({.timeout = absl::Seconds(2)});

  // A stops as a deleted pod does (SIGTERM: PostgreSQL shuts down after its
  // last WAL reached B, Patroni releases the leader key). B takes over on
  // timeline 2, writes the history to the DCS and acknowledges more rows;
  // A, stopped, stays on timeline 1.
  patroni_.Stop(a, absl::Seconds(60));
  ASSERT_TRUE(Eventually([&] { return Primary(rest) == b; }, absl::Seconds(90))) << Logs();
  ASSERT_TRUE(Eventually([&] { return absl::StartsWith(Key(*client_, "history"), "[[1,"); },
                         absl::Seconds(60)))
      << "B wrote no timeline history: " << Key(*client_, "history") << "\n"
      << Logs();
  for (int id = 11; id <= 15; ++id) {
    absl::StatusOr<std::string> r = patroni_.Sql(PgPort(b), kSuperuserPassword,
                                                 absl::StrCat("INSERT INTO t VALUES (", id, ")"));
    ASSERT_TRUE(r.ok()) << r.status();
  }

  // B stops as a deleted pod does: Patroni releases the leader key.
  patroni_.Stop(b, absl::Seconds(60));
  ASSERT_TRUE(Eventually([&] { return Key(*client_, "leader").empty(); }, absl::Seconds(30)))
      << Logs();

  // A comes back alone, on timeline 1, and must not lead.
  ASSERT_TRUE(Start(a).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        return absl::StrContains(patroni_.LogTail(a, 1 << 20),
                                 "is behind last known cluster timeline 2");
      },
      absl::Seconds(90)))
      << "A did not hold back for the cluster's timeline\n"
      << Logs();
  absl::StatusOr<MemberStatus> held = rest.GetPatroni(ApiUrl(a));
  EXPECT_TRUE(!held.ok() || held->role != "primary") << "A runs as primary on timeline 1";
  EXPECT_EQ(Key(*client_, "leader"), "");

  // B returns, leads on its timeline with every row, and A follows it.
  ASSERT_TRUE(Start(b).ok());
  ASSERT_TRUE(Eventually([&] { return Primary(rest) == b; }, absl::Seconds(90))) << Logs();
  EXPECT_EQ(Count(b), 15);
  EXPECT_TRUE(Eventually([&] { return Count(a) == 15; }, absl::Seconds(150)))
      << "A did not rejoin B's timeline\n"
      << Logs();
}

// The other half of check_timeline: the old primary of a switchover, once it
// follows the new primary's timeline, is a full candidate. The new primary
// then crashes (its lock expires, as when the operator ends a crash-looping
// leader's lock) and the old one takes over with every row.
TEST_F(TimelineTest, TheOldPrimaryTakesOverOnceItFollowsTheNewTimeline) {
  StartTwo();
  if (HasFatalFailure()) return;
  const int a = a_, b = 1 - a_;
  RestClient rest({.timeout = absl::Seconds(2)});

  const absl::Status switched = rest.Switchover(ApiUrl(a), Pod(a), Pod(b));
  ASSERT_TRUE(switched.ok()) << switched << Logs();
  ASSERT_TRUE(Eventually([&] { return Primary(rest) == b; }, absl::Seconds(90))) << Logs();
  for (int id = 11; id <= 15; ++id) {
    absl::StatusOr<std::string> r = patroni_.Sql(PgPort(b), kSuperuserPassword,
                                                 absl::StrCat("INSERT INTO t VALUES (", id, ")"));
    ASSERT_TRUE(r.ok()) << r.status();
  }
  // A streams from B and has every row.
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<ClusterStatus> c = rest.GetCluster(ApiUrl(b));
        if (!c.ok()) return false;
        for (const ClusterMember& m : c->members) {
          if (m.name == Pod(a) && m.state != "streaming") return false;
        }
        return Count(a) == 15;
      },
      absl::Seconds(90)))
      << Logs();
  absl::StatusOr<MemberStatus> follower = rest.GetPatroni(ApiUrl(a));
  ASSERT_TRUE(follower.ok()) << follower.status();
  std::cerr << "A after the switchover: timeline " << follower->timeline << ", checkpoint "
            << patroni_
                   .Sql(PgPort(a), kSuperuserPassword,
                        "SELECT timeline_id, redo_lsn FROM pg_control_checkpoint()")
                   .value_or("?")
            << ", replayed "
            << patroni_.Sql(PgPort(a), kSuperuserPassword, "SELECT pg_last_wal_replay_lsn()")
                   .value_or("?")
            << "\n";

  patroni_.Kill(b);
  ASSERT_TRUE(Eventually([&] { return Primary(rest) == a; }, absl::Seconds(90)))
      << "A did not take over from the crashed B\n"
      << Logs();
  EXPECT_EQ(Count(a), 15);
}

}  // namespace
}  // namespace quorum::patroni

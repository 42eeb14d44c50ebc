// Patroni's failsafe mode as RenderConfig turns it on for the etcd DCS: two
// real Patroni + PostgreSQL members on real etcd; every etcd member stops for
// longer than the leader lease. The primary, which still reaches every member,
// must keep accepting writes, and nothing written during the outage is lost
// once etcd is back. Without failsafe mode Patroni demotes the primary when it
// cannot renew the leader key, and the writes fail read-only.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
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
constexpr int kTtl = 20;
constexpr char kSuperuserPassword[] = "su-pass-fs";

class FailsafeTest : public ::testing::Test {
 protected:
  std::string Pod(int k) const { return absl::StrCat("fs-", k); }
  std::string ApiUrl(int k) const { return absl::StrCat("http://127.0.0.1:", ports_[2 * k]); }
  int PgPort(int k) const { return ports_[2 * k + 1]; }

  // The member that reports itself running as primary, -1 if not exactly one.
  int Primary(RestClient& rest) {
    std::vector<std::string> urls;
    for (int k = 0; k < kMembers; ++k) urls.push_back(ApiUrl(k));
    return testing::RunningPrimary(rest, urls);
  }

  std::string Logs() {
    return absl::StrCat("--- etcd ---\n", etcd_.LogTail(0, 1500),
                        patroni_.LogTails([this](int k) { return Pod(k); }));
  }

  std::vector<int> ports_;
  // Destroyed in reverse order: the members stop while etcd still runs.
  EtcdHarness etcd_{{.max_members = 1, .name_prefix = "fs"}};
  testing::PatroniHarness patroni_;
};

TEST_F(FailsafeTest, PrimaryKeepsAcceptingWritesWhileEveryEtcdMemberIsDown) {
  ASSERT_TRUE(etcd_.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(etcd_.Config());
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(etcd_.StartNewCluster(**client, 1).ok()) << etcd_.LogTail(0);

  const absl::Status init = patroni_.Init(kMembers);
  ASSERT_TRUE(init.ok()) << init;
  ports_ = FreePorts(2 * kMembers);
  ASSERT_EQ(ports_.size(), 2u * kMembers);
  const std::string etcd_host = etcd_.ClientUrl(0).substr(std::string("http://").size());
  for (int k = 0; k < kMembers; ++k) {
    ConfigInput in = patroni_.LocalMember(k, ports_[2 * k], PgPort(k));
    in.scope = "fs";
    in.key_namespace = "/quorum/failsafe/";
    in.ttl = kTtl;
    in.loop_wait = 2;
    in.retry_timeout = 5;
    in.dcs = EtcdDcs{.hosts = {etcd_host}};
    testing::MemberEnv m;
    m.pod_name = Pod(k);
    m.pod_namespace = "failsafe";
    m.superuser_password = kSuperuserPassword;
    m.replication_password = "repl-pass-fs";
    m.rewind_password = "rewind-pass-fs";
    ASSERT_TRUE(patroni_.Start(k, RenderConfig(in), testing::ResolveEnv(in, m)).ok());
  }

  // One primary and a streaming replica.
  RestClient rest({.timeout = absl::Seconds(2)});
  int primary = -1;
  ASSERT_TRUE(Eventually(
      [&] {
        primary = Primary(rest);
        if (primary < 0) return false;
        absl::StatusOr<ClusterStatus> c = rest.GetCluster(ApiUrl(primary));
        if (!c.ok() || c->members.size() != kMembers) return false;
        for (const ClusterMember& m : c->members) {
          if (m.name != Pod(primary) && m.state != "streaming") return false;
        }
        return true;
      },
      absl::Seconds(150)))
      << Logs();
  ASSERT_TRUE(
      patroni_.Sql(PgPort(primary), kSuperuserPassword, "CREATE TABLE t (id int PRIMARY KEY)")
          .ok());
  // With failsafe mode on, the primary publishes the members it must reach
  // in the DCS (the `failsafe` key): wait until both are listed.
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<etcd::GetResponse> r = (*client)->Get("/quorum/failsafe/fs/failsafe");
        return r.ok() && r->value.has_value() && r->value->find(Pod(0)) != std::string::npos &&
               r->value->find(Pod(1)) != std::string::npos;
      },
      absl::Seconds(30)))
      << "the primary published no failsafe member list\n"
      << Logs();

  // Every etcd member down for more than twice the leader lease; one insert a
  // second on the primary meanwhile, each of which must be acknowledged.
  etcd_.Stop(0);
  const absl::Time outage_end = absl::Now() + absl::Seconds(2 * kTtl + 5);
  int written = 0;
  while (absl::Now() < outage_end) {
    absl::StatusOr<std::string> r = patroni_.Sql(
        PgPort(primary), kSuperuserPassword, absl::StrCat("INSERT INTO t VALUES (", written, ")"));
    ASSERT_TRUE(r.ok()) << "write " << written
                        << " during the etcd outage was refused: " << r.status() << "\n"
                        << Logs();
    ++written;
    absl::SleepFor(absl::Seconds(1));
  }
  absl::StatusOr<MemberStatus> during = rest.GetPatroni(ApiUrl(primary));
  ASSERT_TRUE(during.ok()) << during.status();
  EXPECT_EQ(during->role, "primary");

  // etcd returns (same data); the cluster goes on with the same primary and
  // every acknowledged row.
  ASSERT_TRUE(etcd_.Start(0, /*new_cluster=*/false, etcd_.InitialCluster({0})).ok());
  ASSERT_TRUE(etcd_.WaitReady(**client, 0, absl::Seconds(30)).ok()) << etcd_.LogTail(0);
  ASSERT_TRUE(Eventually([&] { return Primary(rest) == primary; }, absl::Seconds(60))) << Logs();
  ASSERT_TRUE(patroni_
                  .Sql(PgPort(primary), kSuperuserPassword,
                       absl::StrCat("INSERT INTO t VALUES (", written, ")"))
                  .ok());
  absl::StatusOr<std::string> count =
      patroni_.Sql(PgPort(primary), kSuperuserPassword, "SELECT count(*) FROM t");
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(*count, absl::StrCat(written + 1));
}

}  // namespace
}  // namespace quorum::patroni

// The EtcdCluster reconciler's housekeeping phase (space.h) against real
// etcd processes with a small backend quota: fill the quota until etcd raises
// its NOSPACE alarm and refuses writes, then run the production Housekeep on
// what the production observe phase sees (ObserveEtcd), and check that the
// alarm is gone, writes succeed again, every member's file shrank and the
// events tell the story in the required order (compact, followers, leadership
// moved, the former leader, disarm).
#include "src/controllers/etcdcluster/space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/etcd/client.h"
#include "src/etcd/errors.h"
#include "test/integration/etcd/etcd_harness.h"

namespace quorum::etcdcluster {
namespace {

using etcd::Client;
using etcd::testing::EtcdHarness;

constexpr int64_t kQuota = 8 << 20;  // 8 MiB

class SpaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    harness_ = std::make_unique<EtcdHarness>(etcd::testing::HarnessOptions{
        .max_members = 3, .extra_flags = {absl::StrCat("--quota-backend-bytes=", kQuota)}});
    ASSERT_TRUE(harness_->Init().ok());
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(harness_->Config());
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = *std::move(c);
    ASSERT_TRUE(harness_->StartNewCluster(*client_, 3).ok());
  }

  // Puts `value_bytes` values until etcd refuses with NOSPACE; `distinct`
  // keys keep every value live, one key only piles up history.
  void FillUntilNoSpace(int value_bytes, bool distinct) {
    const std::string value(value_bytes, 'x');
    for (int i = 0; i < 1000; ++i) {
      absl::StatusOr<int64_t> put =
          client_->Put(distinct ? absl::StrCat("fill/", i) : "fill", value);
      if (!put.ok()) {
        ASSERT_TRUE(etcd::IsNoSpace(put.status())) << put.status();
        return;
      }
    }
    FAIL() << "etcd never refused a write";
  }

  std::unique_ptr<EtcdHarness> harness_;
  std::unique_ptr<Client> client_;
};

std::vector<std::string> Reasons(const SpaceOutcome& out) {
  std::vector<std::string> r;
  for (const SpaceEvent& e : out.events) {
    r.push_back(e.reason);
    std::cout << (e.warning ? "Warning " : "Normal ") << e.reason << ": " << e.message << "\n";
  }
  return r;
}

TEST_F(SpaceTest, NothingToDoWithoutAlarmOrFragmentation) {
  ASSERT_TRUE(client_->Put("k", "v").ok());
  const SpaceOutcome out = Housekeep(*client_, ObserveEtcd(*client_), kQuota);
  EXPECT_TRUE(out.events.empty()) << Reasons(out).front();
  EXPECT_FALSE(out.alarm);
  EXPECT_FALSE(out.busy);
}

TEST_F(SpaceTest, NoSpaceAlarmIsCompactedDefragmentedAndDisarmed) {
  FillUntilNoSpace(256 << 10, /*distinct=*/false);
  const EtcdView before = ObserveEtcd(*client_);
  ASSERT_TRUE(NoSpaceAlarmIn(before));
  ASSERT_TRUE(before.leader_id.has_value());
  const uint64_t leader = *before.leader_id;
  // Without housekeeping the alarm stays and every write is refused (absence,
  // observable only by waiting).
  absl::SleepFor(absl::Seconds(1));
  absl::StatusOr<int64_t> refused = client_->Put("after", "v");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(etcd::IsNoSpace(refused.status())) << refused.status();

  const SpaceOutcome out = Housekeep(*client_, before, kQuota);
  const std::vector<std::string> reasons = Reasons(out);
  EXPECT_EQ(reasons,
            (std::vector<std::string>{"NoSpaceAlarm", "Compacted", "Defragmented", "Defragmented",
                                      "LeaderMoved", "Defragmented", "NoSpaceAlarmDisarmed"}));
  EXPECT_FALSE(out.alarm) << out.message;
  EXPECT_FALSE(out.busy) << out.message;
  // The former leader was defragmented last, after leadership moved.
  ASSERT_EQ(out.events.size(), 7u);
  EXPECT_NE(out.events[5].message.find(absl::StrFormat("%x", leader)), std::string::npos)
      << out.events[5].message;
  EXPECT_EQ(out.events[2].message.find(absl::StrFormat("member %x ", leader)), std::string::npos);
  EXPECT_EQ(out.events[3].message.find(absl::StrFormat("member %x ", leader)), std::string::npos);

  // Writes succeed again; no alarm; every file shrank well below the quota.
  absl::StatusOr<int64_t> put = client_->Put("after", "v");
  EXPECT_TRUE(put.ok()) << put.status();
  const EtcdView after = ObserveEtcd(*client_);
  EXPECT_FALSE(NoSpaceAlarmIn(after));
  for (const MemberStatus& ms : after.members) {
    ASSERT_TRUE(ms.status.has_value()) << ms.member.name;
    EXPECT_LT(ms.status->db_size, kQuota / 2) << ms.member.name;
    std::cout << ms.member.name << ": db " << ms.status->db_size << " bytes, in use "
              << ms.status->db_size_in_use << "\n";
  }
  // Nothing left to do.
  EXPECT_TRUE(Housekeep(*client_, after, kQuota).events.empty());
}

TEST_F(SpaceTest, LiveDataThatStillFillsTheQuotaIsNotDisarmed) {
  FillUntilNoSpace(64 << 10, /*distinct=*/true);
  // etcd refuses writes once its file reaches the quota, and bbolt grows the
  // file in steps, so the live data left after defragmenting lands anywhere
  // from about 7.2 to 7.5 MiB of the 8 MiB — right at kStillFullShare (90 %).
  // The operator judges against the quota the spec names: 15/16 of etcd's
  // here, so that the live data is clearly "still full" (>= 6.75 MiB) on every
  // run.
  const SpaceOutcome out = Housekeep(*client_, ObserveEtcd(*client_), kQuota / 16 * 15);
  const std::vector<std::string> reasons = Reasons(out);
  ASSERT_FALSE(reasons.empty());
  EXPECT_EQ(reasons.front(), "NoSpaceAlarm");
  EXPECT_EQ(reasons.back(), "SpaceHousekeepingWaits");
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "NoSpaceAlarmDisarmed"), 0);
  EXPECT_TRUE(out.alarm);
  EXPECT_TRUE(out.busy);
  EXPECT_NE(out.message.find("quota-backend-bytes"), std::string::npos) << out.message;
  EXPECT_TRUE(etcd::IsNoSpace(client_->Put("after", "v").status()));
}

}  // namespace
}  // namespace quorum::etcdcluster

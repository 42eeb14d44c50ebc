#include "src/controllers/postgrescluster/next_wait.h"

#include <gtest/gtest.h>

#include "src/base/clock.h"

namespace quorum::postgrescluster {
namespace {

const runtime::Request kReq{"ns", "pg"};

DcsResolution Dcs(bool ready, std::string reason, bool etcd = false) {
  DcsResolution d{.ready = ready, .reason = std::move(reason), .message = "m"};
  if (etcd) d.dcs = patroni::EtcdDcs{};
  return d;
}

Members Running(std::string primary) {
  Members m;
  m.urls = {{"pg-0", "http://a"}, {"pg-1", "http://b"}};
  m.roles = {{"pg-0", {.reachable = true, .role = "primary", .state = "running"}},
             {"pg-1", {.reachable = true, .role = "replica", .state = "running"}}};
  m.primary = std::move(primary);
  return m;
}

TEST(NextWaitTest, TableOfWhatIsWaitedOn) {
  struct Case {
    const char* name;
    DcsResolution dcs;
    Members members;
    bool requeues;
  };
  const Case cases[] = {
      {"a missing Secret is looked for again", Dcs(false, "SecretNotFound"), Members{}, true},
      {"an incomplete Secret is looked for again", Dcs(false, "SecretIncomplete"), Members{}, true},
      {"a missing EtcdCluster is watched, not polled", Dcs(false, "EtcdClusterNotFound"),
       Running("pg-0"), false},
      {"no member yet: a pod starting is watched", Dcs(true, "Resolved"), Members{}, false},
      {"running members: their roles are re-read", Dcs(true, "Resolved"), Running("pg-0"), true},
  };
  for (const Case& c : cases) {
    FakeClock clock;
    controllers::WaitBackoff backoff(clock);
    const runtime::Result r = NextWait(backoff, kReq, c.dcs, c.members);
    EXPECT_EQ(r.requeue_after > absl::ZeroDuration(), c.requeues) << c.name;
    EXPECT_FALSE(r.requeue) << c.name;
  }
}

TEST(NextWaitTest, RoleWaitIsCappedAtFiveSecondsWithTheEtcdDcsOnly) {
  for (bool etcd : {true, false}) {
    FakeClock clock;
    controllers::WaitBackoff backoff(clock);
    const DcsResolution dcs = Dcs(true, "Resolved", etcd);
    EXPECT_EQ(NextWait(backoff, kReq, dcs, Running("pg-0")).requeue_after, controllers::kFirstWait);
    clock.Advance(absl::Minutes(1));
    EXPECT_EQ(NextWait(backoff, kReq, dcs, Running("pg-0")).requeue_after,
              etcd ? kMaxRoleWait : absl::Minutes(1));
  }
}

TEST(NextWaitTest, AChangeOfRolesRestartsTheBackoff) {
  FakeClock clock;
  controllers::WaitBackoff backoff(clock);
  const DcsResolution dcs = Dcs(true, "Resolved");
  NextWait(backoff, kReq, dcs, Running("pg-0"));
  clock.Advance(absl::Seconds(30));
  EXPECT_EQ(NextWait(backoff, kReq, dcs, Running("pg-0")).requeue_after, absl::Seconds(30));
  EXPECT_EQ(NextWait(backoff, kReq, dcs, Running("pg-1")).requeue_after, controllers::kFirstWait);
}

TEST(NextWaitTest, NothingToWaitForForgetsTheBackoff) {
  FakeClock clock;
  controllers::WaitBackoff backoff(clock);
  NextWait(backoff, kReq, Dcs(true, "Resolved"), Running("pg-0"));
  EXPECT_EQ(backoff.size(), 1u);
  NextWait(backoff, kReq, Dcs(false, "EtcdClusterNotFound"), Members{});
  EXPECT_EQ(backoff.size(), 0u);
}

TEST(RolesSignatureTest, ChangesWithThePrimaryTheLeaderAndEachRole) {
  const Members base = Running("pg-0");
  Members leader = base;
  leader.leader = "pg-0";
  Members unreachable = base;
  unreachable.roles["pg-1"].reachable = false;
  Members primary = base;
  primary.primary = "";
  const std::string sig = RolesSignature(base);
  EXPECT_EQ(sig, RolesSignature(Running("pg-0")));
  EXPECT_NE(sig, RolesSignature(leader));
  EXPECT_NE(sig, RolesSignature(unreachable));
  EXPECT_NE(sig, RolesSignature(primary));
}

}  // namespace
}  // namespace quorum::postgrescluster

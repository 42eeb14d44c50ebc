// Issue 36: PostgreSQL major upgrades in place (major_upgrade.h). A cluster
// of PostgreSQL 15 with a writer running is raised to 17 on each DCS: every
// acknowledged row is there after, on the new major, on every member, and
// the write outage is printed. One whose data pg_upgrade --check refuses
// fails without losing anything and keeps serving 15; set back to 15 and
// then to 17 again once the cause is gone, it upgrades.
#include <gtest/gtest.h>

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "src/base/failpoint.h"
#include "test/e2e/e2e_env.h"
#include "test/e2e/postgres_e2e.h"

namespace quorum::e2e {
namespace {

class PostgresUpgradeE2E : public PostgresClusterE2E {
 protected:
  Json Upgrade(const std::string& name) {
    auto c = client().Get(kPostgres, ns(), name);
    return c.ok() ? c->value("status", Json::object()).value("majorUpgrade", Json::object())
                  : Json::object();
  }

  void SetVersion(const std::string& name, int version) {
    auto patched = client().Patch(kPostgres, ns(), name, kube::PatchType::kMerge,
                                  {{"spec", {{"postgresVersion", version}}}});
    ASSERT_TRUE(patched.ok()) << patched.status();
  }

  // The server's major through `service`, "" when it cannot be asked within
  // a minute (a Service that selects its pod follows its readiness with a lag).
  std::string ServerMajor(const std::string& name, const std::string& service) {
    CommandResult r = SqlWithin(name + "-superuser", service + "." + ns() + ".svc",
                                "select current_setting('server_version_num')::int / 10000;");
    return r.exit_code == 0 ? std::string(absl::StripAsciiWhitespace(r.output)) : "";
  }

  // Rows of table w read through the primary Service.
  std::set<int> Rows(const std::string& name) {
    CommandResult rows;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          rows = Sql(name + "-superuser", name + "." + ns() + ".svc", "select v from w;");
          return rows.exit_code == 0;
        },
        absl::Minutes(2)))
        << rows.output;
    std::set<int> present;
    for (absl::string_view line : absl::StrSplit(rows.output, '\n', absl::SkipWhitespace())) {
      int v = 0;
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &v)) present.insert(v);
    }
    return present;
  }

  // Creates `pg` (2 members of PostgreSQL 15), waits for it, upgrades it to
  // 17 with a writer running; checks every acknowledged row, both members
  // on 17, and prints the outage.
  void UpgradeUnderAWriter(Json pg) {
    const std::string name = pg["metadata"]["name"];
    const std::string primary_svc = absl::StrCat(name, ".", ns(), ".svc");
    ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
    ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(6)))
        << name << " did not become Ready";
    CommandResult made;
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          made = Sql(name + "-superuser", primary_svc,
                     "create table if not exists w(v int primary key);");
          return made.exit_code == 0;
        },
        absl::Minutes(2)))
        << made.output;
    ASSERT_EQ(ServerMajor(name, name), "15");
    std::vector<absl::Time> acked_at;  // the writer thread's only, read after Stop
    AckedWriter writer(
        [&](int i) {
          const bool ok =
              Sql(name + "-superuser", primary_svc, absl::StrCat("insert into w values (", i, ");"))
                  .exit_code == 0;
          if (ok) acked_at.push_back(absl::Now());
          return ok;
        },
        absl::Milliseconds(200));
    absl::SleepFor(absl::Seconds(3));  // rows before
    const absl::Time started = absl::Now();
    ASSERT_NO_FATAL_FAILURE(SetVersion(name, 17));
    Json upgrade;
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          upgrade = Upgrade(name);
          return upgrade.value("phase", "") == "Succeeded" ||
                 upgrade.value("phase", "") == "Failed";
        },
        absl::Minutes(10)))
        << "the upgrade did not end: " << upgrade.dump();
    ASSERT_EQ(upgrade.value("phase", ""), "Succeeded") << upgrade.dump();
    ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(5)))
        << "not Ready after the upgrade";
    absl::SleepFor(absl::Seconds(3));  // rows after
    const std::vector<int> acknowledged = writer.Stop();
    const absl::Duration took = absl::Now() - started;
    absl::Duration gap;
    for (size_t i = 1; i < acked_at.size(); ++i) gap = std::max(gap, acked_at[i] - acked_at[i - 1]);
    std::printf(
        "major upgrade 15 -> 17 of %s: %zu writes acknowledged, longest write gap %s, "
        "upgrade to Ready %s\n",
        name.c_str(), acknowledged.size(), absl::FormatDuration(gap).c_str(),
        absl::FormatDuration(took).c_str());
    auto c = client().Get(kPostgres, ns(), name);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ((*c)["status"].value("postgresVersion", 0), 17) << (*c)["status"].dump();
    EXPECT_EQ(ServerMajor(name, name), "17");
    EXPECT_EQ(ServerMajor(name, name + "-replicas"), "17") << "the replica did not come back on 17";
    const std::set<int> present = Rows(name);
    std::vector<int> lost;
    for (int v : acknowledged) {
      if (!present.contains(v)) lost.push_back(v);
    }
    EXPECT_GT(acknowledged.size(), 10u) << "the writer barely wrote";
    EXPECT_TRUE(lost.empty()) << "acknowledged rows lost: " << absl::StrJoin(lost, ", ");
  }
};

TEST_F(PostgresUpgradeE2E, KubernetesDcs15To17KeepsEveryAcknowledgedRow) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(UpgradeUnderAWriter(KubernetesPostgres("upk", 2)));
}

TEST_F(PostgresUpgradeE2E, EtcdDcs15To17KeepsEveryAcknowledgedRow) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(CreateEtcdCluster("updcs", 1));
  ASSERT_TRUE(testenv::Eventually([&] { return EtcdReady("updcs", 1); }, absl::Minutes(3)));
  ASSERT_NO_FATAL_FAILURE(UpgradeUnderAWriter(EtcdPostgres("upe", 2, "updcs")));
}

// pg_upgrade --check refuses a table with a reg* column other than regclass,
// regrole or regtype (their OIDs do not survive): the upgrade fails before
// touching the data, the members serve 15 again with every row; once the
// column is gone, 15 then 17 again upgrades.
TEST_F(PostgresUpgradeE2E, ARefusedUpgradeKeepsServingTheOldMajorAndASecondAttemptSucceeds) {
  OperatorProcess op(ns());
  op.Start();
  const std::string name = "upf";
  const std::string primary_svc = absl::StrCat(name, ".", ns(), ".svc");
  ASSERT_TRUE(client().Create(kPostgres, ns(), KubernetesPostgres(name, 2)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(6)));
  CommandResult made;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        made = Sql(name + "-superuser", primary_svc,
                   "create table if not exists w(v int primary key); insert into w "
                   "select generate_series(1, 500) on conflict do nothing; create table if not "
                   "exists bad(f regproc); insert into bad values ('now');");
        return made.exit_code == 0;
      },
      absl::Minutes(2)))
      << made.output;
  ASSERT_NO_FATAL_FAILURE(SetVersion(name, 17));
  Json upgrade;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        upgrade = Upgrade(name);
        return upgrade.value("phase", "") == "Succeeded" || upgrade.value("phase", "") == "Failed";
      },
      absl::Minutes(10)))
      << upgrade.dump();
  ASSERT_EQ(upgrade.value("phase", ""), "Failed") << upgrade.dump();
  EXPECT_TRUE(absl::StrContains(upgrade.value("message", ""), "reg*")) << upgrade.dump();
  ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(5)))
      << "the old major does not serve again";
  EXPECT_EQ(ServerMajor(name, name), "15");
  EXPECT_EQ(Rows(name).size(), 500u);
  CommandResult dropped = SqlWithin(name + "-superuser", primary_svc, "drop table if exists bad;");
  ASSERT_EQ(dropped.exit_code, 0) << dropped.output;
  ASSERT_NO_FATAL_FAILURE(SetVersion(name, 15));
  ASSERT_TRUE(testenv::Eventually([&] { return Upgrade(name).empty(); }, absl::Minutes(2)))
      << "the failed attempt was not given up: " << Upgrade(name).dump();
  ASSERT_NO_FATAL_FAILURE(SetVersion(name, 17));
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        upgrade = Upgrade(name);
        return upgrade.value("phase", "") == "Succeeded" || upgrade.value("phase", "") == "Failed";
      },
      absl::Minutes(10)))
      << upgrade.dump();
  ASSERT_EQ(upgrade.value("phase", ""), "Succeeded") << upgrade.dump();
  ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(5)));
  EXPECT_EQ(ServerMajor(name, name), "17");
  EXPECT_EQ(Rows(name).size(), 500u);
}

// A minor upgrade is an image change within the major: the members roll,
// replicas first, the primary last after a switchover. From 15 as bookworm
// ships it to the default image (with bookworm-security's newer 15 minor),
// with a writer running.
TEST_F(PostgresUpgradeE2E, AMinorUpgradeRollsTheMembersUnderAWriter) {
  OperatorProcess op(ns());
  op.Start();
  const std::string name = "upm";
  const std::string primary_svc = absl::StrCat(name, ".", ns(), ".svc");
  Json pg = KubernetesPostgres(name, 2);
  pg["spec"]["image"] = "ghcr.io/quorum-dev/postgres:15-bookworm-patroni4";
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(6)));
  auto version = [&](const std::string& service) {
    CommandResult r = SqlWithin(name + "-superuser", service + "." + ns() + ".svc",
                                "select current_setting('server_version_num');");
    return r.exit_code == 0 ? std::string(absl::StripAsciiWhitespace(r.output)) : "";
  };
  CommandResult made;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        made = Sql(name + "-superuser", primary_svc,
                   "create table if not exists w(v int primary key);");
        return made.exit_code == 0;
      },
      absl::Minutes(2)))
      << made.output;
  const std::string before = version(name);
  std::vector<absl::Time> acked_at;  // the writer thread's only, read after Stop
  AckedWriter writer(
      [&](int i) {
        const bool ok =
            Sql(name + "-superuser", primary_svc, absl::StrCat("insert into w values (", i, ");"))
                .exit_code == 0;
        if (ok) acked_at.push_back(absl::Now());
        return ok;
      },
      absl::Milliseconds(200));
  absl::SleepFor(absl::Seconds(3));
  const absl::Time started = absl::Now();
  auto patched = client().Patch(kPostgres, ns(), name, kube::PatchType::kMerge,
                                {{"spec", {{"image", nullptr}}}});
  ASSERT_TRUE(patched.ok()) << patched.status();
  auto rolled = [&] {
    auto pods =
        client().List(kPods, ns(), {.label_selector = "postgres.quorum.dev/cluster=" + name});
    if (!pods.ok() || (*pods)["items"].size() != 2) return false;
    for (const Json& p : (*pods)["items"]) {
      if (p["spec"]["containers"][0].value("image", "") !=
          "ghcr.io/quorum-dev/postgres:15-patroni4")
        return false;
    }
    return Ready(name);
  };
  ASSERT_TRUE(testenv::Eventually(rolled, absl::Minutes(8))) << "the members did not roll";
  absl::SleepFor(absl::Seconds(3));
  const std::vector<int> acknowledged = writer.Stop();
  absl::Duration gap;
  for (size_t i = 1; i < acked_at.size(); ++i) gap = std::max(gap, acked_at[i] - acked_at[i - 1]);
  const std::string after = version(name);
  std::printf(
      "minor upgrade of %s: server_version_num %s -> %s, %zu writes acknowledged, longest "
      "write gap %s, roll %s\n",
      name.c_str(), before.c_str(), after.c_str(), acknowledged.size(),
      absl::FormatDuration(gap).c_str(), absl::FormatDuration(absl::Now() - started).c_str());
  EXPECT_EQ(version(name + "-replicas"), after) << "the replica runs another minor";
  int v_before = 0, v_after = 0;
  ASSERT_TRUE(absl::SimpleAtoi(before, &v_before) && absl::SimpleAtoi(after, &v_after))
      << before << " " << after;
  EXPECT_EQ(v_before / 10000, 15);
  EXPECT_GE(v_after, v_before) << "a minor went down";
  const std::set<int> present = Rows(name);
  std::vector<int> lost;
  for (int v : acknowledged) {
    if (!present.contains(v)) lost.push_back(v);
  }
  EXPECT_GT(acknowledged.size(), 10u) << "the writer barely wrote";
  EXPECT_TRUE(lost.empty()) << "acknowledged rows lost: " << absl::StrJoin(lost, ", ");
}

// The operator killed right before it creates the Job, then right before it
// clears Patroni's state from the DCS: each time the next operator carries
// on from status.majorUpgrade, and the upgrade ends with every row.
TEST_F(PostgresUpgradeE2E, AnOperatorKilledAtEachUpgradeStepResumes) {
  const std::string name = "upc";
  const std::string primary_svc = absl::StrCat(name, ".", ns(), ".svc");
  {
    OperatorProcess op(ns());
    op.Start();
    ASSERT_TRUE(client().Create(kPostgres, ns(), KubernetesPostgres(name, 2)).ok());
    ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(6)));
    CommandResult made;
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          made = Sql(name + "-superuser", primary_svc,
                     "create table if not exists w(v int primary key); insert into w "
                     "select generate_series(1, 300) on conflict do nothing;");
          return made.exit_code == 0;
        },
        absl::Minutes(2)))
        << made.output;
    op.Stop();
  }
  ASSERT_NO_FATAL_FAILURE(SetVersion(name, 17));
  for (const char* failpoint :
       {"postgrescluster/before-UpgradeJob", "postgrescluster/before-UpgradeClearDcs"}) {
    SCOPED_TRACE(failpoint);
    OperatorProcess crashing(ns());
    crashing.Start({absl::StrCat("QUORUM_FAILPOINTS=", failpoint)});
    ASSERT_EQ(crashing.WaitExit(absl::Minutes(6)), kFailpointExitCode)
        << "the operator never reached " << failpoint << "; log " << crashing.log_path()
        << "; upgrade " << Upgrade(name).dump();
  }
  OperatorProcess op(ns());
  op.Start();
  Json upgrade;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        upgrade = Upgrade(name);
        return upgrade.value("phase", "") == "Succeeded" || upgrade.value("phase", "") == "Failed";
      },
      absl::Minutes(10)))
      << upgrade.dump();
  ASSERT_EQ(upgrade.value("phase", ""), "Succeeded") << upgrade.dump();
  ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(5)));
  EXPECT_EQ(ServerMajor(name, name), "17");
  EXPECT_EQ(Rows(name).size(), 300u);
}

}  // namespace
}  // namespace quorum::e2e

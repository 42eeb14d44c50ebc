// Scenario 3 of issue 6: a PostgresCluster on the etcd DCS of an EtcdCluster
// (clusterRef), 3 instances → a primary; rows written through the primary
// Service are read through the replica Service; the primary pod deleted → a
// replica is promoted, the primary Service follows, writes resume, and no
// committed row is lost.
// Scenario 4: the same on the kubernetes DCS (Patroni's lock in the ConfigMap
// <cluster>-leader, the primary Service selecting the pod labelled primary:
// issue 36.5), with spec.users usable and a switchover through the spec.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "src/base/failpoint.h"
#include "test/e2e/e2e_env.h"
#include "test/e2e/postgres_e2e.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

// A failover on the etcd DCS, then a rolling update right after it. The
// members that ran for the leader resolved each other's names then; Patroni's
// etcd module used to keep those answers for ten minutes, so the new leader
// called the replaced replicas at their old pod IPs and the rollout's
// switchover failed ("no good candidates") until they expired. The start-up
// hook (src/patroni/start_hook.h) keeps them for seconds.
TEST_F(PostgresClusterE2E, EtcdDcsFailoverKeepsCommittedRowsAndARolloutRightAfterFinishes) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(CreateEtcdCluster("dcs", 3));
  Json pg = EtcdPostgres("pg", 3, "dcs");
  pg["spec"]["users"] = Json::array({{{"name", "app"}, {"databases", Json::array({"app"})}}});
  auto created = client().Create(kPostgres, ns(), pg);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("pg") && !Primary("pg").empty(); }, absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";
  const std::string first = Primary("pg");
  const std::string primary_svc = absl::StrCat("pg.", ns(), ".svc");
  const std::string replica_svc = absl::StrCat("pg-replicas.", ns(), ".svc");
  // Issue 38.5: a plain `patronictl list` in a member pod sees every member
  // through the etcd DCS (TLS and the member's own credentials).
  {
    const std::map<std::string, std::string> members = PatronictlMembers(first);
    EXPECT_EQ(members.size(), 3u);
    EXPECT_EQ(members.count(first) ? members.at(first) : "", "Leader");
  }

  CommandResult w = Sql("pg-superuser", primary_svc,
                        "create table rows(id int primary key); insert into rows "
                        "select generate_series(1,100);");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        CommandResult r = Sql("pg-superuser", replica_svc, "select count(*) from rows;");
        return r.exit_code == 0 && absl::StripAsciiWhitespace(r.output) == "100";
      },
      absl::Minutes(2)))
      << "the replica Service never served the rows";
  CommandResult in_recovery = Sql("pg-superuser", replica_svc, "select pg_is_in_recovery();");
  EXPECT_EQ(absl::StripAsciiWhitespace(in_recovery.output), "t") << in_recovery.output;

  // Lose the primary.
  ASSERT_TRUE(client().Delete(kPods, ns(), first).ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        const std::string now = Primary("pg");
        if (now.empty() || now == first) return false;
        CommandResult r = Sql("pg-superuser", primary_svc,
                              "insert into rows values (101); select count(*) from rows;");
        return r.exit_code == 0 && absl::StrContains(r.output, "101");
      },
      absl::Minutes(4)))
      << "no replica took over, or the primary Service did not follow";
  CommandResult count = Sql("pg-superuser", primary_svc, "select count(*) from rows;");
  EXPECT_EQ(absl::StripAsciiWhitespace(count.output), "101") << count.output;

  // Roll every member now; the leader must reach the replaced replicas.
  const std::string leader = Primary("pg");
  pg["spec"]["instances"][0]["metadata"] = {{"annotations", {{"e2e.quorum.dev/roll", "1"}}}};
  ASSERT_TRUE(client()
                  .Patch(kPostgres, ns(), "pg", kube::PatchType::kMerge,
                         {{"spec", {{"instances", pg["spec"]["instances"]}}}})
                  .ok());
  auto rolled = [&] {
    kube::ListOptions options{.label_selector = "postgres.quorum.dev/cluster=pg"};
    auto pods = client().List(kPods, ns(), options);
    if (!pods.ok() || (*pods)["items"].size() != 3) return false;
    for (const Json& p : (*pods)["items"]) {
      const Json& a = p["metadata"].value("annotations", Json::object());
      if (a.value("e2e.quorum.dev/roll", "") != "1") return false;
    }
    return Ready("pg") && !Primary("pg").empty();
  };
  ASSERT_TRUE(testenv::Eventually(rolled, absl::Minutes(5)))
      << "the rolling update after the failover did not finish (leader was " << leader << ")";
  kube::ListOptions failed{.field_selector = "involvedObject.name=pg,reason=RollingUpdateFailed"};
  auto events = client().List({"", "v1", "events"}, ns(), failed);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_TRUE((*events)["items"].empty()) << (*events)["items"].dump();
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        count = Sql("pg-superuser", primary_svc, "select count(*) from rows;");
        return count.exit_code == 0 && absl::StripAsciiWhitespace(count.output) == "101";
      },
      absl::Minutes(1)))
      << count.output;
}

// Issue 18.1: the role callback runs in a real pod (the ConfigMap volume's
// defaultMode 0555 makes it executable), so with the operator stopped a
// failover still moves role=primary (the old primary's label first: never
// two primaries) and the primary Service follows. The callback needs API
// rights, which the etcd DCS leaves off by default (issue 15.4): this cluster
// opts in with podAPIAccess: true.
TEST_F(PostgresClusterE2E, EtcdDcsFailoverWithTheOperatorStoppedMovesLabelAndService) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(CreateEtcdCluster("dcs", 1));
  const Json pg = EtcdPostgres("cb", 2, "dcs", {{"podAPIAccess", true}});
  auto created = client().Create(kPostgres, ns(), pg);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("cb") && !Primary("cb").empty(); }, absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";
  const std::string first = Primary("cb");
  const std::string other = first == "cb-main-0" ? "cb-main-1" : "cb-main-0";
  const std::string primary_svc = absl::StrCat("cb.", ns(), ".svc");
  // Both members streaming before the fault.
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        CommandResult r = Sql("cb-superuser", primary_svc,
                              "create table if not exists t(v int); insert into t values (1);"
                              " select count(*) from pg_stat_replication;");
        return r.exit_code == 0 && absl::StrContains(r.output, "1");
      },
      absl::Minutes(3)));

  op.Stop();
  // Who carries role=primary, sampled while the fault plays out.
  auto labelled_primary = [&] {
    std::vector<std::string> out;
    kube::ListOptions options;
    options.label_selector = "postgres.quorum.dev/cluster=cb,role=primary";
    auto pods = client().List(kPods, ns(), options);
    if (!pods.ok()) return out;
    for (const Json& p : pods->value("items", Json::array()))
      out.push_back(p["metadata"].value("name", ""));
    return out;
  };
  ASSERT_EQ(labelled_primary(), std::vector<std::string>{first});
  ASSERT_TRUE(client().Delete(kPods, ns(), first).ok());
  size_t most_at_once = 0;
  std::vector<std::string> now;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        now = labelled_primary();
        most_at_once = std::max(most_at_once, now.size());
        if (now != std::vector<std::string>{other}) return false;
        // A write through the primary Service succeeds: it routes to the
        // writable new leader.
        return Sql("cb-superuser", primary_svc, "insert into t values (2);").exit_code == 0;
      },
      absl::Minutes(4)))
      << "with the operator stopped, " << other
      << " did not get role=primary or the primary Service did not follow; labelled: "
      << absl::StrJoin(now, ",");
  EXPECT_LE(most_at_once, 1u) << "two pods carried role=primary at once";
}

// Issue 14 (DCS outage): every etcd member under a PostgresCluster frozen
// (SIGSTOP through hack/faults.sh) for longer than Patroni's ttl (30 s). With
// failsafe_mode on — the etcd DCS default — the primary keeps accepting
// writes while its members can see each other; etcd back, every acknowledged
// row is there.
TEST_F(PostgresClusterE2E, EtcdDcsOutageTheFailsafePrimaryKeepsWriting) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(CreateEtcdCluster("dcs", 3));
  const Json pg = EtcdPostgres("fs", 2, "dcs");
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("fs") && !Primary("fs").empty(); }, absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";
  const std::string primary_svc = absl::StrCat("fs.", ns(), ".svc");
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        CommandResult r = Sql("fs-superuser", primary_svc,
                              "create table if not exists t(v int); select count(*) from "
                              "pg_stat_replication;");
        return r.exit_code == 0 && absl::StrContains(r.output, "1");
      },
      absl::Minutes(3)))
      << "the replica never streamed";
  // Every member must exist before it can be frozen: the PostgresCluster can
  // be Ready while the EtcdCluster is still adding its third member.
  ASSERT_TRUE(testenv::Eventually([&] { return EtcdReady("dcs", 3); }, absl::Minutes(4)))
      << "the EtcdCluster never had 3 ready members";

  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  auto signal_etcd = [&](const char* sig) {
    for (int i = 0; i < 3; ++i) {
      CommandResult r = RunCommand({std::string(QUORUM_SOURCE_DIR) + "/hack/faults.sh", "signal",
                                    cp->dir, ns(), absl::StrCat("dcs-", i), sig});
      // A frozen member fails its liveness probe after ~30 s and the
      // kubelet restarts it: by the thaw its pod may be between containers,
      // with nothing left to continue.
      if (std::string_view(sig) == "STOP") {
        EXPECT_EQ(r.exit_code, 0) << "faults.sh signal dcs-" << i << " STOP: " << r.output;
      }
    }
  };
  signal_etcd("STOP");
  absl::Cleanup thaw = [&] { signal_etcd("CONT"); };
  // One insert a second for 45 s (> ttl): each must be acknowledged.
  int acknowledged = 0;
  std::vector<std::string> refused;
  const absl::Time until = absl::Now() + absl::Seconds(45);
  for (int i = 1; absl::Now() < until; ++i) {
    CommandResult r =
        Sql("fs-superuser", primary_svc, absl::StrCat("insert into t values (", i, ");"));
    if (r.exit_code == 0) {
      ++acknowledged;
    } else {
      refused.push_back(absl::StrCat(i, ": ", r.output));
    }
    absl::SleepFor(absl::Seconds(1));  // paces the writer; waits for nothing
  }
  std::move(thaw).Invoke();
  EXPECT_TRUE(refused.empty()) << "writes refused while etcd was frozen:\n"
                               << absl::StrJoin(refused, "\n");
  ASSERT_GT(acknowledged, 0);
  CommandResult count;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        count = Sql("fs-superuser", primary_svc, "select count(*) from t;");
        return count.exit_code == 0;
      },
      absl::Minutes(2)));
  EXPECT_EQ(absl::StripAsciiWhitespace(count.output), absl::StrCat(acknowledged))
      << "acknowledged rows lost after etcd came back";
}

// Issue 14.5 with real Patroni: a PostgresCluster deleted together with its
// volumes and created again under the same name bootstraps a new database.
// Issue 33: created again while the earlier claims remain, it starts no
// member on them (LeftoverClaims) until they are deleted.
// The DCS finalizer removed the old cluster's keys from etcd; without it the
// stale `initialize` key made the new, empty members wait for a leader that
// never came.
TEST_F(PostgresClusterE2E, DeletedWithItsVolumesAndRecreatedBootstrapsAgain) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_NO_FATAL_FAILURE(CreateEtcdCluster("dcs", 1));
  const Json pg = EtcdPostgres("again", 1, "dcs");
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("again") && !Primary("again").empty(); },
                                  absl::Minutes(6)))
      << "the first PostgresCluster did not become Ready with a primary";
  const std::string primary_svc = absl::StrCat("again.", ns(), ".svc");
  CommandResult w;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        w = Sql("again-superuser", primary_svc, "create table if not exists old_rows(v int);");
        return w.exit_code == 0;
      },
      absl::Minutes(2)))
      << w.output;

  ASSERT_TRUE(client().Delete(kPostgres, ns(), "again").ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgres, ns(), "again").status()); },
      absl::Minutes(3)))
      << "the PostgresCluster was never deleted (finalizer stuck?)";
  kube::ListOptions mine;
  mine.label_selector = "postgres.quorum.dev/cluster=again";
  auto count = [&](const kube::GroupVersionResource& gvr) {
    auto list = client().List(gvr, ns(), mine);
    return list.ok() ? list->value("items", Json::array()).size() : size_t{99};
  };
  ASSERT_TRUE(testenv::Eventually([&] { return count(kPods) == 0; }, absl::Minutes(3)))
      << "the members were not removed";
  auto claims = client().List(kClaims, ns(), mine);
  ASSERT_TRUE(claims.ok()) << claims.status();
  ASSERT_FALSE(claims->value("items", Json::array()).empty()) << "no claims to delete";
  // Created again over the earlier cluster's claims: no member starts on
  // them (their roles' passwords are the earlier cluster's), and Ready says
  // which claims to delete.
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  Json ready;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        ready = ReadyCondition("again");
        return ready.value("reason", "") == "LeftoverClaims";
      },
      absl::Minutes(1)))
      << "Ready: " << ready.dump();
  EXPECT_TRUE(absl::StrContains(ready.value("message", ""), "kubectl delete pvc pgdata-again-"))
      << ready.dump();
  EXPECT_EQ(count(kPods), 0u) << "a member started on the earlier cluster's claims";
  for (const Json& c : (*claims)["items"])
    ASSERT_TRUE(client().Delete(kClaims, ns(), c["metadata"].value("name", "")).ok());
  // Gone (the new cluster's StatefulSet then makes claims of the same names).
  auto earlier_claims_left = [&] {
    auto now = client().List(kClaims, ns(), mine);
    if (!now.ok()) return true;
    for (const Json& c : (*now)["items"]) {
      for (const Json& old : (*claims)["items"]) {
        if (c["metadata"].value("uid", "") == old["metadata"].value("uid", "")) return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(testenv::Eventually([&] { return !earlier_claims_left(); }, absl::Minutes(2)));

  ASSERT_TRUE(testenv::Eventually([&] { return Ready("again") && !Primary("again").empty(); },
                                  absl::Minutes(6)))
      << "the recreated PostgresCluster never bootstrapped";
  CommandResult r;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        r = Sql("again-superuser", primary_svc,
                "create table t(v int); insert into t values (1); select to_regclass('old_rows') "
                "is null;");
        return r.exit_code == 0;
      },
      absl::Minutes(2)))
      << r.output;
  EXPECT_EQ(absl::StripAsciiWhitespace(r.output), "t") << "not a new database: " << r.output;
}

TEST_F(PostgresClusterE2E, KubernetesDcsUsersSwitchoverConfigEditsAndACrashLoopingPrimary) {
  OperatorProcess op(ns());
  op.Start();
  Json pg = KubernetesPostgres("kpg", 2);
  pg["spec"]["users"] = Json::array({{{"name", "app"}, {"databases", Json::array({"app"})}}});
  auto created = client().Create(kPostgres, ns(), pg);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("kpg") && !Primary("kpg").empty(); },
                                  absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";
  const std::string primary_svc = absl::StrCat("kpg.", ns(), ".svc");
  {
    const std::map<std::string, std::string> members = PatronictlMembers(Primary("kpg"));
    EXPECT_EQ(members.size(), 2u);
    EXPECT_EQ(members.count(Primary("kpg")) ? members.at(Primary("kpg")) : "", "Leader");
  }
  // Issue 36.5: a new cluster's Patroni elects through ConfigMaps.
  {
    auto got = client().Get(kPostgres, ns(), "kpg");
    ASSERT_TRUE(got.ok());
    EXPECT_EQ((*got)["status"]["patroni"].value("dcsObjects", ""), "ConfigMaps");
    const kube::GroupVersionResource config_maps{"", "v1", "configmaps"};
    auto lock = client().Get(config_maps, ns(), "kpg-leader");
    ASSERT_TRUE(lock.ok()) << lock.status();
    EXPECT_EQ((*lock)["metadata"]["annotations"].value("leader", ""), Primary("kpg"));
    auto svc = client().Get({"", "v1", "services"}, ns(), "kpg");
    ASSERT_TRUE(svc.ok());
    EXPECT_EQ((*svc)["spec"]["selector"].value("role", ""), "primary");
  }

  // spec.users: the app user logs in to its own database through the primary Service.
  CommandResult last;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        last = Sql("kpg-user-app", primary_svc,
                   "create table if not exists t(v int); insert into t values (1);"
                   " select current_user, current_database();");
        return last.exit_code == 0 && absl::StrContains(last.output, "app|app");
      },
      absl::Minutes(2)))
      << "the app user cannot write through the primary Service: " << last.output;

  // Switchover through the spec: target the other member, then pull the trigger.
  const std::string current = Primary("kpg");
  const std::string target = current == "kpg-main-0" ? "kpg-main-1" : "kpg-main-0";
  ASSERT_TRUE(
      client()
          .Patch(
              kPostgres, ns(), "kpg", kube::PatchType::kMerge,
              {{"metadata", {{"annotations", {{"postgres.quorum.dev/trigger-switchover", "s1"}}}}},
               {"spec",
                {{"patroni", {{"switchover", {{"enabled", true}, {"targetInstance", target}}}}}}}})
          .ok());
  Json record;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        auto c = client().Get(kPostgres, ns(), "kpg");
        if (!c.ok()) return false;
        record = c->value("status", Json::object())
                     .value("patroni", Json::object())
                     .value("switchover", Json::object());
        return record.value("trigger", "") == "s1";
      },
      absl::Minutes(2)));
  EXPECT_EQ(record.value("result", ""), "Succeeded") << record.dump();
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        if (Primary("kpg") != target) return false;
        CommandResult r =
            Sql("kpg-user-app", primary_svc, "insert into t values (2); select count(*) from t;");
        return r.exit_code == 0 && absl::StrContains(r.output, "2");
      },
      absl::Minutes(3)))
      << "the primary did not move to " << target << " or the primary Service did not follow";

  // Day 2: the timings and a parameter edited on the running cluster reach
  // Patroni's dynamic configuration (bootstrap.dcs is read only once).
  ASSERT_TRUE(client()
                  .Patch(kPostgres, ns(), "kpg", kube::PatchType::kMerge,
                         {{"spec",
                           {{"patroni",
                             {{"syncPeriodSeconds", 5},
                              {"dynamicConfiguration",
                               {{"postgresql", {{"parameters", {{"work_mem", "12MB"}}}}}}}}}}}})
                  .ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        last = Sql("kpg-user-app", primary_svc, "show work_mem;");
        return last.exit_code == 0 && absl::StrContains(last.output, "12MB");
      },
      absl::Minutes(2)))
      << "work_mem did not follow the spec: " << last.output;
  std::string applied;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        kube::ListOptions o{.field_selector =
                                "involvedObject.name=kpg,reason=DynamicConfigurationApplied"};
        auto events = client().List({"", "v1", "events"}, ns(), o);
        if (!events.ok() || (*events)["items"].empty()) return false;
        applied = (*events)["items"][0].value("message", "");
        return true;
      },
      absl::Seconds(30)));
  EXPECT_TRUE(absl::StrContains(applied, "loop_wait")) << applied;
  EXPECT_TRUE(absl::StrContains(applied, "postgresql.parameters.work_mem")) << applied;

  // Issue 18: a primary that crash-loops. Each start of its container renews
  // Patroni's leader lock, so without the operator ending it the replica waits
  // while the kubelet's back-off grows. Kill the primary's processes every
  // second until the operator has ended its lock.
  const std::string looping = Primary("kpg");
  const std::string replica = looping == "kpg-main-0" ? "kpg-main-1" : "kpg-main-0";
  // Only a replica that follows the primary — on its timeline, which the
  // switchover above changed — may take over (Patroni's check_timeline,
  // docs/operations.md): the old primary rejoins first. Its pod's Ready is
  // no proof: the kubelet keeps the old primary Ready for three failed
  // probes after the switchover (CI crash-looped the new primary in that
  // window, and the old one rightly waited for it).
  ASSERT_TRUE(testenv::Eventually([&] { return FollowsPrimary("kpg", replica); }, absl::Minutes(3)))
      << replica << " did not follow " << looping << " after the switchover";
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  auto released = [&] {
    kube::ListOptions o{.field_selector = "involvedObject.name=kpg,reason=LeaderLockReleased"};
    auto events = client().List({"", "v1", "events"}, ns(), o);
    return events.ok() && !(*events)["items"].empty();
  };
  const absl::Time give_up = absl::Now() + absl::Seconds(90);
  while (!released() && absl::Now() < give_up) {
    RunCommand({std::string(QUORUM_SOURCE_DIR) + "/hack/faults.sh", "signal", cp->dir, ns(),
                looping, "KILL"});  // fails while the container is not running
    absl::SleepFor(absl::Seconds(1));
  }
  ASSERT_TRUE(released()) << "the operator never ended the crash-looping primary's leader lock";
  // The primary keeps crashing (a crash loop does not stop because its lock
  // went): were it left alone, its next start could win Patroni's leader
  // race again, having the newest WAL.
  std::string primary_now;
  const absl::Time take_over_by = absl::Now() + absl::Minutes(2);
  while ((primary_now = Primary("kpg")) != replica && absl::Now() < take_over_by) {
    RunCommand({std::string(QUORUM_SOURCE_DIR) + "/hack/faults.sh", "signal", cp->dir, ns(),
                looping, "KILL"});
    absl::SleepFor(absl::Seconds(1));
  }
  ASSERT_EQ(primary_now, replica) << "the replica " << replica
                                  << " did not take over from the crash-looping " << looping;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        last =
            Sql("kpg-user-app", primary_svc, "insert into t values (3); select count(*) from t;");
        return last.exit_code == 0 && absl::StrContains(last.output, "3");
      },
      absl::Minutes(2)))
      << "writes through the primary Service failed after " << replica
      << " took over: " << last.output;
}

// Issue 18 (failpoints): the operator crashes right before and right after a
// user's switchover and a rolling-update step; a restarted operator finishes
// the work, records the switchover, and every row written is there.
TEST_F(PostgresClusterE2E, CrashAtEachSwitchoverAndRolloutStepResumes) {
  Json pg = KubernetesPostgres("fpg", 2);
  {
    OperatorProcess op(ns());
    op.Start();
    ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
    ASSERT_TRUE(testenv::Eventually([&] { return Ready("fpg") && !Primary("fpg").empty(); },
                                    absl::Minutes(6)))
        << "the PostgresCluster did not become Ready with a primary";
  }
  const std::string primary_svc = absl::StrCat("fpg.", ns(), ".svc");
  int rows = 0;
  auto write_row = [&] {
    CommandResult r;
    const bool ok = testenv::Eventually(
        [&] {
          r = Sql("fpg-superuser", primary_svc,
                  absl::StrCat("set client_min_messages = warning; create table if not "
                               "exists t(v int); insert into t values (",
                               rows + 1, "); select count(*) from t;"));
          return r.exit_code == 0;
        },
        absl::Minutes(3));
    EXPECT_TRUE(ok) << "no write through the primary Service: " << r.output;
    if (ok) {
      EXPECT_EQ(absl::StripAsciiWhitespace(r.output), absl::StrCat(++rows)) << r.output;
    }
  };
  write_row();

  auto crash_at = [&](const std::string& failpoint, const Json& patch) {
    OperatorProcess crashing(ns());
    crashing.Start({"QUORUM_FAILPOINTS=" + failpoint});
    auto patched = client().Patch(kPostgres, ns(), "fpg", kube::PatchType::kMerge, patch);
    ASSERT_TRUE(patched.ok()) << patched.status();
    ASSERT_EQ(crashing.WaitExit(absl::Minutes(4)), kFailpointExitCode)
        << "the operator never reached " << failpoint << "; log " << crashing.log_path();
  };
  auto switchover_record = [&] {
    auto c = client().Get(kPostgres, ns(), "fpg");
    return c.ok() ? c->value("status", Json::object())
                        .value("patroni", Json::object())
                        .value("switchover", Json::object())
                  : Json::object();
  };
  int generation = 0;
  for (const char* failpoint :
       {"postgrescluster/before-Switchover", "postgrescluster/after-Switchover"}) {
    SCOPED_TRACE(failpoint);
    const std::string from = Primary("fpg");
    const std::string target = from == "fpg-main-0" ? "fpg-main-1" : "fpg-main-0";
    const std::string trigger = absl::StrCat("s", ++generation);
    ASSERT_NO_FATAL_FAILURE(crash_at(
        failpoint,
        {{"metadata", {{"annotations", {{"postgres.quorum.dev/trigger-switchover", trigger}}}}},
         {"spec",
          {{"patroni", {{"switchover", {{"enabled", true}, {"targetInstance", target}}}}}}}}));
    OperatorProcess op(ns());
    op.Start();
    Json record;
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          // A crash after Patroni accepted leaves the trigger unrecorded: the
          // new operator may record Waiting (the old primary demoting) before
          // it sees the target as the primary and answers Succeeded.
          record = switchover_record();
          return record.value("trigger", "") == trigger &&
                 record.value("result", "") != "Waiting" && Primary("fpg") == target &&
                 Ready("fpg");
        },
        absl::Minutes(4)))
        << "after a crash at " << failpoint << " the switchover to " << target
        << " did not finish; record " << record.dump() << ", primary " << Primary("fpg");
    EXPECT_EQ(record.value("result", ""), "Succeeded") << record.dump();
    write_row();
  }

  for (const char* failpoint :
       {"postgrescluster/before-RollingUpdate", "postgrescluster/after-RollingUpdate"}) {
    SCOPED_TRACE(failpoint);
    const std::string mark = absl::StrCat("r", ++generation);
    pg["spec"]["instances"][0]["metadata"] = {{"annotations", {{"e2e.quorum.dev/roll", mark}}}};
    ASSERT_NO_FATAL_FAILURE(
        crash_at(failpoint, {{"spec", {{"instances", pg["spec"]["instances"]}}}}));
    OperatorProcess op(ns());
    op.Start();
    auto rolled = [&] {
      kube::ListOptions options;
      options.label_selector = "postgres.quorum.dev/cluster=fpg";
      auto pods = client().List(kPods, ns(), options);
      if (!pods.ok() || (*pods)["items"].size() != 2) return false;
      for (const Json& p : (*pods)["items"]) {
        const Json& a = p["metadata"].value("annotations", Json::object());
        if (a.value("e2e.quorum.dev/roll", "") != mark) return false;
      }
      return Ready("fpg") && !Primary("fpg").empty();
    };
    ASSERT_TRUE(testenv::Eventually(rolled, absl::Minutes(6)))
        << "after a crash at " << failpoint << " the rolling update did not finish";
    write_row();
  }
}

// Issue 33: members leave only after the primary role has moved to a member
// that stays. A set scaled down with the primary among its highest ordinals,
// then a whole set removed from spec.instances while it holds the primary:
// each time the operator switches over first, then scales down or deletes
// the set's StatefulSet (its claims stay). A writer runs throughout; every
// acknowledged row is there at the end.
TEST_F(PostgresClusterE2E, ScaleDownAndSetRemovalMoveThePrimaryFirstAndLoseNoWrite) {
  OperatorProcess op(ns());
  op.Start();
  Json pg = KubernetesPostgres("rm", 2);
  Json extra = pg["spec"]["instances"][0];
  extra["name"] = "extra";
  extra["replicas"] = 1;
  pg["spec"]["instances"].push_back(extra);
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("rm") && !Primary("rm").empty(); }, absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";
  const std::string primary_svc = absl::StrCat("rm.", ns(), ".svc");
  CommandResult last;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        last = Sql("rm-superuser", primary_svc, "create table if not exists w(v int primary key);");
        return last.exit_code == 0;
      },
      absl::Minutes(2)))
      << last.output;
  // The primary goes to rm-main-1, the ordinal a scale-down to 1 removes.
  if (Primary("rm") != "rm-main-1") {
    ASSERT_TRUE(
        client()
            .Patch(kPostgres, ns(), "rm", kube::PatchType::kMerge,
                   {{"metadata",
                     {{"annotations", {{"postgres.quorum.dev/trigger-switchover", "s1"}}}}},
                    {"spec",
                     {{"patroni",
                       {{"switchover", {{"enabled", true}, {"targetInstance", "rm-main-1"}}}}}}}})
            .ok());
    ASSERT_TRUE(testenv::Eventually([&] { return Primary("rm") == "rm-main-1" && Ready("rm"); },
                                    absl::Minutes(3)))
        << "the switchover to rm-main-1 did not happen";
  }

  // The writer: one insert at a time through the primary Service; the only
  // caller of Sql until it stops.
  AckedWriter writer(
      [&](int i) {
        return Sql("rm-superuser", primary_svc, absl::StrCat("insert into w values (", i, ");"))
                   .exit_code == 0;
      },
      absl::Milliseconds(200));
  auto replicas = [&](const std::string& sts) -> std::optional<int> {
    auto got = client().Get({"apps", "v1", "statefulsets"}, ns(), sts);
    if (!got.ok()) return std::nullopt;
    return (*got)["spec"].value("replicas", -1);
  };
  auto pod_exists = [&](const std::string& pod) { return client().Get(kPods, ns(), pod).ok(); };
  auto event = [&](const std::string& reason, const std::string& text) {
    kube::ListOptions o{.field_selector = "involvedObject.name=rm,reason=" + reason};
    auto events = client().List({"", "v1", "events"}, ns(), o);
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (absl::StrContains(e.value("message", ""), text)) return true;
    }
    return false;
  };

  // Scale main down to 1 with the primary on rm-main-1: the lowest-named
  // ready member that stays (rm-extra-0) takes over first.
  pg["spec"]["instances"][0]["replicas"] = 1;
  ASSERT_TRUE(client()
                  .Patch(kPostgres, ns(), "rm", kube::PatchType::kMerge,
                         {{"spec", {{"instances", pg["spec"]["instances"]}}}})
                  .ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] { return replicas("rm-main") == 1 && !pod_exists("rm-main-1") && Ready("rm"); },
      absl::Minutes(4)))
      << "rm-main did not scale down to 1";
  EXPECT_TRUE(event("MemberRemovalSwitchover", "from rm-main-1 to "))
      << "the primary was not moved before its pod was removed";
  // The lowest-named ready member that stays: rm-extra-0 unless it was not
  // ready at that moment.
  const std::string took_over = Primary("rm");
  EXPECT_TRUE(took_over == "rm-extra-0" || took_over == "rm-main-0") << took_over;

  // Remove the set that now holds the primary.
  Json instances = Json::array({pg["spec"]["instances"][0]});
  ASSERT_TRUE(client()
                  .Patch(kPostgres, ns(), "rm", kube::PatchType::kMerge,
                         {{"spec", {{"instances", instances}}}})
                  .ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return !replicas("rm-extra").has_value() && !pod_exists("rm-extra-0") &&
               Primary("rm") == "rm-main-0" && Ready("rm");
      },
      absl::Minutes(4)))
      << "the removed set's StatefulSet or pod is still there, or rm-main-0 is not the primary";
  if (took_over == "rm-extra-0") {
    EXPECT_TRUE(event("MemberRemovalSwitchover", "from rm-extra-0 to rm-main-0"))
        << "the primary was not moved before its set was removed";
  }
  EXPECT_TRUE(event("InstanceSetRemoved", "rm-extra"));
  for (const std::string claim : {"pgdata-rm-main-1", "pgdata-rm-extra-0"}) {
    EXPECT_TRUE(client().Get(kClaims, ns(), claim).ok()) << claim << " was not kept";
  }

  // Every acknowledged row is there.
  absl::SleepFor(absl::Seconds(2));  // a few writes against the last member
  const std::vector<int> acknowledged = writer.Stop();
  ASSERT_GT(acknowledged.size(), 10u) << "the writer barely wrote";
  ExpectAcknowledgedRows("rm-superuser", primary_svc, "w", acknowledged);
}

// Issue 34: the secure DCS make demo uses, with no Secret written by the
// user. An EtcdCluster with enableAuth and tls.managed: Quorum issues every
// certificate; the PostgresCluster on it reports DCSSecure and its pods'
// etcd credentials (their own user and certificate) reach their own prefix
// only. Then the members' peer and server certificates are rotated (their
// Secrets deleted: Quorum issues new ones from the same CAs) while a client
// writes: every member serves the new certificates without a restart, and
// no acknowledged write is lost.
TEST_F(PostgresClusterE2E, AManagedTlsAndAuthDcsKeepsOtherPrefixesOutAndRotatesUnderAWriter) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client()
                  .Create(kEtcdClusters, ns(),
                          {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                           {"kind", "EtcdCluster"},
                           {"metadata", {{"name", "sdcs"}, {"namespace", ns()}}},
                           {"spec",
                            {{"replicas", 3},
                             {"storage", {{"emptyDir", Json::object()}}},
                             {"security", {{"enableAuth", true}, {"tls", {{"managed", true}}}}}}}})
                  .ok());
  ASSERT_TRUE(client().Create(kPostgres, ns(), EtcdPostgres("spg", 2, "sdcs")).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("spg") && !Primary("spg").empty(); },
                                  absl::Minutes(8)))
      << "the PostgresCluster on the managed-TLS EtcdCluster did not become Ready";
  auto condition = [&](const char* type) {
    auto c = client().Get(kPostgres, ns(), "spg");
    for (const Json& cond : c->value("status", Json::object()).value("conditions", Json::array()))
      if (cond.value("type", "") == type) return cond;
    return Json::object();
  };
  EXPECT_EQ(condition("DCSSecure").value("reason", ""), "EtcdTlsAndAuth") << condition("DCSSecure");

  // Files for etcdctl on the host from the Secrets Quorum made.
  const std::string dir = absl::StrCat("/tmp/quorum-e2e-", ns(), "-sdcs");
  std::filesystem::create_directories(dir);
  auto secret = [&](const std::string& name, const char* key) {
    std::string out;
    auto s = client().Get(kSecrets, ns(), name);
    if (s.ok()) absl::Base64Unescape(s->value("data", Json::object()).value(key, ""), &out);
    return out;
  };
  std::ofstream(dir + "/ca.crt") << secret("sdcs-server-tls", "ca.crt");
  std::ofstream(dir + "/pods.crt") << secret("spg-etcd-client", "tls.crt");
  std::ofstream(dir + "/pods.key") << secret("spg-etcd-client", "tls.key");
  std::ofstream(dir + "/op.crt") << secret("sdcs-client-tls", "tls.crt");
  std::ofstream(dir + "/op.key") << secret("sdcs-client-tls", "tls.key");
  const std::vector<std::string> pods = {
      "--cacert=" + dir + "/ca.crt", "--cert=" + dir + "/pods.crt", "--key=" + dir + "/pods.key",
      absl::StrCat("--user=", secret("spg-etcd-user", "username"), ":",
                   secret("spg-etcd-user", "password"))};
  const std::vector<std::string> root = {
      "--cacert=" + dir + "/ca.crt", "--cert=" + dir + "/op.crt", "--key=" + dir + "/op.key",
      absl::StrCat("--user=root:", secret("sdcs-root-auth", "password"))};
  const std::string own = absl::StrCat("/quorum/", ns(), "/spg/");
  CommandResult mine =
      Etcdctl(ns(), "sdcs", {"get", "--prefix", "--keys-only", own}, pods, "https");
  EXPECT_EQ(mine.exit_code, 0) << mine.output;
  EXPECT_TRUE(absl::StrContains(mine.output, own + "leader")) << mine.output;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"get", "--prefix", absl::StrCat("/quorum/", ns(), "/other/")},
           {"put", absl::StrCat("/quorum/", ns(), "/spg2/x"), "v"},
           {"get", "--prefix", "/"}}) {
    CommandResult r = Etcdctl(ns(), "sdcs", args, pods, "https");
    EXPECT_NE(r.exit_code, 0) << absl::StrJoin(args, " ") << ": " << r.output;
    EXPECT_TRUE(absl::StrContains(r.output, "permission denied")) << r.output;
  }
  CommandResult nocert =
      Etcdctl(ns(), "sdcs", {"get", "k"}, {"--cacert=" + dir + "/ca.crt"}, "https");
  EXPECT_NE(nocert.exit_code, 0) << "a client without a certificate got through";

  // The serial each member serves on a port (openssl on the host).
  auto served = [&](int ordinal, int port) {
    const std::string host = absl::StrCat("sdcs-", ordinal, ".sdcs-headless.", ns(), ".svc:", port);
    CommandResult r = NodeExec({"sh", "-c",
                                absl::StrCat("openssl s_client -connect ", host,
                                             " </dev/null 2>/dev/null | openssl x509 "
                                             "-noout -serial")},
                               absl::Seconds(20));
    return std::string(absl::StripAsciiWhitespace(r.output));
  };
  // Restarts so far (a member that joined before the cluster DNS published
  // its address may have restarted once: etcd checks a peer's certificate
  // against the name its address resolves to); the rotation adds none.
  auto restarts = [&] {
    std::map<std::string, int> out;
    for (const auto& [pod, uid] : EtcdPods("sdcs")) {
      auto p = client().Get(kPods, ns(), pod);
      if (!p.ok()) continue;
      for (const Json& cs : (*p)["status"].value("containerStatuses", Json::array())) {
        out[pod] += cs.value("restartCount", 0);
      }
    }
    return out;
  };
  const std::map<std::string, int> restarts_before = restarts();
  std::vector<std::string> before;
  for (int i = 0; i < 3; ++i) {
    before.push_back(served(i, 2379) + "/" + served(i, 2380));
    ASSERT_TRUE(absl::StartsWith(before.back(), "serial=")) << before.back();
  }
  AckedWriter writer(
      [&](int i) {
        return Etcdctl(ns(), "sdcs", {"put", absl::StrCat("w/", i), "v"}, root, "https")
                   .exit_code == 0;
      },
      absl::Milliseconds(200));
  absl::SleepFor(absl::Seconds(3));
  ASSERT_TRUE(client().Delete(kSecrets, ns(), "sdcs-server-tls").ok());
  ASSERT_TRUE(client().Delete(kSecrets, ns(), "sdcs-peer-tls").ok());
  const bool rotated = testenv::Eventually(
      [&] {
        for (int i = 0; i < 3; ++i) {
          const std::string now = served(i, 2379) + "/" + served(i, 2380);
          const std::vector<std::string> was = absl::StrSplit(before[i], '/');
          const std::vector<std::string> is = absl::StrSplit(now, '/');
          if (is.size() != 2 || is[0] == was[0] || is[1] == was[1] || is[0] == "serial=") {
            return false;
          }
        }
        return true;
      },
      absl::Minutes(4));
  absl::SleepFor(absl::Seconds(5));  // writes after the rotation too
  const std::vector<int> acknowledged = writer.Stop();
  ASSERT_TRUE(rotated) << "not every member serves its new certificates";
  ASSERT_GT(acknowledged.size(), 20u) << "writes did not go on during the rotation";
  EXPECT_EQ(restarts(), restarts_before) << "a member restarted during the rotation";
  CommandResult keys =
      Etcdctl(ns(), "sdcs", {"get", "--prefix", "--keys-only", "w/"}, root, "https");
  ASSERT_EQ(keys.exit_code, 0) << keys.output;
  std::set<std::string> stored;
  for (absl::string_view line : absl::StrSplit(keys.output, '\n', absl::SkipWhitespace())) {
    stored.insert(std::string(line));
  }
  for (int i : acknowledged) EXPECT_TRUE(stored.contains(absl::StrCat("w/", i))) << "lost w/" << i;
  EXPECT_TRUE(EtcdClusterReady("sdcs"));
  EXPECT_TRUE(testenv::Eventually([&] { return Ready("spg"); }, absl::Minutes(2)))
      << "the PostgresCluster did not stay Ready";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quorum::e2e

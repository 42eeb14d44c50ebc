// Issue 33: the edits users make to a running PostgresCluster, one after the
// other under a client that writes throughout: a switchover to each member,
// switchover targets that are wrong in two ways, a resources change (a
// rolling update: replicas first, the primary after a switchover), an
// instance set added and removed, and a new user. After each edit the
// cluster converges (Ready at the new generation); a refused edit names its
// field; at the end every acknowledged row is there. A scale-down and a set
// removal with the primary in them are in postgrescluster_test.cc
// (ScaleDownAndSetRemoval...), a backup with a member down in
// pgbackrest_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "test/e2e/e2e_env.h"
#include "test/e2e/postgres_e2e.h"

namespace quorum::e2e {
namespace {

using Json = nlohmann::json;

class PostgresDayTwoE2E : public PostgresClusterE2E {
 protected:
  // Ready, a primary, and the status written for the spec as it is now.
  bool Converged(const std::string& name) {
    auto c = client().Get(kPostgres, ns(), name);
    if (!c.ok() || !Ready(name) || Primary(name).empty()) return false;
    return (*c)["status"].value("observedGeneration", int64_t{0}) ==
           (*c)["metadata"].value("generation", int64_t{-1});
  }

  // The database container's CPU request of pod `pod` ("" when none).
  std::string CpuRequest(const std::string& pod) {
    auto p = client().Get(kPods, ns(), pod);
    if (!p.ok()) return "";
    for (const Json& c : (*p)["spec"].value("containers", Json::array())) {
      if (c.value("name", "") != "database") continue;
      return c.value("resources", Json::object())
          .value("requests", Json::object())
          .value("cpu", "");
    }
    return "";
  }
};

TEST_F(PostgresDayTwoE2E, EditsUnderAWriterKeepEveryAcknowledgedRow) {
  OperatorProcess op(ns());
  op.Start();
  Json pg = KubernetesPostgres("d2", 3);
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Converged("d2"); }, absl::Minutes(8)))
      << "the PostgresCluster did not become Ready with a primary";
  const std::string primary_svc = absl::StrCat("d2.", ns(), ".svc");
  ASSERT_EQ(SqlWithin("d2-superuser", primary_svc, "create table w(v int primary key);").exit_code,
            0);
  AckedWriter writer(
      [&](int i) {
        return Sql("d2-superuser", primary_svc, absl::StrCat("insert into w values (", i, ");"))
                   .exit_code == 0;
      },
      absl::Milliseconds(200));

  // A switchover to each member in turn (each waits for its replica to
  // stream: `kubectl quorum switchover` exits 1 until Patroni accepts).
  for (const std::string member : {"d2-main-0", "d2-main-1", "d2-main-2"}) {
    if (Primary("d2") == member) continue;
    CommandResult sw;
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          sw = KubectlQuorum(ns(), {"switchover", "d2", "--to", member});
          return sw.exit_code == 0;
        },
        absl::Minutes(3)))
        << sw.output;
    ASSERT_TRUE(testenv::Eventually([&] { return Primary("d2") == member && Converged("d2"); },
                                    absl::Minutes(2)))
        << "the primary did not move to " << member;
  }
  const std::string primary = Primary("d2");

  // A target that cannot be a member is refused at admission, naming the
  // field; one that could be but is not is answered Failed, nothing moves.
  absl::StatusOr<Json> refused = client().Patch(
      kPostgres, ns(), "d2", kube::PatchType::kMerge,
      {{"spec",
        {{"patroni", {{"switchover", {{"enabled", true}, {"targetInstance", "Not_A_Pod"}}}}}}}});
  ASSERT_FALSE(refused.ok()) << "a target that cannot be a pod name was admitted";
  EXPECT_TRUE(
      absl::StrContains(refused.status().message(), "spec.patroni.switchover.targetInstance"))
      << refused.status();
  CommandResult missing = KubectlQuorum(ns(), {"switchover", "d2", "--to", "d2-main-7"});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(absl::StrContains(missing.output, "not a member")) << missing.output;
  EXPECT_EQ(Primary("d2"), primary);
  EXPECT_TRUE(testenv::Eventually([&] { return Converged("d2"); }, absl::Minutes(1)));

  // spec.instances is replaced whole by a merge patch.
  auto set_instances = [&](const Json& instances) {
    return client()
        .Patch(kPostgres, ns(), "d2", kube::PatchType::kMerge,
               {{"spec", {{"instances", instances}}}})
        .ok();
  };
  // Resources: every member replaced with the new requests, the primary last.
  pg["spec"]["instances"][0]["resources"] = {{"requests", {{"cpu", "10m"}}}};
  ASSERT_TRUE(set_instances(pg["spec"]["instances"]));
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        for (const char* pod : {"d2-main-0", "d2-main-1", "d2-main-2"}) {
          if (CpuRequest(pod) != "10m" || !PodReady(pod)) return false;
        }
        return Converged("d2");
      },
      absl::Minutes(6)))
      << "the resources change did not roll through every member";

  // A set added to the running cluster: its member joins and follows the
  // primary. Removed again: its StatefulSet and pod go (the claim stays).
  Json with_extra = pg["spec"]["instances"];
  Json extra = with_extra[0];
  extra["name"] = "extra";
  extra["replicas"] = 1;
  with_extra.push_back(extra);
  ASSERT_TRUE(set_instances(with_extra));
  ASSERT_TRUE(testenv::Eventually(
      [&] { return FollowsPrimary("d2", "d2-extra-0") && Converged("d2"); }, absl::Minutes(5)))
      << "the added set's member did not join";
  ASSERT_TRUE(set_instances(pg["spec"]["instances"]));
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return absl::IsNotFound(
                   client().Get({"apps", "v1", "statefulsets"}, ns(), "d2-extra").status()) &&
               absl::IsNotFound(client().Get(kPods, ns(), "d2-extra-0").status()) &&
               Converged("d2");
      },
      absl::Minutes(4)))
      << "the removed set's StatefulSet or pod is still there";

  // A new user: its Secret appears and it logs in through the primary Service.
  ASSERT_TRUE(client()
                  .Patch(kPostgres, ns(), "d2", kube::PatchType::kMerge,
                         {{"spec", {{"users", Json::array({{{"name", "report"}}})}}}})
                  .ok());
  CommandResult login;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        login = Sql("d2-user-report", primary_svc, "select current_user;");
        return login.exit_code == 0;
      },
      absl::Minutes(2)))
      << login.output;
  EXPECT_EQ(absl::StripAsciiWhitespace(login.output), "report");
  EXPECT_TRUE(testenv::Eventually([&] { return Converged("d2"); }, absl::Minutes(1)));

  const std::vector<int> acknowledged = writer.Stop();
  ASSERT_GT(acknowledged.size(), 20u) << "the writer barely wrote";
  ExpectAcknowledgedRows("d2-superuser", primary_svc, "w", acknowledged);
}

}  // namespace
}  // namespace quorum::e2e

// Patroni's dynamic configuration after bootstrap, as the operator keeps it in
// line with the spec (src/controllers/postgrescluster/sync_config.h): a real
// Patroni + PostgreSQL member on real etcd, with REST API authentication.
// Patroni reads bootstrap.dcs only once; a changed desired configuration must
// reach the running cluster through GET/PATCH /config — the timings in the
// DCS, a PostgreSQL parameter in the running server — and the same desired
// configuration afterwards needs no patch.
#include "src/patroni/dynamic_config.h"

#include <gtest/gtest.h>

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
using nlohmann::json;
using testenv::Eventually;

constexpr char kSuperuserPassword[] = "su-pass-dc";
const BasicAuth kRestAuth{.username = "patroni-api", .password = "api-pass-dc"};

class DynamicConfigTest : public ::testing::Test {
 protected:
  std::string Logs() {
    return patroni_.LogTails([](int) { return std::string("dc-0"); });
  }

  std::vector<int> ports_;
  EtcdHarness etcd_{{.max_members = 1, .name_prefix = "dc"}};
  testing::PatroniHarness patroni_;
};

TEST_F(DynamicConfigTest, ASpecChangeReachesARunningClusterThroughPatchConfig) {
  ASSERT_TRUE(etcd_.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(etcd_.Config());
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(etcd_.StartNewCluster(**client, 1).ok()) << etcd_.LogTail(0);
  ASSERT_TRUE(patroni_.Init(1).ok());
  ports_ = FreePorts(2);
  ASSERT_EQ(ports_.size(), 2u);
  const std::string api = absl::StrCat("http://127.0.0.1:", ports_[0]);

  ConfigInput in;
  in.scope = "dc";
  in.key_namespace = "/quorum/dynamic/";
  in.ttl = 30;
  in.loop_wait = 2;
  in.retry_timeout = 5;
  in.parameters = {{"max_connections", "30"}, {"shared_buffers", "16MB"}};
  in.pg_hba = {"local all all trust", "host all all 127.0.0.1/32 scram-sha-256"};
  in.local_parameters = {{"unix_socket_directories", patroni_.MemberDir(0)}};
  in.listen_host = "127.0.0.1";
  in.restapi_port = ports_[0];
  in.postgres_port = ports_[1];
  in.restapi_auth = true;
  in.data_dir = patroni_.DataDir(0);
  in.bin_dir = patroni_.binaries().pg_bin_dir;
  in.pgpass = patroni_.MemberDir(0) + "/pgpass";
  in.dcs = EtcdDcs{.hosts = {etcd_.ClientUrl(0).substr(std::string("http://").size())}};
  testing::MemberEnv m;
  m.pod_name = "dc-0";
  m.pod_namespace = "dynamic";
  m.superuser_password = kSuperuserPassword;
  m.replication_password = "repl-pass-dc";
  m.rewind_password = "rewind-pass-dc";
  m.restapi_username = kRestAuth.username;
  m.restapi_password = kRestAuth.password;
  ASSERT_TRUE(patroni_.Start(0, RenderConfig(in), testing::ResolveEnv(in, m)).ok());

  RestClient rest({.timeout = absl::Seconds(3)});
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<MemberStatus> s = rest.GetPatroni(api);
        return s.ok() && s->state == "running" && (s->role == "primary" || s->role == "master");
      },
      absl::Seconds(120)))
      << Logs();

  // Right after bootstrap the DCS holds what the file said: nothing to patch. Patroni
  // answers /config from its cached view of the DCS, which can still predate the
  // bootstrap's write of it (502) for a loop or so.
  absl::StatusOr<json> current = rest.GetConfig(api);
  ASSERT_TRUE(Eventually(
      [&] {
        current = rest.GetConfig(api);
        return current.ok();
      },
      absl::Seconds(30)))
      << current.status();
  EXPECT_EQ(DynamicConfigPatch(DynamicConfig(in), *current), json::object()) << current->dump();

  // The spec changes: faster timings and a parameter of the user's.
  ConfigInput changed = in;
  changed.ttl = 20;
  changed.loop_wait = 3;
  changed.dynamic_configuration = {{"postgresql", {{"parameters", {{"work_mem", "12MB"}}}}}};
  const json patch = DynamicConfigPatch(DynamicConfig(changed), *current);
  EXPECT_EQ(PatchPaths(patch),
            (std::vector<std::string>{"loop_wait", "postgresql.parameters.work_mem", "ttl"}));
  // Unsafe calls need the REST API's credentials.
  EXPECT_TRUE(absl::IsUnauthenticated(rest.PatchConfig(api, patch)));
  ASSERT_TRUE(rest.PatchConfig(api, patch, kRestAuth).ok());

  // GET /config answers from the member's view of the DCS, which a busy
  // machine may refresh a moment after the PATCH returned.
  EXPECT_TRUE(Eventually(
      [&] {
        current = rest.GetConfig(api);
        return current.ok() && (*current)["ttl"] == 20;
      },
      absl::Seconds(10)));
  ASSERT_TRUE(current.ok()) << current.status();
  EXPECT_EQ((*current)["ttl"], 20);
  EXPECT_EQ((*current)["loop_wait"], 3);
  // What Patroni kept of its own is still there, and nothing is left to do.
  EXPECT_TRUE((*current)["postgresql"]["parameters"].contains("max_connections"))
      << current->dump();
  EXPECT_EQ(DynamicConfigPatch(DynamicConfig(changed), *current), json::object());
  // The running server follows within a loop_wait (a reload-level parameter).
  std::string work_mem;
  EXPECT_TRUE(Eventually(
      [&] {
        absl::StatusOr<std::string> r =
            patroni_.Sql(ports_[1], kSuperuserPassword, "SHOW work_mem");
        if (r.ok()) work_mem = *r;
        return r.ok() && absl::StrContains(*r, "12MB");
      },
      absl::Seconds(30)))
      << "work_mem is " << work_mem << "\n"
      << Logs();
}

}  // namespace
}  // namespace quorum::patroni

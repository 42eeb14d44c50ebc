// patroni_role_bench: how long after a Patroni leader change the pods' role
// labels are right again through the operator-side path alone (no callback):
// role_sync polling Patroni's REST API and patching the labels.
//
//   patroni_role_bench [--kubeconfig PATH] [--switchovers N] [--poll-ms MS]
//
// Starts plain etcd and three real Patroni + PostgreSQL members on loopback
// (hack/deps.sh installs them), makes a namespace with three Pod objects in
// the API server of the kubeconfig ($KUBECONFIG by default; e.g. the one of
// `hack/controlplane.sh start DIR`), then performs N switchovers through the
// REST API. For each it measures
//   switchover: the POST /switchover round trip (Patroni answers once the
//               candidate leads), and
//   label:      from that answer to the candidate's pod carrying role=primary
//               and no other pod carrying it, with SyncRoleLabels every
//               --poll-ms (default 100) as the operator would,
//   total:      both together (from the request to the right labels),
// and prints p50/p99/max of each.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/config.h"
#include "src/patroni/config.h"
#include "src/patroni/rest_client.h"
#include "src/patroni/role_sync.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/patroni/kube_objects.h"
#include "test/integration/patroni/patroni_harness.h"

namespace quorum::patroni {
namespace {

constexpr int kMembers = 3;

double Ms(absl::Duration d) { return absl::ToDoubleMilliseconds(d); }

void Print(const char* what, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))]; };
  std::printf("%-11s n=%zu p50=%.0f ms p99=%.0f ms max=%.0f ms\n", what, v.size(), at(0.50),
              at(0.99), v.back());
}

int Fail(const std::string& why) {
  std::fprintf(stderr, "patroni_role_bench: %s\n", why.c_str());
  return 1;
}

int Main(int argc, char** argv) {
  std::string kubeconfig;
  if (const char* env = std::getenv("KUBECONFIG")) kubeconfig = env;
  int switchovers = 10, poll_ms = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--kubeconfig") kubeconfig = argv[i + 1];
    if (flag == "--switchovers" && !absl::SimpleAtoi(argv[i + 1], &switchovers)) return 2;
    if (flag == "--poll-ms" && !absl::SimpleAtoi(argv[i + 1], &poll_ms)) return 2;
  }
  if (kubeconfig.empty()) return Fail("no kubeconfig (--kubeconfig or $KUBECONFIG)");
  absl::StatusOr<kube::RestConfig> rc = kube::LoadKubeconfigFile(kubeconfig);
  if (!rc.ok()) return Fail(rc.status().ToString());
  absl::StatusOr<std::unique_ptr<kube::Client>> kc = kube::Client::Create(*rc);
  if (!kc.ok()) return Fail(kc.status().ToString());
  kube::Client& client = **kc;

  const std::string ns = absl::StrCat("patroni-bench-", getpid());
  if (absl::Status s =
          client
              .Create({"", "v1", "namespaces"}, "",
                      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
              .status();
      !s.ok()) {
    return Fail(s.ToString());
  }
  struct NamespaceGuard {
    kube::Client& c;
    std::string ns;
    ~NamespaceGuard() { (void)c.Delete({"", "v1", "namespaces"}, "", ns); }
  } guard{client, ns};

  etcd::testing::EtcdHarness etcd_harness({.max_members = 1, .name_prefix = "bench"});
  if (absl::Status s = etcd_harness.Init(); !s.ok()) return Fail(s.ToString());
  absl::StatusOr<std::unique_ptr<etcd::Client>> ec = etcd::Client::Create(etcd_harness.Config());
  if (!ec.ok()) return Fail(ec.status().ToString());
  if (absl::Status s = etcd_harness.StartNewCluster(**ec, 1); !s.ok()) return Fail(s.ToString());

  testing::PatroniHarness patroni;
  if (absl::Status s = patroni.Init(kMembers); !s.ok()) return Fail(s.ToString());
  const std::vector<int> ports = etcd::testing::FreePorts(2 * kMembers);
  if (ports.size() != 2u * kMembers) return Fail("no free ports");
  auto pod = [](int k) { return absl::StrCat("bench-", k); };
  auto api = [&](int k) { return absl::StrCat("http://127.0.0.1:", ports[2 * k]); };
  std::map<std::string, quorum::patroni::Endpoint> api_urls;
  for (int k = 0; k < kMembers; ++k) {
    api_urls[pod(k)] = api(k);
    if (absl::Status s = testing::CreatePod(client, ns, pod(k), {{"cluster", "bench"}}); !s.ok()) {
      return Fail(s.ToString());
    }
    ConfigInput in;
    in.scope = "bench";
    in.key_namespace = absl::StrCat("/quorum/", ns, "/");
    in.ttl = 20;
    in.loop_wait = 2;
    in.retry_timeout = 5;
    in.parameters = {{"max_connections", "30"}, {"shared_buffers", "16MB"}};
    in.pg_hba = {"local all all trust", "host replication replicator 127.0.0.1/32 scram-sha-256",
                 "host all all 127.0.0.1/32 scram-sha-256"};
    in.local_parameters = {{"unix_socket_directories", patroni.MemberDir(k)}};
    in.listen_host = "127.0.0.1";
    in.restapi_port = ports[2 * k];
    in.postgres_port = ports[2 * k + 1];
    in.data_dir = patroni.DataDir(k);
    in.bin_dir = patroni.binaries().pg_bin_dir;
    in.pgpass = patroni.MemberDir(k) + "/pgpass";
    in.dcs = EtcdDcs{.hosts = {etcd_harness.ClientUrl(0).substr(std::string("http://").size())}};
    testing::MemberEnv m{.pod_name = pod(k), .pod_namespace = ns};
    m.superuser_password = "bench-su";
    m.replication_password = "bench-repl";
    m.rewind_password = "bench-rewind";
    if (absl::Status s = patroni.Start(k, RenderConfig(in), testing::ResolveEnv(in, m)); !s.ok()) {
      return Fail(s.ToString());
    }
  }

  RestClient rest({.timeout = absl::Seconds(3)});
  // Waits until `k` leads and every other member streams from it.
  auto healthy_under = [&](int k, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      absl::StatusOr<ClusterStatus> c = rest.GetCluster(api(k));
      if (c.ok() && c->members.size() == kMembers && c->Leader() == pod(k)) {
        int streaming = 0;
        for (const ClusterMember& m : c->members) streaming += m.state == "streaming";
        if (streaming == kMembers - 1) return true;
      }
      absl::SleepFor(absl::Milliseconds(200));
    }
    return false;
  };
  auto labels_right = [&](int leader) {
    for (int k = 0; k < kMembers; ++k) {
      std::optional<std::string> want;
      if (k == leader) want = "primary";
      if ((testing::RoleLabel(client, ns, pod(k)) == "primary") != (want == "primary")) {
        return false;
      }
    }
    return true;
  };
  int leader = -1;
  {
    const absl::Time deadline = absl::Now() + absl::Seconds(180);
    while (leader < 0 && absl::Now() < deadline) {
      for (int k = 0; k < kMembers && leader < 0; ++k) {
        absl::StatusOr<MemberStatus> s = rest.GetPatroni(api(k));
        if (s.ok() && s->role == "primary") leader = k;
      }
      absl::SleepFor(absl::Milliseconds(200));
    }
  }
  if (leader < 0 || !healthy_under(leader, absl::Seconds(120))) {
    return Fail("the cluster did not bootstrap:\n" + patroni.LogTail(0));
  }
  (void)SyncRoleLabels(client, ns, "cluster=bench", rest, api_urls);

  std::vector<double> switch_ms, label_ms, total_ms;
  for (int i = 0; i < switchovers; ++i) {
    const int candidate = (leader + 1) % kMembers;
    const absl::Time start = absl::Now();
    absl::Status s = rest.Switchover(api(leader), pod(leader), pod(candidate));
    const absl::Time changed = absl::Now();
    if (!s.ok()) return Fail("switchover: " + s.ToString());
    absl::Time labelled;
    while (true) {
      (void)SyncRoleLabels(client, ns, "cluster=bench", rest, api_urls);
      if (labels_right(candidate)) {
        labelled = absl::Now();
        break;
      }
      if (absl::Now() - changed > absl::Seconds(120)) return Fail("labels never settled");
      absl::SleepFor(absl::Milliseconds(poll_ms));
    }
    switch_ms.push_back(Ms(changed - start));
    label_ms.push_back(Ms(labelled - changed));
    total_ms.push_back(Ms(labelled - start));
    std::printf("switchover %d: %s -> %s in %.0f ms, label after %.0f ms\n", i + 1,
                pod(leader).c_str(), pod(candidate).c_str(), switch_ms.back(), label_ms.back());
    std::fflush(stdout);
    leader = candidate;
    // The next switchover needs healthy replicas again.
    if (!healthy_under(leader, absl::Seconds(120))) return Fail("replicas did not catch up");
  }
  std::printf("role label via role_sync (poll every %d ms), %d members, %d switchovers:\n", poll_ms,
              kMembers, switchovers);
  Print("switchover", switch_ms);
  Print("label", label_ms);
  Print("total", total_ms);
  return 0;
}

}  // namespace
}  // namespace quorum::patroni

int main(int argc, char** argv) { return quorum::patroni::Main(argc, argv); }

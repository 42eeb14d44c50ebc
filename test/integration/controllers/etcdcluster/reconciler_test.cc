// The EtcdCluster controller against the real control plane (no kubelet:
// pods stay Pending, so no etcd member ever answers). What is checked here is
// the Kubernetes side: the objects, their owner references, the status while
// waiting for the first quorum, zero writes when nothing changed, and
// garbage collection on delete. Membership against real etcd processes is
// tested in test/integration/etcd.
#include "src/controllers/etcdcluster/reconciler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/common/wait.h"
#include "src/kube/errors.h"
#include "src/runtime/certs.h"
#include "test/examples/examples.h"
#include "test/integration/controllers/api_writes.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/controllers/refuse_budgets.h"
#include "test/integration/testenv.h"

namespace quorum::etcdcluster {
namespace {

using kube::Json;
using testenv::Eventually;

Json Example(const std::string& name) {
  Json obj = examples::EtcdClusterDesignExample();
  obj["metadata"] = {{"name", name}};
  return obj;
}

class EtcdClusterControllerTest : public testenv::ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    StartControllers(
        {"etcd.aenix.io_etcdclusters.yaml"},
        [this](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
          reconciler_ = std::make_unique<EtcdClusterReconciler>(
              client, manager.cache(), manager.recorder(), nullptr, "", clock_);
          return SetupEtcdClusterController(manager, *reconciler_, 2);
        });
  }
  double Writes() { return testenv::ApiWrites(manager()); }
  // EtcdCluster `name`'s Ready condition; an empty object before it has one.
  Json ReadyCondition(const std::string& name) {
    auto got = client().Get(kEtcdClusters, ns(), name);
    if (!got.ok()) return Json::object();
    for (const Json& c : got->value("status", Json::object()).value("conditions", Json::array())) {
      if (c.value("type", "") == "Ready") return c;
    }
    return Json::object();
  }
  // An event with `reason` was recorded in the test's namespace.
  bool HasEvent(const std::string& reason) {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (e.value("reason", "") == reason) return true;
    }
    return false;
  }

  // The reconciler's time: it stands still unless a test advances it.
  FakeClock clock_{absl::Now()};
  std::unique_ptr<EtcdClusterReconciler> reconciler_;
};

TEST_F(EtcdClusterControllerTest, DesignExampleProducesItsObjectsAndWaitsForFirstQuorum) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("test")).ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "test").ok(); },
                         absl::Seconds(30)));
  auto sts = client().Get(kStatefulSets, ns(), "test");
  EXPECT_EQ((*sts)["spec"]["replicas"], 1) << "bootstrap starts with one member";
  EXPECT_EQ((*sts)["spec"]["serviceName"], "test-headless");
  EXPECT_EQ((*sts)["spec"]["volumeClaimTemplates"][0]["spec"]["storageClassName"], "gp3");
  EXPECT_EQ((*sts)["spec"]["template"]["spec"]["containers"][0]["image"],
            "quay.io/coreos/etcd:v3.5.12");
  EXPECT_EQ((*sts)["metadata"]["ownerReferences"][0]["kind"], "EtcdCluster");
  auto headless = client().Get(kServices, ns(), "test-headless");
  ASSERT_TRUE(headless.ok());
  EXPECT_EQ((*headless)["spec"]["clusterIP"], "None");
  auto svc = client().Get(kServices, ns(), "test");
  ASSERT_TRUE(svc.ok());
  EXPECT_EQ((*svc)["metadata"]["labels"]["env"], "prod");
  auto state = client().Get(kConfigMaps, ns(), "test-cluster-state");
  ASSERT_TRUE(state.ok());
  EXPECT_EQ((*state)["data"]["ETCD_INITIAL_CLUSTER_STATE"], "new");
  EXPECT_EQ((*state)["data"]["ETCD_INITIAL_CLUSTER"],
            "test-0=http://test-0.test-headless." + ns() + ".svc:2380");
  auto pdb = client().Get(kPdbs, ns(), "test");
  ASSERT_TRUE(pdb.ok());
  EXPECT_EQ((*pdb)["spec"]["maxUnavailable"], 1);

  Json status;
  ASSERT_TRUE(Eventually(
      [&] {
        auto got = client().Get(kEtcdClusters, ns(), "test");
        if (!got.ok() || !got->contains("status")) return false;
        status = (*got)["status"];
        return status.contains("conditions");
      },
      absl::Seconds(30)));
  std::map<std::string, std::string> reasons;
  for (const Json& c : status["conditions"]) reasons[c["type"]] = c["reason"];
  EXPECT_EQ(reasons["Initialized"], "InitializationStarted");
  EXPECT_EQ(reasons["Ready"], "WaitingForFirstQuorum");
  EXPECT_EQ(status["clientEndpoint"], "http://test." + ns() + ".svc:2379");
}

// The zero-write tests rest on ApiWrites counting every write the operator
// sends, including those the API server refuses: here an admission policy
// refuses PodDisruptionBudgets in the test's namespace (403), so the
// controller's apply of the cluster's budget is refused, and counted.
TEST_F(EtcdClusterControllerTest, WritesTheApiServerRefusesAreCounted) {
  testenv::BudgetsRefused policy(client(), ns());
  ASSERT_TRUE(policy.ok()) << "the admission policy never took effect";

  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("refused")).ok());
  auto& requests = manager().metrics().Counter("rest_client_requests_total", "", {});
  const auto sum = [&](const std::vector<std::string>& codes) {
    double n = 0;
    for (const char* verb : {"create", "update", "patch", "delete"}) {
      for (const std::string& code : codes) n += requests.Value({verb, code});
    }
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return sum({"403"}) > 0; }, absl::Seconds(30)))
      << "the policy never refused a write of the controller";
  EXPECT_FALSE(client().Get(kPdbs, ns(), "refused").ok());
  const double accepted = sum({"200", "201"}), refused = sum({"403"});
  // (The observer bumps the two counters one after the other, hence a short wait.)
  EXPECT_TRUE(Eventually([&] { return Writes() >= accepted + refused; }, absl::Seconds(5)))
      << "refused writes must be counted: " << Writes() << " < " << accepted + refused;
  std::printf("writes: %.0f accepted, %.0f refused (403), ApiWrites %.0f\n", accepted, refused,
              Writes());
  // The refusal is the user's to see, not only retried: Ready says which
  // object and why, and an event says it too.
  Json ready;
  EXPECT_TRUE(Eventually(
      [&] {
        return (ready = ReadyCondition("refused")).value("reason", "") == "ConfigurationProblem";
      },
      absl::Seconds(30)))
      << ready.dump();
  EXPECT_EQ(ready.value("status", ""), "False") << ready.dump();
  EXPECT_TRUE(absl::StrContains(ready.value("message", ""),
                                "the API server refused PodDisruptionBudget refused: "))
      << ready.dump();
  EXPECT_TRUE(absl::StrContains(ready.value("message", ""), "no budgets here")) << ready.dump();
  EXPECT_TRUE(Eventually([&] { return HasEvent("ApplyRefused"); }, absl::Seconds(30)))
      << "no ApplyRefused event";
}

// Issue 33: the claims of an earlier EtcdCluster of this name (claims outlive
// their StatefulSet) hold a new one back with the claims named, and no
// member starts on them; once they are deleted it bootstraps. It used to wait
// in WaitingForFirstQuorum without saying why (and skip bootstrap.restore).
TEST_F(EtcdClusterControllerTest, AnEarlierClustersClaimsAreNamedAndHoldTheBootstrap) {
  const Json claim = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolumeClaim"},
      {"metadata",
       {{"name", "data-again-0"},
        {"labels", {{"app.kubernetes.io/name", "etcd"}, {"app.kubernetes.io/instance", "again"}}}}},
      {"spec",
       {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  absl::StatusOr<Json> made = client().Create(kube::kPvcs, ns(), claim);
  ASSERT_TRUE(made.ok()) << made.status();
  // The API server dates objects to the second: the cluster comes a second later.
  absl::Time claimed;
  std::string err;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full,
                              (*made)["metadata"].value("creationTimestamp", ""), &claimed, &err));
  ASSERT_TRUE(
      Eventually([&] { return absl::Now() >= claimed + absl::Seconds(1); }, absl::Seconds(5)));
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("again")).ok());
  Json ready;
  ASSERT_TRUE(Eventually(
      [&] {
        return (ready = ReadyCondition("again")).value("reason", "") == "ConfigurationProblem";
      },
      absl::Seconds(30)))
      << ready.dump();
  EXPECT_TRUE(absl::StrContains(ready.value("message", ""),
                                "PersistentVolumeClaim(s) data-again-0 predate this EtcdCluster"))
      << ready.dump();
  auto sts = client().Get(kStatefulSets, ns(), "again");
  ASSERT_TRUE(sts.ok()) << sts.status();
  EXPECT_EQ((*sts)["spec"]["replicas"], 0) << "no member starts on the earlier data";
  EXPECT_TRUE(Eventually([&] { return HasEvent("LeftoverClaims"); }, absl::Seconds(30)))
      << "no LeftoverClaims event";

  ASSERT_TRUE(client().Delete(kube::kPvcs, ns(), "data-again-0").ok());
  EXPECT_TRUE(Eventually(
      [&] {
        auto got = client().Get(kStatefulSets, ns(), "again");
        return got.ok() && (*got)["spec"].value("replicas", 0) == 1;
      },
      absl::Seconds(60)))
      << "the cluster did not bootstrap once the claim was deleted";
}

TEST_F(EtcdClusterControllerTest, ReconcilingAnUnchangedClusterWritesNothing) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("quiet")).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        auto got = client().Get(kEtcdClusters, ns(), "quiet");
        return got.ok() && got->contains("status");
      },
      absl::Seconds(30)));
  // Once the objects' own events have settled, a reconcile woken by a change
  // that touches nothing the controller owns writes nothing.
  ASSERT_TRUE(
      testenv::SettlesToZeroWrites(client(), manager(), controller(), kEtcdClusters, ns(), "quiet"))
      << "the controller kept writing";
  const std::optional<double> writes =
      testenv::WritesOfATouch(client(), manager(), controller(), kEtcdClusters, ns(), "quiet");
  ASSERT_TRUE(writes.has_value()) << "no reconcile after the touch";
  EXPECT_EQ(*writes, 0) << "a no-op reconcile must not write";
}

// Nothing polls a cluster whose pods are pending: their events bring the
// next change (the reconciler used to requeue it every 5 s).
TEST_F(EtcdClusterControllerTest, AClusterWaitingForItsPodsIsNotRequeuedByTime) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("pending")).ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "pending").ok(); },
                         absl::Seconds(30)));
  absl::StatusOr<runtime::Result> r = reconciler_->Reconcile({ns(), "pending"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->requeue);
  EXPECT_EQ(r->requeue_after, absl::ZeroDuration());
}

// A Secret the operator needs but does not own is read through the API server
// and not watched: a missing one is looked for again with backoff capped at
// kMaxSecretWait, so creating it reconciles the cluster within seconds.
TEST_F(EtcdClusterControllerTest, AMissingSecretIsWaitedForAndItsCreationReconciles) {
  Json obj = Example("tls");
  obj["spec"]["security"] = {
      {"tls", {{"serverSecret", "srv"}, {"serverTrustedCASecret", "srv-ca"}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), obj).ok());
  auto ready_reason = [&] {
    auto got = client().Get(kEtcdClusters, ns(), "tls");
    if (!got.ok()) return std::string();
    for (const Json& c : got->value("status", Json::object()).value("conditions", Json::array())) {
      if (c.value("type", "") == "Ready") return c.value("reason", "");
    }
    return std::string();
  };
  ASSERT_TRUE(
      Eventually([&] { return ready_reason() == "ConfigurationProblem"; }, absl::Seconds(30)));
  absl::StatusOr<runtime::Result> r = reconciler_->Reconcile({ns(), "tls"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->requeue_after, absl::ZeroDuration()) << "looks for the Secret again";
  EXPECT_LE(r->requeue_after, controllers::kMaxSecretWait);
  EXPECT_FALSE(r->requeue);

  ASSERT_TRUE(client()
                  .Create(kSecrets, ns(),
                          {{"apiVersion", "v1"},
                           {"kind", "Secret"},
                           {"metadata", {{"name", "srv-ca"}}},
                           {"data", {{"ca.crt", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}}}})
                  .ok());
  EXPECT_TRUE(
      Eventually([&] { return ready_reason() == "WaitingForFirstQuorum"; }, absl::Seconds(60)));
}

// spec.security.tls.managed (issue 34): Quorum makes two CAs and three
// certificates in owned Secrets, mounts no CA key, renews a certificate in
// place, never replaces a lost CA under running members, never takes over a
// Secret that is not its own, and writes nothing once converged.
class ManagedTlsTest : public EtcdClusterControllerTest {
 protected:
  static Json Managed(const std::string& name) {
    Json obj = Example(name);
    obj["spec"]["security"] = {{"enableAuth", true}, {"tls", {{"managed", true}}}};
    return obj;
  }
  std::string Data(const std::string& secret, const char* key) {
    auto s = client().Get(kSecrets, ns(), secret);
    if (!s.ok()) return "";
    std::string out;
    absl::Base64Unescape((*s)["data"].value(key, ""), &out);
    return out;
  }
  bool Exists(const std::string& secret) { return client().Get(kSecrets, ns(), secret).ok(); }
};

TEST_F(ManagedTlsTest, IssuesEveryCertificateAndRenewsInPlace) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Managed("mtls")).ok());
  const std::vector<std::string> all = {"mtls-peer-ca", "mtls-server-ca", "mtls-peer-tls",
                                        "mtls-server-tls", "mtls-client-tls"};
  ASSERT_TRUE(Eventually(
      [&] {
        for (const std::string& s : all) {
          if (!Exists(s)) return false;
        }
        return true;
      },
      absl::Seconds(30)));
  for (const std::string& s : all) {
    auto secret = client().Get(kSecrets, ns(), s);
    EXPECT_EQ((*secret)["metadata"]["ownerReferences"][0]["kind"], "EtcdCluster") << s;
  }
  const absl::Time now = absl::Now();
  const std::string peer_ca = Data("mtls-peer-ca", "ca.crt");
  const std::string server_ca = Data("mtls-server-ca", "ca.crt");
  EXPECT_FALSE(Data("mtls-peer-ca", "ca.key").empty());
  EXPECT_NE(peer_ca, server_ca) << "a client certificate must be no peer certificate";
  EXPECT_TRUE(runtime::VerifyCertificate(Data("mtls-peer-tls", "tls.crt"), peer_ca, now).ok());
  EXPECT_FALSE(runtime::VerifyCertificate(Data("mtls-peer-tls", "tls.crt"), server_ca, now).ok());
  EXPECT_TRUE(runtime::VerifyCertificate(Data("mtls-server-tls", "tls.crt"), server_ca, now).ok());
  EXPECT_TRUE(runtime::VerifyCertificate(Data("mtls-client-tls", "tls.crt"), server_ca, now).ok());
  EXPECT_EQ(Data("mtls-server-tls", "ca.crt"), server_ca) << "the leaf Secret is the CA bundle";
  absl::StatusOr<runtime::CertificateInfo> server =
      runtime::InspectCertificate(Data("mtls-server-tls", "tls.crt"));
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(server->common_name, "") << "with auth on etcd would take a CommonName as a user";
  EXPECT_THAT(server->dns_names, ::testing::Contains("mtls." + ns() + ".svc"));
  EXPECT_THAT(server->dns_names, ::testing::Contains("*.mtls-headless." + ns() + ".svc"));
  absl::StatusOr<runtime::CertificateInfo> client_cert =
      runtime::InspectCertificate(Data("mtls-client-tls", "tls.crt"));
  ASSERT_TRUE(client_cert.ok());
  EXPECT_EQ(client_cert->common_name, "");

  // The members mount the leaf Secrets, never a CA key.
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "mtls").ok(); },
                         absl::Seconds(30)));
  const std::string sts = client().Get(kStatefulSets, ns(), "mtls")->dump();
  EXPECT_TRUE(absl::StrContains(sts, R"("secretName":"mtls-peer-tls")")) << sts;
  EXPECT_TRUE(absl::StrContains(sts, R"("secretName":"mtls-server-tls")")) << sts;
  EXPECT_FALSE(absl::StrContains(sts, R"("secretName":"mtls-peer-ca")")) << sts;
  EXPECT_FALSE(absl::StrContains(sts, R"("secretName":"mtls-server-ca")")) << sts;
  EXPECT_TRUE(absl::StrContains(sts, "--client-cert-auth")) << sts;
  ASSERT_TRUE(Eventually(
      [&] { return ReadyCondition("mtls").value("reason", "") == "WaitingForFirstQuorum"; },
      absl::Seconds(30)))
      << ReadyCondition("mtls").dump();
  auto stored = client().Get(kEtcdClusters, ns(), "mtls");
  EXPECT_EQ((*stored)["status"]["clientSecretName"], "mtls-client-tls");
  EXPECT_EQ((*stored)["status"]["clientEndpoint"], "https://mtls." + ns() + ".svc:2379");
  EXPECT_TRUE(
      testenv::SettlesToZeroWrites(client(), manager(), controller(), kEtcdClusters, ns(), "mtls"))
      << "the controller kept writing";

  // A certificate that no longer fits (here: other names) is rewritten in
  // place, from the same CA.
  auto before = client().Get(kSecrets, ns(), "mtls-server-tls");
  const std::string uid = (*before)["metadata"]["uid"];
  absl::StatusOr<runtime::CertKeyPair> wrong =
      runtime::GenerateMemberCert({server_ca, Data("mtls-server-ca", "ca.key")}, "x",
                                  {"wrong.example"}, {}, absl::Hours(1), absl::Now());
  ASSERT_TRUE(wrong.ok());
  (*before)["data"]["tls.crt"] = absl::Base64Escape(wrong->cert_pem);
  (*before)["data"]["tls.key"] = absl::Base64Escape(wrong->key_pem);
  ASSERT_TRUE(client().Update(kSecrets, ns(), *before).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<runtime::CertificateInfo> c =
            runtime::InspectCertificate(Data("mtls-server-tls", "tls.crt"));
        return c.ok() && c->dns_names != std::vector<std::string>{"wrong.example"};
      },
      absl::Seconds(30)));
  EXPECT_EQ(client().Get(kSecrets, ns(), "mtls-server-tls")->at("metadata").at("uid"), uid)
      << "rewritten in place, so the kubelet swaps the files under the running members";
  EXPECT_EQ(Data("mtls-server-tls", "ca.crt"), server_ca);
  EXPECT_TRUE(HasEvent("CertificateRenewed"));

  // A CA lost while its certificates are in use is not replaced.
  ASSERT_TRUE(client().Delete(kSecrets, ns(), "mtls-peer-ca").ok());
  ASSERT_TRUE(Eventually([&] { return HasEvent("CertificatesNotReady"); }, absl::Seconds(30)));
  EXPECT_FALSE(Exists("mtls-peer-ca"));
  EXPECT_TRUE(runtime::VerifyCertificate(Data("mtls-peer-tls", "tls.crt"), peer_ca, now).ok())
      << "the members' peer certificate is left alone";
}

// Renewal follows the reconciler's clock: moved to an hour before the
// certificates expire, the next reconcile rewrites all three in place, from
// the same CAs, with no wait for the time to come.
TEST_F(ManagedTlsTest, CertificatesComingDueOnTheClockAreRenewedWithoutWaiting) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Managed("due")).ok());
  const std::vector<std::string> leaves = {"due-peer-tls", "due-server-tls", "due-client-tls"};
  ASSERT_TRUE(Eventually(
      [&] { return std::all_of(leaves.begin(), leaves.end(), [&](auto& s) { return Exists(s); }); },
      absl::Seconds(30)));
  ASSERT_TRUE(
      testenv::SettlesToZeroWrites(client(), manager(), controller(), kEtcdClusters, ns(), "due"))
      << "the controller kept writing";
  std::map<std::string, runtime::CertificateInfo> before;
  for (const std::string& s : leaves) {
    absl::StatusOr<runtime::CertificateInfo> info = runtime::InspectCertificate(Data(s, "tls.crt"));
    ASSERT_TRUE(info.ok()) << s;
    before[s] = *info;
  }
  // A day before the renewal time nothing is due: a touch writes nothing.
  const absl::Time expiry = before["due-server-tls"].not_after;
  const absl::Time renewal = expiry - (expiry - before["due-server-tls"].not_before) / 3;
  clock_.Advance(renewal - absl::Hours(24) - clock_.Now());
  EXPECT_EQ(testenv::WritesOfATouch(client(), manager(), controller(), kEtcdClusters, ns(), "due"),
            0.0);

  clock_.Advance(expiry - absl::Hours(1) - clock_.Now());
  ASSERT_TRUE(
      testenv::WritesOfATouch(client(), manager(), controller(), kEtcdClusters, ns(), "due"));
  for (const std::string& s : leaves) {
    absl::StatusOr<runtime::CertificateInfo> now;
    ASSERT_TRUE(Eventually(
        [&] {
          now = runtime::InspectCertificate(Data(s, "tls.crt"));
          return now.ok() && now->serial_hex != before[s].serial_hex;
        },
        absl::Seconds(30)))
        << s << " was not renewed";
    EXPECT_GT(now->not_after, expiry) << s;
  }
  EXPECT_TRUE(runtime::VerifyCertificate(Data("due-server-tls", "tls.crt"),
                                         Data("due-server-ca", "ca.crt"), clock_.Now())
                  .ok())
      << "from the same CA, valid at the clock's time";
  EXPECT_TRUE(HasEvent("CertificateRenewed"));
}

TEST_F(ManagedTlsTest, NeverTakesOverASecretThatIsNotItsOwn) {
  const Json foreign = {{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", {{"name", "other-peer-ca"}}},
                        {"data", {{"note", absl::Base64Escape("someone else's")}}}};
  ASSERT_TRUE(client().Create(kSecrets, ns(), foreign).ok());
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Managed("other")).ok());
  ASSERT_TRUE(Eventually([&] { return HasEvent("CertificatesNotReady"); }, absl::Seconds(30)));
  EXPECT_EQ(Data("other-peer-ca", "note"), "someone else's");
  EXPECT_FALSE(Exists("other-peer-tls"));
  EXPECT_TRUE(absl::IsNotFound(client().Get(kStatefulSets, ns(), "other").status()))
      << "no members without their certificates";
}

// A StatefulSet of the cluster's name that another owner made (no owner
// reference to this EtcdCluster) is never taken over: the apply is refused
// with an event naming it, and the StatefulSet stays as it was.
TEST_F(EtcdClusterControllerTest, NeverTakesOverAStatefulSetThatIsNotItsOwn) {
  const Json foreign = {
      {"apiVersion", "apps/v1"},
      {"kind", "StatefulSet"},
      {"metadata", {{"name", "taken"}}},
      {"spec",
       {{"replicas", 0},
        {"serviceName", "taken"},
        {"selector", {{"matchLabels", {{"app", "someone-else"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "someone-else"}}}}},
          {"spec",
           {{"containers", Json::array({{{"name", "app"}, {"image", "someone/else:1"}}})}}}}}}}};
  ASSERT_TRUE(client().Create(kStatefulSets, ns(), foreign).ok());
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("taken")).ok());
  auto refused = [&] {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (e.value("reason", "") == "ApplyRefused" &&
          absl::StrContains(e.value("message", ""), "is not this EtcdCluster's")) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(Eventually(refused, absl::Seconds(30)));
  auto sts = client().Get(kStatefulSets, ns(), "taken");
  ASSERT_TRUE(sts.ok());
  EXPECT_EQ((*sts)["spec"]["template"]["spec"]["containers"][0]["image"], "someone/else:1");
  EXPECT_FALSE((*sts)["metadata"].contains("ownerReferences"));
}

// Removing spec.podDisruptionBudgetTemplate removes the budget (it would
// otherwise go on holding evictions back with the old numbers).
TEST_F(EtcdClusterControllerTest, RemovingThePdbTemplateRemovesTheBudget) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("budget")).ok());
  ASSERT_TRUE(
      Eventually([&] { return client().Get(kPdbs, ns(), "budget").ok(); }, absl::Seconds(30)));
  ASSERT_TRUE(client()
                  .Patch(kEtcdClusters, ns(), "budget", kube::PatchType::kMerge,
                         {{"spec", {{"podDisruptionBudgetTemplate", nullptr}}}})
                  .ok());
  EXPECT_TRUE(
      Eventually([&] { return absl::IsNotFound(client().Get(kPdbs, ns(), "budget").status()); },
                 absl::Seconds(30)))
      << "the PodDisruptionBudget outlived its template";
  EXPECT_TRUE(client().Get(kStatefulSets, ns(), "budget").ok());
}

// A StatefulSet that rolls by itself — made by an earlier Quorum, or by
// aenix, whose manager writes the whole object and so owns
// rollingUpdate {partition: 0} — is switched to OnDelete (the operator rolls
// the members, roll.h). When another field manager owns rollingUpdate, an
// apply of OnDelete alone is refused by the API server ("only allowed for
// updateStrategy 'RollingUpdate'"), as the aenix adoption e2e showed.
TEST_F(EtcdClusterControllerTest, AStatefulSetThatRollsByItselfIsSwitchedToOnDelete) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("older")).ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "older").ok(); },
                         absl::Seconds(30)));
  ASSERT_TRUE(client()
                  .Patch(kStatefulSets, ns(), "older", kube::PatchType::kMerge,
                         {{"spec",
                           {{"updateStrategy",
                             {{"type", "RollingUpdate"}, {"rollingUpdate", {{"partition", 0}}}}}}}})
                  .ok());
  // Any change to the cluster makes the next reconcile apply the StatefulSet.
  ASSERT_TRUE(client()
                  .Patch(kEtcdClusters, ns(), "older", kube::PatchType::kMerge,
                         {{"metadata", {{"labels", {{"touched", "yes"}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "older");
        return sts.ok() && (*sts)["spec"]["updateStrategy"].value("type", "") == "OnDelete" &&
               !(*sts)["spec"]["updateStrategy"].contains("rollingUpdate");
      },
      absl::Seconds(30)))
      << client().Get(kStatefulSets, ns(), "older")->dump();
}

TEST_F(EtcdClusterControllerTest, DeletingTheClusterRemovesItsObjects) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("doomed")).ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "doomed").ok(); },
                         absl::Seconds(30)));
  ASSERT_TRUE(client()
                  .Delete(kEtcdClusters, ns(), "doomed",
                          {.propagation = kube::PropagationPolicy::kBackground})
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        return absl::IsNotFound(client().Get(kStatefulSets, ns(), "doomed").status()) &&
               absl::IsNotFound(client().Get(kServices, ns(), "doomed-headless").status()) &&
               absl::IsNotFound(client().Get(kConfigMaps, ns(), "doomed-cluster-state").status());
      },
      absl::Seconds(90)));
}

// Deleted and created again before the garbage collector removed the earlier
// cluster's objects (held here by a finalizer on its StatefulSet): the new
// cluster waits (WaitingForEarlierObjects) instead of adopting the old
// StatefulSet, and builds its own once the old one is gone.
TEST_F(EtcdClusterControllerTest, ACreatedAgainClusterWaitsForItsPredecessorsObjects) {
  auto created = client().Create(kEtcdClusters, ns(), Example("again"));
  ASSERT_TRUE(created.ok());
  const std::string old_uid = (*created)["metadata"]["uid"];
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "again").ok(); },
                         absl::Seconds(30)));
  const Json hold = {{"metadata", {{"finalizers", Json::array({"quorum.dev/test-hold"})}}}};
  ASSERT_TRUE(client().Patch(kStatefulSets, ns(), "again", kube::PatchType::kMerge, hold).ok());
  ASSERT_TRUE(client()
                  .Delete(kEtcdClusters, ns(), "again",
                          {.propagation = kube::PropagationPolicy::kBackground})
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kEtcdClusters, ns(), "again").status()); },
      absl::Seconds(30)));

  auto again = client().Create(kEtcdClusters, ns(), Example("again"));
  ASSERT_TRUE(again.ok());
  const std::string new_uid = (*again)["metadata"]["uid"];
  auto has_event = [&](const std::string& reason) {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (e.value("reason", "") == reason && e["involvedObject"].value("uid", "") == new_uid) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(Eventually([&] { return has_event("WaitingForEarlierObjects"); }, absl::Seconds(30)));
  auto sts = client().Get(kStatefulSets, ns(), "again");
  ASSERT_TRUE(sts.ok());
  EXPECT_EQ((*sts)["metadata"]["ownerReferences"][0]["uid"], old_uid)
      << "the earlier cluster's StatefulSet was adopted";

  // The old StatefulSet goes: the new cluster makes its own.
  ASSERT_TRUE(client()
                  .Patch(kStatefulSets, ns(), "again", kube::PatchType::kMerge,
                         {{"metadata", {{"finalizers", nullptr}}}})
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        auto s = client().Get(kStatefulSets, ns(), "again");
        return s.ok() && (*s)["metadata"]["ownerReferences"][0]["uid"] == new_uid;
      },
      absl::Seconds(60)))
      << "no StatefulSet of the new cluster";
}

// --- Claim template changes (issue 14.2) ----------------------------------------
// The StatefulSet controller runs (kube-controller-manager), so member 0's PVC
// exists; the control plane's PV binder binds it to a PersistentVolume the test
// makes for it (pre-bound by claimRef, no provisioner): the API server lets only
// a Bound PVC grow. No resizer runs, so a grown PVC stays at its old capacity
// and the Storage condition says "Resizing".

const kube::GroupVersionResource kStorageClasses{"storage.k8s.io", "v1", "storageclasses"};
const kube::GroupVersionResource kPersistentVolumes{"", "v1", "persistentvolumes"};

class ClaimTemplateTest : public EtcdClusterControllerTest {
 protected:
  void TearDown() override {
    (void)client().Delete(kStorageClasses, "", sc_);
    if (!pv_.empty()) (void)client().Delete(kPersistentVolumes, "", pv_);
    EtcdClusterControllerTest::TearDown();
  }

  // A StorageClass (expandable or not) and cluster `name` on it; returns
  // once member 0's claim is Bound at 1Gi.
  void CreateBoundCluster(const std::string& name, bool expandable) {
    sc_ = "sc-" + ns();
    pv_ = "pv-" + ns();
    ASSERT_TRUE(client()
                    .Create(kStorageClasses, "",
                            {{"apiVersion", "storage.k8s.io/v1"},
                             {"kind", "StorageClass"},
                             {"metadata", {{"name", sc_}}},
                             {"provisioner", "example.com/none"},
                             {"allowVolumeExpansion", expandable}})
                    .ok());
    const std::string claim = "data-" + name + "-0";
    ASSERT_TRUE(client()
                    .Create(kPersistentVolumes, "",
                            {{"apiVersion", "v1"},
                             {"kind", "PersistentVolume"},
                             {"metadata", {{"name", pv_}}},
                             {"spec",
                              {{"capacity", {{"storage", "1Gi"}}},
                               {"accessModes", {"ReadWriteOnce"}},
                               {"storageClassName", sc_},
                               {"persistentVolumeReclaimPolicy", "Retain"},
                               {"hostPath", {{"path", "/tmp/" + pv_}}},
                               {"claimRef", {{"namespace", ns()}, {"name", claim}}}}}})
                    .ok());
    Json obj = Example(name);
    obj["spec"]["storage"]["volumeClaimTemplate"]["spec"] = {
        {"storageClassName", sc_},
        {"accessModes", {"ReadWriteOnce"}},
        {"resources", {{"requests", {{"storage", "1Gi"}}}}}};
    ASSERT_TRUE(client().Create(kEtcdClusters, ns(), obj).ok());
    ASSERT_TRUE(Eventually(
        [&] {
          auto pvc = client().Get(kube::kPvcs, ns(), claim);
          return pvc.ok() && (*pvc).value("status", Json::object()).value("phase", "") == "Bound";
        },
        absl::Seconds(90)))
        << "the PV binder did not bind " << claim << " to " << pv_;
  }

  std::string Uid(const kube::GroupVersionResource& gvr, const std::string& name) {
    auto got = client().Get(gvr, ns(), name);
    return got.ok() ? (*got)["metadata"].value("uid", "") : "";
  }

  Json Condition(const std::string& cluster, const std::string& type) {
    auto got = client().Get(kEtcdClusters, ns(), cluster);
    if (!got.ok()) return Json::object();
    for (const Json& c : got->value("status", Json::object()).value("conditions", Json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return Json::object();
  }

  bool HasEvent(const std::string& reason) {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (e.value("reason", "") == reason) return true;
    }
    return false;
  }

  void SetStorage(const std::string& name, const std::string& size) {
    ASSERT_TRUE(
        client()
            .Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge,
                   {{"spec",
                     {{"storage",
                       {{"volumeClaimTemplate",
                         {{"spec", {{"resources", {{"requests", {{"storage", size}}}}}}}}}}}}}})
            .ok());
  }

  std::string sc_, pv_;
};

TEST_F(ClaimTemplateTest, GrowingStorageExpandsTheVolumesAndRecreatesTheStatefulSetKeepingPods) {
  CreateBoundCluster("grow", /*expandable=*/true);
  ASSERT_TRUE(Eventually([&] { return !Uid(kPods, "grow-0").empty(); }, absl::Seconds(30)));
  const std::string sts_uid = Uid(kStatefulSets, "grow"), pod_uid = Uid(kPods, "grow-0");
  SetStorage("grow", "2Gi");
  EXPECT_TRUE(Eventually(
      [&] {
        auto pvc = client().Get(kube::kPvcs, ns(), "data-grow-0");
        return pvc.ok() && (*pvc)["spec"]["resources"]["requests"]["storage"] == "2Gi";
      },
      absl::Seconds(60)))
      << "the claim was asked to grow";
  EXPECT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "grow");
        return sts.ok() && (*sts)["metadata"]["uid"] != sts_uid &&
               (*sts)["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]
                     ["storage"] == "2Gi";
      },
      absl::Seconds(60)))
      << "the StatefulSet was re-created with the new claim template";
  EXPECT_EQ(Uid(kPods, "grow-0"), pod_uid) << "the pod was orphaned and adopted, not restarted";
  EXPECT_TRUE(
      Eventually([&] { return Condition("grow", "Storage").value("reason", "") == "Resizing"; },
                 absl::Seconds(60)))
      << Condition("grow", "Storage").dump();
  EXPECT_TRUE(HasEvent("StorageRecreating"));
  absl::StatusOr<runtime::Result> r = reconciler_->Reconcile({ns(), "grow"});
  EXPECT_TRUE(r.ok()) << r.status();
}

TEST_F(ClaimTemplateTest, GrowingOnAStorageClassWithoutExpansionIsReportedAndDoesNotWedge) {
  CreateBoundCluster("fixed", /*expandable=*/false);
  const std::string sts_uid = Uid(kStatefulSets, "fixed");
  SetStorage("fixed", "2Gi");
  auto generation = [&] {
    auto got = client().Get(kEtcdClusters, ns(), "fixed");
    return got.ok() ? (*got)["metadata"].value("generation", 0) : 0;
  };
  EXPECT_TRUE(Eventually(
      [&] {
        auto got = client().Get(kEtcdClusters, ns(), "fixed");
        return got.ok() && (*got)["status"].value("observedGeneration", 0) == generation();
      },
      absl::Seconds(60)))
      << "the status follows the new generation: the reconcile is not wedged";
  const Json c = Condition("fixed", "Storage");
  EXPECT_EQ(c.value("reason", ""), "ExpansionNotAllowed") << c.dump();
  EXPECT_EQ(c.value("status", ""), "False") << c.dump();
  EXPECT_NE(c.value("message", "")
                .find("spec.storage.volumeClaimTemplate.spec.resources.requests."
                      "storage"),
            std::string::npos)
      << c.dump();
  EXPECT_TRUE(HasEvent("StorageExpansionNotAllowed"));
  absl::StatusOr<runtime::Result> r = reconciler_->Reconcile({ns(), "fixed"});
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Uid(kStatefulSets, "fixed"), sts_uid);
  auto pvc = client().Get(kube::kPvcs, ns(), "data-fixed-0");
  ASSERT_TRUE(pvc.ok());
  EXPECT_EQ((*pvc)["spec"]["resources"]["requests"]["storage"], "1Gi");
}

TEST_F(EtcdClusterControllerTest, AClaimTemplateLabelEditRecreatesTheStatefulSet) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("relabel")).ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "relabel").ok(); },
                         absl::Seconds(30)));
  const std::string uid = (*client().Get(kStatefulSets, ns(), "relabel"))["metadata"]["uid"];
  ASSERT_TRUE(
      client()
          .Patch(kEtcdClusters, ns(), "relabel", kube::PatchType::kMerge,
                 {{"spec",
                   {{"storage",
                     {{"volumeClaimTemplate", {{"metadata", {{"labels", {{"team", "db"}}}}}}}}}}}})
          .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "relabel");
        return sts.ok() && (*sts)["metadata"]["uid"] != uid &&
               (*sts)["spec"]["volumeClaimTemplates"][0]["metadata"]["labels"].value("team", "") ==
                   "db";
      },
      absl::Seconds(60)));
  absl::StatusOr<runtime::Result> r = reconciler_->Reconcile({ns(), "relabel"});
  EXPECT_TRUE(r.ok()) << r.status();
}

}  // namespace
}  // namespace quorum::etcdcluster

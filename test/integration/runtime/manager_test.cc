// The Manager in-process against the real API server: readiness follows the
// caches, metrics move with reconciles and API requests, and a lost lease
// stops in-flight reconciles before they take another step.
#include "src/runtime/manager.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "src/kube/errors.h"
#include "test/integration/testenv.h"

namespace quorum::runtime {
namespace {

using testenv::Eventually;

const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

class NopReconciler : public Reconciler {
 public:
  absl::StatusOr<Result> Reconcile(const Request&) override { return Result{}; }
};

int HttpStatus(int port, const std::string& path, std::string* body = nullptr) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  auto res = c.Get(path.c_str());
  if (!res) return 0;
  if (body != nullptr) *body = res->body;
  return res->status;
}

// The value of one sample line ("name{labels} value") in a scrape, or -1.
double Sample(const std::string& scrape, const std::string& series) {
  size_t at = scrape.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(scrape.substr(at + series.size() + 2));
}

class ManagerTest : public testenv::IntegrationTest {
 protected:
  // A client authenticated as a fresh ServiceAccount with no permissions.
  std::unique_ptr<kube::Client> LimitedClient() {
    EXPECT_TRUE(client()
                    .Create({"", "v1", "serviceaccounts"}, ns(),
                            {{"apiVersion", "v1"},
                             {"kind", "ServiceAccount"},
                             {"metadata", {{"name", "limited"}}}})
                    .ok());
    auto tr = client().CreateSubresource({"", "v1", "serviceaccounts"}, ns(), "limited", "token",
                                         {{"apiVersion", "authentication.k8s.io/v1"},
                                          {"kind", "TokenRequest"},
                                          {"spec", {{"expirationSeconds", 3600}}}});
    EXPECT_TRUE(tr.ok()) << tr.status();
    kube::RestConfig config = control_plane().config;
    config.client_cert_pem.clear();
    config.client_key_pem.clear();
    config.bearer_token = (*tr)["status"]["token"];
    return *kube::Client::Create(config);
  }

  void GrantConfigMapRead() {
    ASSERT_TRUE(client()
                    .Create({"rbac.authorization.k8s.io", "v1", "roles"}, ns(),
                            {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                             {"kind", "Role"},
                             {"metadata", {{"name", "read-configmaps"}}},
                             {"rules", Json::array({{{"apiGroups", {""}},
                                                     {"resources", {"configmaps"}},
                                                     {"verbs", {"get", "list", "watch"}}}})}})
                    .ok());
    ASSERT_TRUE(client()
                    .Create({"rbac.authorization.k8s.io", "v1", "rolebindings"}, ns(),
                            {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                             {"kind", "RoleBinding"},
                             {"metadata", {{"name", "read-configmaps"}}},
                             {"roleRef",
                              {{"apiGroup", "rbac.authorization.k8s.io"},
                               {"kind", "Role"},
                               {"name", "read-configmaps"}}},
                             {"subjects", Json::array({{{"kind", "ServiceAccount"},
                                                        {"name", "limited"},
                                                        {"namespace", ns()}}})}})
                    .ok());
  }
};

TEST_F(ManagerTest, ReadyzIsNotReadyUntilCachesSync) {
  std::unique_ptr<kube::Client> limited = LimitedClient();
  ManagerOptions options{.namespaces = {ns()},
                         .metrics_bind_address = "127.0.0.1:0",
                         .health_probe_bind_address = "127.0.0.1:0"};
  Manager manager(*limited, options);
  NopReconciler reconciler;
  manager.AddController("cm", reconciler)
      .Watch(manager.cache().Informer(kConfigMaps), EnqueueRequestForObject());
  Cancellation cancel;
  absl::Status result;
  std::thread runner([&] { result = manager.Run(cancel); });

  ASSERT_TRUE(Eventually([&] { return manager.health_port() != 0; }, absl::Seconds(10)));
  const int port = manager.health_port();
  EXPECT_EQ(HttpStatus(port, "/healthz"), 200);
  // Without RBAC the informer cannot list: not ready, and it stays so.
  std::string body;
  EXPECT_EQ(HttpStatus(port, "/readyz", &body), 500) << body;
  absl::SleepFor(absl::Seconds(1));  // absence (it stays not ready): observable only by waiting
  EXPECT_EQ(HttpStatus(port, "/readyz"), 500);
  EXPECT_FALSE(manager.IsLeader()) << "controllers must not start before the caches sync";

  GrantConfigMapRead();
  EXPECT_TRUE(Eventually([&] { return HttpStatus(port, "/readyz") == 200; }, absl::Seconds(60)))
      << "ready once the informer could list";
  EXPECT_TRUE(Eventually([&] { return manager.IsLeader(); }, absl::Seconds(10)));
  cancel.Cancel();
  runner.join();
  EXPECT_TRUE(result.ok()) << result;
}

TEST_F(ManagerTest, MetricsMoveWithReconcilesAndRequests) {
  Manager manager(client(), {.namespaces = {ns()},
                             .metrics_bind_address = "127.0.0.1:0",
                             .health_probe_bind_address = "127.0.0.1:0"});
  NopReconciler reconciler;
  manager.AddController("cm", reconciler)
      .Watch(manager.cache().Informer(kConfigMaps), EnqueueRequestForObject());
  Cancellation cancel;
  std::thread runner([&] { (void)manager.Run(cancel); });
  ASSERT_TRUE(Eventually([&] { return manager.IsLeader(); }, absl::Seconds(30)));
  const int port = manager.metrics_port();
  const std::string success =
      "controller_runtime_reconcile_total{controller=\"cm\",result=\"success\"}";
  std::string before;
  ASSERT_EQ(HttpStatus(port, "/metrics", &before), 200);
  const double reconciled = std::max(0.0, Sample(before, success));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client()
                    .Create(kConfigMaps, ns(),
                            {{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata", {{"name", "m-" + std::to_string(i)}}}})
                    .ok());
  }
  std::string after;
  EXPECT_TRUE(Eventually(
      [&] {
        HttpStatus(port, "/metrics", &after);
        return Sample(after, success) >= reconciled + 3;
      },
      absl::Seconds(30)))
      << after;
  EXPECT_GT(Sample(after, "rest_client_requests_total{verb=\"list\",code=\"200\"}"), 0);
  EXPECT_GE(Sample(after, "rest_client_writes_total{verb=\"create\",resource=\"configmaps\"}"), 3);
  EXPECT_LT(Sample(after, "rest_client_writes_total{verb=\"list\",resource=\"configmaps\"}"), 0)
      << "reads are not writes";
  EXPECT_GT(Sample(after, "workqueue_adds_total{name=\"cm\"}"), 0);
  EXPECT_NE(after.find("controller_runtime_reconcile_time_seconds_bucket"), std::string::npos);
  EXPECT_NE(after.find("informer_cached_objects{resource=\"configmaps\"}"), std::string::npos);
  cancel.Cancel();
  runner.join();
}

// Takes numbered "steps" (one ConfigMap each) until a request fails; records
// how its last request failed.
class SteppingReconciler : public Reconciler {
 public:
  SteppingReconciler(kube::Client& client, std::string ns) : client_(client), ns_(std::move(ns)) {}

  absl::StatusOr<Result> Reconcile(const Request& request) override {
    if (request.name != "trigger") return Result{};
    for (int step = 0; step < 600; ++step) {
      absl::StatusOr<kube::Json> made =
          client_.Create(kConfigMaps, ns_,
                         {{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"metadata", {{"name", "step-" + std::to_string(step)}}}});
      if (!made.ok()) {
        absl::MutexLock lock(&mu_);
        last_error_ = made.status();
        return made.status();
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
    return Result{};
  }

  absl::Status last_error() {
    absl::MutexLock lock(&mu_);
    return last_error_;
  }

 private:
  kube::Client& client_;
  const std::string ns_;
  absl::Mutex mu_;
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
};

int CountSteps(kube::Client& client, const std::string& ns) {
  absl::StatusOr<kube::Json> list = client.List(kConfigMaps, ns);
  if (!list.ok()) {
    ADD_FAILURE() << list.status();
    return -1;
  }
  int steps = 0;
  for (const kube::Json& cm : (*list)["items"]) {
    if (cm["metadata"]["name"].get<std::string>().starts_with("step-")) ++steps;
  }
  return steps;
}

TEST_F(ManagerTest, LosingTheLeaseCancelsTheInFlightReconcileBeforeItsNextStep) {
  const kube::GroupVersionResource leases{"coordination.k8s.io", "v1", "leases"};
  Manager manager(client(), {.namespaces = {ns()},
                             .leader_election =
                                 LeaderElectionConfig{
                                     .lease_namespace = ns(),
                                     .lease_name = "manager-test",
                                     .identity = "me",
                                     .lease_duration = absl::Seconds(4),
                                     .renew_deadline = absl::Seconds(3),
                                     .retry_period = absl::Milliseconds(500),
                                 },
                             .metrics_bind_address = "0",
                             .health_probe_bind_address = "0"});
  SteppingReconciler reconciler(client(), ns());
  manager.AddController("cm", reconciler)
      .Watch(manager.cache().Informer(kConfigMaps), EnqueueRequestForObject());
  Cancellation cancel;
  absl::Status result;
  std::atomic<bool> returned{false};
  std::thread runner([&] {
    result = manager.Run(cancel);
    returned = true;
  });
  ASSERT_TRUE(Eventually([&] { return manager.IsLeader(); }, absl::Seconds(30)));
  ASSERT_TRUE(
      client()
          .Create(
              kConfigMaps, ns(),
              {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "trigger"}}}})
          .ok());
  ASSERT_TRUE(Eventually([&] { return CountSteps(client(), ns()) >= 3; }, absl::Seconds(30)))
      << "the reconcile is taking steps";

  // Another candidate takes the lease (retried when it races a renewal).
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Json> lease = client().Get(leases, ns(), "manager-test");
        if (!lease.ok()) return false;
        (*lease)["spec"]["holderIdentity"] = "usurper";
        return client().Update(leases, ns(), *lease).ok();
      },
      absl::Seconds(5)));

  // The old leader notices at its next renewal, cancels the reconcile, and
  // returns; the reconcile's pending step is refused, not sent.
  ASSERT_TRUE(Eventually([&] { return returned.load(); }, absl::Seconds(30)))
      << "Run did not return: the in-flight reconcile was not stopped";
  runner.join();
  EXPECT_TRUE(absl::IsAborted(result)) << result;
  EXPECT_TRUE(absl::IsCancelled(reconciler.last_error())) << reconciler.last_error();
  const int steps = CountSteps(client(), ns());
  absl::SleepFor(absl::Seconds(1));  // absence (no later step): observable only by waiting
  EXPECT_EQ(CountSteps(client(), ns()), steps) << "a step was taken after the loss";
}

}  // namespace
}  // namespace quorum::runtime

// The node itself, through the Kubernetes API and kubectl only: a pod from a
// locally built image (quay.io/coreos/etcd, hack/images.sh) is scheduled and
// runs; `kubectl exec`, `kubectl logs` and `kubectl port-forward` reach it; its
// name under a headless Service resolves in cluster DNS from another pod.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "test/e2e/e2e_env.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kServices{"", "v1", "services"};
constexpr char kImage[] = "quay.io/coreos/etcd:v3.6.16";

Json EtcdPod(const std::string& ns, const std::string& name) {
  const std::string url =
      absl::StrCat("http://", name, ".node-e2e.", ns, ".svc.cluster.local:2379");
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", "node-e2e"}}}}},
          {"spec",
           {{"hostname", name},
            {"subdomain", "node-e2e"},
            {"securityContext",
             {{"runAsNonRoot", true},
              {"runAsUser", 65532},
              {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
            {"containers",
             Json::array(
                 {{{"name", "etcd"},
                   {"image", kImage},
                   {"command", Json::array({"etcd", "--name=" + name, "--data-dir=/data",
                                            "--listen-client-urls=http://0.0.0.0:2379",
                                            "--advertise-client-urls=" + url})},
                   {"securityContext",
                    {{"allowPrivilegeEscalation", false},
                     {"readOnlyRootFilesystem", true},
                     {"capabilities", {{"drop", Json::array({"ALL"})}}}}},
                   {"readinessProbe",
                    {{"httpGet", {{"path", "/health"}, {"port", 2379}}}, {"periodSeconds", 1}}},
                   {"volumeMounts", Json::array({{{"name", "data"}, {"mountPath", "/data"}}})}}})},
            {"volumes", Json::array({{{"name", "data"}, {"emptyDir", Json::object()}}})}}}};
}

class NodeE2E : public E2ETest {
 protected:
  CommandResult Kubectl(const std::vector<std::string>& args,
                        absl::Duration timeout = absl::Seconds(60)) {
    return e2e::Kubectl(ns(), args, timeout);
  }

  bool PodReady(const std::string& name) {
    auto pod = client().Get(kPods, ns(), name);
    if (!pod.ok()) return false;
    for (const Json& c : (*pod)["status"].value("conditions", Json::array()))
      if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
    return false;
  }
};

TEST_F(NodeE2E, PodsRunAndKubectlReachesThem) {
  Json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", "node-e2e"}, {"namespace", ns()}}},
              {"spec",
               {{"clusterIP", "None"},
                {"publishNotReadyAddresses", true},
                {"selector", {{"app", "node-e2e"}}},
                {"ports", Json::array({{{"name", "client"}, {"port", 2379}}})}}}};
  ASSERT_TRUE(client().Create(kServices, ns(), svc).ok());
  ASSERT_TRUE(client().Create(kPods, ns(), EtcdPod(ns(), "a")).ok());
  ASSERT_TRUE(client().Create(kPods, ns(), EtcdPod(ns(), "b")).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return PodReady("a") && PodReady("b"); }, absl::Minutes(3)))
      << "pods not Ready";

  // Scheduled by kube-scheduler onto the node, run by containerd.
  auto pod = client().Get(kPods, ns(), "a");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_FALSE((*pod)["spec"].value("nodeName", "").empty());
  const std::string id = (*pod)["status"]["containerStatuses"][0].value("containerID", "");
  EXPECT_TRUE(absl::StartsWith(id, "containerd://")) << id;

  // exec: a write through one pod's etcdctl to the other pod by its DNS name.
  const std::string b_url = absl::StrCat("http://b.node-e2e.", ns(), ".svc.cluster.local:2379");
  CommandResult put =
      Kubectl({"exec", "a", "--", "etcdctl", "--endpoints=" + b_url, "put", "k", "from-a"});
  ASSERT_EQ(put.exit_code, 0) << put.output;
  CommandResult get = Kubectl({"exec", "b", "--", "etcdctl", "get", "k", "--print-value-only"});
  ASSERT_EQ(get.exit_code, 0) << get.output;
  EXPECT_EQ(absl::StripAsciiWhitespace(get.output), "from-a");

  // logs: etcd's own start-up lines.
  CommandResult logs = Kubectl({"logs", "b", "--tail=-1"});
  ASSERT_EQ(logs.exit_code, 0) << logs.output;
  EXPECT_NE(logs.output.find("serving client traffic"), std::string::npos) << logs.output;

  // port-forward: a local port to pod b, read with the host's etcdctl.
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  const int port = 20000 + getpid() % 10000;
  pid_t pf = fork();
  if (pf == 0) {
    setpgid(0, 0);
    execl((cp->bin_dir + "/kubectl").c_str(), "kubectl", ("--kubeconfig=" + cp->kubeconfig).c_str(),
          "-n", ns().c_str(), "port-forward", "pod/b", absl::StrCat(port, ":2379").c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string value;
  bool forwarded = testenv::Eventually(
      [&] {
        CommandResult r = RunCommand(
            {cp->bin_dir + "/etcdctl", absl::StrCat("--endpoints=http://127.0.0.1:", port),
             "--dial-timeout=2s", "get", "k", "--print-value-only"},
            absl::Seconds(10));
        value = std::string(absl::StripAsciiWhitespace(r.output));
        return r.exit_code == 0;
      },
      absl::Seconds(30));
  kill(-pf, SIGTERM);
  waitpid(pf, nullptr, 0);
  ASSERT_TRUE(forwarded) << value;
  EXPECT_EQ(value, "from-a");
}

// An image the node lacks fails its pull at once against the refusing
// loopback mirror (hack/node.sh: certs.d/_default), never reaching out: the
// pod's event names 127.0.0.1:9 within seconds.
TEST_F(NodeE2E, AMissingImageFailsAtOnceWithoutLeavingTheMachine) {
  Json pod = EtcdPod(ns(), "missing");
  pod["spec"]["containers"][0]["image"] = "registry.example.org/quorum/none:1";
  ASSERT_TRUE(client().Create(kPods, ns(), pod).ok());
  const absl::Time start = absl::Now();
  std::string message;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        auto events = client().List({"", "v1", "events"}, ns());
        if (!events.ok()) return false;
        for (const Json& e : (*events)["items"]) {
          const std::string m = e.value("message", "");
          if (e.value("reason", "") == "Failed" && absl::StrContains(m, "none:1")) {
            message = m;
            return true;
          }
        }
        return false;
      },
      absl::Minutes(1)))
      << "no failed pull reported";
  EXPECT_TRUE(absl::StrContains(message, "127.0.0.1:9")) << message;
  std::cout << "node: a missing image failed its pull after " << absl::Now() - start << ": "
            << message << "\n";
}

}  // namespace
}  // namespace quorum::e2e

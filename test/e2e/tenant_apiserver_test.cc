// Issue 35.6, the Kamaji use case: a second kube-apiserver (the control
// plane's own binary, on the host) keeps its storage in a Quorum EtcdCluster
// over TLS with a client certificate (tls.managed: Quorum issued every
// certificate). It serves create, consistent list and watch, and goes on
// serving them while Quorum replaces a member whose data is gone (an emptyDir
// member's pod deleted): the watch opened before the replacement delivers the
// objects created after it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "test/e2e/e2e_env.h"
#include "test/integration/testenv.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};

class TenantApiServerE2E : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    char tmpl[] = "/tmp/quorum-e2e-tenant-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    watch_.reset();
    apiserver_.reset();
    E2ETest::TearDown();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Key `key` of Secret `name` into dir_/file.
  void SecretToFile(const std::string& name, const char* key, const std::string& file) {
    auto s = client().Get(kSecrets, ns(), name);
    ASSERT_TRUE(s.ok()) << s.status();
    std::string out;
    ASSERT_TRUE(absl::Base64Unescape(s->value("data", Json::object()).value(key, ""), &out));
    ASSERT_FALSE(out.empty()) << name << "/" << key;
    std::ofstream(dir_ + "/" + file) << out;
  }

  // kubectl against the tenant API server, with the control plane's admin
  // credentials (the tenant trusts the same client CA).
  CommandResult Kubectl(const std::vector<std::string>& args) {
    const testenv::ControlPlane& cp = control_plane();
    std::vector<std::string> argv = {cp.bin_dir + "/kubectl", "--kubeconfig=" + cp.kubeconfig,
                                     "--server=https://127.0.0.1:" + std::to_string(port_),
                                     "--certificate-authority=" + dir_ + "/serving-ca.crt",
                                     "--request-timeout=20s"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, absl::Seconds(30));
  }

  // The names of the ConfigMaps `prefix`* in the tenant's default namespace
  // (a consistent list: no resourceVersion).
  std::set<std::string> Listed(const std::string& prefix) {
    std::set<std::string> out;
    CommandResult r = Kubectl({"-n", "default", "get", "configmaps", "-o", "name"});
    if (r.exit_code != 0) return out;
    for (absl::string_view line : absl::StrSplit(r.output, '\n', absl::SkipWhitespace())) {
      if (absl::StartsWith(line, "configmap/" + prefix)) out.insert(std::string(line.substr(10)));
    }
    return out;
  }

  bool Create(const std::string& name) {
    return Kubectl({"-n", "default", "create", "configmap", name, "--from-literal=k=v"})
               .exit_code == 0;
  }

  std::string dir_;
  int port_ = 0;
  std::unique_ptr<HostProcess> apiserver_, watch_;
};

TEST_F(TenantApiServerE2E, AKubeApiServerKeepsItsStorageThroughAMemberReplacement) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client()
                  .Create(kEtcdClusters, ns(),
                          {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                           {"kind", "EtcdCluster"},
                           {"metadata", {{"name", "kdb"}, {"namespace", ns()}}},
                           {"spec",
                            {{"replicas", 3},
                             {"storage", {{"emptyDir", Json::object()}}},
                             {"security", {{"tls", {{"managed", true}}}}}}}})
                  .ok());
  ASSERT_TRUE(testenv::Eventually([&] { return EtcdClusterReady("kdb"); }, absl::Minutes(6)))
      << "EtcdCluster kdb did not become Ready";

  // The tenant's etcd client material: the client-port CA and a client
  // certificate Quorum issued (etcd checks it against that CA).
  SecretToFile("kdb-server-tls", "ca.crt", "etcd-ca.crt");
  SecretToFile("kdb-client-tls", "tls.crt", "etcd-client.crt");
  SecretToFile("kdb-client-tls", "tls.key", "etcd-client.key");
  // Its serving certificate, for 127.0.0.1, from a CA of the test's own.
  const std::string d = dir_ + "/";
  std::ofstream(d + "serving.ext") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
            d + "serving-ca.key", "-subj", "/CN=tenant-ca", "-days", "2", "-out",
            d + "serving-ca.crt"},
           {"openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "serving.key",
            "-subj", "/CN=tenant-apiserver", "-out", d + "serving.csr"},
           {"openssl", "x509", "-req", "-in", d + "serving.csr", "-CA", d + "serving-ca.crt",
            "-CAkey", d + "serving-ca.key", "-CAcreateserial", "-days", "2", "-extfile",
            d + "serving.ext", "-out", d + "serving.crt"}}) {
    CommandResult r = RunCommand(cmd);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  const testenv::ControlPlane& cp = control_plane();
  const std::string pki = cp.dir + "/pki/";
  std::vector<std::string> members;
  for (int i = 0; i < 3; ++i) {
    members.push_back(absl::StrCat("https://kdb-", i, ".kdb-headless.", ns(), ".svc:2379"));
  }
  port_ = 20000 + static_cast<int>(getpid() % 10000);
  apiserver_ = std::make_unique<HostProcess>(d + "kube-apiserver.log");
  apiserver_->Spawn(
      {cp.bin_dir + "/kube-apiserver", "--etcd-servers=" + absl::StrJoin(members, ","),
       "--etcd-cafile=" + d + "etcd-ca.crt", "--etcd-certfile=" + d + "etcd-client.crt",
       "--etcd-keyfile=" + d + "etcd-client.key", "--etcd-prefix=/tenant-a",
       "--secure-port=" + std::to_string(port_), "--bind-address=127.0.0.1",
       "--advertise-address=127.0.0.1", "--tls-cert-file=" + d + "serving.crt",
       "--tls-private-key-file=" + d + "serving.key", "--client-ca-file=" + pki + "ca.crt",
       "--authorization-mode=RBAC", "--service-account-issuer=https://tenant-a.example",
       "--service-account-key-file=" + pki + "sa.pub",
       "--service-account-signing-key-file=" + pki + "sa.key",
       "--service-cluster-ip-range=10.250.0.0/24", "--endpoint-reconciler-type=none",
       "--profiling=false"});
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return Kubectl({"get", "--raw=/readyz"}).exit_code == 0;
      },
      absl::Minutes(2)))
      << "the tenant kube-apiserver did not become ready on the EtcdCluster; its log: "
      << FileText(d + "kube-apiserver.log").substr(0, 4000);

  // Create and list.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Create(absl::StrCat("before-", i)));
  EXPECT_EQ(Listed("before-").size(), 5u);
  // A watch, opened now and kept open through the replacement.
  watch_ = std::make_unique<HostProcess>(d + "watch.log");
  watch_->Spawn({cp.bin_dir + "/kubectl", "--kubeconfig=" + cp.kubeconfig,
                 "--server=https://127.0.0.1:" + std::to_string(port_),
                 "--certificate-authority=" + d + "serving-ca.crt", "-n", "default", "get",
                 "configmaps", "--watch", "--output-watch-events", "-o", "name"});
  ASSERT_TRUE(testenv::Eventually(
      [&] { return absl::StrContains(FileText(d + "watch.log"), "configmap/before-4"); },
      absl::Seconds(30)))
      << FileText(d + "watch.log");

  // Replace member kdb-1: its pod (and emptyDir data) is deleted; Quorum
  // removes the old member and adds a new one, one safe step at a time.
  auto member_id = [&](const std::string& name) {
    auto c = GetEtcdCluster("kdb");
    if (!c.ok()) return std::string();
    for (const Json& m : c->value("status", Json::object()).value("members", Json::array())) {
      if (m.value("name", "") == name) return m.value("id", "");
    }
    return std::string();
  };
  const std::string old_id = member_id("kdb-1");
  ASSERT_FALSE(old_id.empty());
  ASSERT_TRUE(client().Delete(kPods, ns(), "kdb-1").ok());
  int created_during = 0;
  const bool replaced = testenv::Eventually(
      [&] {
        if (Create(absl::StrCat("during-", created_during))) ++created_during;
        const std::string id = member_id("kdb-1");
        return !id.empty() && id != old_id && EtcdClusterReady("kdb");
      },
      absl::Minutes(6));
  ASSERT_TRUE(replaced) << "member kdb-1 was not replaced (id " << member_id("kdb-1") << ")";
  EXPECT_GT(created_during, 0) << "no write went through during the replacement";

  // After it: writes, a consistent list of everything, and the old watch
  // sees the new objects.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Create(absl::StrCat("after-", i)));
  EXPECT_EQ(Listed("before-").size(), 5u);
  EXPECT_EQ(Listed("during-").size(), static_cast<size_t>(created_during));
  EXPECT_EQ(Listed("after-").size(), 5u);
  EXPECT_TRUE(testenv::Eventually(
      [&] { return absl::StrContains(FileText(d + "watch.log"), "configmap/after-4"); },
      absl::Seconds(30)))
      << "the watch opened before the replacement did not deliver what came after: "
      << FileText(d + "watch.log");
}

}  // namespace
}  // namespace quorum::e2e

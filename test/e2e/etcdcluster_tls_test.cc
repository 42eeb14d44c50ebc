// Scenario 2 of issue 6: an EtcdCluster with peer, server and client TLS and
// etcd authentication becomes Ready on real etcd pods; a client without a
// certificate, and one with a certificate but no credentials, are refused;
// the root credentials the operator keeps work. A snapshot of it
// (EtcdBackup to a PersistentVolumeClaim) completes, verified, through the
// same TLS and credentials.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kEtcdBackups{"etcd.aenix.io", "v1alpha1", "etcdbackups"};
const kube::GroupVersionResource kPvcs{"", "v1", "persistentvolumeclaims"};

class EtcdClusterTlsE2E : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    char tmpl[] = "/tmp/quorum-e2e-pki-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    E2ETest::TearDown();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Issues NAME.crt/.key signed by the test CA with `subject` and `ext`.
  void Issue(const std::string& name, const std::string& subject, const std::string& ext) {
    const std::string d = dir_ + "/";
    std::ofstream(d + name + ".ext") << ext;
    for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
             {"openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
              "-out", d + name + ".key"},
             {"openssl", "req", "-new", "-key", d + name + ".key", "-subj", subject, "-out",
              d + name + ".csr"},
             {"openssl", "x509", "-req", "-in", d + name + ".csr", "-CA", d + "ca.crt", "-CAkey",
              d + "ca.key", "-CAcreateserial", "-days", "30", "-sha256", "-extfile",
              d + name + ".ext", "-out", d + name + ".crt"}}) {
      CommandResult r = RunCommand(cmd);
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
  }

  void MakePki(const std::string& cluster) {
    const std::string d = dir_ + "/";
    for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
             {"openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
              "-out", d + "ca.key"},
             {"openssl", "req", "-x509", "-new", "-key", d + "ca.key", "-subj", "/CN=e2e-etcd-ca",
              "-days", "30", "-out", d + "ca.crt"}}) {
      CommandResult r = RunCommand(cmd);
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
    const std::string svc = absl::StrCat(cluster, ".", ns(), ".svc");
    const std::string headless = absl::StrCat("*.", cluster, "-headless.", ns(), ".svc");
    const std::string san =
        absl::StrCat("subjectAltName=DNS:", headless, ",DNS:", headless, ".cluster.local,DNS:", svc,
                     ",DNS:", svc, ".cluster.local,DNS:localhost,IP:127.0.0.1\n");
    const std::string both = "extendedKeyUsage=serverAuth,clientAuth\n";
    Issue("server", "/CN=etcd-server", both + san);
    Issue("peer", "/CN=etcd-peer", both + san);
    // The operator's client certificate: no CommonName, so etcd does not take
    // it for a user name.
    Issue("client", "/O=quorum", "extendedKeyUsage=clientAuth\n");
    Issue("stranger", "/O=someone-else", "extendedKeyUsage=clientAuth\n");
    auto secret = [&](const std::string& name, bool with_pair, const std::string& pair) {
      Json data = {{"ca.crt", absl::Base64Escape(FileText(d + "ca.crt"))}};
      if (with_pair) {
        data["tls.crt"] = absl::Base64Escape(FileText(d + pair + ".crt"));
        data["tls.key"] = absl::Base64Escape(FileText(d + pair + ".key"));
      }
      auto r = client().Create(kSecrets, ns(),
                               {{"apiVersion", "v1"},
                                {"kind", "Secret"},
                                {"metadata", {{"name", name}}},
                                {"data", data}});
      ASSERT_TRUE(r.ok()) << r.status();
    };
    secret(cluster + "-peer-ca", false, "");
    secret(cluster + "-peer", true, "peer");
    secret(cluster + "-server-ca", false, "");
    secret(cluster + "-server", true, "server");
    secret(cluster + "-client-ca", false, "");
    secret(cluster + "-client", true, "client");
  }

  std::vector<std::string> Tls(const std::string& who) {
    std::vector<std::string> flags = {"--cacert=" + dir_ + "/ca.crt"};
    if (!who.empty()) {
      flags.push_back("--cert=" + dir_ + "/" + who + ".crt");
      flags.push_back("--key=" + dir_ + "/" + who + ".key");
    }
    return flags;
  }

  // An EtcdCluster of 3 with peer, server and client TLS (MakePki's
  // Secrets) and etcd authentication.
  Json TlsAuthCluster(const std::string& name) {
    return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
            {"kind", "EtcdCluster"},
            {"metadata", {{"name", name}, {"namespace", ns()}}},
            {"spec",
             {{"replicas", 3},
              {"storage", {{"emptyDir", Json::object()}}},
              {"security",
               {{"enableAuth", true},
                {"tls",
                 {{"peerTrustedCASecret", name + "-peer-ca"},
                  {"peerSecret", name + "-peer"},
                  {"serverTrustedCASecret", name + "-server-ca"},
                  {"serverSecret", name + "-server"},
                  {"clientTrustedCASecret", name + "-client-ca"},
                  {"clientSecret", name + "-client"}}}}}}}};
  }

  std::string dir_;
};

TEST_F(EtcdClusterTlsE2E, TlsAndAuthReadyAndStrangersRefused) {
  const std::string name = "sec";
  MakePki(name);
  OperatorProcess op(ns());
  op.Start();
  const Json cluster = TlsAuthCluster(name);
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), cluster).ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        if (!EtcdClusterReady(name)) return false;
        std::vector<Member> members = MemberList(ns(), name, Tls("client"), "https");
        int voters = 0;
        for (const Member& m : members) voters += m.learner ? 0 : 1;
        return voters == 3;
      },
      absl::Minutes(5)))
      << "the TLS cluster did not become Ready with 3 voters";

  // Auth is on: a valid certificate without credentials cannot write ...
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        CommandResult r = Etcdctl(ns(), name, {"put", "k", "v"}, Tls("stranger"), "https");
        return r.exit_code != 0;
      },
      absl::Minutes(3)))
      << "auth was never enabled: a client without credentials can still write";
  CommandResult anon = Etcdctl(ns(), name, {"put", "k", "v"}, Tls("stranger"), "https");
  EXPECT_NE(anon.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(anon.output, "user name is empty") ||
              absl::StrContains(anon.output, "permission denied") ||
              absl::StrContains(anon.output, "authentication"))
      << anon.output;
  // ... and a client without a certificate does not get through TLS.
  CommandResult nocert = Etcdctl(ns(), name, {"get", "k"}, Tls(""), "https");
  EXPECT_NE(nocert.exit_code, 0) << nocert.output;
  // Plain HTTP is not served at all.
  CommandResult plain = Etcdctl(ns(), name, {"get", "k"}, {}, "http");
  EXPECT_NE(plain.exit_code, 0) << plain.output;

  // A snapshot goes through the same TLS and the operator's root credentials.
  absl::Status crd = testenv::InstallCrd(
      client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/etcd.aenix.io_etcdbackups.yaml");
  ASSERT_TRUE(crd.ok()) << crd;
  ASSERT_TRUE(client()
                  .Create(kPvcs, ns(),
                          {{"apiVersion", "v1"},
                           {"kind", "PersistentVolumeClaim"},
                           {"metadata", {{"name", "backups"}, {"namespace", ns()}}},
                           {"spec",
                            {{"accessModes", Json::array({"ReadWriteOnce"})},
                             {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}})
                  .ok());
  // The operator started before the CRD was served: a new one runs the
  // EtcdBackup controller.
  op.Stop();
  OperatorProcess with_backups(ns());
  with_backups.Start({"QUORUM_OPERATOR_IMAGE=ghcr.io/quorum-dev/quorum-operator:0.1.0"});
  ASSERT_TRUE(client()
                  .Create(kEtcdBackups, ns(),
                          {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                           {"kind", "EtcdBackup"},
                           {"metadata", {{"name", "sec-snap"}, {"namespace", ns()}}},
                           {"spec",
                            {{"clusterRef", {{"name", name}}},
                             {"destination", {{"pvc", {{"claimName", "backups"}}}}}}}})
                  .ok());
  Json status;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        absl::StatusOr<Json> b = client().Get(kEtcdBackups, ns(), "sec-snap");
        if (!b.ok()) return false;
        status = b->value("status", Json::object());
        return status.value("phase", "") == "Complete" || status.value("phase", "") == "Failed";
      },
      absl::Minutes(5)))
      << status.dump();
  ASSERT_EQ(status.value("phase", ""), "Complete") << status.dump();
  EXPECT_EQ(status["snapshot"].value("sha256", "").size(), 64u) << status.dump();
  EXPECT_GT(status["snapshot"].value("revision", int64_t{0}), 0) << status.dump();
}

// Issue 38: `kubectl quorum` etcdctl, defrag, logs and report against a real
// TLS + auth EtcdCluster: etcdctl gets the CA, client certificate and root
// credentials without any file or flag from the user; defrag goes through
// every member and leaves the cluster Ready; logs shows every member; the
// report holds the cluster and not one Secret value.
TEST_F(EtcdClusterTlsE2E, KubectlQuorumEtcdctlDefragLogsAndReportOnATlsAuthCluster) {
  const std::string name = "kqe";
  MakePki(name);
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), TlsAuthCluster(name)).ok());
  ASSERT_TRUE(testenv::Eventually(
      [&] {  // Ready, and auth on: a certificate without credentials cannot write
        return EtcdClusterReady(name) &&
               Etcdctl(ns(), name, {"put", "k", "v"}, Tls("stranger"), "https").exit_code != 0;
      },
      absl::Minutes(6)))
      << "the TLS + auth cluster did not become Ready with auth on";
  auto quorum = [&](const std::vector<std::string>& args) {
    return KubectlQuorum(ns(), args, absl::Minutes(6));
  };

  CommandResult put = quorum({"etcdctl", name, "--", "put", "kq-key", "kq-value"});
  ASSERT_EQ(put.exit_code, 0) << put.output;
  CommandResult get = quorum({"etcdctl", name, "--", "get", "kq-key", "--print-value-only"});
  ASSERT_EQ(get.exit_code, 0) << get.output;
  EXPECT_EQ(absl::StripAsciiWhitespace(get.output), "kq-value");

  CommandResult defrag = quorum({"defrag", name});
  EXPECT_EQ(defrag.exit_code, 0) << defrag.output;
  EXPECT_EQ(std::count(defrag.output.begin(), defrag.output.end(), '\n'), 3) << defrag.output;
  EXPECT_TRUE(absl::StrContains(defrag.output, "(leader)")) << defrag.output;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(absl::StrContains(defrag.output, absl::StrCat(name, "-", i, " (")))
        << defrag.output;
  }
  EXPECT_TRUE(testenv::Eventually([&] { return EtcdClusterReady(name); }, absl::Minutes(2)));
  get = quorum({"etcdctl", name, "--", "get", "kq-key", "--print-value-only"});
  EXPECT_EQ(absl::StripAsciiWhitespace(get.output), "kq-value") << get.output;

  // restart: every member replaced one at a time through the operator's
  // roll; the data stays.
  std::map<std::string, std::string> uid_before;
  for (int i = 0; i < 3; ++i) {
    const std::string pod = absl::StrCat(name, "-", i);
    absl::StatusOr<Json> p = client().Get({"", "v1", "pods"}, ns(), pod);
    ASSERT_TRUE(p.ok()) << p.status();
    uid_before[pod] = (*p)["metadata"].value("uid", "");
  }
  CommandResult restart = KubectlQuorum(ns(), {"restart", "ec/" + name}, absl::Minutes(12));
  ASSERT_EQ(restart.exit_code, 0) << restart.output;
  EXPECT_TRUE(absl::StrContains(restart.output, "3 members restarted and Ready")) << restart.output;
  for (const auto& [pod, uid] : uid_before) {
    absl::StatusOr<Json> p = client().Get({"", "v1", "pods"}, ns(), pod);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_NE((*p)["metadata"].value("uid", ""), uid) << pod << " was not replaced";
  }
  get = quorum({"etcdctl", name, "--", "get", "kq-key", "--print-value-only"});
  EXPECT_EQ(absl::StripAsciiWhitespace(get.output), "kq-value") << get.output;

  CommandResult logs = quorum({"logs", name, "--tail", "20"});
  EXPECT_EQ(logs.exit_code, 0) << logs.output;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(absl::StrContains(logs.output, absl::StrCat("[", name, "-", i))) << logs.output;
  }

  const std::string archive = dir_ + "/report.tar.gz";
  CommandResult report = quorum({"report", name, "-o", archive});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  CommandResult listing = RunCommand({"tar", "-tzf", archive});
  ASSERT_EQ(listing.exit_code, 0) << listing.output;
  for (const std::string& file :
       {std::string("/cluster.json"), std::string("/status.json"), std::string("/README.md"),
        absl::StrCat("/secrets/", name, "-root-auth.json"),
        absl::StrCat("/logs/", name, "-0/etcd.log"),
        absl::StrCat("/objects/StatefulSet/", name, ".json")}) {
    EXPECT_TRUE(absl::StrContains(listing.output, file)) << file << " missing:\n" << listing.output;
  }
  CommandResult contents = RunCommand({"tar", "-xzOf", archive});
  ASSERT_EQ(contents.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(contents.output, "\"kind\": \"EtcdCluster\""));
  EXPECT_TRUE(absl::StrContains(contents.output, "REDACTED"));
  // Not one value of the cluster's Secrets: root's password, the private keys.
  std::vector<std::string> secrets;
  for (const std::string& secret :
       {name + "-root-auth", name + "-client", name + "-server", name + "-peer"}) {
    absl::StatusOr<Json> s = client().Get(kSecrets, ns(), secret);
    ASSERT_TRUE(s.ok()) << secret << ": " << s.status();
    for (const char* key : {"password", "tls.key"}) {
      std::string value;
      if (!s->value("data", Json::object()).contains(key)) continue;
      const std::string b64 = (*s)["data"][key];
      ASSERT_TRUE(absl::Base64Unescape(b64, &value));
      secrets.push_back(b64);
      for (absl::string_view line : absl::StrSplit(value, '\n', absl::SkipWhitespace())) {
        if (line.size() >= 16) secrets.push_back(std::string(line));  // a PEM body line
      }
      if (value.find('\n') == std::string::npos) secrets.push_back(value);
    }
  }
  ASSERT_GE(secrets.size(), 4u);
  for (const std::string& v : secrets) {
    EXPECT_FALSE(absl::StrContains(contents.output, v)) << "the report holds a Secret value";
  }
}

// Issue 33: turning etcd authentication on is a staged edit of a running
// TLS cluster (root user and role, then auth on, once converged). A writer
// authenticating by its certificate's CommonName (root: no user, no
// password needed before auth, and etcd's user after) writes throughout;
// every acknowledged key is there after, the cluster converges at the new
// generation without reporting a quorum loss, and turning auth off again is
// refused naming the field.
TEST_F(EtcdClusterTlsE2E, EnablingAuthOnARunningClusterKeepsEveryAcknowledgedWrite) {
  const std::string name = "ea";
  MakePki(name);
  Issue("root", "/CN=root", "extendedKeyUsage=clientAuth\n");
  OperatorProcess op(ns());
  op.Start();
  Json cluster = TlsAuthCluster(name);
  cluster["spec"]["security"]["enableAuth"] = false;
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), cluster).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return EtcdClusterReady(name); }, absl::Minutes(5)))
      << "the TLS cluster did not become Ready";
  const auto put = [&](const std::string& who, const std::string& key) {
    return Etcdctl(ns(), name, {"put", key, "v"}, Tls(who), "https").exit_code == 0;
  };
  ASSERT_TRUE(put("stranger", "before-auth")) << "auth is off: any certificate may write";

  AckedWriter writer([&](int i) { return put("root", absl::StrCat("w/", i)); },
                     absl::Milliseconds(200));
  std::vector<std::string> quorum_lost;
  const auto converged = [&] {
    absl::StatusOr<Json> got = GetEtcdCluster(name);
    if (got.ok()) {
      for (const Json& c :
           got->value("status", Json::object()).value("conditions", Json::array())) {
        if (c.value("type", "") == "Ready" && c.value("reason", "") == "QuorumLost") {
          quorum_lost.push_back(c.value("message", ""));
        }
      }
    }
    return EtcdClusterReady(name);
  };
  const auto written = [&] {  // the keys the writer got in, as root reads them
    CommandResult keys =
        Etcdctl(ns(), name, {"get", "w/", "--prefix", "--keys-only"}, Tls("root"), "https");
    std::set<std::string> out;
    if (keys.exit_code != 0) return out;
    for (absl::string_view line : absl::StrSplit(keys.output, '\n', absl::SkipWhitespace())) {
      out.insert(std::string(line));
    }
    return out;
  };
  ASSERT_TRUE(testenv::Eventually([&] { return written().size() >= 5; }, absl::Minutes(1)))
      << "the writer wrote nothing before the edit";
  ASSERT_TRUE(client()
                  .Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge,
                         {{"spec", {{"security", {{"enableAuth", true}}}}}})
                  .ok());
  ASSERT_TRUE(testenv::Eventually([&] { return converged() && !put("stranger", "after-auth"); },
                                  absl::Minutes(5)))
      << "auth was not turned on, or the cluster did not converge";
  // The writer (root by its certificate) goes on writing with auth on.
  const size_t before = written().size();
  ASSERT_TRUE(testenv::Eventually([&] { return written().size() >= before + 5; }, absl::Minutes(1)))
      << "the writer stopped getting writes in once auth was on";
  const std::vector<int> acknowledged = writer.Stop();
  EXPECT_TRUE(quorum_lost.empty()) << absl::StrJoin(quorum_lost, "\n");

  const std::set<std::string> present = written();
  ASSERT_FALSE(present.empty()) << "root cannot read the writer's keys";
  std::vector<int> lost;
  for (int i : acknowledged) {
    if (!present.contains(absl::StrCat("w/", i))) lost.push_back(i);
  }
  EXPECT_TRUE(lost.empty()) << "acknowledged writes lost: " << absl::StrJoin(lost, ", ");

  auto off = client().Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge,
                            {{"spec", {{"security", {{"enableAuth", false}}}}}});
  ASSERT_FALSE(off.ok()) << "turning auth off was accepted";
  EXPECT_TRUE(absl::StrContains(off.status().message(), "spec.security.enableAuth"))
      << off.status();
}

}  // namespace
}  // namespace quorum::e2e

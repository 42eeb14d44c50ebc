// Issue 35: two of aenix's example manifests as their users apply them, with
// Secrets shaped as cert-manager writes them (ca.crt, tls.crt, tls.key; a CA
// Secret holds the CA's own pair) and the names and DNS names the examples'
// Certificates give them. The EtcdCluster objects are the examples' own
// (test/examples/aenix/), moved into the test's namespace.
//
// * Kamaji (etcdcluster-kamaji.yaml): peer, server and client TLS, no
//   serverTrustedCASecret, the client certificate has CN=root. The operator
//   verifies the members with the serverSecret's ca.crt.
// * TLS + auth (etcdcluster-with-external-certificates.yaml): three CAs,
//   enableAuth, the operator's client certificate has CN=root: it
//   authenticates by the certificate (etcd's gRPC API), as aenix's does.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "test/e2e/e2e_env.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};

class AenixExamplesE2E : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    char tmpl[] = "/tmp/quorum-e2e-aenix-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    E2ETest::TearDown();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void Run(const std::vector<std::string>& cmd) {
    CommandResult r = RunCommand(cmd);
    ASSERT_EQ(r.exit_code, 0) << absl::StrJoin(cmd, " ") << ": " << r.output;
  }

  // A self-signed CA, NAME.crt/.key (cert-manager's selfSigned issuer, isCA).
  void Ca(const std::string& name) {
    const std::string d = dir_ + "/";
    Run({"openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
         d + name + ".key"});
    Run({"openssl", "req", "-x509", "-new", "-key", d + name + ".key", "-subj",
         "/O=ACME Inc./OU=Widgets/CN=" + name, "-days", "30", "-out", d + name + ".crt"});
  }

  // NAME.crt/.key signed by CA with `subject` and the extensions `ext`.
  void Issue(const std::string& ca, const std::string& name, const std::string& subject,
             const std::string& ext) {
    const std::string d = dir_ + "/";
    std::ofstream(d + name + ".ext") << ext;
    Run({"openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
         d + name + ".key"});
    Run({"openssl", "req", "-new", "-key", d + name + ".key", "-subj", subject, "-out",
         d + name + ".csr"});
    Run({"openssl", "x509", "-req", "-in", d + name + ".csr", "-CA", d + ca + ".crt", "-CAkey",
         d + ca + ".key", "-CAcreateserial", "-days", "30", "-sha256", "-extfile",
         d + name + ".ext", "-out", d + name + ".crt"});
  }

  // The Secret cert-manager writes for a Certificate: the issuer's CA as
  // ca.crt and the pair (a CA's Secret: its own pair).
  void Secret(const std::string& secret, const std::string& ca, const std::string& pair) {
    const std::string d = dir_ + "/";
    auto r = client().Create(kSecrets, ns(),
                             {{"apiVersion", "v1"},
                              {"kind", "Secret"},
                              {"metadata", {{"name", secret}}},
                              {"type", "kubernetes.io/tls"},
                              {"data",
                               {{"ca.crt", absl::Base64Escape(FileText(d + ca + ".crt"))},
                                {"tls.crt", absl::Base64Escape(FileText(d + pair + ".crt"))},
                                {"tls.key", absl::Base64Escape(FileText(d + pair + ".key"))}}}});
    ASSERT_TRUE(r.ok()) << r.status();
  }

  // The dnsNames of the examples' member Certificates, in this namespace.
  std::string MemberSans(const std::string& cluster, bool with_service) {
    std::vector<std::string> names;
    for (int i = 0; i < 3; ++i) {
      const std::string pod = absl::StrCat(cluster, "-", i);
      const std::string fqdn = absl::StrCat(pod, ".", cluster, "-headless.", ns(), ".svc");
      for (const std::string& n :
           {pod, absl::StrCat(pod, ".", cluster, "-headless"), fqdn, fqdn + ".cluster.local"}) {
        names.push_back("DNS:" + n);
      }
    }
    if (with_service) {
      const std::string svc = absl::StrCat(cluster, ".", ns(), ".svc");
      for (const std::string& n : {cluster, svc, svc + ".cluster.local"}) {
        names.push_back("DNS:" + n);
      }
    }
    names.push_back("DNS:localhost");
    names.push_back("IP:127.0.0.1");
    return "subjectAltName=" + absl::StrJoin(names, ",") + "\n";
  }

  // The example's EtcdCluster, in this namespace.
  void CreateExample(const std::string& file) {
    absl::StatusOr<Json> example =
        testenv::LoadYamlAsJson(std::string(QUORUM_SOURCE_DIR) + "/test/examples/aenix/" + file);
    ASSERT_TRUE(example.ok()) << example.status();
    (*example)["metadata"]["namespace"] = ns();
    auto created = client().Create(kEtcdClusters, ns(), *example);
    ASSERT_TRUE(created.ok()) << created.status();
  }

  // etcdctl's TLS flags, and the members' own addresses (what Kamaji's
  // DataStore lists): the examples' server certificates name the members, and
  // only one names the client Service.
  std::vector<std::string> Tls(const std::string& cluster, const std::string& ca,
                               const std::string& who) {
    std::vector<std::string> members;
    for (int i = 0; i < 3; ++i) {
      members.push_back(
          absl::StrCat("https://", cluster, "-", i, ".", cluster, "-headless.", ns(), ".svc:2379"));
    }
    return {"--endpoints=" + absl::StrJoin(members, ","), "--cacert=" + dir_ + "/" + ca + ".crt",
            "--cert=" + dir_ + "/" + who + ".crt", "--key=" + dir_ + "/" + who + ".key"};
  }

  // Ready with three voting members, as the client certificate sees them.
  void ExpectReadyWithThreeVoters(const std::string& name, const std::vector<std::string>& tls) {
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          if (!EtcdClusterReady(name)) return false;
          int voters = 0;
          for (const Member& m : MemberList(ns(), name, tls, "https")) voters += m.learner ? 0 : 1;
          return voters == 3;
        },
        absl::Minutes(6)))
        << name << " did not become Ready with 3 voters";
  }

  std::string dir_;
};

TEST_F(AenixExamplesE2E, TheKamajiExampleBecomesReadyWithItsOwnSecrets) {
  Ca("etcd-peer-ca");
  Ca("etcd-ca");
  Issue("etcd-ca", "server", "/O=ACME Inc.",
        "extendedKeyUsage=clientAuth,serverAuth\n" + MemberSans("etcd", false));
  Issue("etcd-peer-ca", "peer", "/O=ACME Inc.",
        "extendedKeyUsage=serverAuth,clientAuth\n" + MemberSans("etcd", false));
  Issue("etcd-ca", "client", "/CN=root", "extendedKeyUsage=clientAuth\n");
  Secret("etcd-peer-ca-tls", "etcd-peer-ca", "etcd-peer-ca");
  Secret("etcd-ca-tls", "etcd-ca", "etcd-ca");
  Secret("etcd-server-tls", "etcd-ca", "server");
  Secret("etcd-peer-tls", "etcd-peer-ca", "peer");
  Secret("etcd-client-tls", "etcd-ca", "client");
  OperatorProcess op(ns());
  op.Start();
  CreateExample("etcdcluster-kamaji.yaml");
  ExpectReadyWithThreeVoters("etcd", Tls("etcd", "etcd-ca", "client"));

  // What Kamaji's DataStore does with it: the members' addresses, the CA
  // and the client pair.
  CommandResult put =
      Etcdctl(ns(), "etcd", {"put", "/registry/k", "v"}, Tls("etcd", "etcd-ca", "client"), "https");
  ASSERT_EQ(put.exit_code, 0) << put.output;
  CommandResult get = Etcdctl(ns(), "etcd", {"get", "/registry/k", "--print-value-only"},
                              Tls("etcd", "etcd-ca", "client"), "https");
  ASSERT_EQ(get.exit_code, 0) << get.output;
  EXPECT_TRUE(absl::StrContains(get.output, "v")) << get.output;
}

TEST_F(AenixExamplesE2E, TheTlsAndAuthExampleAuthenticatesByItsRootCertificate) {
  Ca("ca-peer");
  Ca("ca-server");
  Ca("ca-client");
  Issue("ca-server", "server", "/O=ACME Inc.",
        "extendedKeyUsage=serverAuth\n" + MemberSans("test", true));
  Issue("ca-peer", "peer", "/O=ACME Inc.",
        "extendedKeyUsage=serverAuth,clientAuth\n" + MemberSans("test", false));
  Issue("ca-client", "client", "/CN=root", "extendedKeyUsage=clientAuth\n");
  Issue("ca-client", "stranger", "/CN=someone", "extendedKeyUsage=clientAuth\n");
  Secret("ca-peer-secret", "ca-peer", "ca-peer");
  Secret("ca-server-secret", "ca-server", "ca-server");
  Secret("ca-client-secret", "ca-client", "ca-client");
  Secret("server-secret", "ca-server", "server");
  Secret("peer-secret", "ca-peer", "peer");
  Secret("client-secret", "ca-client", "client");
  OperatorProcess op(ns());
  op.Start();
  CreateExample("etcdcluster-with-external-certificates.yaml");
  ExpectReadyWithThreeVoters("test", Tls("test", "ca-server", "client"));

  // Auth is on: the root certificate writes; a certificate whose CommonName
  // is no etcd user (and no password) does not.
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return Etcdctl(ns(), "test", {"put", "k", "v"}, Tls("test", "ca-server", "stranger"),
                       "https")
                   .exit_code != 0;
      },
      absl::Minutes(3)))
      << "auth was never enabled: any certificate can write";
  CommandResult root =
      Etcdctl(ns(), "test", {"put", "k", "v"}, Tls("test", "ca-server", "client"), "https");
  EXPECT_EQ(root.exit_code, 0) << root.output;
  CommandResult users =
      Etcdctl(ns(), "test", {"user", "list"}, Tls("test", "ca-server", "client"), "https");
  ASSERT_EQ(users.exit_code, 0) << users.output;
  EXPECT_TRUE(absl::StrContains(users.output, "root")) << users.output;
}

}  // namespace
}  // namespace quorum::e2e

// A PostgresCluster serving the user's own certificate (spec.tls.customSecret)
// on the real node: when the user renews it in place, PostgreSQL and Patroni's
// REST API serve the new one within minutes, with no member restarted
// (issue 33: the renewed certificate used to be served only after a restart).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "src/runtime/certs.h"
#include "test/e2e/postgres_e2e.h"

namespace quorum::e2e {
namespace {

class PostgresTlsE2E : public PostgresClusterE2E {
 protected:
  // The names a member's certificate must carry for cluster `name` (what the
  // operator puts in its own: the Services and the members' pod names).
  std::vector<std::string> DnsNames(const std::string& name) {
    std::vector<std::string> out = {"localhost"};
    for (const std::string& svc : {name, name + "-replicas", name + "-pods"}) {
      out.push_back(svc);
      out.push_back(svc + "." + ns());
      out.push_back(absl::StrCat(svc, ".", ns(), ".svc"));
      out.push_back(absl::StrCat(svc, ".", ns(), ".svc.cluster.local"));
    }
    out.push_back(absl::StrCat("*.", name, "-pods.", ns(), ".svc"));
    out.push_back(absl::StrCat("*.", name, "-pods.", ns(), ".svc.cluster.local"));
    return out;
  }

  Json TlsSecret(const std::string& secret, const runtime::CertKeyPair& ca,
                 const runtime::CertKeyPair& cert) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", secret}, {"namespace", ns()}}},
            {"type", "kubernetes.io/tls"},
            {"stringData",
             {{"ca.crt", ca.cert_pem}, {"tls.crt", cert.cert_pem}, {"tls.key", cert.key_pem}}}};
  }

  // The serial of the certificate served at host:port ("serial=..."; "" when
  // none), PostgreSQL's after its STARTTLS.
  std::string Served(const std::string& host, int port, bool postgres) {
    const std::string starttls = postgres ? " -starttls postgres" : "";
    CommandResult r =
        NodeExec({"sh", "-c",
                  absl::StrCat("openssl s_client", starttls, " -connect ", host, ":", port,
                               " </dev/null 2>/dev/null | openssl x509 -noout "
                               "-serial")},
                 absl::Seconds(20));
    return std::string(absl::StripAsciiWhitespace(r.output));
  }

  // Pod name -> "uid/restarts" of the cluster's members.
  std::map<std::string, std::string> Incarnations(const std::string& name) {
    std::map<std::string, std::string> out;
    kube::ListOptions options{.label_selector = "postgres.quorum.dev/cluster=" + name};
    auto pods = client().List(kPods, ns(), options);
    if (!pods.ok()) return out;
    for (const Json& p : (*pods)["items"]) {
      int restarts = 0;
      for (const Json& cs : p["status"].value("containerStatuses", Json::array())) {
        restarts += cs.value("restartCount", 0);
      }
      out[p["metadata"].value("name", "")] =
          absl::StrCat(p["metadata"].value("uid", ""), "/", restarts);
    }
    return out;
  }
};

TEST_F(PostgresTlsE2E, ARenewedCustomCertificateIsServedWithoutARestart) {
  OperatorProcess op(ns());
  op.Start();
  const std::string name = "ctls";
  const absl::Time now = absl::Now();
  absl::StatusOr<runtime::CertKeyPair> ca =
      runtime::GenerateCA("ctls test CA", absl::Hours(24), now);
  ASSERT_TRUE(ca.ok()) << ca.status();
  absl::StatusOr<runtime::CertKeyPair> first =
      runtime::GenerateMemberCert(*ca, "ctls", DnsNames(name), {"127.0.0.1"}, absl::Hours(2), now);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(client().Create(kSecrets, ns(), TlsSecret("ctls-cert", *ca, *first)).ok());
  Json pg = KubernetesPostgres(name, 2);
  pg["spec"]["tls"] = {{"customSecret", "ctls-cert"}};
  auto created = client().Create(kPostgres, ns(), pg);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready(name) && !Primary(name).empty(); }, absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";
  const std::string primary = Primary(name);
  const std::string service = absl::StrCat(name, ".", ns(), ".svc");
  const std::string member = absl::StrCat(primary, ".", name, "-pods.", ns(), ".svc");
  const std::string old_serial = Served(service, 5432, true);
  ASSERT_TRUE(absl::StartsWith(old_serial, "serial=")) << old_serial;
  ASSERT_EQ(Served(member, 8008, false), old_serial) << "the REST API serves another certificate";
  CommandResult before = Sql(name + "-superuser", service, "select 1;");
  ASSERT_EQ(before.exit_code, 0) << before.output;
  const std::map<std::string, std::string> incarnations = Incarnations(name);
  ASSERT_EQ(incarnations.size(), 2u);

  // The user renews the certificate in place (same CA, same Secret).
  absl::StatusOr<runtime::CertKeyPair> second = runtime::GenerateMemberCert(
      *ca, "ctls", DnsNames(name), {"127.0.0.1"}, absl::Hours(2), absl::Now());
  ASSERT_TRUE(second.ok()) << second.status();
  auto stored = client().Get(kSecrets, ns(), "ctls-cert");
  ASSERT_TRUE(stored.ok());
  Json renewed = TlsSecret("ctls-cert", *ca, *second);
  renewed["metadata"]["resourceVersion"] = (*stored)["metadata"]["resourceVersion"];
  ASSERT_TRUE(client().Update(kSecrets, ns(), renewed).ok());

  // The kubelet swaps the mounted files within about a minute; the operator
  // has the members reload for three.
  std::string now_serial, rest_serial;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        now_serial = Served(service, 5432, true);
        rest_serial = Served(member, 8008, false);
        return absl::StartsWith(now_serial, "serial=") && now_serial != old_serial &&
               rest_serial == now_serial;
      },
      absl::Minutes(4)))
      << "still served: PostgreSQL " << now_serial << ", REST API " << rest_serial
      << " (before: " << old_serial << ")";
  CommandResult after = Sql(name + "-superuser", service, "select 1;");
  EXPECT_EQ(after.exit_code, 0) << after.output;
  EXPECT_EQ(Incarnations(name), incarnations) << "a member restarted";
}

}  // namespace
}  // namespace quorum::e2e

// report's pure half. Above all: no Secret value reaches the archive — not
// from the Secret itself (its data, stringData, or the last-applied copy in
// its annotations), nor copied into a pod's env, an annotation, an event or
// a log line — checked on every file and on the tar bytes themselves.
// Also: which objects of the namespace belong to the cluster.
#include "src/kubectl/report_build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

constexpr char kPassword[] = "Sup3r-s3cret-Passw0rd";
constexpr char kToken[] = "string-data-token-123";
const std::string kKey =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVvHq2P3kHk1wXKQ5\n"
    "oUQ8mD2m9b6QKXq7a1pB5l2s9wOhRANCAAT0mZ5c4mZ8n0y1bqkYb2J3cT9Q1w2e\n"
    "-----END PRIVATE KEY-----\n";

Json Meta(const std::string& name, const std::string& uid, Json extra = Json::object()) {
  Json m = {{"name", name}, {"namespace", "demo"}, {"uid", uid}};
  m.update(extra);
  return m;
}

Json Owner(const std::string& uid) {
  return {{"ownerReferences", Json::array({{{"uid", uid}, {"kind", "X"}, {"name", "x"}}})}};
}

Json Cluster() {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", Meta("sec", "c-uid")},
          {"spec",
           {{"security",
             {{"enableAuth", true},
              {"tls", {{"serverSecret", "sec-server"}, {"clientSecret", "sec-client"}}}}}}},
          {"status", {{"authSecretName", "sec-root-auth"}}}};
}

Json RootSecret() {
  const Json applied = {{"kind", "Secret"}, {"stringData", {{"password", kPassword}}}};
  return {{"kind", "Secret"},
          {"type", "kubernetes.io/basic-auth"},
          {"metadata",
           Meta("sec-root-auth", "s-uid",
                {{"annotations",
                  {{"kubectl.kubernetes.io/last-applied-configuration", applied.dump()}}}})},
          {"data",
           {{"username", absl::Base64Escape("root")}, {"password", absl::Base64Escape(kPassword)}}},
          {"stringData", {{"token", kToken}}}};
}

Json ServerSecret() {
  return {{"kind", "Secret"},
          {"metadata", Meta("sec-server", "s2-uid", Owner("c-uid"))},
          {"data",
           {{"tls.key", absl::Base64Escape(kKey)},
            {"tls.crt", absl::Base64Escape("CERT-PEM-PUBLIC")}}}};
}

ReportInputs Inputs() {
  ReportInputs in{
      .kind = Kind::kEtcdCluster, .cluster = Cluster(), .now = absl::FromUnixSeconds(1765000000)};
  const Json secret_ref = {{"secretKeyRef", {{"name", "sec-root-auth"}, {"key", "password"}}}};
  Json env = Json::array();
  env.push_back({{"name", "PW"}, {"value", kPassword}});        // a copy: scrubbed
  env.push_back({{"name", "REF"}, {"valueFrom", secret_ref}});  // a reference: kept
  Json container = {{"name", "etcd"}, {"env", env}};
  Json pod = {{"kind", "Pod"},
              {"metadata", Meta("sec-0", "p-uid", {{"annotations", {{"leak", kPassword}}}})}};
  pod["spec"]["containers"] = Json::array({container});
  in.objects = {pod,
                {{"kind", "ConfigMap"},
                 {"metadata", Meta("sec-conf", "cm-uid")},
                 {"data", {{"b64", absl::Base64Escape(kPassword)}, {"key", kKey}}}}};
  in.secrets = {RootSecret(), ServerSecret()};
  in.events = {{{"kind", "Event"},
                {"involvedObject", {{"kind", "Pod"}, {"name", "sec-0"}, {"uid", "p-uid"}}},
                {"message", absl::StrCat("auth failed for root:", kPassword)}}};
  in.logs = {
      {"sec-0/etcd", absl::StrCat("line 1\npassword=", kPassword, "\n", "token ", kToken, "\n")}};
  in.status_json = absl::StrCat(R"({"kind":"EtcdClusterStatus","note":")", kPassword, R"("})");
  in.notes = {"jobs: forbidden"};
  return in;
}

// Every form of every Secret value the archive must not hold.
std::vector<std::string> Forbidden() {
  std::vector<std::string> out = {kPassword, absl::Base64Escape(kPassword), kToken,
                                  absl::Base64Escape(kToken), absl::Base64Escape(kKey)};
  out.push_back("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVvHq2P3kHk1wXKQ5");
  out.push_back("oUQ8mD2m9b6QKXq7a1pB5l2s9wOhRANCAAT0mZ5c4mZ8n0y1bqkYb2J3cT9Q1w2e");
  return out;
}

TEST(ReportBuildTest, NoSecretValueReachesAnyFileOrTheArchive) {
  const std::vector<TarEntry> files = BuildReportEntries(Inputs());
  ASSERT_GE(files.size(), 8u);
  for (const TarEntry& f : files) {
    for (const std::string& v : Forbidden()) {
      EXPECT_FALSE(absl::StrContains(f.data, v)) << f.name << " holds " << v << ":\n" << f.data;
    }
  }
  absl::StatusOr<std::string> tar = BuildTar(files, absl::FromUnixSeconds(1765000000));
  ASSERT_TRUE(tar.ok()) << tar.status();
  for (const std::string& v : Forbidden()) EXPECT_FALSE(absl::StrContains(*tar, v)) << v;
}

TEST(ReportBuildTest, SecretsShowNameTypeAndKeyNamesOnly) {
  const Json r = RedactSecret(RootSecret());
  const Json want = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"type", "kubernetes.io/basic-auth"},
      {"metadata", {{"name", "sec-root-auth"}, {"namespace", "demo"}, {"uid", "s-uid"}}},
      {"data", {{"username", kRedacted}, {"password", kRedacted}, {"token", kRedacted}}}};
  EXPECT_EQ(r, want) << r.dump(2);
}

TEST(ReportBuildTest, FilesAreLaidOutUnderTheBaseNameWithAReadme) {
  const std::vector<TarEntry> files = BuildReportEntries(Inputs());
  std::set<std::string> names;
  for (const TarEntry& f : files) names.insert(f.name);
  const std::string base = "quorum-report-etcdcluster-sec-20251206T054640Z/";
  for (const char* want : {"README.md", "cluster.json", "status.json", "objects/Pod/sec-0.json",
                           "objects/ConfigMap/sec-conf.json", "secrets/sec-root-auth.json",
                           "secrets/sec-server.json", "events.json", "logs/sec-0/etcd.log"}) {
    EXPECT_EQ(names.count(base + want), 1u) << want;
  }
  EXPECT_EQ(files.front().name, base + "README.md");
  EXPECT_TRUE(absl::StrContains(files.front().data, "secrets/sec-root-auth.json"));
  EXPECT_TRUE(absl::StrContains(files.front().data, "jobs: forbidden"));
  // Names that are not secret stay: the Secret reference, the user name.
  for (const TarEntry& f : files) {
    if (absl::EndsWith(f.name, "objects/Pod/sec-0.json")) {
      EXPECT_TRUE(absl::StrContains(f.data, "\"secretKeyRef\"")) << f.data;
      EXPECT_TRUE(absl::StrContains(f.data, "\"sec-root-auth\"")) << f.data;
    }
  }
}

TEST(ReportBuildTest, ScrubLeavesShortAndNameValuesAndReplacesLongestFirst) {
  const std::vector<std::string> values = SensitiveValues({RootSecret()});
  EXPECT_EQ(std::count(values.begin(), values.end(), "root"), 0);  // username: a name
  EXPECT_EQ(Scrub("user root pw Sup3r-s3cret-Passw0rd.", values), "user root pw REDACTED.");
}

TEST(SelectRelatedTest, OwnedLabelledReferencedAndClaimsOfItsStatefulSet) {
  auto obj = [](const std::string& kind, const std::string& name, const std::string& uid,
                Json extra = Json::object()) {
    return Json{{"kind", kind}, {"metadata", Meta(name, uid, extra)}};
  };
  const Json labels = {
      {"labels", {{"app.kubernetes.io/name", "etcd"}, {"app.kubernetes.io/instance", "sec"}}}};
  Json backup = obj("EtcdBackup", "snap", "b-uid");
  backup["spec"] = {{"clusterRef", {{"name", "sec"}}}};
  Json other_backup = obj("EtcdBackup", "other-snap", "b2-uid");
  other_backup["spec"] = {{"clusterRef", {{"name", "other"}}}};
  const std::vector<Json> candidates = {
      obj("Pod", "sec-0", "p0", Owner("sts-uid")),  // owned by the StatefulSet, listed first
      obj("StatefulSet", "sec", "sts-uid", Owner("c-uid")),
      obj("Service", "sec-headless", "svc", labels),
      obj("PersistentVolumeClaim", "data-sec-0", "pvc0"),
      obj("PersistentVolumeClaim", "data-second-0", "pvc1"),
      obj("Job", "snap-job", "j", Owner("b-uid")),
      backup,
      other_backup,
      obj("Secret", "sec-root-auth", "s1"),
      obj("Secret", "unrelated", "s2"),
      obj("ConfigMap", "other", "cm"),
  };
  std::set<std::string> got;
  for (const Json& o : SelectRelated(Cluster(), Kind::kEtcdCluster, candidates)) {
    got.insert(o["metadata"]["name"].get<std::string>());
  }
  const std::set<std::string> want = {"sec-0",    "sec",  "sec-headless", "data-sec-0",
                                      "snap-job", "snap", "sec-root-auth"};
  EXPECT_EQ(got, want);
}

TEST(SelectEventsTest, AboutTheClusterOrItsObjects) {
  const std::vector<Json> related = {{{"kind", "Pod"}, {"metadata", Meta("sec-0", "p0")}}};
  const std::vector<Json> events = {
      {{"involvedObject", {{"kind", "EtcdCluster"}, {"name", "sec"}}}},
      {{"involvedObject", {{"kind", "Pod"}, {"name", "x"}, {"uid", "p0"}}}},
      {{"involvedObject", {{"kind", "Pod"}, {"name", "sec-9"}, {"uid", "p9"}}}},
  };
  EXPECT_EQ(SelectEvents(Cluster(), related, events).size(), 2u);
}

}  // namespace
}  // namespace quorum::kubectl

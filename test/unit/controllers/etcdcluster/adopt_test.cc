// Table tests for taking over a cluster the aenix operator made (adopt.h):
// its immutable StatefulSet selector is kept, and its peer auto TLS is
// inferred and carried into the members' arguments and peer URLs.
#include "src/controllers/etcdcluster/adopt.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "api/etcdcluster_defaults.h"
#include "src/controllers/etcdcluster/builders.h"

namespace quorum::etcdcluster {
namespace {

EtcdCluster Cluster(Json spec, Json annotations = Json::object()) {
  Json obj = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
              {"kind", "EtcdCluster"},
              {"metadata",
               {{"name", "legacy"},
                {"namespace", "default"},
                {"uid", "0b9a1c2d-3e4f"},
                {"annotations", std::move(annotations)}}},
              {"spec", std::move(spec)}};
  api::DefaultEtcdCluster(obj);
  absl::StatusOr<EtcdCluster> c = api::DecodeEtcdCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : EtcdCluster{};
}

EtcdCluster Plain() { return Cluster({{"replicas", 3}}); }

EtcdCluster WithPeerSecrets() {
  return Cluster(
      {{"replicas", 3},
       {"security", {{"tls", {{"peerSecret", "peer"}, {"peerTrustedCASecret", "peer-ca"}}}}}});
}

// The StatefulSet aenix v0.4.5 makes (the parts read here).
Json AenixStatefulSet() {
  return {{"spec",
           {{"selector",
             {{"matchLabels",
               {{"app.kubernetes.io/name", "etcd"},
                {"app.kubernetes.io/instance", "legacy"},
                {"app.kubernetes.io/managed-by", "etcd-operator"}}}}},
            {"template",
             {{"spec",
               {{"containers",
                 Json::array({{{"name", "etcd"},
                               {"command", {"etcd"}},
                               {"args",
                                {"--name=$(POD_NAME)", "--listen-peer-urls=https://0.0.0.0:2380",
                                 "--peer-auto-tls"}}}})}}}}}}}};
}

EtcdView Members(std::vector<std::string> peer_urls) {
  EtcdView v;
  v.members_known = true;
  uint64_t id = 1;
  for (std::string& url : peer_urls) {
    v.members.push_back({.member = {.id = id++, .peer_urls = {std::move(url)}}});
  }
  return v;
}

bool HasArg(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

TEST(AdoptTest, PeerAutoTlsIsInferredFromWhatRuns) {
  const Json aenix = AenixStatefulSet();
  Json quorum_sts = aenix;
  quorum_sts["spec"]["template"]["spec"]["containers"][0]["args"] = {"--name=$(POD_NAME)"};
  const std::string https = "https://legacy-0.legacy-headless.default.svc:2380";
  const std::string http = "http://legacy-0.legacy-headless.default.svc:2380";
  struct Case {
    const char* name;
    EtcdCluster cluster;
    const Json* sts;
    EtcdView view;
    bool want;
  } cases[] = {
      {"nothing runs yet", Plain(), nullptr, EtcdView{}, false},
      {"aenix's StatefulSet", Plain(), &aenix, EtcdView{}, true},
      {"Quorum's own StatefulSet", Plain(), &quorum_sts, EtcdView{}, false},
      {"members registered with https peers", Plain(), nullptr, Members({https}), true},
      {"members registered with http peers", Plain(), &quorum_sts, Members({http}), false},
      {"peer Secrets in the spec win", WithPeerSecrets(), &aenix, Members({https}), false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RunsPeerAutoTls(c.cluster, c.sts, c.view), c.want) << c.name;
    EXPECT_EQ(TlsOf(WithInferredPeerAutoTls(c.cluster, c.sts, c.view)).peer_auto, c.want) << c.name;
  }
}

TEST(AdoptTest, PeerAutoTlsMakesHttpsPeersWithSelfMadeCertificates) {
  const EtcdCluster adopted = WithInferredPeerAutoTls(Plain(), nullptr, Members({"https://x"}));
  EXPECT_EQ(PeerUrl(adopted, 1), "https://legacy-1.legacy-headless.default.svc:2380");
  const std::vector<std::string> args = BuildEtcdArgs(adopted);
  EXPECT_TRUE(HasArg(args, "--peer-auto-tls"));
  EXPECT_TRUE(HasArg(args, "--listen-peer-urls=https://0.0.0.0:2380"));
  EXPECT_TRUE(HasArg(args,
                     "--initial-advertise-peer-urls=https://"
                     "$(POD_NAME).legacy-headless.$(POD_NAMESPACE).svc:2380"));
  EXPECT_TRUE(HasArg(args, "--listen-client-urls=http://0.0.0.0:2379"));

  const std::vector<std::string> plain = BuildEtcdArgs(Plain());
  EXPECT_FALSE(HasArg(plain, "--peer-auto-tls"));
  EXPECT_TRUE(HasArg(plain, "--listen-peer-urls=http://0.0.0.0:2380"));
}

TEST(AdoptTest, TheAnnotationAsksForPeerAutoTlsUnlessPeerSecretsAreGiven) {
  const Json on = {{kPeerAutoTlsAnnotation, "true"}};
  EXPECT_TRUE(TlsOf(Cluster({{"replicas", 3}}, on)).peer_auto);
  EXPECT_FALSE(TlsOf(Cluster({{"replicas", 3}}, {{kPeerAutoTlsAnnotation, "false"}})).peer_auto);
  Json secrets = {{"replicas", 3},
                  {"security", {{"tls", {{"peerSecret", "p"}, {"peerTrustedCASecret", "ca"}}}}}};
  const EtcdCluster both = Cluster(secrets, on);
  EXPECT_FALSE(TlsOf(both).peer_auto);
  EXPECT_FALSE(HasArg(BuildEtcdArgs(both), "--peer-auto-tls"));
}

// Only an object owned by this EtcdCluster (aenix's are, by its uid) is taken
// over; a StatefulSet of the same name made for something else never is.
TEST(AdoptTest, OnlyAnObjectOwnedByThisEtcdClusterIsTakenOver) {
  const EtcdCluster c = Plain();
  auto owned_by = [](Json refs) { return Json{{"metadata", {{"ownerReferences", refs}}}}; };
  EXPECT_TRUE(
      MayAdopt(owned_by(Json::array({{{"kind", "EtcdCluster"}, {"uid", "0b9a1c2d-3e4f"}}})), c));
  EXPECT_FALSE(MayAdopt(owned_by(Json::array({{{"kind", "EtcdCluster"}, {"uid", "another"}}})), c));
  EXPECT_FALSE(MayAdopt(owned_by(Json::array()), c));
  EXPECT_FALSE(MayAdopt(Json{{"metadata", Json::object()}}, c));
  EXPECT_FALSE(MayAdopt(owned_by("not a list"), c));
}

TEST(AdoptTest, TheLiveSelectorIsKeptAndThePodTemplateCarriesItsLabels) {
  const Json desired = BuildStatefulSet(Plain(), 3);
  const Json aenix = AenixStatefulSet();

  const Json kept = KeepLiveSelector(desired, &aenix);
  EXPECT_EQ(kept["spec"]["selector"], aenix["spec"]["selector"]);
  const Json& labels = kept["spec"]["template"]["metadata"]["labels"];
  for (const auto& [k, v] : aenix["spec"]["selector"]["matchLabels"].items()) {
    EXPECT_EQ(labels.value(k, ""), v) << k;
  }
  // Everything else is Quorum's.
  Json rest = kept;
  rest["spec"]["selector"] = desired["spec"]["selector"];
  rest["spec"]["template"]["metadata"]["labels"].erase("app.kubernetes.io/managed-by");
  EXPECT_EQ(rest, desired);

  EXPECT_EQ(KeepLiveSelector(desired, nullptr), desired) << "nothing live";
  const Json own = desired;
  EXPECT_EQ(KeepLiveSelector(desired, &own), desired) << "Quorum's own StatefulSet";
  const Json no_selector = {{"spec", Json::object()}};
  EXPECT_EQ(KeepLiveSelector(desired, &no_selector), desired);
}

}  // namespace
}  // namespace quorum::etcdcluster

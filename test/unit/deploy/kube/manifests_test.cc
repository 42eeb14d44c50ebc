// The install manifests under deploy/: the bundle is up to date, and the
// pieces agree with each other and with what the operator binary does (flag
// names, webhook paths, the names it patches, the Lease and Secret it uses).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "test/unit/deploy/kube/manifest_files.h"

namespace quorum::deploytest {
namespace {

std::vector<Json> Bundle() { return LoadDocuments(Repo("deploy/quorum.yaml")); }

Json Container(const Json& deployment) {
  return deployment["spec"]["template"]["spec"]["containers"][0];
}

// The value of --name=value in the container's args ("" when absent; "true"
// for a bare --name).
std::string Arg(const Json& container, const std::string& name) {
  for (const Json& a : container["args"]) {
    const std::string s = a.get<std::string>();
    if (s == "--" + name) return "true";
    if (s.rfind("--" + name + "=", 0) == 0) return s.substr(name.size() + 3);
  }
  return "";
}

TEST(ManifestsTest, BundleIsGeneratedFromTheFilesUnderDeploy) {
  CommandResult r = RunCommand(Repo("hack/update-bundle.sh") + " --check 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ManifestsTest, BundleHoldsEveryPieceOnceAndTheNamespaceFirst) {
  const std::vector<Json> docs = Bundle();
  ASSERT_FALSE(docs.empty());
  EXPECT_EQ(docs.front().value("kind", ""), "Namespace");
  std::set<std::string> keys;
  for (const Json& d : docs) EXPECT_TRUE(keys.insert(KeyOf(d)).second) << "twice: " << KeyOf(d);
  for (const char* kind : {"CustomResourceDefinition", "ServiceAccount", "ClusterRole",
                           "ClusterRoleBinding", "Role", "RoleBinding", "Deployment", "Service",
                           "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}) {
    bool found = false;
    for (const Json& d : docs) found |= d.value("kind", "") == kind;
    EXPECT_TRUE(found) << kind;
  }
  for (const auto& entry : std::filesystem::directory_iterator(Repo("deploy/crds"))) {
    const Json crd = LoadDocuments(entry.path().string()).at(0);
    EXPECT_FALSE(Find(docs, "CustomResourceDefinition", crd["metadata"]["name"]).is_null())
        << entry.path();
  }
}

TEST(ManifestsTest, RbacNamesNoWildcardAndOnlyKnownVerbs) {
  const std::set<std::string> verbs = {"get",    "list",  "watch",  "create",
                                       "update", "patch", "delete", "deletecollection"};
  for (const Json& d : Bundle()) {
    const std::string kind = d.value("kind", "");
    if (kind != "ClusterRole" && kind != "Role") continue;
    for (const Json& rule : d["rules"]) {
      for (const char* field : {"apiGroups", "resources", "verbs", "resourceNames"}) {
        for (const Json& v : rule.value(field, Json::array())) {
          EXPECT_EQ(v.get<std::string>().find('*'), std::string::npos) << KeyOf(d) << " " << rule;
        }
      }
      for (const Json& v : rule["verbs"]) EXPECT_TRUE(verbs.count(v)) << KeyOf(d) << " " << v;
    }
  }
}

TEST(ManifestsTest, EveryRoleIsBoundToTheOperatorServiceAccount) {
  const std::vector<Json> docs = Bundle();
  for (const Json& d : docs) {
    const std::string kind = d.value("kind", "");
    if (kind != "ClusterRole" && kind != "Role") continue;
    bool bound = false;
    for (const Json& b : docs) {
      if (b.value("kind", "") != kind + "Binding" || b["roleRef"]["name"] != d["metadata"]["name"])
        continue;
      for (const Json& s : b["subjects"]) {
        bound |= s["kind"] == "ServiceAccount" && s["name"] == "quorum-operator" &&
                 s["namespace"] == "quorum-system";
      }
    }
    EXPECT_TRUE(bound) << KeyOf(d);
  }
}

TEST(ManifestsTest, DeploymentRunsTwoLeaderElectedRestrictedReplicas) {
  const Json dep = Find(Bundle(), "Deployment", "quorum-operator");
  ASSERT_FALSE(dep.is_null());
  EXPECT_EQ(dep["spec"]["replicas"], 2);
  const Json pod = dep["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"], "quorum-operator");
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(pod["securityContext"]["seccompProfile"]["type"], "RuntimeDefault");
  const Json c = Container(dep);
  EXPECT_EQ(c["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(c["securityContext"]["readOnlyRootFilesystem"], true);
  EXPECT_EQ(c["securityContext"]["capabilities"]["drop"], Json::array({"ALL"}));
  EXPECT_TRUE(c["resources"]["requests"].contains("cpu"));
  EXPECT_TRUE(c["resources"]["requests"].contains("memory"));
  EXPECT_EQ(Arg(c, "leader-elect"), "true");

  // Probes reach the probe server on the port the flag binds.
  std::map<std::string, int> ports;
  for (const Json& p : c["ports"]) ports[p["name"]] = p["containerPort"];
  EXPECT_EQ(":" + std::to_string(ports["probes"]), Arg(c, "health-probe-bind-address"));
  EXPECT_EQ(":" + std::to_string(ports["metrics"]), Arg(c, "metrics-bind-address"));
  EXPECT_EQ(std::to_string(ports["webhook"]), Arg(c, "webhook-port"));
  EXPECT_EQ(c["livenessProbe"]["httpGet"]["path"], "/healthz");
  EXPECT_EQ(c["livenessProbe"]["httpGet"]["port"], "probes");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["path"], "/readyz");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["port"], "probes");

  // The read-only root needs a writable folder for the certificates.
  bool mounted = false;
  for (const Json& m : c["volumeMounts"]) mounted |= m["mountPath"] == Arg(c, "webhook-cert-dir");
  EXPECT_TRUE(mounted) << "--webhook-cert-dir must be a mounted volume";
}

TEST(ManifestsTest, WebhookPiecesMatchWhatTheOperatorServesAndPatches) {
  const std::vector<Json> docs = Bundle();
  const Json c = Container(Find(docs, "Deployment", "quorum-operator"));
  EXPECT_EQ(Arg(c, "webhook-self-managed-certs"), "true");
  const Json service = Find(docs, "Service", Arg(c, "webhook-service"));
  ASSERT_FALSE(service.is_null()) << "--webhook-service names a Service of the bundle";
  EXPECT_EQ(service["spec"]["ports"][0]["targetPort"], "webhook");
  EXPECT_EQ(service["spec"]["ports"][0]["port"], 443);

  const Json validating =
      Find(docs, "ValidatingWebhookConfiguration", Arg(c, "validating-webhook-configuration"));
  const Json mutating =
      Find(docs, "MutatingWebhookConfiguration", Arg(c, "mutating-webhook-configuration"));
  ASSERT_FALSE(validating.is_null());
  ASSERT_FALSE(mutating.is_null());
  std::set<std::string> paths;
  for (const Json* config : {&validating, &mutating}) {
    for (const Json& w : (*config)["webhooks"]) {
      const Json svc = w["clientConfig"]["service"];
      EXPECT_EQ(svc["name"], service["metadata"]["name"]);
      EXPECT_EQ(svc["namespace"], "quorum-system");
      EXPECT_EQ(svc["port"], 443);
      EXPECT_FALSE(w["clientConfig"].contains("caBundle")) << "the operator sets it";
      paths.insert(svc["path"].get<std::string>());
    }
  }
  // src/webhooks/etcdcluster_webhook.h
  EXPECT_TRUE(paths.count("/mutate-etcd-aenix-io-v1alpha1-etcdcluster"));
  EXPECT_TRUE(paths.count("/validate-etcd-aenix-io-v1alpha1-etcdcluster"));
  // src/webhooks/etcdbackup_webhook.h
  EXPECT_TRUE(paths.count("/validate-etcd-aenix-io-v1alpha1-etcdbackup"));
  // src/webhooks/etcdbackupschedule_webhook.h
  EXPECT_TRUE(paths.count("/validate-etcd-aenix-io-v1alpha1-etcdbackupschedule"));
  // src/webhooks/postgrescluster_webhook.h
  EXPECT_TRUE(paths.count("/mutate-postgres-quorum-dev-v1alpha1-postgrescluster"));
  EXPECT_TRUE(paths.count("/validate-postgres-quorum-dev-v1alpha1-postgrescluster"));

  // The operator may patch exactly these configurations, and read/write its
  // own Secret and Lease.
  auto names_of = [&](const std::string& kind, const std::string& name,
                      const std::string& resource) {
    std::set<std::string> out;
    const Json role = Find(docs, kind, name);
    for (const Json& rule : role["rules"]) {
      for (const Json& r : rule["resources"]) {
        if (r != resource) continue;
        for (const Json& n : rule.value("resourceNames", Json::array())) out.insert(n);
      }
    }
    return out;
  };
  EXPECT_EQ(names_of("ClusterRole", "quorum-operator-webhooks", "validatingwebhookconfigurations"),
            std::set<std::string>{Arg(c, "validating-webhook-configuration")});
  EXPECT_EQ(names_of("ClusterRole", "quorum-operator-webhooks", "mutatingwebhookconfigurations"),
            std::set<std::string>{Arg(c, "mutating-webhook-configuration")});
  EXPECT_EQ(names_of("Role", "quorum-operator", "secrets"),
            std::set<std::string>{Arg(c, "webhook-secret")});
  EXPECT_EQ(names_of("Role", "quorum-operator", "leases"),
            std::set<std::string>{Arg(c, "leader-election-id")});
}

TEST(ManifestsTest, EveryObjectCarriesTheCommonLabels) {
  for (const Json& d : Bundle()) {
    if (d.value("kind", "") == "CustomResourceDefinition") continue;
    const Json labels = d["metadata"].value("labels", Json::object());
    EXPECT_EQ(labels.value("app.kubernetes.io/part-of", ""), "quorum") << KeyOf(d);
  }
}

}  // namespace
}  // namespace quorum::deploytest

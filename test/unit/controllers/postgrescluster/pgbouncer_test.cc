// The pooler's pure builders (src/controllers/postgrescluster/pgbouncer.h):
// a golden file of every object, then table tests of what must hold whatever
// the spec: no secret in pgbouncer.ini, Quorum's settings win, a config
// change rolls the pods, TLS both ways, the members' policy admits the pooler,
// connection Secrets gain and lose their pgbouncer-* keys.
#include "src/controllers/postgrescluster/pgbouncer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/access.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/pgbouncer_sql.h"
#include "test/testmain/paths.h"
#include "test/unit/golden.h"

namespace quorum::postgrescluster {
namespace {

const std::string kTestdata =
    std::string(QUORUM_SOURCE_DIR) + "/test/unit/controllers/postgrescluster/testdata/";

PostgresCluster Cluster(Json extra_spec) {
  Json c = {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", "hippo"}, {"namespace", "db"}, {"uid", "u1"}}},
      {"spec",
       {{"postgresVersion", 17},
        {"users", {{{"name", "app"}, {"databases", {"app"}}}}},
        {"instances",
         {{{"name", "main"},
           {"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}}};
  for (const auto& [k, v] : extra_spec.items()) c["spec"][k] = v;
  absl::StatusOr<PostgresCluster> parsed = api::ParsePostgresCluster(c);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : PostgresCluster{};
}

PostgresCluster Pooled(Json pgbouncer = Json::object(), Json extra_spec = Json::object()) {
  extra_spec["proxy"] = {{"pgBouncer", pgbouncer}};
  return Cluster(extra_spec);
}

TEST(PgBouncerBuildersTest, MatchesTheGoldenObjects) {
  const PostgresCluster c = Pooled(
      {{"config", {{"max_client_conn", "500"}}}, {"resources", {{"requests", {{"cpu", "50m"}}}}}});
  testing::ExpectGoldenJson(kTestdata + "pgbouncer.json",
                            {{"configMap", BuildPgBouncerConfigMap(c)},
                             {"deployment", BuildPgBouncerDeployment(c, "d1")},
                             {"service", BuildPgBouncerService(c)},
                             {"networkPolicy", *BuildPgBouncerNetworkPolicy(c, {})}});
}

TEST(PgBouncerBuildersTest, IniConnectsVerifiedToThePrimaryAndHoldsNoSecret) {
  const std::string ini = PgBouncerIni(Pooled());
  for (const char* want :
       {"* = host=hippo.db.svc port=5432", "listen_port = 5432", "pool_mode = transaction",
        "auth_user = quorum_pooler", "auth_dbname = postgres",
        "auth_query = SELECT usename, passwd FROM quorum_pooler.lookup($1)",
        "server_tls_sslmode = verify-full", "server_tls_ca_file = /etc/pgbouncer/tls/ca.crt",
        "client_tls_sslmode = require", "client_tls_cert_file = /etc/pgbouncer/tls/tls.crt",
        "auth_file = /etc/pgbouncer/auth/userlist.txt", "server_check_delay = 0"}) {
    EXPECT_TRUE(absl::StrContains(ini, want)) << want << " not in\n" << ini;
  }
  EXPECT_FALSE(absl::StrContains(ini, "password"));
}

TEST(PgBouncerBuildersTest, PoolModeAndConfigReachTheIni) {
  struct Case {
    const char* name;
    Json pgbouncer;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"session", {{"poolMode", "session"}}, {"pool_mode = session"}},
      {"statement", {{"poolMode", "statement"}}, {"pool_mode = statement"}},
      {"extra settings",
       {{"config", {{"default_pool_size", "30"}, {"max_client_conn", "900"}}}},
       {"default_pool_size = 30", "max_client_conn = 900"}},
      {"a failover default overridden",
       {{"config", {{"server_check_delay", "5"}}}},
       {"server_check_delay = 5"}},
  };
  for (const Case& c : cases) {
    const std::string ini = PgBouncerIni(Pooled(c.pgbouncer));
    for (const std::string& w : c.want) {
      EXPECT_TRUE(absl::StrContains(ini, w + "\n")) << c.name << ": " << w << "\n" << ini;
    }
    EXPECT_FALSE(absl::StrContains(ini, "server_check_delay = 0") &&
                 absl::StrContains(ini, "server_check_delay = 5"))
        << c.name << ": a setting written twice";
  }
}

TEST(PgBouncerBuildersTest, AnyChangeOfTheIniOrCertificateRollsThePods) {
  auto digest = [](const PostgresCluster& c, const std::string& tls) {
    return BuildPgBouncerDeployment(
        c, tls)["spec"]["template"]["metadata"]["annotations"][kPgBouncerConfigAnnotation];
  };
  const Json base = digest(Pooled(), "t1");
  EXPECT_EQ(base, digest(Pooled(), "t1"));  // stable
  EXPECT_NE(base, digest(Pooled({{"poolMode", "session"}}), "t1"));
  EXPECT_NE(base, digest(Pooled({{"config", {{"max_client_conn", "10"}}}}), "t1"));
  EXPECT_NE(base, digest(Pooled(), "t2"));
  // Replicas and resources change the Deployment, not the configuration.
  EXPECT_EQ(base, digest(Pooled({{"replicas", 5}}), "t1"));
  EXPECT_EQ(PgBouncerDigest({"ab", "c"}).size(), 16u);
  EXPECT_NE(PgBouncerDigest({"ab", "c"}), PgBouncerDigest({"a", "bc"}));
}

TEST(PgBouncerBuildersTest, PodsRunAsNonRootOnAReadOnlyRootWithoutApiAccess) {
  const Json d = BuildPgBouncerDeployment(Pooled({{"replicas", 3}}), "");
  EXPECT_EQ(d["spec"]["replicas"], 3);
  const Json& pod = d["spec"]["template"]["spec"];
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(pod["securityContext"]["runAsUser"], kPgBouncerUid);
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  const Json& container = pod["containers"][0];
  EXPECT_EQ(container["securityContext"]["readOnlyRootFilesystem"], true);
  EXPECT_EQ(container["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_TRUE(container.contains("readinessProbe"));
  EXPECT_TRUE(container.contains("livenessProbe"));
  EXPECT_EQ(container["image"], "ghcr.io/quorum-dev/pgbouncer:1-trixie");
  // Anti-affinity is preferred: one node runs every pod.
  EXPECT_TRUE(pod["affinity"]["podAntiAffinity"].contains(
      "preferredDuringSchedulingIgnoredDuringExecution"));
  EXPECT_FALSE(pod["affinity"]["podAntiAffinity"].contains(
      "requiredDuringSchedulingIgnoredDuringExecution"));
  // The pods are not members: no selector of the cluster's members matches them.
  EXPECT_FALSE(d["spec"]["template"]["metadata"]["labels"].contains("postgres.quorum.dev/cluster"));
}

TEST(PgBouncerBuildersTest, TlsComesFromTheOwnCertificateOrTheUsersCustomSecret) {
  auto tls_secret = [](const PostgresCluster& c) {
    const Json d = BuildPgBouncerDeployment(c, "");
    for (const Json& v : d["spec"]["template"]["spec"]["volumes"]) {
      if (v["name"] == "tls") return v["secret"]["secretName"];
    }
    return Json();
  };
  EXPECT_EQ(tls_secret(Pooled()), "hippo-pgbouncer-tls");
  EXPECT_EQ(tls_secret(Pooled(Json::object(), {{"tls", {{"customSecret", "mine"}}}})), "mine");
  EXPECT_EQ(
      PgBouncerCertDnsNames(Pooled()),
      (std::vector<std::string>{"hippo-pgbouncer", "hippo-pgbouncer.db", "hippo-pgbouncer.db.svc",
                                "hippo-pgbouncer.db.svc.cluster.local"}));
  EXPECT_TRUE(
      absl::StrContains(PgBouncerIni(Pooled(Json::object(), {{"tls", {{"allowPlaintext", true}}}})),
                        "client_tls_sslmode = prefer"));
}

TEST(PgBouncerBuildersTest, TheMembersPolicyAdmitsThePoolerWhatEverPostgresFromSays) {
  for (const Json& from : {Json(), Json::array()}) {
    Json extra = Json::object();
    if (!from.is_null()) extra["networkPolicy"] = {{"postgresFrom", from}};
    const Json policy = *BuildNetworkPolicy(Pooled(Json::object(), extra), {});
    bool admitted = false;
    for (const Json& rule : policy["spec"]["ingress"]) {
      if (rule["ports"][0]["port"] != kPostgresPort) continue;
      for (const Json& peer : rule["from"]) admitted |= peer == PgBouncerPeer(Pooled());
    }
    EXPECT_TRUE(admitted) << from.dump();
    // Without the pooler the members' policy names no pooler.
    EXPECT_FALSE(absl::StrContains(BuildNetworkPolicy(Cluster(extra), {})->dump(), "pgbouncer"));
  }
  const Json pooler = *BuildPgBouncerNetworkPolicy(
      Pooled(Json::object(), {{"networkPolicy", {{"postgresFrom", Json::array()}}}}), {});
  EXPECT_EQ(pooler["spec"]["ingress"][0]["from"].size(), 1u);  // the operator only
  EXPECT_FALSE(BuildPgBouncerNetworkPolicy(
                   Pooled(Json::object(), {{"networkPolicy", {{"enabled", false}}}}), {})
                   .has_value());
}

TEST(PgBouncerBuildersTest, AuthSecretHoldsOnlyThePoolerRoleAndTheConsoleUser) {
  const Json s = BuildPgBouncerAuthSecret(Pooled(), "pw\"1", "adm\"in");
  std::string userlist, admin;
  ASSERT_TRUE(absl::Base64Unescape(s["data"]["userlist.txt"].get<std::string>(), &userlist));
  EXPECT_EQ(userlist, "\"quorum_pooler\" \"pw\"\"1\"\n\"quorum_pooler_admin\" \"adm\"\"in\"\n");
  ASSERT_TRUE(absl::Base64Unescape(s["data"]["admin-password"].get<std::string>(), &admin));
  EXPECT_EQ(admin, "adm\"in");
  EXPECT_EQ(s["metadata"]["name"], "hippo-pgbouncer-auth");
  EXPECT_NE(PgBouncerIni(Pooled()).find("\nadmin_users = quorum_pooler_admin\n"),
            std::string::npos);
}

std::string Key(const Json& data, const char* key) {
  std::string out;
  if (!data.contains(key)) return "<absent>";
  absl::Base64Unescape(data[key].get<std::string>(), &out);
  return out;
}

TEST(PgBouncerBuildersTest, ConnectionSecretsGainAndLoseThePoolerKeys) {
  const Json data = {{"username", absl::Base64Escape("app")},
                     {"password", absl::Base64Escape("secret")},
                     {"dbname", absl::Base64Escape("app")},
                     {"uri", absl::Base64Escape("postgresql://direct")}};
  const std::optional<Json> on = PgBouncerCredentialData(Pooled(), data);
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(Key(*on, "pgbouncer-host"), "hippo-pgbouncer.db.svc");
  EXPECT_EQ(Key(*on, "pgbouncer-port"), "5432");
  EXPECT_EQ(Key(*on, "pgbouncer-uri"),
            "postgresql://app:secret@hippo-pgbouncer.db.svc:5432/app?sslmode=verify-full");
  EXPECT_EQ(Key(*on, "uri"), "postgresql://direct");
  EXPECT_FALSE(PgBouncerCredentialData(Pooled(), *on).has_value());  // nothing more to write
  const std::optional<Json> off = PgBouncerCredentialData(Cluster(Json::object()), *on);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(*off, data);
  EXPECT_FALSE(PgBouncerCredentialData(Cluster(Json::object()), data).has_value());
}

TEST(PgBouncerBuildersTest, PgHbaAdmitsThePoolerRoleBeforeTheUsersRulesOnlyWithThePooler) {
  const std::string line = "hostssl postgres quorum_pooler all scram-sha-256";
  const Json reject_all = {{"authentication", {{"rules", {{{"method", "reject"}}}}}}};
  const std::vector<std::string> on = PgHba(Pooled(Json::object(), reject_all));
  const auto pooler = std::find(on.begin(), on.end(), line);
  ASSERT_NE(pooler, on.end());
  EXPECT_LT(pooler - on.begin(),
            std::find(on.begin(), on.end(), "hostssl all all all reject") - on.begin());
  const std::vector<std::string> off = PgHba(Cluster(reject_all));
  EXPECT_EQ(std::find(off.begin(), off.end(), line), off.end());
}

TEST(PgBouncerSqlTest, OnlyThePoolerRoleMayLookUpPasswordsOfOrdinaryRoles) {
  const std::string sql = PgBouncerLookupSql();
  for (const char* want : {"SECURITY DEFINER", "SET search_path = pg_catalog, pg_temp",
                           "REVOKE ALL ON FUNCTION quorum_pooler.lookup(name) FROM PUBLIC",
                           "GRANT EXECUTE ON FUNCTION quorum_pooler.lookup(name) TO quorum_pooler",
                           "OWNER TO postgres", "NOT a.rolsuper", "NOT a.rolreplication",
                           "'postgres', 'replicator', 'quorum_pooler'", "rolvaliduntil"}) {
    EXPECT_TRUE(absl::StrContains(sql, want)) << want;
  }
  EXPECT_TRUE(absl::EndsWith(sql, "TO quorum_pooler;\n")) << "the grant comes last";
}

}  // namespace
}  // namespace quorum::postgrescluster

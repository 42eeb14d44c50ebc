// PostgresCluster constants and small pure helpers: the default image table,
// role names and options, and the etcd endpoint URL parser.
#include "api/postgrescluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "api/postgrescluster_etcd_url.h"

namespace quorum::api {
namespace {

TEST(PostgresClusterNamesTest, NamesTheResource) {
  EXPECT_EQ(kPostgresApiVersion, std::string(kPostgresGroup) + "/" + std::string(kPostgresVersion));
  EXPECT_EQ(kPostgresClusterCrdName,
            std::string(kPostgresClusterPlural) + "." + std::string(kPostgresGroup));
  EXPECT_EQ(kPostgresClusterShortName, "pgc");
}

TEST(PostgresClusterImagesTest, EverySupportedMajorHasItsImage) {
  std::vector<int> majors(SupportedPostgresMajors().begin(), SupportedPostgresMajors().end());
  EXPECT_EQ(majors, (std::vector<int>{13, 14, 15, 16, 17, 18}));
  for (int major : majors) {
    EXPECT_EQ(DefaultPostgresImage(major),
              "ghcr.io/quorum-dev/postgres:" + std::to_string(major) + "-patroni4");
  }
  EXPECT_FALSE(DefaultPostgresImage(12).has_value());
  EXPECT_FALSE(DefaultPostgresImage(19).has_value());
  EXPECT_FALSE(DefaultPostgresImage(0).has_value());
}

TEST(PostgresClusterRolesTest, IdentifiersAreLowercaseAndShort) {
  for (const char* ok : {"app", "_x", "a1_b",
                         "a23456789012345678901234567890123456789012345678901234"
                         "567890123"}) {
    EXPECT_TRUE(IsPostgresIdentifier(ok)) << ok;
  }
  for (const char* bad : {"", "App", "1a", "my-db", "a b", "é",
                          "a234567890123456789012345678901234567890123456789012345678901234"}) {
    EXPECT_FALSE(IsPostgresIdentifier(bad)) << bad;
  }
}

TEST(PostgresClusterRolesTest, NoPrivilegedOptionIsOffered) {
  auto options = AllowedRoleOptions();
  EXPECT_TRUE(std::is_sorted(options.begin(), options.end()));
  for (const char* privileged : {"SUPERUSER", "REPLICATION", "BYPASSRLS"}) {
    EXPECT_EQ(std::find(options.begin(), options.end(), privileged), options.end()) << privileged;
  }
  // Every attribute comes with its NO form.
  for (std::string_view o : options) {
    const std::string other =
        o.starts_with("NO") ? std::string(o.substr(2)) : "NO" + std::string(o);
    EXPECT_NE(std::find(options.begin(), options.end(), other), options.end()) << o;
  }
}

TEST(EtcdUrlTest, ParsesHostsPortsAndSchemes) {
  struct Case {
    const char* url;
    const char* scheme;
    const char* host_port;
  } cases[] = {
      {"https://etcd-0.etcd.db.svc:2379", "https", "etcd-0.etcd.db.svc:2379"},
      {"http://etcd", "http", "etcd:2379"},
      {"http://127.0.0.1:12379/", "http", "127.0.0.1:12379"},
      {"https://[fd00::1]:2379", "https", "[fd00::1]:2379"},
      {"https://[::1]", "https", "[::1]:2379"},
  };
  for (const Case& c : cases) {
    std::optional<EtcdUrl> url = ParseEtcdUrl(c.url);
    ASSERT_TRUE(url.has_value()) << c.url;
    EXPECT_EQ(url->scheme, c.scheme) << c.url;
    EXPECT_EQ(url->HostPort(), c.host_port) << c.url;
  }
}

TEST(EtcdUrlTest, RefusesAnythingElse) {
  for (const char* bad : {"",
                          "etcd:2379",
                          "ftp://etcd",
                          "https://",
                          "https://:2379",
                          "https://etcd:",
                          "https://etcd:0",
                          "https://etcd:65536",
                          "https://etcd:123456",
                          "https://etcd:23a9",
                          "https://etcd:2379/v3",
                          "https://-etcd",
                          "https://etcd-",
                          "https://et_cd",
                          "https://[fd00::1",
                          "https://[zz::1]",
                          "https://[::1]2379",
                          "https://user@etcd",
                          "HTTPS://etcd",
                          "https://etcd//"}) {
    EXPECT_FALSE(ParseEtcdUrl(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace quorum::api

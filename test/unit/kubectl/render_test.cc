// The renderers against reviewed golden files: the text screen (colour off
// and on) and the JSON document of both kinds. QUORUM_UPDATE_GOLDEN=1
// rewrites testdata/; read the diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "src/kubectl/render_json.h"
#include "src/kubectl/render_text.h"
#include "test/testmain/paths.h"
#include "test/unit/golden.h"
#include "test/unit/kubectl/fixtures.h"

namespace quorum::kubectl {
namespace {

std::string Golden(const std::string& file) {
  return std::string(QUORUM_SOURCE_DIR) + "/test/unit/kubectl/testdata/" + file;
}

void ExpectGoldenText(const std::string& path, const std::string& got) {
  if (std::getenv("QUORUM_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << got;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path;
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str()) << "differs from " << path;
}

EtcdStatusView EtcdView() {
  return BuildEtcdStatusView(fixtures::EtcdCluster(), fixtures::EtcdPods(),
                             fixtures::EtcdBackups());
}

PostgresStatusView PostgresView() {
  return BuildPostgresStatusView(fixtures::PostgresCluster(), fixtures::PostgresPods(),
                                 fixtures::PostgresBackups());
}

TEST(RenderTextTest, EtcdClusterScreen) {
  ExpectGoldenText(Golden("etcd_status.txt"), RenderText(EtcdView(), {.now = fixtures::Now()}));
}

TEST(RenderTextTest, PostgresClusterScreen) {
  ExpectGoldenText(Golden("postgres_status.txt"),
                   RenderText(PostgresView(), {.now = fixtures::Now()}));
}

TEST(RenderTextTest, ColourChangesOnlyTheEscapeCodes) {
  const std::string plain = RenderText(EtcdView(), {.colour = false, .now = fixtures::Now()});
  std::string coloured = RenderText(EtcdView(), {.colour = true, .now = fixtures::Now()});
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(coloured.find("\x1b[31mNotReady\x1b[0m"), std::string::npos);
  for (size_t at; (at = coloured.find('\x1b')) != std::string::npos;) {
    coloured.erase(at, coloured.find('m', at) - at + 1);
  }
  EXPECT_EQ(coloured, plain);
}

TEST(RenderTextTest, AnEmptyClusterSaysSoInsteadOfEmptyTables) {
  api::EtcdCluster cluster;
  cluster.metadata = {.name = "new", .ns = "demo"};
  cluster.spec.replicas = 3;
  const std::string text = RenderText(BuildEtcdStatusView(cluster, {}, {}), {});
  EXPECT_NE(text.find("EtcdCluster demo/new: Pending (0/3 ready)"), std::string::npos) << text;
  EXPECT_NE(text.find("no members in status yet"), std::string::npos) << text;
  EXPECT_NE(text.find("backup    none\n"), std::string::npos) << text;
}

TEST(RenderTextTest, ForbiddenBackupsAreNamedInPlaceOfTheBackupLines) {
  const std::string text = RenderText(
      BuildEtcdStatusView(fixtures::EtcdCluster(), fixtures::EtcdPods(), fixtures::EtcdBackups(),
                          "forbidden: etcdbackups.etcd.aenix.io"),
      {.now = fixtures::Now()});
  EXPECT_NE(text.find("  backup    not readable (forbidden: etcdbackups.etcd.aenix.io)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("last complete"), std::string::npos) << text;
  EXPECT_NE(text.find("etcd-a-0  8e9e05c52164694d  leader"), std::string::npos) << text;
}

TEST(RenderJsonTest, ForbiddenBackupsHaveNoCountAndSayWhy) {
  const nlohmann::json doc = RenderJson(BuildPostgresStatusView(
      fixtures::PostgresCluster(), fixtures::PostgresPods(), fixtures::PostgresBackups(),
      "forbidden: postgresbackups.postgres.quorum.dev"));
  EXPECT_EQ(doc["backups"],
            (nlohmann::json{{"count", nullptr},
                            {"last", nullptr},
                            {"lastComplete", nullptr},
                            {"unreadable", "forbidden: postgresbackups.postgres.quorum.dev"}}));
  EXPECT_EQ(doc["members"].size(), 3u);
}

TEST(RenderJsonTest, EtcdClusterDocument) {
  testing::ExpectGoldenJson(Golden("etcd_status.json"), RenderJson(EtcdView()));
}

TEST(RenderJsonTest, PostgresClusterDocument) {
  testing::ExpectGoldenJson(Golden("postgres_status.json"), RenderJson(PostgresView()));
}

}  // namespace
}  // namespace quorum::kubectl

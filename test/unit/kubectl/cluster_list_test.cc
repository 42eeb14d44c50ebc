// `kubectl quorum status` without a name: the rows built from the typed
// clusters, the verdict of a list, and the table and JSON against golden
// files (QUORUM_UPDATE_GOLDEN=1 rewrites testdata/).
#include "src/kubectl/cluster_list.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test/testmain/paths.h"
#include "test/unit/golden.h"
#include "test/unit/kubectl/fixtures.h"

namespace quorum::kubectl {
namespace {

using fixtures::Json;

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

// etcd-a (NotReady, demo), a Ready etcd-b in "prod", pg-a (Ready, demo).
std::vector<ClusterRow> Rows() {
  Json etcd = fixtures::EtcdClusterJson();
  etcd["metadata"]["creationTimestamp"] = "2026-12-05T16:00:00Z";
  Json ready = etcd;
  ready["metadata"]["name"] = "etcd-b";
  ready["metadata"]["namespace"] = "prod";
  ready["status"]["readyReplicas"] = 3;
  ready["status"]["conditions"][1]["status"] = "True";
  Json pg = fixtures::PostgresClusterJson();
  pg["metadata"]["creationTimestamp"] = "2026-12-06T15:30:00Z";
  return BuildClusterRows({fixtures::EtcdCluster(ready), fixtures::EtcdCluster(etcd)},
                          {fixtures::PostgresCluster(pg)});
}

TEST(ClusterListTest, RowsSayKindPhaseMembersVersionLeaderAndAreSorted) {
  const std::vector<ClusterRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (ClusterRow{.kind = "EtcdCluster",
                                 .ns = "demo",
                                 .name = "etcd-a",
                                 .phase = "NotReady",
                                 .health = Health::kDegraded,
                                 .ready = 2,
                                 .desired = 3,
                                 .version = "3.6.16",
                                 .leader = "etcd-a-0",
                                 .created = "2026-12-05T16:00:00Z"}));
  EXPECT_EQ(rows[1].kind, "PostgresCluster");
  EXPECT_EQ(rows[1].version, "17");
  EXPECT_EQ(rows[1].leader, "pg-a-main-1");
  EXPECT_EQ(rows[2].ns, "prod");
  EXPECT_EQ(rows[2].phase, "Ready");
}

TEST(ClusterListTest, IsHealthyOnlyWhenEveryClusterIs) {
  const std::vector<ClusterRow> rows = Rows();
  struct Case {
    std::vector<ClusterRow> rows;
    Health want;
  } cases[] = {
      {{}, Health::kHealthy},
      {{rows[1], rows[2]}, Health::kHealthy},
      {{rows[1], rows[0]}, Health::kDegraded},
      {rows, Health::kDegraded},
  };
  for (const Case& c : cases) EXPECT_EQ(ListHealth(c.rows), c.want) << c.rows.size();
}

TEST(ClusterListTest, Table) {
  const std::vector<ClusterRow> rows = Rows();
  ExpectGoldenText(
      Golden("cluster_list.txt"),
      RenderListText({rows[0], rows[1]}, false, "namespace demo", {.now = fixtures::Now()}));
  ExpectGoldenText(Golden("cluster_list_all.txt"),
                   RenderListText(rows, true, "any namespace", {.now = fixtures::Now()}));
  EXPECT_EQ(RenderListText({}, false, "namespace demo", {}),
            "No EtcdClusters or PostgresClusters in namespace demo.\n");
}

TEST(ClusterListTest, Document) {
  testing::ExpectGoldenJson(Golden("cluster_list.json"), RenderListJson(Rows()));
}

}  // namespace
}  // namespace quorum::kubectl

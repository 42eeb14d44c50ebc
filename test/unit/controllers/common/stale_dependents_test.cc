// OwnedByEarlier: only a controller reference to the same kind and name with
// another uid marks an object as left by an earlier incarnation.
#include "src/controllers/common/stale_dependents.h"

#include <gtest/gtest.h>

namespace quorum::controllers {
namespace {

using Json = nlohmann::json;

Json WithRef(const std::string& kind, const std::string& name, const std::string& uid,
             bool controller) {
  return {{"metadata",
           {{"name", "x"},
            {"ownerReferences",
             Json::array(
                 {{{"kind", kind}, {"name", name}, {"uid", uid}, {"controller", controller}}})}}}};
}

TEST(StaleDependentsTest, OnlyAControllerReferenceToAnEarlierUidIsStale) {
  const OwnerIdentity owner{.kind = "EtcdCluster", .ns = "db", .name = "q", .uid = "new"};
  struct Case {
    const char* name;
    Json object;
    bool want;
  };
  const std::vector<Case> cases = {
      {"ours", WithRef("EtcdCluster", "q", "new", true), false},
      {"the earlier q's", WithRef("EtcdCluster", "q", "old", true), true},
      {"another cluster's", WithRef("EtcdCluster", "other", "old", true), false},
      {"a cluster whose name starts with q's", WithRef("EtcdCluster", "qq", "old", true), false},
      {"another kind's", WithRef("PostgresCluster", "q", "old", true), false},
      {"not a controller reference", WithRef("EtcdCluster", "q", "old", false), false},
      {"orphaned (no references)", Json{{"metadata", {{"name", "x"}}}}, false},
      {"malformed references", Json{{"metadata", {{"ownerReferences", "junk"}}}}, false},
  };
  for (const Case& c : cases) EXPECT_EQ(OwnedByEarlier(c.object, owner), c.want) << c.name;
}

}  // namespace
}  // namespace quorum::controllers

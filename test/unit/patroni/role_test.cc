#include "src/patroni/role.h"

#include <gtest/gtest.h>

namespace quorum::patroni {
namespace {

struct Case {
  const char* action;
  const char* role;
  std::optional<std::string> label;
};

TEST(RoleTest, MapsEveryPatroniRoleToItsLabel) {
  const Case cases[] = {
      {"on_start", "primary", "primary"},
      {"on_role_change", "standby_leader", "primary"},
      {"on_role_change", "master", "primary"},
      {"on_role_change", "replica", "replica"},
      {"on_role_change", "sync_standby", "replica"},
      {"on_role_change", "quorum_standby", "replica"},
      {"on_start", "standby", "replica"},
      {"on_role_change", "demoted", std::nullopt},
      {"on_role_change", "uninitialized", std::nullopt},
      {"on_role_change", "stopped", std::nullopt},
      {"on_role_change", "", std::nullopt},
      {"on_role_change", "Primary", std::nullopt},
      {"on_stop", "primary", std::nullopt},
      {"on_stop", "replica", std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RoleLabelAfterCallback(c.action, c.role), c.label) << c.action << " " << c.role;
  }
  EXPECT_EQ(RoleLabelValue("primary"), "primary");
  EXPECT_EQ(RoleLabelValue("unknown"), std::nullopt);
}

}  // namespace
}  // namespace quorum::patroni

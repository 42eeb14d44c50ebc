// The update rules of spec.postgresVersion (a major upgrade, docs/upgrades.md):
// declared in postgrescluster_validation_internal.h.
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_types.h"
#include "api/postgrescluster_validation_internal.h"

namespace quorum::api::internal {
namespace {

using Json = nlohmann::json;

std::optional<int> IntAt(const Json* o, const char* key) {
  if (o == nullptr || !o->is_object()) return std::nullopt;
  auto it = o->find(key);
  if (it == o->end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

std::string StringAt(const Json* o, const char* key) {
  if (o == nullptr || !o->is_object()) return "";
  auto it = o->find(key);
  return it != o->end() && it->is_string() ? it->get<std::string>() : "";
}

const Json* ObjectAt(const Json* o, const char* key) {
  if (o == nullptr || !o->is_object()) return nullptr;
  auto it = o->find(key);
  return it != o->end() && it->is_object() ? &*it : nullptr;
}

}  // namespace

void ValidateMajorChange(const Json& spec, const Json* old, ErrorList& errors) {
  const Json* old_spec = ObjectAt(old, "spec");
  const std::optional<int> to = IntAt(&spec, "postgresVersion");
  const std::optional<int> before = IntAt(old_spec, "postgresVersion");
  if (!to.has_value() || !before.has_value() || *to == *before) return;
  const Json* status = ObjectAt(old, "status");
  const Json* upgrade = ObjectAt(status, "majorUpgrade");
  const std::string phase = StringAt(upgrade, "phase");
  const char* field = "spec.postgresVersion";
  if (upgrade != nullptr && phase != kUpgradeSucceeded && phase != kUpgradeFailed) {
    errors.Add(field, absl::StrCat("cannot change while the major upgrade from ",
                                   IntAt(upgrade, "from").value_or(0), " to ",
                                   IntAt(upgrade, "to").value_or(0), " is ", phase,
                                   " (status.majorUpgrade); change it once it has succeeded "
                                   "or failed"));
    return;
  }
  // The data's major: status.postgresVersion, else the spec's (an operator
  // before major upgrades never let it change).
  const int data = IntAt(status, "postgresVersion").value_or(*before);
  if (*to < data) {
    errors.Add(field, absl::StrCat("cannot go down from ", data, " to ", *to,
                                   ": the members' data is at PostgreSQL ", data,
                                   " and a major downgrade is not possible; restore a backup "
                                   "taken before the upgrade into a new PostgresCluster"));
    return;
  }
  if (*to == data) return;  // back to the data's major: an upgrade that failed, given up
  if (const Json* backups = ObjectAt(&spec, "backups");
      backups != nullptr && ObjectAt(backups, "pgbackrest") != nullptr) {
    errors.Add(field, absl::StrCat("a major upgrade of a cluster with spec.backups.pgbackrest "
                                   "is not supported yet (its pgBackRest stanza would need "
                                   "upgrading with the data); keep ",
                                   data,
                                   ", or restore a backup into a new PostgresCluster and "
                                   "move the data with pg_dump"));
    return;
  }
  if (!DefaultPostgresImage(*to).has_value()) return;  // the range rule says it
  const std::string image = StringAt(&spec, "image");
  const std::string old_image = StringAt(old_spec, "image");
  if (!image.empty() && image == old_image) {
    errors.Add("spec.image",
               absl::StrCat("still names the image of PostgreSQL ", data, " (", image,
                            "): a major upgrade to ", *to, " needs an image of ", *to,
                            " that also carries ", data,
                            "'s binaries for pg_upgrade; name one, or leave spec.image "
                            "empty for the default"));
    return;
  }
  if (image.empty() && !DefaultImageUpgradesFrom(*to, data)) {
    errors.Add(field, absl::StrCat("the default image of PostgreSQL ", *to, " cannot upgrade from ",
                                   data, " (", DefaultUpgradeSources(*to),
                                   "); set spec.image to an image of ", *to, " that carries ", data,
                                   "'s binaries, or upgrade through a major it supports"));
  }
}

}  // namespace quorum::api::internal

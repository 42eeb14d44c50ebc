// The cluster a command names on its command line: "KIND/NAME" (kinds as
// kubectl spells them: etcdcluster, etcdclusters, ec, and the full
// resource.group; postgrescluster, postgresclusters, pg likewise) or a bare
// NAME (then the kind is found by looking: see fetch.h).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_KUBECTL_TARGET_H_
#define QUORUM_SRC_KUBECTL_TARGET_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace quorum::kubectl {

enum class Kind { kAny, kEtcdCluster, kPostgresCluster };

struct Target {
  Kind kind = Kind::kAny;
  std::string name;
  bool operator==(const Target&) const = default;
};

// Errors: InvalidArgument for an empty name, an unknown kind or more than
// one '/' (the message says what is accepted).
absl::StatusOr<Target> ParseTarget(std::string_view arg);

// "EtcdCluster", "PostgresCluster", "cluster".
std::string KindName(Kind kind);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_TARGET_H_

#include "src/kubectl/target.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace quorum::kubectl {
namespace {

constexpr char kAccepted[] =
    "want KIND/NAME or NAME, KIND one of etcdcluster (ec) or postgrescluster (pg)";

bool IsEtcd(const std::string& k) {
  return k == "etcdcluster" || k == "etcdclusters" || k == "ec" ||
         k == "etcdcluster.etcd.aenix.io" || k == "etcdclusters.etcd.aenix.io";
}

bool IsPostgres(const std::string& k) {
  return k == "postgrescluster" || k == "postgresclusters" || k == "pg" ||
         k == "postgrescluster.postgres.quorum.dev" || k == "postgresclusters.postgres.quorum.dev";
}

}  // namespace

absl::StatusOr<Target> ParseTarget(std::string_view arg) {
  Target t;
  const size_t slash = arg.find('/');
  std::string_view name = arg;
  if (slash != std::string_view::npos) {
    const std::string kind = absl::AsciiStrToLower(std::string(arg.substr(0, slash)));
    name = arg.substr(slash + 1);
    if (IsEtcd(kind)) {
      t.kind = Kind::kEtcdCluster;
    } else if (IsPostgres(kind)) {
      t.kind = Kind::kPostgresCluster;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown kind \"", kind, "\": ", kAccepted));
    }
  }
  if (name.empty() || name.find('/') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad cluster \"", std::string(arg), "\": ", kAccepted));
  }
  t.name = std::string(name);
  return t;
}

std::string KindName(Kind kind) {
  switch (kind) {
    case Kind::kEtcdCluster:
      return "EtcdCluster";
    case Kind::kPostgresCluster:
      return "PostgresCluster";
    case Kind::kAny:
      break;
  }
  return "cluster";
}

}  // namespace quorum::kubectl

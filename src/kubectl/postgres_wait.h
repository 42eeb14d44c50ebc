// Waiting for the operator's answer to a request written into a
// PostgresCluster (a switchover or restore trigger): each version of the
// cluster is decoded and asked for the final record of the request.
//
// Thread-safety: as WaitForObject (wait.h).
#ifndef QUORUM_SRC_KUBECTL_POSTGRES_WAIT_H_
#define QUORUM_SRC_KUBECTL_POSTGRES_WAIT_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "src/kube/client.h"
#include "src/kubectl/wait.h"

namespace quorum::kubectl {

// The cluster as last seen and the final record (nullopt: none within `wait`).
template <typename Record>
struct PostgresAnswer {
  api::PostgresCluster last;
  std::optional<Record> record;
};

// Waits until `final_of` finds a record in the PostgresCluster `name`.
// Errors: as WaitForObject; DataLoss when the last version does not decode.
template <typename Record>
absl::StatusOr<PostgresAnswer<Record>> WaitForPostgresAnswer(
    kube::Client& client, const std::string& ns, const std::string& name,
    const std::function<std::optional<Record>(const api::PostgresCluster&)>& final_of,
    absl::Duration wait) {
  auto record_of = [&](const nlohmann::json& obj) -> std::optional<Record> {
    absl::StatusOr<api::PostgresCluster> c = api::DecodePostgresCluster(obj);
    return c.ok() ? final_of(*c) : std::nullopt;
  };
  absl::StatusOr<WaitResult> waited = WaitForObject(
      client, controllers::kPostgresClusters, ns, name,
      [&](const nlohmann::json& obj) { return record_of(obj).has_value(); }, wait);
  if (!waited.ok()) return waited.status();
  absl::StatusOr<api::PostgresCluster> last = api::DecodePostgresCluster(waited->object);
  if (!last.ok()) return absl::DataLossError(last.status().message());
  std::optional<Record> record = final_of(*last);
  return PostgresAnswer<Record>{*std::move(last), std::move(record)};
}

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_POSTGRES_WAIT_H_

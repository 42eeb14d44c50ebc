// Patroni's dynamic configuration (the DCS `config` key: ttl, loop_wait,
// retry_timeout, postgresql.parameters, pg_hba, ...) after bootstrap.
// `bootstrap.dcs` in the configuration file is read once, when the cluster is
// initialised; later edits of the spec reach a running cluster only through
// Patroni's PATCH /config. These pure functions plan that patch.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_PATRONI_DYNAMIC_CONFIG_H_
#define QUORUM_SRC_PATRONI_DYNAMIC_CONFIG_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace quorum::patroni {

// The JSON merge patch (RFC 7386, what PATCH /config takes) that makes every
// value `desired` names hold in `current`: objects are compared key by key,
// anything else (numbers, strings, arrays such as pg_hba) as a whole; a
// `null` in `desired` removes the key where `current` has one. Keys of
// `current` that `desired` does not name are left alone (Patroni's own
// defaults, values set by hand). An empty object: nothing to change.
nlohmann::json DynamicConfigPatch(const nlohmann::json& desired, const nlohmann::json& current);

// The dotted paths of a patch's leaves, sorted, e.g. {"loop_wait",
// "postgresql.parameters.work_mem"}: what an event names (values may be
// anything the user wrote, so they are not listed).
std::vector<std::string> PatchPaths(const nlohmann::json& patch);

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_DYNAMIC_CONFIG_H_

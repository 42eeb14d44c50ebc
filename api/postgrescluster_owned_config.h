// What spec.patroni.dynamicConfiguration may not set: the parts of Patroni's
// dynamic configuration that Quorum owns because security, replication,
// backups or the members' layout depend on them. Each has a supported field
// instead, or none (Quorum decides):
//
//   * ttl, loop_wait, retry_timeout: spec.patroni.leaderLeaseDurationSeconds,
//     syncPeriodSeconds, retryTimeoutSeconds;
//   * postgresql.pg_hba: spec.authentication.rules (placed after Quorum's
//     rules for its own roles, before the catch-all);
//   * any other postgresql.* key than parameters and pg_ident (use_slots,
//     use_pg_rewind, authentication, data_dir, bin_dir, listen, ...);
//   * standby_cluster (not supported yet), and the local-only sections
//     (restapi, ctl, etcd3, kubernetes, bootstrap, tags, scope, namespace,
//     name, watchdog);
//   * postgresql.parameters: ssl and every ssl_* (spec.tls) except
//     ssl_min_protocol_version TLSv1.2 or TLSv1.3; archive_mode,
//     archive_command, archive_library, restore_command,
//     archive_cleanup_command, recovery_end_command, recovery_target*,
//     primary_conninfo, primary_slot_name, promote_trigger_file
//     (spec.backups); listen_addresses, port, unix_socket_* ; data_directory,
//     config_file, hba_file, ident_file, external_pid_file; and values that
//     break replication or weaken passwords: wal_level other than replica or
//     logical, hot_standby other than on, password_encryption other than
//     scram-sha-256.
//
// Admission refuses a key on create, and on update when its value is new or
// changed (an object stored before these rules keeps being writable: its key
// is ignored, with a warning). The reconciler never applies an owned key:
// StripOwnedDynamicConfiguration removes them before Quorum's values are
// merged, so Quorum's own values (pg_hba, archive_command) hold.
//
// Thread-safety: pure functions. Never throw, whatever the JSON holds.
#ifndef QUORUM_API_POSTGRESCLUSTER_OWNED_CONFIG_H_
#define QUORUM_API_POSTGRESCLUSTER_OWNED_CONFIG_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/field_error.h"

namespace quorum::api {

// One owned key found in a dynamic configuration.
struct OwnedConfigKey {
  // Path inside dynamicConfiguration, as its keys, e.g. {"postgresql",
  // "parameters", "ssl"}.
  std::vector<std::string> path;
  // Why it is owned and what to use instead.
  std::string reason;
  // "spec.patroni.dynamicConfiguration.postgresql.parameters.ssl".
  std::string Field() const;
};

// Every owned key `dynamic` sets (an object; anything else has none), in
// document order.
std::vector<OwnedConfigKey> FindOwnedConfigKeys(const nlohmann::json& dynamic);

// Removes every owned key from `dynamic` (in place) and returns their paths.
std::vector<OwnedConfigKey> StripOwnedDynamicConfiguration(nlohmann::json& dynamic);

// Admission only (the reconciler's parse does not apply it): an error naming
// each owned key of obj's spec.patroni.dynamicConfiguration that `old` (the
// stored object on update, null on create) does not hold with the same value.
std::vector<FieldError> ValidateOwnedDynamicConfiguration(const nlohmann::json& obj,
                                                          const nlohmann::json* old);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_OWNED_CONFIG_H_

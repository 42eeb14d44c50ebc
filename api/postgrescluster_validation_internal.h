// Internal to api/: the pieces postgrescluster_validation.cc shares with the
// files that hold the rest of the PostgresCluster rules
// (postgrescluster_patroni_validation.cc, postgrescluster_users_validation.cc).
//
// Thread-safety: pure functions; an ErrorList belongs to one validation.
#ifndef QUORUM_API_POSTGRESCLUSTER_VALIDATION_INTERNAL_H_
#define QUORUM_API_POSTGRESCLUSTER_VALIDATION_INTERNAL_H_

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/field_error.h"

namespace quorum::api::internal {

// Where the rules put their findings.
class ErrorList {
 public:
  explicit ErrorList(std::vector<FieldError>& errors) : errors_(errors) {}
  void Add(std::string field, std::string message) {
    errors_.push_back({std::move(field), std::move(message)});
  }

 private:
  std::vector<FieldError>& errors_;
};

// "base[i]", as kubectl names a list element.
std::string IndexedField(std::string_view base, size_t i);

// The DCS type as the rules see it: absent (or empty) means kubernetes.
std::string DcsType(const nlohmann::json* spec);

// spec.patroni: timings, dynamicConfiguration, podAPIAccess, the DCS (and its
// immutability against `old_spec`, null on create) and switchover.
void ValidatePatroni(const nlohmann::json& spec, const nlohmann::json* old_spec, ErrorList& errors);

// spec.users: names, databases and options; `major` is the valid
// postgresVersion, if any (CREATEROLE depends on it).
void ValidateUsers(const nlohmann::json& spec, std::optional<int> major, ErrorList& errors);

// spec.postgresVersion on update against `old` (the stored object, status
// included; null on create): a major upgrade goes up only, from a major the
// image can upgrade from (the default images: DefaultImageUpgradesFrom), not
// while one is under way (status.majorUpgrade), and may go back down only to
// the data's major (status.postgresVersion: an upgrade that failed).
void ValidateMajorChange(const nlohmann::json& spec, const nlohmann::json* old,
                         ErrorList& errors);

// spec.tls (Secret names; customSecret and caSecret exclude each other).
void ValidateTls(const nlohmann::json& spec, ErrorList& errors);

// spec.authentication.rules: pg_hba lines as typed fields, each token one
// PostgreSQL reads as written (no quotes, spaces, commas, @file or /regex).
void ValidateAuthentication(const nlohmann::json& spec, ErrorList& errors);

// spec.backups.pgbackrest: repos (names, S3 fields or a volume; on update
// against `old_spec`, or null: no repository changes between s3 and volume,
// no volume shrinks; a volume needs a cluster name short enough for the
// repository host), configuration (Secret
// names) and global (option names and one-line values; keys Quorum owns, keys
// holding secrets and keys naming a repo that is not listed are refused).
void ValidateBackups(const nlohmann::json& spec, const nlohmann::json* old_spec,
                     const std::string& cluster_name, ErrorList& errors);
// spec.dataSource.pgbackrest: the repository (as a backups repo), its
// configuration and global options, where it is (clusterName or repoN-path),
// the backup set and at most one target (RFC 3339 time, LSN, xid).
// Immutable: refused when added to, changed on or removed from `old_spec`.
// An update that gives the restore annotation (kRestoreTriggerAnnotation) a
// new value needs spec.backups.pgbackrest.restore.enabled: otherwise the
// trigger would be ignored. While a restore runs (the old object's status
// says Stopping or Restoring), spec.backups.pgbackrest.restore changes only
// with a new trigger. Creates are not checked (the reconciler parses objects
// without their old version).
void ValidateRestoreTrigger(const nlohmann::json& obj, const nlohmann::json* old,
                            ErrorList& errors);
void ValidateDataSource(const nlohmann::json& spec, const nlohmann::json* old_spec,
                        ErrorList& errors);

}  // namespace quorum::api::internal

#endif  // QUORUM_API_POSTGRESCLUSTER_VALIDATION_INTERNAL_H_

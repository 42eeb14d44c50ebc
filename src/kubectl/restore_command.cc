#include "src/kubectl/restore_command.h"

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "src/kubectl/backup_command.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/fetch.h"
#include "src/kubectl/postgres_wait.h"
#include "src/kubectl/switchover_command.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

Json OrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

std::string TargetText(const api::PgBackRestRestoreTarget& t) {
  if (!t.time.empty()) return "time " + t.time;
  if (!t.lsn.empty()) return "LSN " + t.lsn;
  if (!t.xid.empty()) return "xid " + t.xid;
  return "the end of the archived WAL";
}

}  // namespace

absl::Status ValidateRestoreOptions(const RestoreOptions& o) {
  if (o.target.kind == Kind::kEtcdCluster) {
    return absl::InvalidArgumentError(
        absl::StrCat("restore is for PostgresClusters: ", o.target.name,
                     " is named as an EtcdCluster (a new EtcdCluster restores with "
                     "spec.bootstrap.restore: docs/backup.md)"));
  }
  const int targets = !o.to.time.empty() + !o.to.lsn.empty() + !o.to.xid.empty();
  if (targets > 1) return absl::InvalidArgumentError("at most one of --time, --lsn and --xid");
  if (!o.yes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an in-place restore takes PostgresCluster ", o.target.name, " back to ", TargetText(o.to),
        ": every member stops, and what was written after that is lost; "
        "pass --yes to go on"));
  }
  return absl::OkStatus();
}

Json BuildRestorePatch(const RestoreOptions& o, const std::string& repo,
                       const std::string& trigger) {
  Json target = nullptr;
  if (!o.to.time.empty() || !o.to.lsn.empty() || !o.to.xid.empty()) {
    target = {{"time", OrNull(o.to.time)}, {"lsn", OrNull(o.to.lsn)}, {"xid", OrNull(o.to.xid)}};
  }
  return {{"metadata", {{"annotations", {{std::string(api::kRestoreTriggerAnnotation), trigger}}}}},
          {"spec",
           {{"backups",
             {{"pgbackrest",
               {{"restore",
                 {{"enabled", true},
                  {"repoName", repo},
                  {"set", OrNull(o.set)},
                  {"target", target}}}}}}}}}};
}

std::optional<api::PgBackRestRestoreStatus> FinalRestoreRecord(const api::PostgresCluster& cluster,
                                                               const std::string& trigger) {
  const auto& record = cluster.status.restore;
  if (!record || record->id != trigger) return std::nullopt;
  if (record->phase != api::kRestoreSucceeded && record->phase != api::kRestoreFailed) {
    return std::nullopt;
  }
  return record;
}

CommandOutput RestoreOutcome(const std::string& name,
                             const std::optional<api::PgBackRestRestoreStatus>& record,
                             const api::PostgresCluster& last, absl::Duration waited) {
  CommandOutput out{.exit_code = kExitDegraded};
  if (!record) {
    out.text = absl::StrCat("restore of PostgresCluster ", name, ": not finished after ",
                            absl::FormatDuration(waited));
    if (const auto& seen = last.status.restore) {
      absl::StrAppend(&out.text, " (", seen->phase.empty() ? "not started" : seen->phase,
                      seen->message.empty() ? "" : ": " + seen->message, ")");
    }
    absl::StrAppend(&out.text, "\n");
    return out;
  }
  if (record->phase == api::kRestoreSucceeded) out.exit_code = kExitHealthy;
  out.text = absl::StrCat("restore of PostgresCluster ", name, ": ", record->phase, "\n");
  if (!record->message.empty()) absl::StrAppend(&out.text, "  ", record->message, "\n");
  return out;
}

absl::StatusOr<CommandOutput> RunRestore(kube::Client& client, const RestoreOptions& o) {
  if (absl::Status s = ValidateRestoreOptions(o); !s.ok()) return s;
  absl::StatusOr<FoundCluster> found =
      FindCluster(client, o.ns, Target{Kind::kPostgresCluster, o.target.name});
  if (!found.ok()) return found.status();
  absl::StatusOr<api::PostgresCluster> cluster = api::DecodePostgresCluster(found->object);
  if (!cluster.ok()) return absl::DataLossError(cluster.status().message());
  absl::StatusOr<std::string> repo = ChooseBackupRepo(*cluster, o.repo);
  if (!repo.ok()) return repo.status();
  // The trigger's form is the switchover's: unique to the request.
  const std::string trigger = NewSwitchoverTrigger(o.now);
  const std::string& name = o.target.name;
  absl::StatusOr<Json> patched =
      client.Patch(controllers::kPostgresClusters, o.ns, name, kube::PatchType::kMerge,
                   BuildRestorePatch(o, *repo, trigger));
  if (!patched.ok()) return patched.status();
  if (o.wait <= absl::ZeroDuration()) {
    return CommandOutput{.text = absl::StrCat("restore of PostgresCluster ", name, " to ",
                                              TargetText(o.to), " from ", *repo,
                                              " requested (trigger ", trigger, ")\n")};
  }
  absl::StatusOr<PostgresAnswer<api::PgBackRestRestoreStatus>> answer =
      WaitForPostgresAnswer<api::PgBackRestRestoreStatus>(
          client, o.ns, name,
          [&](const api::PostgresCluster& c) { return FinalRestoreRecord(c, trigger); }, o.wait);
  if (!answer.ok()) return answer.status();
  return RestoreOutcome(name, answer->record, answer->last, o.wait);
}

}  // namespace quorum::kubectl

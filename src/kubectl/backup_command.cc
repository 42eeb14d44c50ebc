#include "src/kubectl/backup_command.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/fetch.h"
#include "src/kubectl/text_table.h"
#include "src/kubectl/wait.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

std::string Ref(const std::string& name) { return "postgresbackup/" + name; }

// The message of the Failed condition, else the reason of any condition.
std::string FailureText(const api::PostgresBackup& b) {
  for (const api::Condition& c : b.status.conditions) {
    if (c.type == "Failed" && !c.message.empty()) return c.message;
  }
  for (const api::Condition& c : b.status.conditions) {
    if (!c.reason.empty()) return c.reason;
  }
  return "";
}

}  // namespace

absl::Status ValidateBackupOptions(const BackupOptions& o) {
  if (o.type != api::kBackupTypeFull && o.type != api::kBackupTypeDiff &&
      o.type != api::kBackupTypeIncr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--type \"", o.type, "\": want full, diff or incr"));
  }
  return absl::OkStatus();
}

std::string BackupObjectName(const std::string& cluster, absl::Time now) {
  return cluster + "-" + absl::FormatTime("%Y%m%d-%H%M%S", now, absl::UTCTimeZone());
}

absl::StatusOr<std::string> ChooseBackupRepo(const api::PostgresCluster& cluster,
                                             const std::string& requested) {
  const std::string& name = cluster.metadata.name;
  std::vector<std::string> repos;
  if (cluster.spec.backups.pgbackrest) {
    for (const api::PgBackRestRepo& r : cluster.spec.backups.pgbackrest->repos) {
      repos.push_back(r.name);
    }
  }
  if (repos.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PostgresCluster ", name, " has no backup repository (spec.backups.pgbackrest.repos)"));
  }
  if (requested.empty()) return repos.front();
  for (const std::string& r : repos) {
    if (r == requested) return r;
  }
  return absl::InvalidArgumentError(absl::StrCat("PostgresCluster ", name, " has no repository \"",
                                                 requested, "\" (it has ",
                                                 absl::StrJoin(repos, ", "), ")"));
}

Json BuildPostgresBackup(const std::string& name, const std::string& cluster,
                         const std::string& repo, const std::string& type) {
  return {{"apiVersion", std::string(api::kPostgresApiVersion)},
          {"kind", std::string(api::kPostgresBackupKind)},
          {"metadata", {{"name", name}}},
          {"spec", {{"clusterRef", {{"name", cluster}}}, {"repoName", repo}, {"type", type}}}};
}

bool BackupFinished(const api::PostgresBackup& b) {
  return b.status.phase == api::kBackupComplete || b.status.phase == api::kBackupFailed;
}

CommandOutput BackupOutcome(const api::PostgresBackup& b, bool finished, absl::Duration waited) {
  const std::string ref = Ref(b.metadata.name);
  if (!finished) {
    return {
        .text = absl::StrCat(ref, ": not finished after ", absl::FormatDuration(waited), " (phase ",
                             b.status.phase.empty() ? "none yet" : b.status.phase, ")\n"),
        .exit_code = kExitDegraded};
  }
  if (b.status.phase == api::kBackupFailed) {
    const std::string why = FailureText(b);
    return {.text = absl::StrCat(ref, ": Failed", why.empty() ? "" : ": " + why, "\n"),
            .exit_code = kExitDegraded};
  }
  std::string text = absl::StrCat(ref, ": Complete");
  if (const auto& info = b.status.backup) {
    absl::StrAppend(&text, " (", info->label, ", ", info->type, " in ", info->repo, ", ",
                    HumanBytes(info->size), ")");
  }
  return {.text = text + "\n", .exit_code = kExitHealthy};
}

absl::StatusOr<CommandOutput> RunBackup(kube::Client& client, const BackupOptions& o) {
  if (absl::Status s = ValidateBackupOptions(o); !s.ok()) return s;
  absl::StatusOr<FoundCluster> found = FindCluster(client, o.ns, o.target);
  if (!found.ok()) return found.status();
  if (found->kind == Kind::kEtcdCluster) {
    return absl::InvalidArgumentError(absl::StrCat(
        "backup of EtcdCluster ", o.target.name,
        " is not supported yet: write an EtcdBackup with its destination (docs/backup.md)"));
  }
  absl::StatusOr<api::PostgresCluster> cluster = api::DecodePostgresCluster(found->object);
  if (!cluster.ok()) return absl::DataLossError(cluster.status().message());
  absl::StatusOr<std::string> repo = ChooseBackupRepo(*cluster, o.repo);
  if (!repo.ok()) return repo.status();
  const std::string name = BackupObjectName(o.target.name, o.now);
  absl::StatusOr<Json> created = client.Create(
      controllers::kPostgresBackups, o.ns, BuildPostgresBackup(name, o.target.name, *repo, o.type));
  if (!created.ok()) return created.status();
  CommandOutput out{.text =
                        absl::StrCat(Ref(name), " created (", o.type, " backup of PostgresCluster ",
                                     o.target.name, " into ", *repo, ")\n")};
  if (!o.wait) return out;
  auto decode = [](const Json& obj) { return api::ParsePostgresBackup(obj); };
  absl::StatusOr<WaitResult> waited = WaitForObject(
      client, controllers::kPostgresBackups, o.ns, name,
      [&](const Json& obj) {
        absl::StatusOr<api::PostgresBackup> b = decode(obj);
        return b.ok() && BackupFinished(*b);
      },
      o.timeout);
  if (!waited.ok()) return waited.status();
  absl::StatusOr<api::PostgresBackup> last = decode(waited->object);
  if (!last.ok()) return absl::DataLossError(last.status().message());
  CommandOutput outcome = BackupOutcome(*last, waited->done, o.timeout);
  outcome.text = out.text + outcome.text;
  return outcome;
}

}  // namespace quorum::kubectl

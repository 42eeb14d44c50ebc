#include "src/kubectl/switchover_command.h"

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/postgres_wait.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

// The operator's result while a Switchover's candidate does not stream yet
// (status.patroni.switchover.result; postgrescluster/switchover_plan.h).
constexpr char kWaiting[] = "Waiting";
constexpr char kSucceeded[] = "Succeeded";

std::string Moved(const api::PostgresSwitchoverStatus& r) {
  if (r.from.empty() && r.to.empty()) return "";
  return absl::StrCat(" (", r.from.empty() ? "?" : r.from, " -> ", r.to.empty() ? "?" : r.to, ")");
}

}  // namespace

absl::Status ValidateSwitchoverOptions(const SwitchoverOptions& o) {
  if (o.target.kind == Kind::kEtcdCluster) {
    return absl::InvalidArgumentError(absl::StrCat(
        "switchover is for PostgresClusters: ", o.target.name, " is named as an EtcdCluster"));
  }
  if (o.failover && o.to.empty()) {
    return absl::InvalidArgumentError("--failover needs --to POD: the member to promote");
  }
  return absl::OkStatus();
}

std::string NewSwitchoverTrigger(absl::Time now) {
  return "kubectl-" + absl::FormatTime("%Y%m%dT%H%M%E3SZ", now, absl::UTCTimeZone());
}

Json BuildSwitchoverPatch(const SwitchoverOptions& o, const std::string& trigger) {
  return {
      {"metadata", {{"annotations", {{std::string(api::kSwitchoverTriggerAnnotation), trigger}}}}},
      {"spec",
       {{"patroni",
         {{"switchover",
           {{"enabled", true},
            {"targetInstance", o.to.empty() ? Json(nullptr) : Json(o.to)},
            {"type", o.failover ? "Failover" : "Switchover"}}}}}}}};
}

std::optional<api::PostgresSwitchoverStatus> FinalSwitchoverRecord(
    const api::PostgresCluster& cluster, const std::string& trigger) {
  const auto& record = cluster.status.patroni.switchover;
  if (!record || record->trigger != trigger || record->result == kWaiting) return std::nullopt;
  return record;
}

CommandOutput SwitchoverOutcome(const std::string& name,
                                const std::optional<api::PostgresSwitchoverStatus>& record,
                                const api::PostgresCluster& last, absl::Duration waited) {
  CommandOutput out{.exit_code = kExitDegraded};
  if (!record) {
    out.text = absl::StrCat("switchover of PostgresCluster ", name, ": no result after ",
                            absl::FormatDuration(waited));
    const auto& seen = last.status.patroni.switchover;
    if (seen && seen->result == kWaiting)
      absl::StrAppend(&out.text, " (Waiting: ", seen->message, ")");
    absl::StrAppend(&out.text, "\n");
    return out;
  }
  if (record->result == kSucceeded) out.exit_code = kExitHealthy;
  out.text = absl::StrCat(record->type.empty() ? "Switchover" : record->type,
                          " of PostgresCluster ", name, ": ", record->result, Moved(*record), "\n");
  if (!record->message.empty()) absl::StrAppend(&out.text, "  ", record->message, "\n");
  return out;
}

absl::StatusOr<CommandOutput> RunSwitchover(kube::Client& client, const SwitchoverOptions& o) {
  if (absl::Status s = ValidateSwitchoverOptions(o); !s.ok()) return s;
  const std::string& name = o.target.name;
  const std::string trigger = NewSwitchoverTrigger(o.now);
  absl::StatusOr<Json> patched =
      client.Patch(controllers::kPostgresClusters, o.ns, name, kube::PatchType::kMerge,
                   BuildSwitchoverPatch(o, trigger));
  if (absl::IsNotFound(patched.status())) {
    return absl::NotFoundError(
        absl::StrCat("PostgresCluster \"", name, "\" not found in namespace ", o.ns));
  }
  if (!patched.ok()) return patched.status();
  if (o.wait <= absl::ZeroDuration()) {
    return CommandOutput{.text = absl::StrCat("switchover of PostgresCluster ", name,
                                              " requested (trigger ", trigger, ")\n")};
  }
  absl::StatusOr<PostgresAnswer<api::PostgresSwitchoverStatus>> answer =
      WaitForPostgresAnswer<api::PostgresSwitchoverStatus>(
          client, o.ns, name,
          [&](const api::PostgresCluster& c) { return FinalSwitchoverRecord(c, trigger); }, o.wait);
  if (!answer.ok()) return answer.status();
  return SwitchoverOutcome(name, answer->record, answer->last, o.wait);
}

}  // namespace quorum::kubectl

// The steps of an in-place restore while members run: Checking
// (restore_check.h), acted on through the primary, and the end of Restoring
// (PostgresClusterReconciler::RestoreStepOnMembers).
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/pg_connection.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgrescluster/restore.h"
#include "src/controllers/postgrescluster/restore_check.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/controllers/postgrescluster/users.h"
#include "src/patroni/pgbackrest.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

namespace {

std::optional<absl::Time> TimeOf(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  if (rfc3339.empty() || !absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) {
    return std::nullopt;
  }
  return t;
}

// pg_stat_archiver's times as RFC 3339 in UTC ("" when NULL).
constexpr char kArchiverRow[] =
    "SELECT coalesce(last_archived_wal, ''), "
    "coalesce(to_char(last_archived_time AT TIME ZONE 'UTC', "
    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), ''), coalesce(last_failed_wal, ''), "
    "coalesce(to_char(last_failed_time AT TIME ZONE 'UTC', "
    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), '') FROM pg_stat_archiver";

// The backup labels of repository `repo`, asked through the primary:
// pgBackRest's output lands in a temporary table, a line per row (CSV with
// delimiter and quote characters its JSON never holds, so lines arrive as
// printed).
absl::StatusOr<std::vector<std::string>> AskBackupLabels(const PostgresTarget& target, int repo) {
  absl::StatusOr<std::unique_ptr<PgConnection>> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  PgConnection& pg = **conn;
  const std::string command =
      BackupInfoCommand(patroni::CommandOptions(kPgBackRestConfigFile,
                                                patroni::kPgBackRestIncludeDir, kPgBackRestStanza),
                        repo);
  if (absl::Status s = pg.Exec("CREATE TEMP TABLE quorum_backup_info(line text)"); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          pg.Exec(absl::StrCat("COPY quorum_backup_info FROM PROGRAM ", pg.Literal(command),
                               " WITH (FORMAT csv, DELIMITER E'\\x01', "
                               "QUOTE E'\\x02')"));
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("pgbackrest info: ", s.message()));
  }
  absl::StatusOr<std::vector<PgRow>> rows =
      pg.Query("SELECT coalesce(string_agg(line, E'\\n'), '') FROM quorum_backup_info");
  if (!rows.ok()) return rows.status();
  if (rows->empty() || rows->front().empty() || !rows->front()[0].has_value()) {
    return absl::InternalError("pgbackrest info printed nothing");
  }
  return BackupLabels(*rows->front()[0]);
}

}  // namespace

absl::StatusOr<ArchiverView> PostgresClusterReconciler::AskArchiver(const Phase& ctx,
                                                                    const Observed& observed,
                                                                    const std::string& ca_pem) {
  const std::string& primary = observed.members.primary;
  if (primary.empty()) return absl::UnavailableError("no primary runs");
  std::string address;
  for (const ObjectPtr& pod : observed.pods) {
    if (Str(At(*pod, {"metadata", "name"})) == primary)
      address = Str(At(*pod, {"status", "podIP"}));
  }
  if (address.empty()) return absl::UnavailableError("primary " + primary + " has no address");
  ObjectPtr secret = ctx.cache.Get(kSecrets, ctx.n.ns, ctx.n.superuser_secret);
  std::string password;
  const Json& encoded = secret ? At(*secret, {"data", "password"}) : Json();
  if (!encoded.is_string() || !absl::Base64Unescape(encoded.get<std::string>(), &password)) {
    return absl::UnavailableError("Secret " + ctx.n.superuser_secret + " holds no password");
  }
  const PostgresTarget target{.host = MemberDnsName(ctx.cluster, primary),
                              .hostaddr = address,
                              .port = kPostgresPort,
                              .user = std::string(api::kSuperuserName),
                              .password = password,
                              .ca_pem = ca_pem};
  const std::string key = ctx.n.ns + "/" + ctx.n.cluster;
  const std::string id = ctx.cluster.status.restore->id;
  std::string switched;
  {
    absl::MutexLock lock(&mu_);
    auto it = restore_switched_.find(key);
    if (it != restore_switched_.end() && it->second.first == id) switched = it->second.second;
  }
  std::vector<std::string> sql;
  // Once per trigger: close the segment being written, so that everything
  // committed until now goes to the archive (PostgreSQL switches only when
  // something was written since the last switch).
  if (switched.empty()) sql.push_back("SELECT pg_walfile_name(pg_switch_wal())");
  sql.push_back(kArchiverRow);
  absl::StatusOr<std::vector<std::vector<std::string>>> rows = QueryFirstRows(target, sql);
  if (!rows.ok()) return rows.status();
  if (switched.empty()) {
    switched = rows->front().at(0);
    absl::MutexLock lock(&mu_);
    restore_switched_[key] = {id, switched};
  }
  const std::vector<std::string>& a = rows->back();
  ArchiverView view{.switched = switched,
                    .last_archived = a.at(0),
                    .last_archived_at = TimeOf(a.at(1)),
                    .last_failed = a.at(2),
                    .last_failed_at = TimeOf(a.at(3))};
  const std::optional<api::PgBackRestSpec>& pgbr = ctx.cluster.spec.backups.pgbackrest;
  if (pgbr.has_value() && pgbr->restore.has_value() && !pgbr->restore->set.empty()) {
    view.backup_labels = AskBackupLabels(target, InPlaceRestoreRepo(ctx.cluster));
  }
  return view;
}

std::optional<absl::Duration> PostgresClusterReconciler::RestoreStepOnMembers(
    const runtime::Request& req, const Phase& ctx, PostgresCluster& cluster,
    const Observed& observed, const TlsState& tls) {
  if (RestoreIn(cluster, api::kRestoreRestoring) && observed.members.primary_ready) {
    FinishRestore(req, ctx, cluster, observed.members.primary);
    return std::nullopt;
  }
  if (!RestoreIn(cluster, api::kRestoreChecking)) return std::nullopt;
  api::PgBackRestRestoreStatus& state = *cluster.status.restore;
  const std::optional<api::PgBackRestSpec>& pgbr = cluster.spec.backups.pgbackrest;
  ArchiveDecision decision;
  if (InPlaceRestoreRepo(cluster) == 0) {  // the spec changed meanwhile (admission allows it)
    decision = {api::kRestoreFailed,
                "spec.backups.pgbackrest.restore no longer names an enabled restore from one of "
                "the repositories; nothing was stopped"};
  } else {
    const absl::Time started = TimeOf(state.started_at).value_or(ctx.now);
    decision = DecideArchiveCheck(*pgbr->restore, AskArchiver(ctx, observed, tls.ca_pem), started,
                                  ctx.now);
  }
  state.phase = decision.phase;
  state.message = decision.message;
  if (decision.phase == api::kRestoreChecking) return kArchiveRecheck;
  {
    absl::MutexLock lock(&mu_);
    restore_switched_.erase(ctx.n.ns + "/" + ctx.n.cluster);
  }
  const std::string said = absl::StrCat("in-place restore ", state.id, ": ", state.message);
  if (decision.phase == api::kRestoreFailed) {
    state.finished_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", ctx.now, absl::UTCTimeZone());
    recorder_.Warning(ctx.stored, "RestoreRefused", said);
  } else {
    recorder_.Normal(ctx.stored, "RestoreStopping", said);
  }
  return absl::Milliseconds(100);  // the next reconcile stops the members (or is idle)
}

}  // namespace quorum::postgrescluster

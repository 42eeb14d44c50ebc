#include "src/kubectl/render_json.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

Json Conditions(const std::vector<ConditionRow>& rows) {
  Json out = Json::array();
  for (const ConditionRow& c : rows) {
    out.push_back({{"type", c.type},
                   {"status", c.status},
                   {"reason", c.reason},
                   {"message", c.message},
                   {"lastTransitionTime", c.last_transition_time}});
  }
  return out;
}

Json Backup(const std::optional<BackupRow>& row) {
  if (!row) return nullptr;
  return {{"name", row->name}, {"phase", row->phase},     {"type", row->type},
          {"time", row->time}, {"location", row->detail}, {"size", row->size}};
}

Json Backups(const BackupsView& b) {
  Json count = b.count;
  if (!b.unreadable.empty()) count = nullptr;  // unknown, not zero
  return {{"count", count},
          {"last", Backup(b.last)},
          {"lastComplete", Backup(b.last_complete)},
          {"unreadable", b.unreadable}};
}

Json Header(const char* kind, const std::string& ns, const std::string& name,
            const std::string& phase, Health health) {
  return {{"apiVersion", kJsonApiVersion},
          {"kind", kind},
          {"namespace", ns},
          {"name", name},
          {"phase", phase},
          {"healthy", health == Health::kHealthy}};
}

}  // namespace

Json RenderJson(const EtcdStatusView& v) {
  Json out = Header("EtcdClusterStatus", v.ns, v.name, v.phase, v.health);
  out["replicas"] = {{"desired", v.desired_replicas}, {"ready", v.ready_replicas}};
  out["leader"] = v.leader;
  out["clientEndpoint"] = v.client_endpoint;
  out["lowestVersion"] = v.lowest_version;
  out["members"] = Json::array();
  for (const EtcdMemberRow& m : v.members) {
    out["members"].push_back({{"name", m.name},
                              {"id", m.id},
                              {"role", m.role},
                              {"version", m.version},
                              {"healthy", m.healthy},
                              {"pod", m.pod}});
  }
  out["alarms"] = v.alarms;
  out["security"] = {{"peerTLS", v.security.peer_tls},
                     {"serverTLS", v.security.server_tls},
                     {"clientCertAuth", v.security.client_cert_auth},
                     {"managedCertificates", v.security.managed_certificates},
                     {"auth", v.security.auth}};
  out["backups"] = Backups(v.backups);
  out["conditions"] = Conditions(v.conditions);
  return out;
}

Json RenderJson(const PostgresStatusView& v) {
  Json out = Header("PostgresClusterStatus", v.ns, v.name, v.phase, v.health);
  out["postgresVersion"] = v.postgres_version;
  out["primary"] = v.primary;
  out["services"] = {{"primary", v.primary_service}, {"replicas", v.replica_service}};
  out["dcs"] = v.dcs;
  out["instanceSets"] = Json::array();
  for (const PostgresInstanceSetRow& s : v.instance_sets) {
    out["instanceSets"].push_back(
        {{"name", s.name}, {"desired", s.desired}, {"ready", s.ready}, {"updated", s.updated}});
  }
  out["members"] = Json::array();
  for (const PostgresMemberRow& m : v.members) {
    out["members"].push_back({{"pod", m.pod},
                              {"instanceSet", m.instance_set},
                              {"role", m.role},
                              {"ready", m.ready},
                              {"phase", m.phase},
                              {"restarts", m.restarts}});
  }
  out["repos"] = Json::array();
  for (const PostgresRepoRow& r : v.repos) {
    out["repos"].push_back({{"name", r.name},
                            {"lastFull", r.last_full},
                            {"lastDifferential", r.last_differential},
                            {"lastIncremental", r.last_incremental},
                            {"recoverableFrom", r.recoverable_from},
                            {"recoverableTo", r.recoverable_to},
                            {"walArchivedUpTo", r.wal_archived_up_to}});
  }
  out["backups"] = Backups(v.backups);
  out["lastSwitchover"] = v.last_switchover;
  out["restore"] = v.restore;
  out["majorUpgrade"] = v.major_upgrade;
  out["conditions"] = Conditions(v.conditions);
  return out;
}

}  // namespace quorum::kubectl

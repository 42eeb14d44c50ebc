#include "src/kubectl/cluster_list.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "src/kubectl/render_json.h"
#include "src/kubectl/text_table.h"

namespace quorum::kubectl {

ClusterRow BuildClusterRow(const api::EtcdCluster& c) {
  return {.kind = "EtcdCluster",
          .ns = c.metadata.ns,
          .name = c.metadata.name,
          .phase = PhaseOf(c.status.conditions, c.metadata.deleting),
          .health = HealthOf(c.status.conditions, c.metadata.deleting),
          .ready = c.status.ready_replicas,
          .desired = c.spec.replicas,
          .version = c.status.lowest_version,
          .leader = c.status.leader,
          .created = c.metadata.creation_timestamp};
}

ClusterRow BuildClusterRow(const api::PostgresCluster& c) {
  ClusterRow row{.kind = "PostgresCluster",
                 .ns = c.metadata.ns,
                 .name = c.metadata.name,
                 .phase = PhaseOf(c.status.conditions, c.metadata.deleting),
                 .health = HealthOf(c.status.conditions, c.metadata.deleting),
                 .leader = c.status.primary,
                 .created = c.metadata.creation_timestamp};
  for (const api::PostgresInstanceSet& set : c.spec.instances) row.desired += set.replicas;
  for (const api::PostgresInstanceStatus& st : c.status.instances) row.ready += st.ready_replicas;
  if (c.spec.postgres_version > 0) row.version = absl::StrCat(c.spec.postgres_version);
  return row;
}

std::vector<ClusterRow> BuildClusterRows(const std::vector<api::EtcdCluster>& etcd,
                                         const std::vector<api::PostgresCluster>& postgres) {
  std::vector<ClusterRow> rows;
  for (const api::EtcdCluster& c : etcd) rows.push_back(BuildClusterRow(c));
  for (const api::PostgresCluster& c : postgres) rows.push_back(BuildClusterRow(c));
  std::sort(rows.begin(), rows.end(), [](const ClusterRow& a, const ClusterRow& b) {
    return std::tie(a.ns, a.kind, a.name) < std::tie(b.ns, b.kind, b.name);
  });
  return rows;
}

Health ListHealth(const std::vector<ClusterRow>& rows) {
  for (const ClusterRow& r : rows) {
    if (r.health != Health::kHealthy) return Health::kDegraded;
  }
  return Health::kHealthy;
}

std::string RenderListText(const std::vector<ClusterRow>& rows, bool all_namespaces,
                           const std::string& scope, const TextOptions& o) {
  if (rows.empty()) return absl::StrCat("No EtcdClusters or PostgresClusters in ", scope, ".\n");
  std::vector<Cell> head;
  if (all_namespaces) head.push_back({"NAMESPACE", Colour::kBold});
  for (const char* h : {"KIND", "NAME", "STATUS", "MEMBERS", "VERSION", "LEADER/PRIMARY", "AGE"})
    head.push_back({h, Colour::kBold});
  std::vector<std::vector<Cell>> t = {head};
  for (const ClusterRow& r : rows) {
    std::vector<Cell> line;
    if (all_namespaces) line.push_back({r.ns});
    line.push_back({r.kind});
    line.push_back({r.name});
    line.push_back({r.phase, text::PhaseColour(r.phase)});
    line.push_back({absl::StrCat(r.ready, "/", r.desired)});
    line.push_back({r.version.empty() ? "-" : r.version});
    line.push_back({r.leader.empty() ? "-" : r.leader});
    const std::string age = Age(r.created, o.now);
    line.push_back({age.empty() ? "-" : age});
    t.push_back(std::move(line));
  }
  return FormatTable(t, o.colour);
}

nlohmann::json RenderListJson(const std::vector<ClusterRow>& rows) {
  nlohmann::json items = nlohmann::json::array();
  for (const ClusterRow& r : rows) {
    items.push_back({{"kind", r.kind},
                     {"namespace", r.ns},
                     {"name", r.name},
                     {"phase", r.phase},
                     {"healthy", r.health == Health::kHealthy},
                     {"members", {{"ready", r.ready}, {"desired", r.desired}}},
                     {"version", r.version},
                     {"leader", r.leader},
                     {"creationTimestamp", r.created}});
  }
  return {{"apiVersion", kJsonApiVersion}, {"kind", "ClusterList"}, {"items", items}};
}

}  // namespace quorum::kubectl

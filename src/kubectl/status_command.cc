#include "src/kubectl/status_command.h"

#include "src/kubectl/cluster_list.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/fetch.h"
#include "src/kubectl/render_json.h"
#include "src/kubectl/render_text.h"

namespace quorum::kubectl {
namespace {

template <typename View>
CommandOutput Render(const View& view, const StatusOptions& o) {
  CommandOutput out{.exit_code = ExitCodeFor(view.health)};
  out.text = o.format == OutputFormat::kJson ? RenderJson(view).dump(2) + "\n"
                                             : RenderText(view, {.colour = o.colour, .now = o.now});
  return out;
}

absl::StatusOr<CommandOutput> RunList(kube::Client& client, const StatusOptions& o) {
  absl::StatusOr<ClusterLists> lists = FetchClusters(client, o.all_namespaces ? "" : o.ns);
  if (!lists.ok()) return lists.status();
  const std::vector<ClusterRow> rows = BuildClusterRows(lists->etcd, lists->postgres);
  CommandOutput out{.exit_code = ExitCodeFor(ListHealth(rows))};
  out.text = o.format == OutputFormat::kJson
                 ? RenderListJson(rows).dump(2) + "\n"
                 : RenderListText(rows, o.all_namespaces,
                                  o.all_namespaces ? "any namespace" : "namespace " + o.ns,
                                  {.colour = o.colour, .now = o.now});
  return out;
}

}  // namespace

absl::StatusOr<CommandOutput> RunStatus(kube::Client& client, const StatusOptions& options) {
  if (options.target.name.empty()) return RunList(client, options);
  absl::StatusOr<ClusterInputs> in = FetchCluster(client, options.ns, options.target);
  if (!in.ok()) return in.status();
  if (const auto* etcd = std::get_if<EtcdInputs>(&*in)) {
    return Render(
        BuildEtcdStatusView(etcd->cluster, etcd->pods, etcd->backups, etcd->backups_unreadable),
        options);
  }
  const auto& pg = std::get<PostgresInputs>(*in);
  return Render(BuildPostgresStatusView(pg.cluster, pg.pods, pg.backups, pg.backups_unreadable),
                options);
}

}  // namespace quorum::kubectl

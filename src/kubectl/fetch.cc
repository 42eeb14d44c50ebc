#include "src/kubectl/fetch.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "src/kube/errors.h"
#include "src/kube/resources.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;
using controllers::kEtcdBackups;
using controllers::kEtcdClusters;
using controllers::kPostgresBackups;
using controllers::kPostgresClusters;

// The object, nullopt when it (or its resource: the CRD is not installed) is absent.
absl::StatusOr<std::optional<Json>> GetIfPresent(kube::Client& client,
                                                 const kube::GroupVersionResource& gvr,
                                                 const std::string& ns, const std::string& name) {
  absl::StatusOr<Json> obj = client.Get(gvr, ns, name);
  if (absl::IsNotFound(obj.status())) return std::nullopt;
  if (!obj.ok()) return obj.status();
  return *std::move(obj);
}

// Every item of a list; an absent resource is an empty list.
absl::StatusOr<Json> Items(kube::Client& client, const kube::GroupVersionResource& gvr,
                           const std::string& ns, const std::string& selector = "") {
  absl::StatusOr<Json> list = client.ListAll(gvr, ns, {.label_selector = selector});
  if (absl::IsNotFound(list.status())) return Json::array();
  if (!list.ok()) return list.status();
  auto it = list->find("items");
  return it != list->end() && it->is_array() ? *it : Json::array();
}

// The backups of `ns` into `in`; a list the API forbids is recorded as
// unreadable, so that the rest of the status is still shown.
template <typename T, typename Inputs, typename Parse>
absl::Status ReadBackups(kube::Client& client, const kube::GroupVersionResource& gvr,
                         const std::string& ns, Parse parse, Inputs& in) {
  absl::StatusOr<Json> items = Items(client, gvr, ns);
  if (kube::IsForbidden(items.status())) {
    in.backups_unreadable = absl::StrCat("forbidden: ", gvr.resource, ".", gvr.group);
    return absl::OkStatus();
  }
  if (!items.ok()) return items.status();
  for (const Json& item : *items) {
    absl::StatusOr<T> b = parse(item);
    if (b.ok()) in.backups.push_back(*std::move(b));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PodInfo>> Pods(kube::Client& client, const std::string& ns,
                                          const std::string& selector) {
  absl::StatusOr<Json> items = Items(client, kube::kPods, ns, selector);
  if (!items.ok()) return items.status();
  return ParsePodList(Json{{"items", *items}});
}

absl::StatusOr<ClusterInputs> ReadEtcd(kube::Client& client, const Json& obj) {
  absl::StatusOr<api::EtcdCluster> cluster = api::DecodeEtcdCluster(obj);
  if (!cluster.ok()) return absl::DataLossError(cluster.status().message());
  EtcdInputs in{.cluster = *std::move(cluster)};
  const std::string& ns = in.cluster.metadata.ns;
  std::string selector = in.cluster.status.selector;
  if (selector.empty()) {
    selector = absl::StrCat("app.kubernetes.io/name=etcd,app.kubernetes.io/instance=",
                            in.cluster.metadata.name);
  }
  absl::StatusOr<std::vector<PodInfo>> pods = Pods(client, ns, selector);
  if (!pods.ok()) return pods.status();
  in.pods = *std::move(pods);
  absl::Status backups =
      ReadBackups<api::EtcdBackup>(client, kEtcdBackups, ns, api::ParseEtcdBackup, in);
  if (!backups.ok()) return backups;
  return in;
}

absl::StatusOr<ClusterInputs> ReadPostgres(kube::Client& client, const Json& obj) {
  absl::StatusOr<api::PostgresCluster> cluster = api::DecodePostgresCluster(obj);
  if (!cluster.ok()) return absl::DataLossError(cluster.status().message());
  PostgresInputs in{.cluster = *std::move(cluster)};
  const std::string& ns = in.cluster.metadata.ns;
  absl::StatusOr<std::vector<PodInfo>> pods = Pods(
      client, ns, absl::StrCat(std::string(api::kClusterLabel), "=", in.cluster.metadata.name));
  if (!pods.ok()) return pods.status();
  in.pods = *std::move(pods);
  absl::Status backups =
      ReadBackups<api::PostgresBackup>(client, kPostgresBackups, ns, api::ParsePostgresBackup, in);
  if (!backups.ok()) return backups;
  return in;
}

template <typename T, typename Decode>
absl::StatusOr<std::vector<T>> Decoded(kube::Client& client, const kube::GroupVersionResource& gvr,
                                       const std::string& ns, Decode decode) {
  absl::StatusOr<Json> items = Items(client, gvr, ns);
  if (!items.ok()) return items.status();
  std::vector<T> out;
  for (const Json& item : *items) {
    absl::StatusOr<T> obj = decode(item);
    if (obj.ok()) out.push_back(*std::move(obj));
  }
  return out;
}

}  // namespace

absl::StatusOr<ClusterLists> FetchClusters(kube::Client& client, const std::string& ns) {
  ClusterLists out;
  auto etcd = Decoded<api::EtcdCluster>(client, kEtcdClusters, ns, api::DecodeEtcdCluster);
  if (!etcd.ok()) return etcd.status();
  out.etcd = *std::move(etcd);
  auto pg =
      Decoded<api::PostgresCluster>(client, kPostgresClusters, ns, api::DecodePostgresCluster);
  if (!pg.ok()) return pg.status();
  out.postgres = *std::move(pg);
  return out;
}

absl::StatusOr<FoundCluster> FindCluster(kube::Client& client, const std::string& ns,
                                         const Target& target) {
  std::optional<Json> etcd, postgres;
  if (target.kind != Kind::kPostgresCluster) {
    absl::StatusOr<std::optional<Json>> got = GetIfPresent(client, kEtcdClusters, ns, target.name);
    if (!got.ok()) return got.status();
    etcd = *std::move(got);
  }
  if (target.kind != Kind::kEtcdCluster) {
    absl::StatusOr<std::optional<Json>> got =
        GetIfPresent(client, kPostgresClusters, ns, target.name);
    if (!got.ok()) return got.status();
    postgres = *std::move(got);
  }
  if (etcd && postgres) {
    return absl::InvalidArgumentError(absl::StrCat(
        "both an EtcdCluster and a PostgresCluster are named \"", target.name, "\" in namespace ",
        ns, ": say etcdcluster/", target.name, " or postgrescluster/", target.name));
  }
  if (etcd) return FoundCluster{Kind::kEtcdCluster, *std::move(etcd)};
  if (postgres) return FoundCluster{Kind::kPostgresCluster, *std::move(postgres)};
  return absl::NotFoundError(
      absl::StrCat(KindName(target.kind), " \"", target.name, "\" not found in namespace ", ns));
}

absl::StatusOr<ClusterInputs> FetchCluster(kube::Client& client, const std::string& ns,
                                           const Target& target) {
  absl::StatusOr<FoundCluster> found = FindCluster(client, ns, target);
  if (!found.ok()) return found.status();
  if (found->kind == Kind::kEtcdCluster) return ReadEtcd(client, found->object);
  return ReadPostgres(client, found->object);
}

}  // namespace quorum::kubectl

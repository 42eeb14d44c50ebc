#include "src/kubectl/report_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/controllers/common/resources.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"
#include "src/kubectl/fetch.h"
#include "src/kubectl/logs_command.h"
#include "src/kubectl/members.h"
#include "src/kubectl/report_build.h"
#include "src/kubectl/tar_writer.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

struct Listed {
  const kube::GroupVersionResource* gvr;
  const char* kind;
};

// Every object of `gvr` in `ns`, each stamped with `kind` (lists leave it
// out); a failure becomes a note, an absent resource (CRD) an empty list.
void ListInto(kube::Client& client, const std::string& ns, const Listed& l, std::vector<Json>& out,
              std::vector<std::string>& notes) {
  absl::StatusOr<Json> list = client.ListAll(*l.gvr, ns, {});
  if (absl::IsNotFound(list.status())) return;
  if (!list.ok()) {
    notes.push_back(absl::StrCat(l.gvr->resource, ": ", list.status().message()));
    return;
  }
  const Json items = list->value("items", Json::array());
  if (!items.is_array()) return;
  for (Json item : items) {
    item["kind"] = l.kind;
    item["apiVersion"] = kube::ApiVersion(l.gvr->group, l.gvr->version);
    out.push_back(std::move(item));
  }
}

// The last lines of one container's log; a failure becomes a note.
void ReadLog(kube::Client& client, const std::string& ns, const LogSource& s, int64_t tail,
             ReportInputs& in) {
  LogsOptions o{.ns = ns, .tail = tail};
  std::string text;
  absl::StatusOr<kube::HttpResponse> r = client.transport().Stream(
      {.path = PodLogPath(ns, s, o), .accept = "*/*"},
      [&](std::string_view chunk) {
        text.append(chunk);
        return true;
      },
      nullptr);
  if (!r.ok() || r->code < 200 || r->code >= 300) {
    in.notes.push_back(
        absl::StrCat("log of pod ", s.pod, " container ", s.container, ": ",
                     r.ok() ? absl::StrCat("HTTP ", r->code) : r.status().ToString()));
    return;
  }
  in.logs.emplace_back(absl::StrCat(s.pod, "/", s.container), std::move(text));
}

absl::Status WriteFile(const std::string& path, const std::string& data) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) {
      close(fd);
      return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<ReportInputs> Gather(kube::Client& client, const ReportOptions& o) {
  absl::StatusOr<FoundCluster> found = FindCluster(client, o.ns, o.target);
  if (!found.ok()) return found.status();
  ReportInputs in{.kind = found->kind, .cluster = found->object, .now = o.now};
  const std::string name = found->object["metadata"].value("name", o.target.name);
  const std::vector<Listed> kinds = {{&kube::kStatefulSets, "StatefulSet"},
                                     {&kube::kPods, "Pod"},
                                     {&kube::kServices, "Service"},
                                     {&kube::kPdbs, "PodDisruptionBudget"},
                                     {&kube::kPvcs, "PersistentVolumeClaim"},
                                     {&kube::kJobs, "Job"},
                                     {&kube::kConfigMaps, "ConfigMap"},
                                     {&kube::kEndpoints, "Endpoints"},
                                     {&kube::kNetworkPolicies, "NetworkPolicy"},
                                     {&kube::kSecrets, "Secret"},
                                     {&controllers::kEtcdBackups, "EtcdBackup"},
                                     {&controllers::kPostgresBackups, "PostgresBackup"}};
  std::vector<Json> candidates, events;
  for (const Listed& l : kinds) ListInto(client, o.ns, l, candidates, in.notes);
  ListInto(client, o.ns, {&kube::kEvents, "Event"}, events, in.notes);
  for (Json& obj : SelectRelated(found->object, found->kind, candidates)) {
    (obj.value("kind", "") == "Secret" ? in.secrets : in.objects).push_back(std::move(obj));
  }
  in.events = SelectEvents(found->object, in.objects, events);
  absl::StatusOr<Json> pods = FetchMemberPods(client, o.ns, *found);
  if (pods.ok()) {
    const LogPlan plan = PlanLogs(*pods, "");
    for (const std::string& s : plan.skipped) in.notes.push_back("log of " + s);
    for (const LogSource& s : plan.sources) ReadLog(client, o.ns, s, o.tail_lines, in);
  } else {
    in.notes.push_back(absl::StrCat("member pods: ", pods.status().message()));
  }
  const Kind kind = found->kind;
  absl::StatusOr<CommandOutput> status = RunStatus(
      client, {.ns = o.ns, .target = {kind, name}, .format = OutputFormat::kJson, .now = o.now});
  in.status_json = status.ok() ? status->text : "";
  if (!status.ok()) in.notes.push_back(absl::StrCat("status: ", status.status().message()));
  return in;
}

}  // namespace

absl::StatusOr<CommandOutput> RunReport(kube::Client& client, const ReportOptions& o) {
  absl::StatusOr<ReportInputs> in = Gather(client, o);
  if (!in.ok()) return in.status();
  const std::vector<TarEntry> entries = BuildReportEntries(*in);
  absl::StatusOr<std::string> tar = BuildTar(entries, o.now);
  if (!tar.ok()) return absl::InternalError(tar.status().message());
  absl::StatusOr<std::string> gz = Gzip(*tar);
  if (!gz.ok()) return gz.status();
  const std::string name = in->cluster["metadata"].value("name", o.target.name);
  const std::string path =
      o.output.empty() ? ReportBaseName(in->kind, name, o.now) + ".tar.gz" : o.output;
  if (absl::Status s = WriteFile(path, *gz); !s.ok()) return s;
  return CommandOutput{.text = absl::StrCat("wrote ", path, " (", entries.size(), " files, ",
                                            gz->size(), " bytes; Secret values redacted)\n"),
                       .exit_code = 0};
}

}  // namespace quorum::kubectl

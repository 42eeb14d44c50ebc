#include "src/kubectl/wait.h"

#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "src/base/cancellation.h"
#include "src/kube/errors.h"
#include "src/kube/watch.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

absl::Status Deleted(const kube::GroupVersionResource& gvr, const std::string& ns,
                     const std::string& name) {
  return absl::NotFoundError(
      absl::StrCat(gvr.resource, " \"", name, "\" was deleted from namespace ", ns));
}

}  // namespace

absl::StatusOr<WaitResult> WaitForObject(kube::Client& client,
                                         const kube::GroupVersionResource& gvr,
                                         const std::string& ns, const std::string& name,
                                         const std::function<bool(const Json&)>& done,
                                         absl::Duration timeout) {
  absl::StatusOr<Json> first = client.Get(gvr, ns, name);
  if (!first.ok()) return first.status();
  WaitResult result{.done = done(*first), .object = *std::move(first)};
  if (result.done || timeout <= absl::ZeroDuration()) return result;

  Cancellation deadline, finished;
  std::thread timer([&] {
    if (!finished.WaitFor(timeout)) deadline.Cancel();
  });
  absl::Cleanup stop_timer = [&] {
    finished.Cancel();
    timer.join();
  };
  kube::Watcher watcher(
      client, gvr, ns,
      {.list = {.field_selector = "metadata.name=" + name,
                .resource_version = result.object["metadata"].value("resourceVersion", "")}});
  bool deleted = false;
  auto handler = [&](kube::WatchEvent& event) {
    if (event.type == kube::WatchEventType::kDeleted) {
      deleted = true;
      return false;
    }
    result.object = std::move(event.object);
    result.done = done(result.object);
    return !result.done;
  };
  while (true) {
    absl::Status s = watcher.Run(handler, deadline);
    if (deleted) return Deleted(gvr, ns, name);
    if (!kube::IsGone(s)) return result;  // done, or cancelled by the deadline
    absl::StatusOr<Json> fresh = client.Get(gvr, ns, name);
    if (absl::IsNotFound(fresh.status())) return Deleted(gvr, ns, name);
    if (!fresh.ok()) return fresh.status();
    result.object = *std::move(fresh);
    result.done = done(result.object);
    if (result.done) return result;
    watcher.set_resource_version(result.object["metadata"].value("resourceVersion", ""));
  }
}

}  // namespace quorum::kubectl

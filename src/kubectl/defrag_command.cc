#include "src/kubectl/defrag_command.h"

#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/kubectl/defrag_plan.h"
#include "src/kubectl/etcdctl_command.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/text_table.h"

namespace quorum::kubectl {
namespace {

std::string Size(int64_t bytes) { return bytes > 0 ? HumanBytes(bytes) : "0 B"; }

// etcdctl against one member.
class MemberCtl {
 public:
  MemberCtl(std::string etcdctl, const EtcdAccess& access, const EtcdctlFiles& files)
      : etcdctl_(std::move(etcdctl)), access_(access), files_(files) {}

  absl::StatusOr<CapturedRun> Run(const std::string& endpoint,
                                  const std::vector<std::string>& args) {
    const EtcdctlInvocation inv = BuildEtcdctlInvocation(access_, endpoint, files_, args);
    return RunCaptured(etcdctl_, inv.argv, inv.env);
  }

  // The member's status; an error names what etcdctl said.
  absl::StatusOr<EndpointStatus> Status(const std::string& endpoint) {
    absl::StatusOr<CapturedRun> run =
        Run(endpoint, {"endpoint", "status", "-w", "json", "--command-timeout=10s"});
    if (!run.ok()) return run.status();
    if (run->exit_code != 0) return Failure(*run);
    return ParseEndpointStatus(run->out);
  }

  bool Healthy(const std::string& endpoint) {
    absl::StatusOr<CapturedRun> run = Run(endpoint, {"endpoint", "health", "--command-timeout=5s"});
    return run.ok() && run->exit_code == 0;
  }

  static absl::Status Failure(const CapturedRun& run) {
    return absl::UnavailableError(absl::StripAsciiWhitespace(run.err.empty() ? run.out : run.err));
  }

 private:
  std::string etcdctl_;
  const EtcdAccess& access_;
  const EtcdctlFiles& files_;
};

// Defragments one member and waits for it; false (said on `err`) on failure.
bool DefragOne(MemberCtl& ctl, const DefragStep& step, const EndpointStatus& before,
               absl::Duration wait, std::ostream& out, std::ostream& err) {
  const std::string& name = step.member.name;
  out << name << (step.leader ? " (leader)" : " (follower)") << ": " << Size(before.db_size)
      << " (in use " << Size(before.db_size_in_use) << "), defragmenting..." << std::flush;
  absl::StatusOr<CapturedRun> run =
      ctl.Run(step.member.endpoint, {"defrag", "--command-timeout=5m"});
  if (!run.ok() || run->exit_code != 0) {
    out << " failed\n";
    err << name << ": " << (run.ok() ? MemberCtl::Failure(*run).message() : run.status().message())
        << "\n";
    return false;
  }
  const absl::Time deadline = absl::Now() + wait;
  while (!ctl.Healthy(step.member.endpoint)) {
    if (absl::Now() > deadline) {
      out << " done, but not healthy\n";
      err << name << ": not healthy " << absl::FormatDuration(wait) << " after defragmentation\n";
      return false;
    }
    absl::SleepFor(absl::Seconds(2));
  }
  absl::StatusOr<EndpointStatus> after = ctl.Status(step.member.endpoint);
  out << " " << (after.ok() ? Size(after->db_size) : "?") << ", healthy\n";
  return true;
}

}  // namespace

absl::StatusOr<int> RunDefrag(kube::Client& client, const DefragOptions& o, std::ostream& out,
                              std::ostream& err) {
  const std::string etcdctl = FindOnPath("etcdctl");
  if (etcdctl.empty()) {
    return absl::NotFoundError(
        "etcdctl not found on PATH: install etcd's client (Debian: etcd-client)");
  }
  absl::StatusOr<EtcdAccess> access = FetchEtcdAccess(client, o.ns, o.target);
  if (!access.ok()) return access.status();
  if (access->members.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("EtcdCluster ", o.target.name, " lists no members in its status yet"));
  }
  absl::StatusOr<EtcdctlFiles> files = HoldTlsFiles(*access);
  if (!files.ok()) return files.status();
  MemberCtl ctl(etcdctl, *access, *files);
  std::map<std::string, EndpointStatus> statuses;
  bool all_answer = true;
  for (const EtcdMemberEndpoint& m : access->members) {
    absl::StatusOr<EndpointStatus> s = ctl.Status(m.endpoint);
    if (s.ok()) {
      statuses[m.name] = *s;
    } else {
      err << m.name << " (" << m.endpoint << "): " << s.status().message() << "\n";
      all_answer = false;
    }
  }
  if (!all_answer) {
    err << "not every member answers: nothing defragmented\n";
    return kExitDegraded;
  }
  for (const DefragStep& step : PlanDefrag(access->members, statuses)) {
    if (!DefragOne(ctl, step, statuses[step.member.name], o.wait, out, err)) {
      err << "stopped: the members after " << step.member.name << " are not defragmented\n";
      return kExitDegraded;
    }
  }
  return kExitHealthy;
}

}  // namespace quorum::kubectl

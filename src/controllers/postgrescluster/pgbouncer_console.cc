#include "src/controllers/postgrescluster/pgbouncer_console.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace quorum::postgrescluster {
namespace {

// PgBouncer's admin console: a database of that name in every pooler.
constexpr char kConsoleDatabase[] = "pgbouncer";

}  // namespace

PgBouncerConsole::PgBouncerConsole(std::vector<PoolerPod> pods, PostgresTarget admin, int port)
    : pods_(std::move(pods)), admin_(std::move(admin)) {
  admin_.port = port;
}

absl::Status PgBouncerConsole::Pause(absl::Time deadline) {
  absl::Status failed = absl::OkStatus();
  for (const PoolerPod& pod : pods_) {
    PostgresTarget target = admin_;
    target.hostaddr = pod.ip;
    absl::StatusOr<std::unique_ptr<PgConnection>> console =
        PgConnection::Open(target, kConsoleDatabase);
    if (!console.ok()) {
      failed = console.status();
    } else {
      // A PAUSE that did not answer in time is still pending in PgBouncer
      // (closing the connection does not undo it): resumed below like the rest.
      pausing_.push_back(pod);
      failed = (*console)->ExecBefore("PAUSE", deadline);
    }
    if (!failed.ok()) {
      failed = absl::Status(failed.code(),
                            absl::StrCat("pausing pooler pod ", pod.name, ": ", failed.message()));
      break;
    }
  }
  if (failed.ok()) return failed;
  (void)Resume();  // what it cannot reach, ResumeAll reaches later
  return failed;
}

absl::Status PgBouncerConsole::Resume() {
  int resumed = 0;
  absl::Status s = ResumeThese(pausing_, resumed);
  pausing_.clear();
  return s;
}

absl::Status PgBouncerConsole::ResumeAll(int& resumed) {
  resumed = 0;
  return ResumeThese(pods_, resumed);
}

absl::Status PgBouncerConsole::ResumeThese(const std::vector<PoolerPod>& pods, int& resumed) {
  absl::Status first = absl::OkStatus();
  for (const PoolerPod& pod : pods) {  // every pod, whatever the others answer
    bool was_paused = false;
    absl::Status s = ResumeOne(pod, was_paused);
    if (was_paused) ++resumed;
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

absl::Status PgBouncerConsole::ResumeOne(const PoolerPod& pod, bool& was_paused) {
  PostgresTarget target = admin_;
  target.hostaddr = pod.ip;
  absl::StatusOr<std::unique_ptr<PgConnection>> console =
      PgConnection::Open(target, kConsoleDatabase);
  if (!console.ok()) {
    return absl::UnavailableError(
        absl::StrCat("resuming pooler pod ", pod.name, ": ", console.status().message()));
  }
  // Internal: PgBouncer answered with an error (not paused, or shutting
  // down): nothing held. Unavailable: the connection broke.
  absl::Status s = (*console)->Exec("RESUME");
  was_paused = s.ok();
  if (absl::IsUnavailable(s)) {
    return absl::UnavailableError(
        absl::StrCat("resuming pooler pod ", pod.name, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace quorum::postgrescluster

#include "src/kubectl/psql_exec.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace quorum::kubectl {
namespace {

// A memfd holding `text`, inherited across exec (no MFD_CLOEXEC); -1 on failure.
int HoldInMemory(const std::string& text) {
  const int fd = memfd_create("quorum-psql-ca", 0);
  size_t done = 0;
  while (fd >= 0 && done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  return fd;
}

}  // namespace

std::string FindOnPath(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0 ? program : "";
  }
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

absl::Status RunPsql(kube::Client& client, const PsqlOptions& options) {
  const char* path_env = std::getenv("PATH");
  const std::string psql = FindOnPath("psql", path_env == nullptr ? "" : path_env);
  if (psql.empty()) {
    return absl::FailedPreconditionError(
        "psql not found on PATH: install PostgreSQL's client (Debian: postgresql-client)");
  }
  absl::StatusOr<Credentials> credentials = FetchPsqlCredentials(client, options);
  if (!credentials.ok()) return credentials.status();
  const int fd = HoldInMemory(credentials->ca_pem);
  if (fd < 0) return absl::InternalError("cannot hold the cluster's CA for psql (memfd)");
  const PsqlInvocation inv =
      BuildPsqlInvocation(*credentials, options, absl::StrCat("/proc/self/fd/", fd));
  for (const auto& [key, value] : inv.env) {
    if (value.empty()) {
      unsetenv(key.c_str());
    } else {
      setenv(key.c_str(), value.c_str(), 1);
    }
  }
  std::vector<char*> argv;
  for (const std::string& a : inv.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(psql.c_str(), argv.data());
  const int err = errno;
  unsetenv("PGPASSWORD");
  close(fd);
  return absl::InternalError(absl::StrCat("cannot run ", psql, ": ", std::strerror(err)));
}

}  // namespace quorum::kubectl

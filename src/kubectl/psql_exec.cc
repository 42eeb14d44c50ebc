#include "src/kubectl/psql_exec.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace quorum::kubectl {

absl::Status RunPsql(kube::Client& client, const PsqlOptions& options) {
  const std::string psql = FindOnPath("psql");
  if (psql.empty()) {
    return absl::FailedPreconditionError(
        "psql not found on PATH: install PostgreSQL's client (Debian: postgresql-client)");
  }
  absl::StatusOr<Credentials> credentials = FetchPsqlCredentials(client, options);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<int> fd = HoldInMemory("quorum-psql-ca", credentials->ca_pem);
  if (!fd.ok()) return fd.status();
  const PsqlInvocation inv =
      BuildPsqlInvocation(*credentials, options, absl::StrCat("/proc/self/fd/", *fd));
  absl::Status failed = ExecReplacing(psql, inv.argv, inv.env);
  close(*fd);
  return failed;
}

}  // namespace quorum::kubectl

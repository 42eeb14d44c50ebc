// The I/O half of `kubectl quorum psql`: holds the CA where libpq can read
// it and replaces this process with the local psql (execv), so that psql
// owns the terminal and its exit code is the command's.
//
// The CA goes into an anonymous in-memory file (memfd, mode 0600 by
// construction, on no file system) that psql inherits and names as
// /proc/self/fd/N: nothing to remove afterwards, and it is gone when psql
// exits, however it exits.
//
// Thread-safety: call from a single-threaded program only (it changes the
// environment and replaces the process).
#ifndef QUORUM_SRC_KUBECTL_PSQL_EXEC_H_
#define QUORUM_SRC_KUBECTL_PSQL_EXEC_H_

#include <string>

#include "absl/status/status.h"
#include "src/kubectl/child_process.h"
#include "src/kubectl/psql_command.h"

namespace quorum::kubectl {

// Fetches the credentials, then execs psql; returns only on failure.
// Errors: as FetchPsqlCredentials; FailedPrecondition when psql is not on
// PATH; Internal when the CA cannot be held or exec fails.
absl::Status RunPsql(kube::Client& client, const PsqlOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_PSQL_EXEC_H_

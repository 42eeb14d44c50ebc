// The operator image's snapshot subcommands, run inside backup Jobs and
// restore init containers rather than as the operator:
//
//   quorum-operator etcd-snapshot   take a verified snapshot of an etcd cluster and
//                                   store it in a folder or upload it to S3
//   quorum-operator fetch-snapshot  copy a stored snapshot (S3 or a file) to a path,
//                                   checking etcd's SHA-256 trailer and the expected digest
//   quorum-operator delete-snapshots  remove snapshot files from a folder (a schedule's
//                                   retention on a claim; src/backup/delete_files.h)
//
// Secrets come from the environment only (ETCD_USERNAME, ETCD_PASSWORD,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), never from flags, so they stay
// out of the pod spec's argv and out of logs.
#ifndef QUORUM_CMD_QUORUM_OPERATOR_SNAPSHOT_COMMANDS_H_
#define QUORUM_CMD_QUORUM_OPERATOR_SNAPSHOT_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace quorum {

// Adds the subcommands to `app`, with the functions that run each once parsed.
struct SnapshotCommands {
  CLI::App* take;
  CLI::App* fetch;
  CLI::App* remove;
  std::function<int()> run_take, run_fetch, run_remove;
};
SnapshotCommands AddSnapshotCommands(CLI::App& app);

}  // namespace quorum

#endif  // QUORUM_CMD_QUORUM_OPERATOR_SNAPSHOT_COMMANDS_H_

// The snapshot job: what `quorum-operator etcd-snapshot` does inside a backup
// Job's pod. It asks every endpoint for its status, picks a healthy member (a
// follower when there is one, so the leader keeps its disk for writes),
// streams that member's snapshot into a file in a work folder while checking
// etcd's SHA-256 trailer, then stores the file in a folder (a mounted claim)
// or uploads it to S3, and describes the result as JSON for the controller
// (the container's termination message).
//
// ChooseMember and ResultJson are pure; TakeSnapshot does the I/O.
#ifndef QUORUM_SRC_BACKUP_SNAPSHOT_JOB_H_
#define QUORUM_SRC_BACKUP_SNAPSHOT_JOB_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/backup/s3.h"
#include "src/etcd/client.h"
#include "src/etcd/types.h"

namespace quorum::backup {

struct SnapshotJobOptions {
  etcd::ClientConfig etcd;  // endpoints, TLS, auth
  std::string work_dir;     // where the stream lands before it is stored
  // Exactly one destination.
  std::string directory;         // a folder (a claim's mount and subPath): file <directory>/<name>
  std::optional<S3Location> s3;  // key is the object's full key
  SigV4Credentials s3_credentials;
  std::string name;  // the file's name in `directory`
  // How long to keep asking while no endpoint answers at all: a new pod's
  // connections are refused until the NetworkPolicy enforcer knows its
  // address (the cluster's policy admits the Job's pods by label), which
  // takes a moment after the pod started. Asked again every second.
  absl::Duration unreachable_grace = absl::Seconds(30);
};

struct SnapshotJobResult {
  std::string uri;  // s3://bucket/key or file:///path
  int64_t revision = 0;
  uint64_t size = 0;
  std::string sha256;  // of the stored file
  absl::Time taken_at;
  std::string member;  // the endpoint the snapshot came from
};

// One endpoint's answer to Status (or why it did not answer).
struct MemberProbe {
  std::string endpoint;
  absl::StatusOr<etcd::StatusResponse> status;
};

// The endpoint to snapshot: a started voting member with a leader and no
// alarm, a follower before the leader, ties by order. NotFound (Unavailable
// code) when no member qualifies.
absl::StatusOr<std::string> ChooseMember(const std::vector<MemberProbe>& probes);

// {"uri":...,"revision":N,"size":N,"sha256":"...","takenAt":"RFC 3339","member":"..."}
std::string ResultJson(const SnapshotJobResult& result);
// Parses what ResultJson wrote. InvalidArgument when it is not that.
absl::StatusOr<SnapshotJobResult> ParseResultJson(std::string_view json);

// Errors: Unavailable (no healthy member — after unreachable_grace when none
// answered —, the store unreachable), DataLoss (a
// cut or corrupted snapshot), PermissionDenied/NotFound/InvalidArgument from
// the store, Unauthenticated/PermissionDenied from etcd, Internal (files).
absl::StatusOr<SnapshotJobResult> TakeSnapshot(const SnapshotJobOptions& options);

}  // namespace quorum::backup

#endif  // QUORUM_SRC_BACKUP_SNAPSHOT_JOB_H_

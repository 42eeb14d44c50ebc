// Snapshot retention of an EtcdBackupSchedule (pure): which stored snapshots
// to keep and which to delete under keepLast (the newest N) and keepWithin
// (younger than a duration). A snapshot either rule keeps is kept; with
// neither set, all are kept. The newest snapshot is always kept, and a
// snapshot whose takenAt cannot be read is never deleted. Only Complete
// backups have snapshots, so Failed ones never count as kept.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_RETENTION_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_RETENTION_H_

#include <vector>

#include "absl/time/time.h"
#include "api/etcdbackupschedule_types.h"

namespace quorum::etcdbackupschedule {

struct RetentionPolicy {
  int keep_last = 0;                                  // 0: no count limit
  absl::Duration keep_within = absl::ZeroDuration();  // 0: no age limit
};

struct RetentionDecision {
  std::vector<api::ScheduledSnapshot> keep;  // newest first
  std::vector<api::ScheduledSnapshot> drop;  // newest first
};

// `snapshots` in any order, one per backup name.
RetentionDecision ApplyRetention(std::vector<api::ScheduledSnapshot> snapshots,
                                 const RetentionPolicy& policy, absl::Time now);

// takenAt as a time; InfinitePast when unreadable.
absl::Time TakenAt(const api::ScheduledSnapshot& snapshot);

}  // namespace quorum::etcdbackupschedule

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_RETENTION_H_

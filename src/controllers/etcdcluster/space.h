// Housekeeping phase of the EtcdCluster reconciler: the backend's space.
// Runs after the membership step when that step changed nothing (the
// planner said kNone or kWait), on the etcd view the observe phase already
// has, so a cluster with no alarm and no fragmented member costs no extra
// call. Otherwise it drives the space planner (src/etcd/space.h) step by
// step against etcd, observing again after each step, until the episode is
// over, must wait, or a step fails:
//   NOSPACE alarm → compact → defragment followers one at a time → move
//   leadership → defragment the former leader → disarm.
// Each step and each failure becomes an event the caller records; the
// outcome feeds the SpaceAlarm condition (status.h) and tells the reconciler
// to look again soon while an episode is unfinished.
//
// Thread-safety: safe for different clusters concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_SPACE_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_SPACE_H_

#include <string>
#include <vector>

#include "src/controllers/etcdcluster/observe.h"
#include "src/etcd/client.h"
#include "src/etcd/space.h"

namespace quorum::etcdcluster {

// The quota from spec.options["quota-backend-bytes"] (etcd's default when unset).
int64_t QuotaOf(const EtcdCluster& cluster);

// Whether a member's status lists a NOSPACE alarm.
bool NoSpaceAlarmIn(const EtcdView& view);

// The planner's input for `view` (pure).
etcd::SpaceObservation SpaceObservationOf(const EtcdView& view, int64_t quota_bytes);

struct SpaceEvent {
  bool warning = false;
  std::string reason;  // UpperCamelCase
  std::string message;
};

struct SpaceOutcome {
  bool alarm = false;   // a NOSPACE alarm is still raised at the end
  bool busy = false;    // an episode is unfinished (waits or a step failed): look again soon
  std::string message;  // the last step's sentence (or why it waits), "" when nothing happened
  std::vector<SpaceEvent> events;  // in order
  EtcdView view;                   // the last observation (the input when no step was taken)
};

// Takes at most `max_steps` steps. Never fails: a failed step ends the run
// with busy = true and a Warning event naming the step.
SpaceOutcome Housekeep(etcd::Client& client, EtcdView view, int64_t quota_bytes,
                       int max_steps = 16);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_SPACE_H_

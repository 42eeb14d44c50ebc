// The fault table's rows (issue 18): what each fault does to the demo's test
// bed (through hack/faults.sh) and how far the PostgresCluster's status may
// trail it. The driver (fault_table.cc) runs them beside the checkers and
// writes the table.
#ifndef QUORUM_TEST_FAULTS_ROWS_H_
#define QUORUM_TEST_FAULTS_ROWS_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "src/kube/client.h"
#include "test/faults/timeline.h"

namespace quorum::faults {

// The driver's command line.
struct Flags {
  std::string cp, faults, ns = "quorum-demo", postgres = "demo-pg", etcd = "demo-etcd", out;
  std::set<int> rows;
  int repeat = 3;
};

// One line on stderr, stamped with the UTC time.
void Log(const std::string& line);

// What a row's fault does, with the test bed at hand.
class Bed {
 public:
  Bed(const Flags& flags, kube::Client& client) : f_(flags), client_(client) {}

  // Runs `hack/faults.sh ARGS`; counts it in `injected` when it succeeded.
  void Fault(const std::string& args);
  // Fault VERB CP NS POD [EXTRA].
  void PodFault(const std::string& verb, const std::string& pod, const std::string& extra = "");
  // The pod labelled role=primary ("" when none), and the etcd members' pods.
  std::string Primary();
  std::vector<std::string> EtcdPods();
  const Flags& flags() const { return f_; }
  // Fault commands that succeeded since the run began: a run whose fault
  // never took (e.g. the pod had no process to kill) proves nothing.
  int injected = 0;
  // While the operator is down nobody updates status: its samples are not
  // held against it (nor the first 10 s after it is back).
  absl::Time operator_down_from = absl::InfiniteFuture();
  absl::Time operator_down_to = absl::InfiniteFuture();

 private:
  const Flags& f_;
  kube::Client& client_;
};

struct Row {
  int id;
  std::string fault;
  std::function<void(Bed&)> inject;  // returns when the fault is healed
  // How far the PostgresCluster's Ready may trail its writes. Lag: what the
  // fastest signal of this fault takes to reach the operator; for a process
  // that dies that is the kubelet's: its pod lifecycle relist runs every
  // second, then the pod's status update, the watch and one reconcile
  // (measured 1.2 s on a quiet machine, 2.4 s under CI's load). Lead: once
  // the member is back, the Service's routing follows the status (the
  // EndpointSlice, then kube-proxy's rules, synced at most once a second).
  StatusSlack ready_slack = {.lag = absl::Seconds(3), .lead = absl::Seconds(2)};
  // A merge patch of the PostgresCluster applied (and rolled out) before the
  // row's runs, and the one that undoes it after them; null: none.
  kube::Json setup, undo;
};

// Every row, in the order the table lists them.
std::vector<Row> Rows();

}  // namespace quorum::faults

#endif  // QUORUM_TEST_FAULTS_ROWS_H_

// The member pods' readiness probe (issue 18.2: the primary Service must never
// route to a member that does not accept writes). An exec probe, because no
// single Patroni endpoint says it: /primary, /read-write and /readiness answer
// 200 for the leader-lock holder even while it restarts PostgreSQL read-only
// after a crash (Patroni refreshes the lock before starting it). Ready when:
//   * Patroni's role is primary (or standby leader; "master" before 4.0): it
//     holds the leader lock (GET /leader 200) and its state is running —
//     PostgreSQL then accepts writes;
//   * otherwise: it does not hold the leader lock (a lock holder that is not
//     primary yet is recovering) and GET /readiness answers 200 (running,
//     streaming, not lagging);
//   * and in both cases, the data volume has at least 1 MiB available: a
//     primary whose volume is full refuses every write that needs a new page
//     ("could not extend file"), a replica stops replaying. The probe's
//     output then says so (the kubelet's "Readiness probe failed" event).
//     Where df cannot read the volume, that check is skipped.
// Needs sh, curl, grep and df in the image (the role callback needs them too);
// each request is bounded (1 s).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_PATRONI_READINESS_H_
#define QUORUM_SRC_PATRONI_READINESS_H_

#include <string>
#include <vector>

namespace quorum::patroni {

// The probe's command (exec), asking Patroni's REST API on loopback `port`,
// over HTTPS when `https`. The loopback call does not check the certificate
// (curl --insecure): it never leaves the pod's network namespace, and the
// certificate need not name localhost (a user's customSecret may not).
// `data_volume`: a folder on the member's data volume; "" skips that check.
std::vector<std::string> ReadinessProbeCommand(int port, bool https = false,
                                               const std::string& data_volume = "");

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_READINESS_H_

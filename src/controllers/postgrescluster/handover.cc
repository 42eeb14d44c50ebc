#include "src/controllers/postgrescluster/handover.h"

namespace quorum::postgrescluster {

Handover FindHandover(const std::vector<MemberPod>& pods, const std::set<std::string>& excluded) {
  Handover h;
  for (const MemberPod& p : pods) {
    if (!p.ready || p.primary || excluded.contains(p.name)) continue;
    h.any_ready = true;
    if (p.streaming && (h.candidate == nullptr || p.name < h.candidate->name)) h.candidate = &p;
  }
  return h;
}

std::string HandoverWait(const Handover& h, const std::string& who, const std::string& primary) {
  return who + (h.any_ready ? " to stream from " : " to take over the primary role from ") +
         primary;
}

}  // namespace quorum::postgrescluster

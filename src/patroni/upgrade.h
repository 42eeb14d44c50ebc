// The major upgrade Job's script (src/patroni/pg-upgrade.sh, embedded), run
// as `sh -c SCRIPT pg-upgrade OLD NEW OLD_DIR NEW_DIR` in the new major's
// image; the file's header says what it does. The Job is built by
// src/controllers/postgrescluster/upgrade_job.h.
//
// Thread-safety: returns a constant.
#ifndef QUORUM_SRC_PATRONI_UPGRADE_H_
#define QUORUM_SRC_PATRONI_UPGRADE_H_

#include <string_view>

namespace quorum::patroni {

std::string_view UpgradeScript();

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_UPGRADE_H_

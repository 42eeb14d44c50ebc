// The EtcdBackup resource's names (etcd.aenix.io/v1alpha1), apart from its types
// (etcdbackup_types.h) so that code naming the resource — the CRD generator, the
// controllers' resource constants — need not include them. The group and
// version are api/etcdcluster.h's.
//
// Thread-safety: constants only.
#ifndef QUORUM_API_ETCDBACKUP_H_
#define QUORUM_API_ETCDBACKUP_H_

#include <string_view>

namespace quorum::api {

inline constexpr std::string_view kEtcdBackupKind = "EtcdBackup";
inline constexpr std::string_view kEtcdBackupListKind = "EtcdBackupList";
inline constexpr std::string_view kEtcdBackupPlural = "etcdbackups";
inline constexpr std::string_view kEtcdBackupSingular = "etcdbackup";
inline constexpr std::string_view kEtcdBackupCrdName = "etcdbackups.etcd.aenix.io";

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDBACKUP_H_

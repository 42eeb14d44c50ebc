// The EtcdBackupSchedule resource's names (etcd.aenix.io/v1alpha1), apart from its types
// (etcdbackupschedule_types.h) so that code naming the resource — the CRD generator, the
// controllers' resource constants — need not include them. The group and
// version are api/etcdcluster.h's.
//
// Thread-safety: constants only.
#ifndef QUORUM_API_ETCDBACKUPSCHEDULE_H_
#define QUORUM_API_ETCDBACKUPSCHEDULE_H_

#include <string_view>

namespace quorum::api {

inline constexpr std::string_view kEtcdBackupScheduleKind = "EtcdBackupSchedule";
inline constexpr std::string_view kEtcdBackupScheduleListKind = "EtcdBackupScheduleList";
inline constexpr std::string_view kEtcdBackupSchedulePlural = "etcdbackupschedules";
inline constexpr std::string_view kEtcdBackupScheduleSingular = "etcdbackupschedule";
inline constexpr std::string_view kEtcdBackupScheduleCrdName = "etcdbackupschedules.etcd.aenix.io";

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDBACKUPSCHEDULE_H_

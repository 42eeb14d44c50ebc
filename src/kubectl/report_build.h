// The pure half of `kubectl quorum report`: which objects of a namespace
// belong to a cluster, how a Secret is shown (its name, type and key names;
// every value "REDACTED"), and the archive's files. Secret values cannot
// reach the archive: a Secret is rebuilt from a whitelist of its metadata
// with its values replaced, and every file of the archive (objects, events,
// logs, status, README) is then scrubbed of every value any Secret of the
// cluster holds — decoded, base64, JSON-escaped and line by line — in case
// one was copied somewhere (an env value, an annotation, a log line).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_KUBECTL_REPORT_BUILD_H_
#define QUORUM_SRC_KUBECTL_REPORT_BUILD_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "src/kubectl/tar_writer.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

inline constexpr char kRedacted[] = "REDACTED";

struct ReportInputs {
  Kind kind = Kind::kEtcdCluster;  // never kAny
  nlohmann::json cluster;
  std::vector<nlohmann::json> objects;  // related objects other than Secrets, "kind" set
  std::vector<nlohmann::json> secrets;  // related Secrets as stored: values included
  std::vector<nlohmann::json> events;
  std::vector<std::pair<std::string, std::string>> logs;  // "pod/container", text
  std::string status_json;                                // `status -o json`
  std::vector<std::string> notes;                         // what could not be read
  absl::Time now;
};

// The objects among `candidates` (each with "kind" set; Secrets included)
// that belong to `cluster`: owned by it or by one of them (transitively);
// labelled as its members (app.kubernetes.io/instance with name etcd or
// postgres, or postgres.quorum.dev/cluster); backups whose spec.clusterRef
// names it; a StatefulSet's PersistentVolumeClaims (<template>-<sts>-<n>);
// Secrets named anywhere in its spec or status.
std::vector<nlohmann::json> SelectRelated(const nlohmann::json& cluster, Kind kind,
                                          const std::vector<nlohmann::json>& candidates);

// The events whose involvedObject is the cluster or one of `related`.
std::vector<nlohmann::json> SelectEvents(const nlohmann::json& cluster,
                                         const std::vector<nlohmann::json>& related,
                                         const std::vector<nlohmann::json>& events);

// {apiVersion, kind, metadata{name, namespace, uid, creationTimestamp,
// labels, ownerReferences}, type, data{key: "REDACTED"}} — the keys of data
// and stringData; nothing else (annotations hold last-applied copies).
nlohmann::json RedactSecret(const nlohmann::json& secret);

// What to scrub: every value of the Secrets' data and stringData (but those
// of username, user, host, port, dbname, database and sslmode, which are not
// secret, and values under 4 bytes), in its decoded, base64 and JSON-escaped
// forms and, for multi-line values, each line of 16 bytes or more.
std::vector<std::string> SensitiveValues(const std::vector<nlohmann::json>& secrets);

// `text` with every occurrence of each value replaced by "REDACTED".
std::string Scrub(std::string text, const std::vector<std::string>& values);

// quorum-report-<etcdcluster|postgrescluster>-<name>-<YYYYMMDDTHHMMSSZ>
std::string ReportBaseName(Kind kind, const std::string& name, absl::Time now);

// The archive's files under ReportBaseName/: README.md, cluster.json,
// status.json, objects/<Kind>/<name>.json, secrets/<name>.json (redacted),
// events.json, logs/<pod>/<container>.log; all scrubbed.
std::vector<TarEntry> BuildReportEntries(const ReportInputs& inputs);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_REPORT_BUILD_H_

#include "src/kubectl/report_build.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "api/postgrescluster.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

std::string Str(const Json& obj, const char* a, const char* b) {
  const Json inner = obj.is_object() ? obj.value(a, Json::object()) : Json::object();
  auto it = inner.is_object() ? inner.find(b) : inner.end();
  return it != inner.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Label(const Json& obj, const std::string& key) {
  const Json labels = obj.value("metadata", Json::object()).value("labels", Json::object());
  auto it = labels.is_object() ? labels.find(key) : labels.end();
  return it != labels.end() && it->is_string() ? it->get<std::string>() : "";
}

bool OwnedByAny(const Json& obj, const std::set<std::string>& uids) {
  const Json refs = obj.value("metadata", Json::object()).value("ownerReferences", Json::array());
  if (!refs.is_array()) return false;
  for (const Json& r : refs) {
    if (r.is_object() && uids.count(r.value("uid", "")) > 0) return true;
  }
  return false;
}

// Every string in `j`.
void Strings(const Json& j, std::set<std::string>& out) {
  if (j.is_string()) {
    out.insert(j.get<std::string>());
  } else if (j.is_structured()) {
    for (const Json& v : j) Strings(v, out);
  }
}

bool MatchesDirectly(const Json& obj, const std::string& name, Kind kind,
                     const std::set<std::string>& referenced) {
  const std::string k = obj.value("kind", "");
  const std::string obj_name = Str(obj, "metadata", "name");
  if (k == "Secret") return referenced.count(obj_name) > 0;
  if (k == "EtcdBackup" || k == "PostgresBackup") {
    const Json spec = obj.value("spec", Json::object());
    return spec.value("clusterRef", Json::object()).value("name", "") == name;
  }
  const std::string member = kind == Kind::kEtcdCluster ? "etcd" : "postgres";
  if (Label(obj, "app.kubernetes.io/instance") == name &&
      Label(obj, "app.kubernetes.io/name") == member) {
    return true;
  }
  return kind == Kind::kPostgresCluster && Label(obj, std::string(api::kClusterLabel)) == name;
}

// A PVC of StatefulSet `sts`: <template>-<sts>-<ordinal>.
bool ClaimOf(const std::string& pvc, const std::string& sts) {
  const std::string mid = absl::StrCat("-", sts, "-");
  const size_t at = pvc.rfind(mid);
  if (at == std::string::npos || at == 0) return false;
  int ordinal = 0;
  return absl::SimpleAtoi(pvc.substr(at + mid.size()), &ordinal) && ordinal >= 0;
}

std::string Dump(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// A path segment from a name: no '/' and no "..".
std::string Segment(std::string s) {
  if (s.empty() || s == "." || s == "..") return "_";
  std::replace(s.begin(), s.end(), '/', '_');
  return s;
}

Json WithoutManagedFields(Json obj) {
  if (obj.is_object() && obj.contains("metadata") && obj["metadata"].is_object()) {
    obj["metadata"].erase("managedFields");
  }
  return obj;
}

}  // namespace

std::vector<Json> SelectRelated(const Json& cluster, Kind kind,
                                const std::vector<Json>& candidates) {
  const std::string name = Str(cluster, "metadata", "name");
  std::set<std::string> referenced;
  Strings(cluster.value("spec", Json::object()), referenced);
  Strings(cluster.value("status", Json::object()), referenced);
  std::set<std::string> uids = {Str(cluster, "metadata", "uid")};
  std::vector<bool> taken(candidates.size(), false);
  std::vector<std::string> statefulsets;
  for (bool grew = true; grew;) {  // owners first found make their children related
    grew = false;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Json& c = candidates[i];
      if (taken[i] || !(OwnedByAny(c, uids) || MatchesDirectly(c, name, kind, referenced)))
        continue;
      taken[i] = grew = true;
      uids.insert(Str(c, "metadata", "uid"));
      if (c.value("kind", "") == "StatefulSet") statefulsets.push_back(Str(c, "metadata", "name"));
    }
  }
  std::vector<Json> out;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Json& c = candidates[i];
    bool keep = taken[i];
    if (!keep && c.value("kind", "") == "PersistentVolumeClaim") {
      for (const std::string& sts : statefulsets)
        keep = keep || ClaimOf(Str(c, "metadata", "name"), sts);
    }
    if (keep) out.push_back(c);
  }
  return out;
}

std::vector<Json> SelectEvents(const Json& cluster, const std::vector<Json>& related,
                               const std::vector<Json>& events) {
  std::set<std::string> uids = {Str(cluster, "metadata", "uid")};
  std::set<std::pair<std::string, std::string>> names = {
      {cluster.value("kind", ""), Str(cluster, "metadata", "name")}};
  for (const Json& r : related) {
    uids.insert(Str(r, "metadata", "uid"));
    names.insert({r.value("kind", ""), Str(r, "metadata", "name")});
  }
  std::vector<Json> out;
  for (const Json& e : events) {
    const Json io = e.value("involvedObject", Json::object());
    if (!io.is_object()) continue;
    const std::string uid = io.value("uid", "");
    if ((!uid.empty() && uids.count(uid) > 0) ||
        names.count({io.value("kind", ""), io.value("name", "")}) > 0) {
      out.push_back(e);
    }
  }
  return out;
}

Json RedactSecret(const Json& secret) {
  const Json meta = secret.value("metadata", Json::object());
  Json m = Json::object();
  for (const char* key :
       {"name", "namespace", "uid", "creationTimestamp", "labels", "ownerReferences"}) {
    if (meta.is_object() && meta.contains(key)) m[key] = meta[key];
  }
  Json data = Json::object();
  for (const char* field : {"data", "stringData"}) {
    const Json values = secret.value(field, Json::object());
    if (!values.is_object()) continue;
    for (const auto& item : values.items()) data[item.key()] = kRedacted;
  }
  Json out = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", m}, {"data", data}};
  if (secret.contains("type") && secret["type"].is_string()) out["type"] = secret["type"];
  return out;
}

std::vector<std::string> SensitiveValues(const std::vector<Json>& secrets) {
  static const std::set<std::string> kNames = {"username", "user",     "host",   "port",
                                               "dbname",   "database", "sslmode"};
  std::set<std::string> out;
  auto add = [&](const std::string& v) {
    if (v.size() < 4) return;
    out.insert(v);
    out.insert(absl::Base64Escape(v));
    const std::string escaped = Json(v).dump(-1, ' ', false, Json::error_handler_t::replace);
    out.insert(escaped.substr(1, escaped.size() - 2));
    if (v.find('\n') == std::string::npos) return;
    for (absl::string_view line : absl::StrSplit(v, '\n')) {
      line = absl::StripAsciiWhitespace(line);
      if (line.size() >= 16) out.insert(std::string(line));
    }
  };
  for (const Json& s : secrets) {
    for (const char* field : {"data", "stringData"}) {
      const Json values = s.value(field, Json::object());
      if (!values.is_object()) continue;
      for (const auto& [key, value] : values.items()) {
        if (kNames.count(key) > 0 || !value.is_string()) continue;
        std::string decoded = value.get<std::string>();
        if (std::string(field) == "data") {
          add(decoded);  // the stored base64 itself
          if (!absl::Base64Unescape(value.get<std::string>(), &decoded)) continue;
        }
        add(decoded);
      }
    }
  }
  std::vector<std::string> sorted(out.begin(), out.end());
  // Longest first, so that a value is not half-replaced through a shorter one inside it.
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return sorted;
}

std::string Scrub(std::string text, const std::vector<std::string>& values) {
  for (const std::string& v : values) {
    if (!v.empty() && absl::StrContains(text, v)) absl::StrReplaceAll({{v, kRedacted}}, &text);
  }
  return text;
}

std::string ReportBaseName(Kind kind, const std::string& name, absl::Time now) {
  return absl::StrCat("quorum-report-", absl::AsciiStrToLower(KindName(kind)), "-", name, "-",
                      absl::FormatTime("%Y%m%dT%H%M%SZ", now, absl::UTCTimeZone()));
}

std::vector<TarEntry> BuildReportEntries(const ReportInputs& in) {
  const std::string name = Str(in.cluster, "metadata", "name");
  const std::string base = ReportBaseName(in.kind, name, in.now);
  std::vector<TarEntry> files;
  auto add = [&](const std::string& path, std::string data) {
    files.push_back({.name = absl::StrCat(base, "/", path), .data = std::move(data)});
  };
  add("cluster.json", Dump(WithoutManagedFields(in.cluster)));
  add("status.json", in.status_json);
  std::vector<Json> objects = in.objects;
  std::sort(objects.begin(), objects.end(), [](const Json& a, const Json& b) {
    return std::make_pair(a.value("kind", ""), Str(a, "metadata", "name")) <
           std::make_pair(b.value("kind", ""), Str(b, "metadata", "name"));
  });
  for (const Json& o : objects) {
    add(absl::StrCat("objects/", Segment(o.value("kind", "Unknown")), "/",
                     Segment(Str(o, "metadata", "name")), ".json"),
        Dump(WithoutManagedFields(o)));
  }
  for (const Json& s : in.secrets) {
    add(absl::StrCat("secrets/", Segment(Str(s, "metadata", "name")), ".json"),
        Dump(RedactSecret(s)));
  }
  add("events.json", Dump(Json(in.events)));
  for (const auto& [source, text] : in.logs) {
    const size_t slash = source.find('/');
    add(absl::StrCat("logs/", Segment(source.substr(0, slash)), "/",
                     Segment(slash == std::string::npos ? "log" : source.substr(slash + 1)),
                     ".log"),
        text);
  }
  std::string readme = absl::StrCat(
      "# kubectl quorum report: ", KindName(in.kind), " ", name, " in namespace ",
      Str(in.cluster, "metadata", "namespace"), "\n\nMade ",
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", in.now, absl::UTCTimeZone()),
      ". Every Secret is shown only as its name, type and key names: each value is \"", kRedacted,
      "\", and any Secret value found elsewhere (an object, an event, a log line) is "
      "replaced by \"",
      kRedacted, "\" too.\n\n## Files\n\n");
  for (const TarEntry& f : files) {
    absl::StrAppend(&readme, "- ", f.name.substr(base.size() + 1), " (", f.data.size(),
                    " bytes)\n");
  }
  absl::StrAppend(&readme,
                  "\ncluster.json: the cluster as stored; status.json: `kubectl quorum "
                  "status -o json`; objects/: what the cluster owns or labels as its own; "
                  "events.json: the namespace's events about them; logs/: the last lines "
                  "of each member container.\n");
  if (!in.notes.empty()) {
    absl::StrAppend(&readme, "\n## Not included\n\n");
    for (const std::string& n : in.notes) absl::StrAppend(&readme, "- ", n, "\n");
  }
  files.insert(files.begin(), TarEntry{.name = base + "/README.md", .data = readme});
  const std::vector<std::string> values = SensitiveValues(in.secrets);
  for (TarEntry& f : files) f.data = Scrub(std::move(f.data), values);
  return files;
}

}  // namespace quorum::kubectl

// RenderText for a PostgresCluster.
#include "absl/strings/str_cat.h"
#include "src/kubectl/render_text.h"
#include "src/kubectl/text_table.h"

namespace quorum::kubectl {
namespace {

std::string InstanceSets(const PostgresStatusView& v) {
  std::string out;
  for (const PostgresInstanceSetRow& s : v.instance_sets) {
    if (!out.empty()) out += ", ";
    absl::StrAppend(&out, s.name, " ", s.ready, "/", s.desired, " ready");
    if (s.updated != s.desired) absl::StrAppend(&out, " (", s.updated, " updated)");
  }
  return out.empty() ? "-" : out;
}

std::string Summary(const PostgresStatusView& v, const TextOptions& o) {
  std::string head =
      absl::StrCat(Paint("PostgresCluster", Colour::kBold, o.colour), " ", v.ns, "/", v.name, ": ",
                   Paint(v.phase, text::PhaseColour(v.phase), o.colour), " (PostgreSQL ",
                   v.postgres_version, ", primary ", v.primary.empty() ? "none" : v.primary, ")\n");
  std::vector<std::pair<std::string, std::string>> fields = {
      {"instances", InstanceSets(v)},
      {"services",
       absl::StrCat(v.primary_service.empty() ? "-" : v.primary_service, " (primary), ",
                    v.replica_service.empty() ? "-" : v.replica_service, " (replicas)")},
      {"dcs", v.dcs}};
  for (auto& field : text::BackupFields(v.backups, o)) fields.push_back(std::move(field));
  for (const PostgresRepoRow& r : v.repos) {
    std::string window = "unknown";
    if (!r.recoverable_from.empty() || !r.recoverable_to.empty())
      window = absl::StrCat(r.recoverable_from, " .. ", r.recoverable_to);
    fields.push_back(
        {r.name, absl::StrCat("recoverable ", window, r.last_full.empty() ? "" : ", last full ",
                              r.last_full)});
  }
  if (!v.last_switchover.empty()) fields.push_back({"switchover", v.last_switchover});
  if (!v.restore.empty()) fields.push_back({"restore", v.restore});
  if (!v.major_upgrade.empty()) fields.push_back({"major upgrade", v.major_upgrade});
  return head + text::Fields(fields);
}

std::string Members(const PostgresStatusView& v, const TextOptions& o) {
  if (v.members.empty()) return "\n  no member pods\n";
  std::vector<std::vector<Cell>> t = {{{"MEMBER", Colour::kBold},
                                       {"SET", Colour::kBold},
                                       {"ROLE", Colour::kBold},
                                       {"READY", Colour::kBold},
                                       {"PHASE", Colour::kBold},
                                       {"RESTARTS", Colour::kBold}}};
  for (const PostgresMemberRow& m : v.members) {
    const Colour role = m.role == "primary" ? Colour::kGreen
                        : m.role.empty()    ? Colour::kYellow
                                            : Colour::kNone;
    t.push_back({{m.pod},
                 {m.instance_set.empty() ? "-" : m.instance_set},
                 {m.role.empty() ? "-" : m.role, role},
                 {m.ready ? "yes" : "no", m.ready ? Colour::kGreen : Colour::kRed},
                 {m.phase.empty() ? "Unknown" : m.phase},
                 {absl::StrCat(m.restarts)}});
  }
  return "\n" + FormatTable(t, o.colour);
}

}  // namespace

std::string RenderText(const PostgresStatusView& v, const TextOptions& o) {
  return Summary(v, o) + Members(v, o) + text::ConditionsTable(v.conditions, o);
}

}  // namespace quorum::kubectl

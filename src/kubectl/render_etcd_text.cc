// RenderText for an EtcdCluster.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/kubectl/render_text.h"
#include "src/kubectl/text_table.h"

namespace quorum::kubectl {
namespace {

std::string OnOff(bool on) { return on ? "on" : "off"; }

std::string Security(const EtcdSecurityView& s) {
  std::string out = absl::StrCat("TLS peer ", OnOff(s.peer_tls), ", server ", OnOff(s.server_tls),
                                 ", client certificates ", OnOff(s.client_cert_auth));
  if (s.managed_certificates) out += " (issued by Quorum)";
  absl::StrAppend(&out, "; auth ", OnOff(s.auth));
  return out;
}

std::string Summary(const EtcdStatusView& v, const TextOptions& o) {
  std::string head =
      absl::StrCat(Paint("EtcdCluster", Colour::kBold, o.colour), " ", v.ns, "/", v.name, ": ",
                   Paint(v.phase, text::PhaseColour(v.phase), o.colour), " (", v.ready_replicas,
                   "/", v.desired_replicas, " ready");
  if (!v.leader.empty()) absl::StrAppend(&head, ", leader ", v.leader);
  head += ")\n";
  const std::string alarms =
      v.alarms.empty() ? "none" : Paint(absl::StrJoin(v.alarms, ", "), Colour::kRed, o.colour);
  std::vector<std::pair<std::string, std::string>> fields = {
      {"endpoint", v.client_endpoint.empty() ? "-" : v.client_endpoint},
      {"version", v.lowest_version.empty() ? "-" : v.lowest_version},
      {"security", Security(v.security)},
      {"alarms", alarms}};
  for (auto& field : text::BackupFields(v.backups, o)) fields.push_back(std::move(field));
  return head + text::Fields(fields);
}

std::string Members(const EtcdStatusView& v, const TextOptions& o) {
  if (v.members.empty()) return "\n  no members in status yet\n";
  std::vector<std::vector<Cell>> t = {{{"MEMBER", Colour::kBold},
                                       {"ID", Colour::kBold},
                                       {"ROLE", Colour::kBold},
                                       {"VERSION", Colour::kBold},
                                       {"HEALTHY", Colour::kBold},
                                       {"POD", Colour::kBold}}};
  for (const EtcdMemberRow& m : v.members) {
    const Colour role = m.role == "leader"         ? Colour::kGreen
                        : m.role == "not a member" ? Colour::kYellow
                                                   : Colour::kNone;
    t.push_back({{m.name},
                 {m.id.empty() ? "-" : m.id},
                 {m.role, role},
                 {m.version.empty() ? "-" : m.version},
                 {m.healthy ? "yes" : "no", m.healthy ? Colour::kGreen : Colour::kRed},
                 {m.pod}});
  }
  return "\n" + FormatTable(t, o.colour);
}

}  // namespace

std::string RenderText(const EtcdStatusView& v, const TextOptions& o) {
  return Summary(v, o) + Members(v, o) + text::ConditionsTable(v.conditions, o);
}

}  // namespace quorum::kubectl

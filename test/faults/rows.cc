// The rows of the fault table. The sleeps here are the faults' durations (how
// long a cut, a freeze or a kill loop lasts), never waits for an outcome: the
// checkers (checkers.h) wait for outcomes, each within a bound.
#include "test/faults/rows.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace quorum::faults {
namespace {

const kube::GroupVersionResource kPods{"", "v1", "pods"};

void KillFor(Bed& bed, const std::string& pod, absl::Duration d) {
  const absl::Time end = absl::Now() + d;
  while (absl::Now() < end) {
    bed.PodFault("signal", pod, "KILL");
    absl::SleepFor(absl::Seconds(1));
  }
}

// The operator stopped, the primary killed every second for 45 s, the
// operator back at +53 s.
void OperatorDownWhilePrimaryDead(Bed& bed) {
  const absl::Time start = absl::Now();
  const std::string primary = bed.Primary();
  bed.Fault("operator-kill " + bed.flags().cp);
  KillFor(bed, primary, absl::Seconds(45));
  absl::SleepFor(start + absl::Seconds(53) - absl::Now());
  bed.Fault("operator-start " + bed.flags().cp);
}

// Rows 8 and 9: the role callback may label pods (`podAPIAccess`), so a
// failover moves the label with the operator down too.
kube::Json CallbackLabels() { return {{"spec", {{"patroni", {{"podAPIAccess", true}}}}}}; }
kube::Json UndoCallbackLabels() { return {{"spec", {{"patroni", {{"podAPIAccess", nullptr}}}}}}; }

// Rows 13 and 14: as rows 8 and 9, with synchronous replication and a
// failover on the primary's first crash (Patroni's `synchronous_mode`,
// `primary_start_timeout: 0`): a restarted primary hands its lock over at
// once, and only to the synchronous standby, which has every commit.
kube::Json FirstCrashSettings(const kube::Json& pod_api_access, bool synchronous,
                              int primary_start_timeout) {
  return {{"spec",
           {{"patroni",
             {{"podAPIAccess", pod_api_access},
              {"dynamicConfiguration",
               {{"synchronous_mode", synchronous},
                {"primary_start_timeout", primary_start_timeout}}}}}}}};
}
kube::Json FailoverOnFirstCrash() { return FirstCrashSettings(true, true, 0); }
// The operator leaves keys the spec stops naming as they are in the DCS, so
// the undo names Patroni's defaults.
kube::Json UndoFailoverOnFirstCrash() { return FirstCrashSettings(nullptr, false, 300); }

}  // namespace

void Log(const std::string& line) {
  std::cerr << absl::FormatTime("%H:%M:%S ", absl::Now(), absl::UTCTimeZone()) << line << std::endl;
}

void Bed::Fault(const std::string& args) {
  const std::string cmd = absl::StrCat(f_.faults, " ", args, " >&2");
  Log("fault: " + args);
  if (args.starts_with("operator-kill")) operator_down_from = absl::Now();
  if (args.starts_with("operator-start")) operator_down_to = absl::Now();
  if (std::system(cmd.c_str()) != 0) {
    Log("  (fault command failed)");
  } else {
    ++injected;
  }
}

void Bed::PodFault(const std::string& verb, const std::string& pod, const std::string& extra) {
  Fault(absl::StrCat(verb, " ", f_.cp, " ", f_.ns, " ", pod, extra.empty() ? "" : " ", extra));
}

std::string Bed::Primary() {
  kube::ListOptions o{
      .label_selector = absl::StrCat("app.kubernetes.io/name=postgres,app.kubernetes.io/instance=",
                                     f_.postgres, ",role=primary")};
  absl::StatusOr<kube::Json> list = client_.List(kPods, f_.ns, o);
  if (!list.ok() || (*list)["items"].empty()) return "";
  return (*list)["items"][0]["metadata"].value("name", "");
}

std::vector<std::string> Bed::EtcdPods() {
  kube::ListOptions o{.label_selector = absl::StrCat(
                          "app.kubernetes.io/name=etcd,app.kubernetes.io/instance=", f_.etcd)};
  std::vector<std::string> names;
  absl::StatusOr<kube::Json> list = client_.List(kPods, f_.ns, o);
  if (!list.ok()) return names;
  for (const kube::Json& p : (*list)["items"]) names.push_back(p["metadata"].value("name", ""));
  return names;
}

std::vector<Row> Rows() {
  return {
      {1, "primary's processes SIGKILLed once",
       [](Bed& bed) { bed.PodFault("signal", bed.Primary(), "KILL"); }},
      {2, "primary dead for 45 s (killed every second), operator up",
       [](Bed& bed) { KillFor(bed, bed.Primary(), absl::Seconds(45)); }},
      {3, "primary dead for 45 s, operator down until +53 s",
       [](Bed& bed) { OperatorDownWhilePrimaryDead(bed); }},
      {4,
       "primary's network cut for 60 s",
       [](Bed& bed) {
         const std::string primary = bed.Primary();
         bed.PodFault("cut", primary);
         absl::SleepFor(absl::Seconds(60));
         bed.PodFault("heal", primary);
       },
       // Nothing in Kubernetes changes when a pod's packets are dropped: its
       // exec readiness probe still passes and Patroni keeps the leader lock
       // until it expires (ttl 30 s); then a replica takes it and the leader
       // watch tells the operator. One readiness period (5 s) on top.
       {.lag = absl::Seconds(35), .lead = absl::Seconds(2)}},
      {5, "all etcd members frozen (SIGSTOP) for 60 s",
       [](Bed& bed) {
         const std::vector<std::string> pods = bed.EtcdPods();
         for (const std::string& p : pods) bed.PodFault("signal", p, "STOP");
         absl::SleepFor(absl::Seconds(60));
         for (const std::string& p : pods) bed.PodFault("signal", p, "CONT");
       }},
      {6, "2 of 3 etcd members SIGKILLed",
       [](Bed& bed) {
         const std::vector<std::string> pods = bed.EtcdPods();
         for (size_t i = 0; i < pods.size() && i < 2; ++i) bed.PodFault("signal", pods[i], "KILL");
         absl::SleepFor(absl::Seconds(20));
       }},
      {7, "operator SIGKILLed in steady state, restarted after 5 s",
       [](Bed& bed) {
         bed.Fault("operator-kill " + bed.flags().cp);
         absl::SleepFor(absl::Seconds(5));
         bed.Fault("operator-start " + bed.flags().cp);
       }},
      {8,
       "as row 3 (operator down until +53 s), with `podAPIAccess: true`: the role callback "
       "moves the label",
       [](Bed& bed) { OperatorDownWhilePrimaryDead(bed); },
       {.lag = absl::Seconds(3), .lead = absl::Seconds(2)},
       CallbackLabels(),
       UndoCallbackLabels()},
      {9,
       "as row 2 (operator up), with `podAPIAccess: true`: the outage row 8 is compared with",
       [](Bed& bed) { KillFor(bed, bed.Primary(), absl::Seconds(45)); },
       {.lag = absl::Seconds(3), .lead = absl::Seconds(2)},
       CallbackLabels(),
       UndoCallbackLabels()},
      {10,
       "as row 2 (primary dead for 45 s, operator up), with faster timings: ttl 20 s, "
       "loop_wait 5 s, retry_timeout 5 s",
       [](Bed& bed) { KillFor(bed, bed.Primary(), absl::Seconds(45)); },
       {.lag = absl::Seconds(3), .lead = absl::Seconds(2)},
       {{"spec",
         {{"patroni",
           {{"leaderLeaseDurationSeconds", 20},
            {"syncPeriodSeconds", 5},
            {"retryTimeoutSeconds", 5}}}}}},
       {{"spec",
         {{"patroni",
           {{"leaderLeaseDurationSeconds", nullptr},
            {"syncPeriodSeconds", nullptr},
            {"retryTimeoutSeconds", nullptr}}}}}}},
      {11, "kube-apiserver frozen (SIGSTOP) for 30 s",
       [](Bed& bed) {
         bed.Fault("apiserver-signal " + bed.flags().cp + " STOP");
         absl::SleepFor(absl::Seconds(30));
         bed.Fault("apiserver-signal " + bed.flags().cp + " CONT");
       }},
      {12,
       "primary's data volume full for 60 s",
       [](Bed& bed) {
         const std::string primary = bed.Primary();
         bed.PodFault("fill", primary, "/pgdata");
         absl::SleepFor(absl::Seconds(60));
         bed.PodFault("unfill", primary, "/pgdata");
       },
       // Writes fail once no page can be added; the readiness probe sees the
       // full volume within its period and failure threshold (15 s).
       {.lag = absl::Seconds(20), .lead = absl::Seconds(2)}},
      {13,
       "as row 8 (operator down until +53 s, `podAPIAccess: true`), with synchronous "
       "replication and failover on the first crash",
       [](Bed& bed) { OperatorDownWhilePrimaryDead(bed); },
       {.lag = absl::Seconds(3), .lead = absl::Seconds(2)},
       FailoverOnFirstCrash(),
       UndoFailoverOnFirstCrash()},
      {14,
       "as row 9 (operator up, `podAPIAccess: true`), with synchronous replication and "
       "failover on the first crash: the outage row 13 is compared with",
       [](Bed& bed) { KillFor(bed, bed.Primary(), absl::Seconds(45)); },
       {.lag = absl::Seconds(3), .lead = absl::Seconds(2)},
       FailoverOnFirstCrash(),
       UndoFailoverOnFirstCrash()},
  };
}

}  // namespace quorum::faults

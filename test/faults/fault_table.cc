// fault_table: runs the fault table against a running test bed (`make demo`)
// and writes the result as Markdown (docs/reliability.md). `make faults`
// runs it; see docs/reliability.md for what each row does and checks.
//
//   fault_table --cp DIR --faults hack/faults.sh [--namespace quorum-demo]
//               [--postgres demo-pg] [--etcd demo-etcd] [--rows 1,2,...]
//               [--repeat 3] [--out FILE]
//
// Run it where the Services' names resolve (`hack/node.sh exec CP --`). Exit status 1 if any run
// lost an acknowledged write, showed two primaries, routed a write to a read-only member, reported
// Ready during an outage, or did not recover.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/config.h"
#include "test/faults/checkers.h"
#include "test/faults/rows.h"
#include "test/faults/timeline.h"

namespace quorum::faults {
namespace {

const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kServices{"", "v1", "services"};
const kube::GroupVersionResource kPostgresClusters{"postgres.quorum.dev", "v1alpha1",
                                                   "postgresclusters"};
const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};

struct Run {
  absl::Duration outage;
  int64_t acknowledged = 0, lost = 0, read_only = 0;
  int max_primaries = 0, ready_lies = 0, etcd_lies = 0, injected = 0;
  absl::Duration two_primaries, etcd_outage;
  std::string etcd_problem;  // what the etcd read-back found; "" when all there in order
  bool recovered = false;
  bool ok() const {
    return injected > 0 && recovered && lost == 0 && max_primaries <= 1 && read_only == 0 &&
           ready_lies == 0 && etcd_lies == 0 && etcd_problem.empty();
  }
};

absl::StatusOr<std::string> AppUri(kube::Client& client, const Flags& f) {
  absl::StatusOr<kube::Json> secret = client.Get(kSecrets, f.ns, f.postgres + "-user-app");
  if (!secret.ok()) return secret.status();
  std::string uri;
  const kube::Json& v = (*secret)["data"]["uri"];
  if (!v.is_string() || !absl::Base64Unescape(v.get<std::string>(), &uri)) {
    return absl::NotFoundError("Secret " + f.postgres + "-user-app has no data.uri");
  }
  // The URI says sslmode=verify-full; libpq reads the CA from a file.
  std::string ca;
  const kube::Json& ca_b64 = (*secret)["data"]["ca.crt"];
  if (ca_b64.is_string() && absl::Base64Unescape(ca_b64.get<std::string>(), &ca) && !ca.empty()) {
    const std::string file = "/tmp/quorum-faults-" + f.ns + "-" + f.postgres + "-ca.crt";
    std::ofstream(file) << ca;
    uri += std::string(uri.find('?') == std::string::npos ? "?" : "&") + "sslrootcert=" + file;
  }
  return uri;
}

// Waits until writes made from `since` on have succeeded 100 times running
// (5 s) and the PostgresCluster is Ready, at most `timeout`.
bool Settled(const PgWriter& writer, const ReadySampler& pg, absl::Time since,
             absl::Duration timeout) {
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    if (writer.trailing_successes(since) >= 100 && pg.ready()) return true;
    absl::SleepFor(absl::Milliseconds(500));
  }
  return false;
}

// One key of a Secret, decoded; "" when absent.
std::string SecretValue(kube::Client& client, const std::string& ns, const std::string& name,
                        const char* key) {
  absl::StatusOr<kube::Json> secret = client.Get(kSecrets, ns, name);
  std::string out;
  if (!secret.ok()) return out;
  const kube::Json& v = (*secret)["data"].value(key, kube::Json());
  if (v.is_string()) absl::Base64Unescape(v.get<std::string>(), &out);
  return out;
}

// How the host reaches the EtcdCluster as the operator does: its client
// Service (by name: this runs under the node's exec, which resolves it) with
// the TLS material and root credentials its status names; a plain cluster's
// Service by its ClusterIP.
absl::StatusOr<etcd::ClientConfig> EtcdAccess(kube::Client& client, const Flags& f) {
  absl::StatusOr<kube::Json> cluster = client.Get(kEtcdClusters, f.ns, f.etcd);
  if (!cluster.ok()) return cluster.status();
  const kube::Json status = cluster->value("status", kube::Json::object());
  etcd::ClientConfig out;
  const std::string endpoint = status.value("clientEndpoint", "");
  if (endpoint.starts_with("https://")) {
    out.endpoints = {endpoint};
  } else {
    absl::StatusOr<kube::Json> svc = client.Get(kServices, f.ns, f.etcd);
    if (!svc.ok()) return svc.status();
    const std::string ip = (*svc)["spec"].value("clusterIP", "");
    if (ip.empty() || ip == "None") return absl::NotFoundError("Service " + f.etcd + " has no IP");
    out.endpoints = {absl::StrCat("http://", ip, ":2379")};
  }
  if (const std::string tls = status.value("clientSecretName", ""); !tls.empty()) {
    out.ca_pem = SecretValue(client, f.ns, tls, "ca.crt");
    out.cert_pem = SecretValue(client, f.ns, tls, "tls.crt");
    out.key_pem = SecretValue(client, f.ns, tls, "tls.key");
  }
  if (const std::string auth = status.value("authSecretName", ""); !auth.empty()) {
    out.username = SecretValue(client, f.ns, auth, "username");
    out.password = SecretValue(client, f.ns, auth, "password");
  }
  return out;
}

// Applies `patch` to the PostgresCluster (a merge patch; null: nothing) and
// waits until the operator has rolled it out: status caught up with the new
// generation, Progressing False (every member runs the current template) and
// Ready True. False when that did not happen within `timeout`.
bool ApplyAndSettle(kube::Client& client, const Flags& f, const kube::Json& patch,
                    absl::Duration timeout) {
  if (patch.is_null()) return true;
  Log("spec patch: " + patch.dump());
  absl::StatusOr<kube::Json> patched =
      client.Patch(kPostgresClusters, f.ns, f.postgres, kube::PatchType::kMerge, patch);
  if (!patched.ok()) {
    Log("  the patch failed: " + patched.status().ToString());
    return false;
  }
  const int64_t generation = (*patched)["metadata"].value("generation", int64_t{0});
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    absl::StatusOr<kube::Json> c = client.Get(kPostgresClusters, f.ns, f.postgres);
    if (c.ok()) {
      const kube::Json status = c->value("status", kube::Json::object());
      std::map<std::string, std::string> conditions;
      for (const kube::Json& cond : status.value("conditions", kube::Json::array())) {
        conditions[cond.value("type", "")] = cond.value("status", "");
      }
      if (status.value("observedGeneration", int64_t{0}) >= generation &&
          conditions["Ready"] == "True" && conditions["Progressing"] == "False") {
        Log("  rolled out");
        return true;
      }
    }
    absl::SleepFor(absl::Seconds(2));
  }
  Log("  not rolled out within " + absl::FormatDuration(timeout));
  return false;
}

Run RunOnce(const Row& row, int attempt, Bed& bed, kube::Client& client, const std::string& uri,
            const etcd::ClientConfig& etcd_access) {
  const Flags& f = bed.flags();
  const int64_t first_id = (static_cast<int64_t>(absl::ToUnixSeconds(absl::Now())) << 20) +
                           static_cast<int64_t>(row.id) * 100000 + attempt;
  PgWriter writer(uri, "quorum_fault_table", first_id);
  EtcdWriter etcd_writer(etcd_access, absl::StrCat("/quorum-faults/", first_id, "/"));
  PrimaryWatch watch(client, f.ns, f.postgres);
  ReadySampler pg(client, kPostgresClusters, f.ns, f.postgres);
  ReadySampler etcd(client, kEtcdClusters, f.ns, f.etcd);
  writer.Start();
  etcd_writer.Start();
  watch.Start();
  pg.Start();
  etcd.Start();
  Run run;
  if (!Settled(writer, pg, absl::InfinitePast(), absl::Minutes(3))) {
    Log("not settled before the fault: writes or Ready never held for 5 s");
  }
  bed.operator_down_from = bed.operator_down_to = absl::InfiniteFuture();
  bed.injected = 0;
  row.inject(bed);
  run.injected = bed.injected;
  // A fault may take effect a little later (a restart, a lease running out):
  // only writes from 5 s after it count towards recovery.
  run.recovered = Settled(writer, pg, absl::Now() + absl::Seconds(5), absl::Minutes(4));
  writer.Stop();
  etcd_writer.Stop();
  watch.Stop();
  pg.Stop();
  etcd.Stop();

  const std::vector<WriteAttempt> attempts = writer.attempts();
  const WriteSummary s = SummarizeWrites(attempts);
  run.outage = s.longest;
  run.acknowledged = s.acknowledged;
  run.read_only = s.read_only_refusals;
  absl::StatusOr<std::set<int64_t>> present = writer.Present(absl::Minutes(1));
  if (present.ok()) {
    run.lost = static_cast<int64_t>(LostWrites(attempts, *present).size());
  } else {
    Log("cannot read the rows back: " + present.status().ToString());
    run.lost = -1;
    run.recovered = false;
  }
  run.max_primaries = watch.max_labelled();
  run.two_primaries = watch.two_primaries();
  std::vector<ReadySample> samples;
  for (const ReadySample& r : pg.samples()) {
    const bool operator_down =
        r.at >= bed.operator_down_from && (bed.operator_down_to == absl::InfiniteFuture() ||
                                           r.at <= bed.operator_down_to + absl::Seconds(10));
    if (!operator_down) samples.push_back(r);
  }
  run.ready_lies = ReadyDuringOutage(samples, s.outages, row.ready_slack);
  for (const Outage& o : s.outages) {
    for (const ReadySample& r : samples) {
      if (r.ready && r.at > o.from && r.at < o.to) {
        Log(absl::StrFormat("Ready sample %s into a %s outage", absl::FormatDuration(r.at - o.from),
                            absl::FormatDuration(o.length())));
      }
    }
  }
  // etcd without quorum, as its clients saw it: the runs of failed puts.
  // Detection rides on the members' readiness probes (3 failures 5 s apart,
  // 5 s timeout) and one reconcile.
  const WriteSummary etcd_writes = SummarizeWrites(etcd_writer.attempts());
  run.etcd_outage = etcd_writes.longest;
  run.etcd_lies = ReadyDuringOutage(etcd.samples(), etcd_writes.outages,
                                    {.lag = absl::Seconds(30), .lead = absl::Seconds(2)});
  for (const Outage& o : etcd_writes.outages) {
    for (const ReadySample& r : etcd.samples()) {
      if (r.ready && r.at > o.from && r.at < o.to) {
        Log(absl::StrFormat("EtcdCluster Ready sample %s into a %s quorum loss",
                            absl::FormatDuration(r.at - o.from), absl::FormatDuration(o.length())));
      }
    }
  }
  run.etcd_problem = etcd_writer.ReadBack(absl::Minutes(1));
  if (!run.etcd_problem.empty()) Log("etcd read-back: " + run.etcd_problem);
  Log(absl::StrFormat(
      "row %d run %d: faults injected %d, outage %s, acknowledged %d, lost %d, primaries at once "
      "%d (%s), "
      "read-only refusals %d, Ready during outage %d, etcd outage %s, etcd Ready without "
      "quorum %d, etcd read-back %s, %s",
      row.id, attempt, run.injected, absl::FormatDuration(run.outage), run.acknowledged, run.lost,
      run.max_primaries, absl::FormatDuration(run.two_primaries), run.read_only, run.ready_lies,
      absl::FormatDuration(run.etcd_outage), run.etcd_lies,
      run.etcd_problem.empty() ? "ok" : "FAILED", run.recovered ? "recovered" : "NOT RECOVERED"));
  return run;
}

std::string Seconds(absl::Duration d) {
  return absl::StrFormat("%.1f s", absl::ToDoubleSeconds(d));
}

// Rows 8 and 9 differ only in whether the operator is up: with the operator
// down the outage should be no longer than with it up, plus 2 s.
std::string OperatorDownBound(const std::map<int, std::vector<Run>>& results) {
  auto down = results.find(8), up = results.find(9);
  if (down == results.end() || up == results.end()) return "";
  auto outages = [](const std::vector<Run>& runs) {
    std::vector<absl::Duration> out;
    for (const Run& r : runs) out.push_back(r.outage);
    return out;
  };
  const std::vector<absl::Duration> d = outages(down->second), u = outages(up->second);
  const bool held = Percentile(d, 100) <= Percentile(u, 100) + absl::Seconds(2);
  return absl::StrCat(
      "\n**The operator down against up** (rows 8 and 9, the same settings): "
      "outage p50 ",
      Seconds(Percentile(d, 50)), " against ", Seconds(Percentile(u, 50)), ", max ",
      Seconds(Percentile(d, 100)), " against ", Seconds(Percentile(u, 100)),
      ": the bound (down ≤ up + 2 s, by the max) ", held ? "holds" : "does NOT hold", ".\n");
}

std::string Markdown(const Flags& f, const std::vector<Row>& rows,
                     const std::map<int, std::vector<Run>>& results) {
  std::string md = absl::StrCat(
      "# Reliability: the fault table\n\n"
      "Generated by `make faults` (test/faults/fault_table.cc) on ",
      absl::FormatTime("%Y-%m-%d", absl::Now(), absl::UTCTimeZone()),
      ". Each row injects one fault into the demo's test bed (an EtcdCluster and a "
      "3-instance PostgresCluster using it through clusterRef) while a client inserts a row "
      "every 50 ms through the primary Service and records every acknowledged id; another puts "
      "an etcd key every 200 ms through the EtcdCluster's Service (its failures are the windows "
      "without quorum); a watch counts pods labelled role=primary; the resources' Ready "
      "condition is read every second.\n\n"
      "A run passes when its fault was injected (a fault command succeeded), every "
      "acknowledged row is there afterwards, never two pods carry "
      "role=primary, no write reaches a read-only member (SQLSTATE 25006), the PostgresCluster "
      "does not say Ready while writes have failed for longer than the row's lag (3 s: the "
      "kubelet's relist, a status update and a reconcile; "
      "35 s for a network cut, which no Kubernetes object shows before Patroni's leader lock "
      "expires) and will still fail for more than 2 s (once the status is Ready again, the "
      "Service's "
      "EndpointSlice and kube-proxy's rules, synced at most once a second, follow it) — so an "
      "outage shorter than 5 s cannot be shown — except while the operator "
      "is down and 10 s after it is back: nobody writes status then — the EtcdCluster does not "
      "say Ready 30 s into a quorum loss (its members' readiness probes take up to ~25 s to see "
      "it), every acknowledged etcd put reads back with its revision, in order, and the cluster "
      "recovers (5 s of successful writes and "
      "Ready) within 4 minutes. Rows 8, 9, 10, 13 and 14 first change the PostgresCluster's spec "
      "(and wait "
      "until every member runs it), then put it back after their runs.\n\n"
      "| # | fault | runs | outage p50 | outage max | rows acknowledged | rows lost | "
      "most primaries at once | writes refused read-only | Ready during outage | "
      "etcd outage max | etcd Ready without quorum | etcd puts lost or out of order | passed |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    auto it = results.find(row.id);
    if (it == results.end()) continue;
    std::vector<absl::Duration> outages, etcd_outages;
    int64_t acked = 0, lost = 0, read_only = 0;
    int primaries = 0, lies = 0, etcd_lies = 0, etcd_bad = 0, passed = 0;
    for (const Run& r : it->second) {
      outages.push_back(r.outage);
      etcd_outages.push_back(r.etcd_outage);
      etcd_bad += r.etcd_problem.empty() ? 0 : 1;
      acked += r.acknowledged;
      lost += r.lost;
      read_only += r.read_only;
      primaries = std::max(primaries, r.max_primaries);
      lies += r.ready_lies;
      etcd_lies += r.etcd_lies;
      passed += r.ok() ? 1 : 0;
    }
    absl::StrAppend(&md, "| ", row.id, " | ", row.fault, " | ", it->second.size(), " | ",
                    Seconds(Percentile(outages, 50)), " | ", Seconds(Percentile(outages, 100)),
                    " | ", acked, " | ", lost, " | ", primaries, " | ", read_only, " | ", lies,
                    " | ", Seconds(Percentile(etcd_outages, 100)), " | ", etcd_lies, " | ",
                    etcd_bad, " | ", passed, "/", it->second.size(), " |\n");
  }
  absl::StrAppend(&md, OperatorDownBound(results));
  absl::StrAppend(
      &md,
      "\n## Crashes at each step (failpoints)\n\n"
      "The operator has failpoints (src/base/failpoint.h), off unless the environment variable "
      "`QUORUM_FAILPOINTS` names them; a named one ends the process at once (exit status 86), "
      "like a crash. EtcdCluster: `etcdcluster/before-<Step>` and `etcdcluster/after-<Step>` "
      "for every membership step (Bootstrap, AddLearner, ScaleStatefulSet, Promote, "
      "MoveLeader, RemoveMember, DeletePod); PostgresCluster: "
      "`postgrescluster/before-Switchover`, `postgrescluster/after-Switchover` (a user's "
      "switchover or failover through the spec) and `postgrescluster/before-RollingUpdate`, "
      "`postgrescluster/after-RollingUpdate` (each step of a rolling update). "
      "`e2e_etcdcluster_test` "
      "(`CrashAtEachMembershipStepResumes`) crashes the operator at after-AddLearner, "
      "after-RemoveMember, after-Promote and before-RemoveMember while scaling 1 -> 3 -> 1, "
      "restarts it, and checks that the cluster converges with its data. "
      "`e2e_postgrescluster_test` (`CrashAtEachSwitchoverAndRolloutStepResumes`) crashes it at "
      "each of the four PostgreSQL failpoints — a user's switchover to the other member, then a "
      "pod-template change rolled through the members — restarts it, and checks that the "
      "switchover is recorded as Succeeded with the target as primary, the rollout reaches "
      "every member, and every row written through the primary Service is there. Its first run "
      "found that a switchover asked for right after another one was recorded as Failed "
      "(Patroni answers 412 \"no good candidates\" while the old primary restarts as a "
      "replica): the operator now waits until the target streams from the primary "
      "(`SwitchoverWaiting` event, `status.patroni.switchover.result: Waiting`, at most 2 "
      "minutes, then `Failed` without asking Patroni).\n");
  absl::StrAppend(&md,
                  "\nReproduce: `make demo && make faults` (all rows, 3 runs each), or one row: "
                  "`make faults FAULT_ROWS=4 FAULT_REPEAT=1`. The faults themselves are "
                  "`hack/faults.sh` commands (kill, stop/continue, cut/heal a pod's network, "
                  "fill a volume, restart or freeze the API server, stop/start the operator).\n");
  return md;
}

int Main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--cp")
      f.cp = v;
    else if (k == "--faults")
      f.faults = v;
    else if (k == "--namespace")
      f.ns = v;
    else if (k == "--postgres")
      f.postgres = v;
    else if (k == "--etcd")
      f.etcd = v;
    else if (k == "--out")
      f.out = v;
    else if (k == "--repeat")
      f.repeat = std::atoi(v.c_str());
    else if (k == "--rows") {
      for (absl::string_view r : absl::StrSplit(v, ',', absl::SkipEmpty())) {
        int n = 0;
        if (absl::SimpleAtoi(r, &n)) f.rows.insert(n);
      }
    } else {
      std::cerr << "fault_table: unknown flag " << k << "\n";
      return 2;
    }
  }
  if (f.cp.empty() || f.faults.empty() || f.repeat < 1) {
    std::cerr << "usage: fault_table --cp DIR --faults hack/faults.sh [--rows 1,2] [--repeat N] "
                 "[--out FILE]\n";
    return 2;
  }
  absl::StatusOr<kube::RestConfig> config = kube::LoadKubeconfigFile(f.cp + "/kubeconfig");
  if (!config.ok()) {
    std::cerr << "fault_table: " << config.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<kube::Client>> client = kube::Client::Create(*config);
  if (!client.ok()) {
    std::cerr << "fault_table: " << client.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> uri = AppUri(**client, f);
  if (!uri.ok()) {
    std::cerr << "fault_table: " << uri.status() << " (is `make demo` running?)\n";
    return 1;
  }
  absl::StatusOr<etcd::ClientConfig> etcd_access = EtcdAccess(**client, f);
  if (!etcd_access.ok()) {
    std::cerr << "fault_table: " << etcd_access.status() << " (is `make demo` running?)\n";
    return 1;
  }
  Bed bed(f, **client);
  std::vector<Row> rows;
  for (const Row& r : Rows()) {
    if (f.rows.empty() || f.rows.contains(r.id)) rows.push_back(r);
  }
  std::map<int, std::vector<Run>> results;
  bool all_ok = true;
  // Consecutive rows with the same setup share it: no undo and setup (two
  // rolling updates) between them.
  const kube::Json* applied = nullptr;
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    const bool shared = applied != nullptr && *applied == row.setup;
    if (!shared && !ApplyAndSettle(**client, f, row.setup, absl::Minutes(10))) {
      all_ok = false;
      results[row.id].push_back(Run{});  // counted as a failed run
      ApplyAndSettle(**client, f, row.undo, absl::Minutes(10));
      applied = nullptr;
      continue;
    }
    applied = &row.setup;
    for (int i = 1; i <= f.repeat; ++i) {
      Log(absl::StrCat("row ", row.id, " run ", i, ": ", row.fault));
      Run run = RunOnce(row, i, bed, **client, *uri, *etcd_access);
      all_ok = all_ok && run.ok();
      results[row.id].push_back(run);
    }
    if (r + 1 < rows.size() && rows[r + 1].setup == row.setup) continue;
    if (!ApplyAndSettle(**client, f, row.undo, absl::Minutes(10))) all_ok = false;
    applied = nullptr;
  }
  const std::string md = Markdown(f, rows, results);
  std::cout << md;
  if (!f.out.empty()) std::ofstream(f.out) << md;
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace quorum::faults

int main(int argc, char** argv) { return quorum::faults::Main(argc, argv); }

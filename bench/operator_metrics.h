// OperatorMetrics: a benchmark's view of a running operator's /readyz and
// /metrics (Prometheus text), scraped over plain HTTP on 127.0.0.1. Each
// call scrapes once; a failed scrape reads as empty (sums as -1).
#ifndef QUORUM_BENCH_OPERATOR_METRICS_H_
#define QUORUM_BENCH_OPERATOR_METRICS_H_

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/base/clock.h"
#include "src/kube/transport.h"

namespace quorum::bench {

class OperatorMetrics {
 public:
  explicit OperatorMetrics(int port) {
    kube::RestConfig rc;
    rc.server = absl::StrCat("http://127.0.0.1:", port);
    rc.qps = 0;
    rc.timeout = absl::Seconds(5);
    auto t = kube::Transport::Create(rc, RealClock());
    if (t.ok()) transport_ = *std::move(t);
  }

  bool Ready() {
    auto r = transport_->Do({.path = "/readyz"});
    return r.ok() && r->code == 200;
  }

  // Every series of `family` by its labels ("a=x,b=y"); nullopt when the
  // scrape failed.
  std::optional<std::map<std::string, double>> Series(const std::string& family) {
    auto r = transport_->Do({.path = "/metrics", .accept = "text/plain"});
    if (!r.ok()) return std::nullopt;
    std::map<std::string, double> out;
    const std::string prefix = family + "{";
    for (absl::string_view line : absl::StrSplit(r->body, '\n')) {
      if (!absl::StartsWith(line, prefix)) continue;
      const size_t close = line.find('}');
      if (close == absl::string_view::npos) continue;
      double n = 0;
      if (!absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &n)) continue;
      std::string labels(line.substr(prefix.size(), close - prefix.size()));
      labels.erase(std::remove(labels.begin(), labels.end(), '"'), labels.end());
      out[labels] = n;
    }
    return out;
  }

  // Series(family), empty when the scrape failed.
  std::map<std::string, double> BySeries(const std::string& family) {
    return Series(family).value_or(std::map<std::string, double>{});
  }

  // The sum of every series of `family` whose labels contain `match`
  // (written as in the exposition, e.g. `controller="etcdcluster"`).
  double Sum(const std::string& family, const std::string& match = "") {
    auto series = Series(family);
    if (!series) return -1;
    std::string unquoted = match;
    unquoted.erase(std::remove(unquoted.begin(), unquoted.end(), '"'), unquoted.end());
    double total = 0;
    for (const auto& [labels, n] : *series) {
      if (absl::StrContains(labels, unquoted)) total += n;
    }
    return total;
  }

  // API requests other than get/list/watch (creates, updates, patches, deletes).
  double Writes() {
    auto series = Series("rest_client_requests_total");
    if (!series) return -1;
    double total = 0;
    for (const auto& [labels, n] : *series) {
      if (absl::StrContains(labels, "verb=get") || absl::StrContains(labels, "verb=list") ||
          absl::StrContains(labels, "verb=watch")) {
        continue;
      }
      total += n;
    }
    return total;
  }

  // rest_client_writes_total by series ("verb=...,resource=...").
  std::map<std::string, double> WritesByResource() { return BySeries("rest_client_writes_total"); }

 private:
  std::unique_ptr<kube::Transport> transport_;
};

}  // namespace quorum::bench

#endif  // QUORUM_BENCH_OPERATOR_METRICS_H_

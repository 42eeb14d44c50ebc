#include "test/faults/checkers.h"

#include <libpq-fe.h>
#include <poll.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "src/etcd/client.h"
#include "src/kube/watch.h"

namespace quorum::faults {
namespace {

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// Short timeouts: a write that hangs must count as failed, not stall the
// record (a cut network never answers).
std::string WithTimeouts(const std::string& conninfo) {
  const bool uri = conninfo.starts_with("postgres://") || conninfo.starts_with("postgresql://");
  if (uri) {
    const char* sep = conninfo.find('?') == std::string::npos ? "?" : "&";
    return absl::StrCat(conninfo, sep, "connect_timeout=2&tcp_user_timeout=2000");
  }
  return absl::StrCat(conninfo, " connect_timeout=2 tcp_user_timeout=2000");
}

// Runs `sql` (with one text parameter or none) and waits at most `timeout`.
// Returns the result, or null on a connection problem or timeout.
Result Exec(PGconn* conn, const std::string& sql, const char* param, absl::Duration timeout) {
  const char* params[1] = {param};
  if (PQsendQueryParams(conn, sql.c_str(), param ? 1 : 0, nullptr, param ? params : nullptr,
                        nullptr, nullptr, 0) == 0) {
    return nullptr;
  }
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (PQconsumeInput(conn) == 0) return nullptr;
    if (PQisBusy(conn) == 0) break;
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return nullptr;
    pollfd p{.fd = PQsocket(conn), .events = POLLIN, .revents = 0};
    poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
  }
  Result last;
  while (PGresult* r = PQgetResult(conn)) last.reset(r);
  return last;
}

bool Ready(const kube::Json& obj) {
  const kube::Json& status = obj.contains("status") ? obj["status"] : kube::Json();
  if (!status.is_object()) return false;
  for (const kube::Json& c : status.value("conditions", kube::Json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace

PgWriter::PgWriter(std::string conninfo, std::string table, int64_t first_id,
                   absl::Duration interval)
    : conninfo_(WithTimeouts(conninfo)),
      table_(std::move(table)),
      first_id_(first_id),
      interval_(interval),
      next_id_(first_id) {}

void PgWriter::Start() {
  thread_ = std::thread([this] { Run(); });
}

void PgWriter::Stop() {
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
}

void PgWriter::Run() {
  Conn conn;
  const std::string insert = absl::StrCat("INSERT INTO ", table_, " (id) VALUES ($1::bigint)");
  const std::string create =
      absl::StrCat("CREATE TABLE IF NOT EXISTS ", table_, " (id bigint PRIMARY KEY)");
  bool created = false;
  while (!stop_.WaitFor(interval_)) {
    WriteAttempt a{.at = absl::Now()};
    if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) {
      conn.reset(PQconnectdb(conninfo_.c_str()));
      if (PQstatus(conn.get()) != CONNECTION_OK) {
        conn.reset();
        a.at = absl::Now();
        absl::MutexLock lock(&mu_);
        a.id = next_id_;  // not consumed: nothing was sent
        attempts_.push_back(a);
        continue;
      }
      created = false;
    }
    if (!created) {
      Result r = Exec(conn.get(), create, nullptr, absl::Seconds(3));
      created = r != nullptr && PQresultStatus(r.get()) == PGRES_COMMAND_OK;
      if (!created) {
        if (r != nullptr) a.sqlstate = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) ?: "";
        if (r == nullptr) conn.reset();
        absl::MutexLock lock(&mu_);
        a.id = next_id_;
        attempts_.push_back(a);
        continue;
      }
    }
    int64_t id;
    {
      absl::MutexLock lock(&mu_);
      id = next_id_++;
    }
    const std::string text = std::to_string(id);
    Result r = Exec(conn.get(), insert, text.c_str(), absl::Seconds(3));
    a.id = id;
    a.acknowledged = r != nullptr && PQresultStatus(r.get()) == PGRES_COMMAND_OK;
    if (!a.acknowledged && r != nullptr) {
      const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
      a.sqlstate = state ? state : "";
    }
    if (r == nullptr) conn.reset();  // timed out or broken: reconnect
    a.at = absl::Now();
    absl::MutexLock lock(&mu_);
    attempts_.push_back(a);
  }
}

std::vector<WriteAttempt> PgWriter::attempts() const {
  absl::MutexLock lock(&mu_);
  return attempts_;
}

int PgWriter::trailing_successes(absl::Time since) const {
  absl::MutexLock lock(&mu_);
  int n = 0;
  for (auto it = attempts_.rbegin(); it != attempts_.rend() && it->acknowledged && it->at >= since;
       ++it) {
    ++n;
  }
  return n;
}

absl::StatusOr<std::set<int64_t>> PgWriter::Present(absl::Duration timeout) const {
  int64_t end;
  {
    absl::MutexLock lock(&mu_);
    end = next_id_;
  }
  const std::string sql =
      absl::StrCat("SELECT id FROM ", table_, " WHERE id >= ", first_id_, " AND id < ", end);
  const absl::Time deadline = absl::Now() + timeout;
  std::string error = "no attempt";
  while (absl::Now() < deadline) {
    Conn conn(PQconnectdb(conninfo_.c_str()));
    if (PQstatus(conn.get()) == CONNECTION_OK) {
      Result r = Exec(conn.get(), sql, nullptr, absl::Seconds(10));
      if (r != nullptr && PQresultStatus(r.get()) == PGRES_TUPLES_OK) {
        std::set<int64_t> ids;
        for (int i = 0; i < PQntuples(r.get()); ++i)
          ids.insert(std::stoll(PQgetvalue(r.get(), i, 0)));
        return ids;
      }
      error = r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn.get());
    } else {
      error = PQerrorMessage(conn.get());
    }
    absl::SleepFor(absl::Seconds(1));
  }
  return absl::DeadlineExceededError(absl::StrCat("reading back ", table_, ": ", error));
}

EtcdWriter::EtcdWriter(etcd::ClientConfig access, std::string prefix, absl::Duration interval)
    : access_(std::move(access)), prefix_(std::move(prefix)), interval_(interval) {}

void EtcdWriter::Start() {
  thread_ = std::thread([this] { Run(); });
}

void EtcdWriter::Stop() {
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
}

std::string EtcdWriter::Key(int64_t id) const { return absl::StrFormat("%s%09d", prefix_, id); }

void EtcdWriter::Run() {
  // A put that hangs counts as failed after 2 s (a frozen leader never answers).
  etcd::ClientConfig config = access_;
  config.timeout = absl::Seconds(2);
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(std::move(config));
  for (int64_t id = 1; client.ok() && !stop_.WaitFor(interval_); ++id) {
    WriteAttempt a{.at = absl::Now(), .id = id};
    absl::StatusOr<int64_t> revision = (*client)->Put(Key(id), std::to_string(id));
    a.acknowledged = revision.ok();
    a.revision = revision.ok() ? *revision : 0;
    a.at = absl::Now();
    absl::MutexLock lock(&mu_);
    attempts_.push_back(a);
  }
}

std::vector<WriteAttempt> EtcdWriter::attempts() const {
  absl::MutexLock lock(&mu_);
  return attempts_;
}

std::string EtcdWriter::ReadBack(absl::Duration timeout) const {
  etcd::ClientConfig config = access_;
  config.timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(std::move(config));
  if (!client.ok()) return client.status().ToString();
  const absl::Time deadline = absl::Now() + timeout;
  std::vector<EtcdRead> reads;
  for (const WriteAttempt& a : attempts()) {
    if (!a.acknowledged) continue;
    absl::StatusOr<etcd::GetResponse> got = (*client)->Get(Key(a.id));
    while (!got.ok() && absl::Now() < deadline) {
      absl::SleepFor(absl::Seconds(1));
      got = (*client)->Get(Key(a.id));
    }
    if (!got.ok()) return absl::StrCat("reading ", Key(a.id), " back: ", got.status().ToString());
    reads.push_back({.id = a.id, .put_revision = a.revision, .mod_revision = got->mod_revision});
  }
  const std::string problem = EtcdReadBackProblem(reads);
  if (absl::StatusOr<int64_t> deleted = (*client)->DeletePrefix(prefix_); !deleted.ok()) {
    return problem.empty() ? "deleting the keys: " + deleted.status().ToString() : problem;
  }
  return problem;
}

PrimaryWatch::PrimaryWatch(kube::Client& client, std::string ns, std::string cluster)
    : client_(client), ns_(std::move(ns)), cluster_(std::move(cluster)) {}

void PrimaryWatch::Start() {
  threads_.emplace_back([this] { WatchPods(); });
  threads_.emplace_back([this] { WatchSlices(); });
}

void PrimaryWatch::Stop() {
  stop_.Cancel();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void PrimaryWatch::WatchPods() {
  kube::Watcher::Options o;
  o.list.label_selector =
      absl::StrCat("app.kubernetes.io/name=postgres,app.kubernetes.io/instance=", cluster_);
  kube::Watcher w(client_, {"", "v1", "pods"}, ns_, o);
  (void)w.Run(
      [this](const kube::WatchEvent& e) {
        if (e.type == kube::WatchEventType::kBookmark || e.type == kube::WatchEventType::kError) {
          return true;
        }
        const kube::Json& meta = e.object["metadata"];
        const std::string name = meta.value("name", "");
        const bool primary =
            e.type != kube::WatchEventType::kDeleted &&
            meta.value("labels", kube::Json::object()).value("role", "") == "primary";
        absl::MutexLock lock(&mu_);
        tracker_.OnPod(name, primary, absl::Now());
        return true;
      },
      stop_);
}

void PrimaryWatch::WatchSlices() {
  kube::Watcher::Options o;
  o.list.label_selector = "kubernetes.io/service-name=" + cluster_;
  kube::Watcher w(client_, {"discovery.k8s.io", "v1", "endpointslices"}, ns_, o);
  (void)w.Run(
      [this](const kube::WatchEvent& e) {
        if (e.type == kube::WatchEventType::kBookmark || e.type == kube::WatchEventType::kError) {
          return true;
        }
        int ready = 0;
        if (e.type != kube::WatchEventType::kDeleted) {
          for (const kube::Json& ep : e.object.value("endpoints", kube::Json::array())) {
            const kube::Json cond = ep.value("conditions", kube::Json::object());
            if (cond.value("ready", true))
              ready += static_cast<int>(ep.value("addresses", kube::Json::array()).size());
          }
        }
        absl::MutexLock lock(&mu_);
        tracker_.OnSlice(e.object["metadata"].value("name", ""), ready, absl::Now());
        return true;
      },
      stop_);
}

int PrimaryWatch::max_labelled() const {
  absl::MutexLock lock(&mu_);
  return tracker_.max_labelled();
}
int PrimaryWatch::max_addresses() const {
  absl::MutexLock lock(&mu_);
  return tracker_.max_addresses();
}
absl::Duration PrimaryWatch::two_primaries() const {
  absl::MutexLock lock(&mu_);
  return tracker_.two_primaries(absl::Now());
}
absl::Duration PrimaryWatch::two_addresses() const {
  absl::MutexLock lock(&mu_);
  return tracker_.two_addresses(absl::Now());
}

ReadySampler::ReadySampler(kube::Client& client, kube::GroupVersionResource gvr, std::string ns,
                           std::string name, absl::Duration interval)
    : client_(client),
      gvr_(std::move(gvr)),
      ns_(std::move(ns)),
      name_(std::move(name)),
      interval_(interval) {}

void ReadySampler::Start() {
  thread_ = std::thread([this] {
    do {
      // Stamped before the read: the answer shows the state at that time or later.
      const absl::Time at = absl::Now();
      absl::StatusOr<kube::Json> obj = client_.Get(gvr_, ns_, name_);
      ReadySample s{.at = at, .ready = obj.ok() && Ready(*obj)};
      absl::MutexLock lock(&mu_);
      samples_.push_back(s);
    } while (!stop_.WaitFor(interval_));
  });
}

void ReadySampler::Stop() {
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
}

std::vector<ReadySample> ReadySampler::samples() const {
  absl::MutexLock lock(&mu_);
  return samples_;
}

bool ReadySampler::ready() const {
  absl::MutexLock lock(&mu_);
  return !samples_.empty() && samples_.back().ready;
}

}  // namespace quorum::faults

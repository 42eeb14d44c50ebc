#include "src/controllers/postgrescluster/pg_connection.h"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace quorum::postgrescluster {
namespace {

struct ResultClearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultClearer>;

std::string Message(PGconn* conn) {
  std::string m = PQerrorMessage(conn);
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  if (m.starts_with("ERROR:  ")) m = m.substr(8);
  return m;
}

// An anonymous in-memory file holding `text`, closed on destruction.
class MemFile {
 public:
  explicit MemFile(const std::string& text) : fd_(memfd_create("quorum-ca", MFD_CLOEXEC)) {
    size_t done = 0;
    while (fd_ >= 0 && done < text.size()) {
      const ssize_t n = write(fd_, text.data() + done, text.size() - done);
      if (n <= 0) {
        close(fd_);
        fd_ = -1;
      } else {
        done += static_cast<size_t>(n);
      }
    }
  }
  ~MemFile() {
    if (fd_ >= 0) close(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  bool ok() const { return fd_ >= 0; }
  std::string path() const { return absl::StrCat("/proc/self/fd/", fd_); }

 private:
  int fd_;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> ConnParams(const PostgresTarget& target,
                                                            const std::string& ca_file,
                                                            const std::string& dbname) {
  std::vector<std::pair<std::string, std::string>> p = {{"host", target.host}};
  if (!target.hostaddr.empty()) p.emplace_back("hostaddr", target.hostaddr);
  p.emplace_back("port", std::to_string(target.port));
  p.emplace_back("user", target.user);
  p.emplace_back("dbname", dbname);
  p.emplace_back("connect_timeout", "5");
  p.emplace_back("application_name", "quorum-operator");
  if (!target.ca_pem.empty()) {
    p.emplace_back("sslmode", "verify-full");
    p.emplace_back("sslrootcert", ca_file);
  } else {
    p.emplace_back("sslmode", "prefer");
  }
  return p;
}

absl::StatusOr<std::unique_ptr<PgConnection>> PgConnection::Open(const PostgresTarget& target,
                                                                 const std::string& dbname) {
  std::optional<MemFile> ca;
  if (!target.ca_pem.empty()) {
    ca.emplace(target.ca_pem);
    if (!ca->ok()) return absl::InternalError("cannot hold the cluster's CA for libpq (memfd)");
  }
  std::vector<std::pair<std::string, std::string>> params =
      ConnParams(target, ca.has_value() ? ca->path() : "", dbname);
  params.emplace_back("password", target.password);
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : params) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), 0);
  ca.reset();  // read during the handshake
  std::unique_ptr<PgConnection> out(new PgConnection(conn));
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat("connecting to ", target.host, ":", target.port,
                                               " as ", target.user, ": ",
                                               conn == nullptr ? "out of memory" : Message(conn)));
  }
  return out;
}

PgConnection::~PgConnection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

absl::Status PgConnection::Failure() const {
  if (PQstatus(conn_) != CONNECTION_OK) return absl::UnavailableError(Message(conn_));
  return absl::InternalError(Message(conn_));
}

absl::Status PgConnection::Exec(const std::string& sql) {
  Result r(PQexec(conn_, sql.c_str()));
  const ExecStatusType s = PQresultStatus(r.get());
  if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return absl::OkStatus();
  return Failure();
}

absl::Status PgConnection::ExecBefore(const std::string& sql, absl::Time deadline) {
  if (PQsendQuery(conn_, sql.c_str()) == 0) return Failure();
  while (PQflush(conn_) > 0 || PQisBusy(conn_) != 0) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError("no answer in time (the statement may still run)");
    }
    pollfd fd{.fd = PQsocket(conn_), .events = POLLIN, .revents = 0};
    const int waited = poll(&fd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (waited < 0 && errno != EINTR) return absl::UnavailableError("poll failed");
    if (waited > 0 && PQconsumeInput(conn_) == 0) return Failure();
  }
  absl::Status out = absl::OkStatus();
  while (PGresult* raw = PQgetResult(conn_)) {  // every result, so the connection is idle again
    Result r(raw);
    const ExecStatusType s = PQresultStatus(r.get());
    if (out.ok() && s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) out = Failure();
  }
  return out;
}

absl::StatusOr<std::vector<PgRow>> PgConnection::Query(const std::string& sql,
                                                       const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const std::string& p : params) values.push_back(p.c_str());
  Result r(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                        nullptr, nullptr, 0));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) return Failure();
  std::vector<PgRow> rows;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    PgRow row;
    for (int j = 0; j < PQnfields(r.get()); ++j) {
      if (PQgetisnull(r.get(), i, j)) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(PQgetvalue(r.get(), i, j));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string PgConnection::Literal(std::string_view text) {
  char* q = PQescapeLiteral(conn_, text.data(), text.size());
  if (q == nullptr) return "NULL";
  std::string out = q;
  PQfreemem(q);
  return out;
}

absl::StatusOr<std::string> PgConnection::ScramVerifier(const std::string& password,
                                                        const std::string& user) {
  char* v = PQencryptPasswordConn(conn_, password.c_str(), user.c_str(), "scram-sha-256");
  if (v == nullptr) {
    return absl::InternalError("computing the SCRAM verifier of " + user + ": " + Message(conn_));
  }
  std::string out = v;
  PQfreemem(v);
  return out;
}

}  // namespace quorum::postgrescluster

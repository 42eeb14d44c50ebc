#include "src/controllers/postgrescluster/users.h"

#include <libpq-fe.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace quorum::postgrescluster {
namespace {

std::string Quote(const std::string& identifier) { return "\"" + identifier + "\""; }

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct ResultClearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;
using Result = std::unique_ptr<PGresult, ResultClearer>;

std::string Message(PGconn* conn) {
  std::string m = PQerrorMessage(conn);
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

absl::StatusOr<std::set<std::string>> Column(PGconn* conn, const char* sql) {
  Result r(PQexec(conn, sql));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) return absl::InternalError(Message(conn));
  std::set<std::string> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) out.insert(PQgetvalue(r.get(), i, 0));
  return out;
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
                                                            const std::string& ca_file) {
  std::vector<std::pair<std::string, std::string>> p = {{"host", target.host}};
  if (!target.hostaddr.empty()) p.emplace_back("hostaddr", target.hostaddr);
  p.emplace_back("port", std::to_string(target.port));
  p.emplace_back("user", target.user);
  p.emplace_back("dbname", "postgres");
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

std::vector<UserSpec> UsersOf(const PostgresCluster& cluster,
                              const std::function<std::string(const std::string&)>& password_of) {
  std::vector<UserSpec> out;
  for (const api::PostgresUserSpec& u : cluster.spec.users) {
    out.push_back({.name = u.name,
                   .databases = u.databases,
                   .options = u.options,
                   .password = password_of(UserSecretName(cluster, u.name))});
  }
  return out;
}

std::vector<std::string> PlanUserSql(const std::vector<UserSpec>& users,
                                     const std::set<std::string>& existing_roles,
                                     const std::set<std::string>& existing_databases,
                                     const std::function<std::string(const UserSpec&)>& verifier) {
  std::vector<std::string> sql;
  std::set<std::string> databases = existing_databases;  // the first user listing one owns it
  for (const UserSpec& u : users) {
    std::vector<std::string> options = {"LOGIN"};
    for (const std::string& o : u.options) options.push_back(o);  // a later NOLOGIN wins
    const std::string verb = existing_roles.contains(u.name) ? "ALTER ROLE " : "CREATE ROLE ";
    std::string stmt = verb + Quote(u.name) + " WITH " + absl::StrJoin(options, " ");
    if (!u.password.empty()) stmt += " PASSWORD '" + verifier(u) + "'";
    sql.push_back(stmt);
    for (const std::string& db : u.databases) {
      if (!databases.insert(db).second) continue;
      sql.push_back("CREATE DATABASE " + Quote(db) + " OWNER " + Quote(u.name));
    }
  }
  return sql;
}

namespace {

// A verified connection to `target` (users.h: the CA through a memfd).
absl::StatusOr<Conn> Connect(const PostgresTarget& target) {
  std::optional<MemFile> ca;
  if (!target.ca_pem.empty()) {
    ca.emplace(target.ca_pem);
    if (!ca->ok()) return absl::InternalError("cannot hold the cluster's CA for libpq (memfd)");
  }
  std::vector<std::pair<std::string, std::string>> params =
      ConnParams(target, ca.has_value() ? ca->path() : "");
  params.emplace_back("password", target.password);
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : params) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  Conn conn(PQconnectdbParams(keys.data(), values.data(), 0));
  ca.reset();  // read during the handshake
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat("connecting to ", target.host, ":", target.port,
                                               " as ", target.user, ": ", Message(conn.get())));
  }
  return conn;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<std::string>>> QueryFirstRows(
    const PostgresTarget& target, const std::vector<std::string>& statements) {
  absl::StatusOr<Conn> conn = Connect(target);
  if (!conn.ok()) return conn.status();
  std::vector<std::vector<std::string>> out;
  for (const std::string& sql : statements) {
    Result r(PQexec(conn->get(), sql.c_str()));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) < 1) {
      return absl::InternalError(absl::StrCat(sql, ": ",
                                              PQresultStatus(r.get()) == PGRES_TUPLES_OK
                                                  ? std::string("no row")
                                                  : Message(conn->get())));
    }
    std::vector<std::string> row;
    for (int c = 0; c < PQnfields(r.get()); ++c) row.push_back(PQgetvalue(r.get(), 0, c));
    out.push_back(std::move(row));
  }
  return out;
}

absl::Status EnsureUsers(const PostgresTarget& target, const std::vector<UserSpec>& users) {
  if (users.empty()) return absl::OkStatus();
  absl::StatusOr<Conn> connected = Connect(target);
  if (!connected.ok()) return connected.status();
  Conn conn = *std::move(connected);
  absl::StatusOr<std::set<std::string>> roles = Column(conn.get(), "SELECT rolname FROM pg_roles");
  if (!roles.ok()) return roles.status();
  absl::StatusOr<std::set<std::string>> dbs = Column(conn.get(), "SELECT datname FROM pg_database");
  if (!dbs.ok()) return dbs.status();
  std::string failure;
  auto verifier = [&](const UserSpec& u) -> std::string {
    char* v =
        PQencryptPasswordConn(conn.get(), u.password.c_str(), u.name.c_str(), "scram-sha-256");
    if (v == nullptr) {
      failure = "computing the SCRAM verifier of " + u.name + ": " + Message(conn.get());
      return "";
    }
    std::string out = v;
    PQfreemem(v);
    return out;
  };
  const std::vector<std::string> sql = PlanUserSql(users, *roles, *dbs, verifier);
  if (!failure.empty()) return absl::InternalError(failure);
  for (const std::string& stmt : sql) {
    Result r(PQexec(conn.get(), stmt.c_str()));
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      // The statement may carry a verifier: name only its first words.
      return absl::InternalError(
          absl::StrCat(stmt.substr(0, stmt.find(" WITH ")), ": ", Message(conn.get())));
    }
  }
  return absl::OkStatus();
}

}  // namespace quorum::postgrescluster

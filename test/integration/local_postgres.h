// A PostgreSQL server of Debian's packages (hack/deps.sh installs them),
// started for one test on a free loopback port as the `postgres` system user
// with SCRAM authentication and log_statement=all, and removed after it:
// what the SQL of spec.users, PostgresRole and PostgresDatabase is checked
// against. Header-only; the tests must run as root (runuser).
//
// Thread-safety: one test thread.
#ifndef QUORUM_TEST_INTEGRATION_LOCAL_POSTGRES_H_
#define QUORUM_TEST_INTEGRATION_LOCAL_POSTGRES_H_

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace quorum::testing {

class LocalPostgres : public ::testing::Test {
 protected:
  static constexpr char kSuperuserPassword[] = "su-secret";

  void SetUp() override {
    bin_ = BinDir();
    ASSERT_FALSE(bin_.empty())
        << "PostgreSQL server binaries not found (hack/deps.sh installs them)";
    ASSERT_NE(getpwnam("postgres"), nullptr) << "no postgres system user";
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("quorum-pg-", getpid(), "-", ++counter_);
    std::filesystem::create_directories(dir_);
    port_ = FreePort();
    std::ofstream(dir_ / "pw") << kSuperuserPassword << "\n";
    const std::string as_pg = "runuser -u postgres -- ";
    ASSERT_EQ(std::system(absl::StrCat("chown -R postgres ", dir_.string()).c_str()), 0);
    ASSERT_EQ(
        std::system(absl::StrCat(as_pg, bin_, "/initdb -D ", (dir_ / "data").string(),
                                 " -U postgres --pwfile=", (dir_ / "pw").string(),
                                 " --auth=scram-sha-256 >", (dir_ / "initdb.log").string(), " 2>&1")
                        .c_str()),
        0);
    ASSERT_EQ(std::system(absl::StrCat(as_pg, bin_, "/pg_ctl -D ", (dir_ / "data").string(),
                                       " -o '-p ", port_, " -k ", dir_.string(),
                                       " -c listen_addresses=127.0.0.1 -c log_statement=all' -l ",
                                       (dir_ / "server.log").string(), " -w start >/dev/null")
                              .c_str()),
              0);
  }
  void TearDown() override {
    if (!bin_.empty() && !dir_.empty()) {
      (void)std::system(absl::StrCat("runuser -u postgres -- ", bin_, "/pg_ctl -D ",
                                     (dir_ / "data").string(), " -m immediate stop >/dev/null 2>&1")
                            .c_str());
      std::filesystem::remove_all(dir_);
    }
  }

  // A libpq connection string to the server (no TLS).
  std::string ConnInfo(const std::string& user, const std::string& password,
                       const std::string& db) const {
    return absl::StrCat("host=127.0.0.1 port=", port_, " user=", user, " password=", password,
                        " dbname=", db, " sslmode=disable");
  }
  bool CanLogin(const std::string& user, const std::string& password, const std::string& db) {
    PGconn* c = PQconnectdb(ConnInfo(user, password, db).c_str());
    const bool ok = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    return ok;
  }
  // The server's log (every statement, log_statement=all).
  std::string ServerLog() const {
    std::ifstream log(dir_ / "server.log");
    std::stringstream ss;
    ss << log.rdbuf();
    return ss.str();
  }
  int port() const { return port_; }
  // The directory of this test's files (owned by the postgres user).
  const std::filesystem::path& dir() const { return dir_; }

  static int FreePort() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
  }

 private:
  static std::string BinDir() {
    for (const char* dir : {"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin",
                            "/usr/lib/postgresql/15/bin"}) {
      if (std::filesystem::exists(std::string(dir) + "/postgres")) return dir;
    }
    return "";
  }

  static inline int counter_ = 0;
  std::string bin_;
  std::filesystem::path dir_;
  int port_ = 0;
};

}  // namespace quorum::testing

#endif  // QUORUM_TEST_INTEGRATION_LOCAL_POSTGRES_H_

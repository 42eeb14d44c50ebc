// spec.users inside a real PostgreSQL (Debian's, started here on a loopback
// port as the `postgres` system user): roles and databases are created, a
// second run changes nothing that exists, passwords work for login, and the
// clear password never reaches the server (SCRAM verifiers only).
#include "src/controllers/postgrescluster/users.h"

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

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace quorum::postgrescluster {
namespace {

std::string BinDir() {
  for (const char* dir :
       {"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"}) {
    if (std::filesystem::exists(std::string(dir) + "/postgres")) return dir;
  }
  return "";
}

int FreePort() {
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

class UsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = BinDir();
    ASSERT_FALSE(bin_.empty())
        << "PostgreSQL server binaries not found (hack/deps.sh installs them)";
    ASSERT_NE(getpwnam("postgres"), nullptr) << "no postgres system user";
    dir_ = std::filesystem::temp_directory_path() / absl::StrCat("quorum-users-", getpid());
    std::filesystem::create_directories(dir_);
    port_ = FreePort();
    std::ofstream(dir_ / "pw") << "su-secret\n";
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
  bool CanLogin(const std::string& user, const std::string& password, const std::string& db) {
    const std::string conninfo = absl::StrCat("host=127.0.0.1 port=", port_, " user=", user,
                                              " password=", password, " dbname=", db);
    PGconn* c = PQconnectdb(conninfo.c_str());
    const bool ok = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    return ok;
  }
  PostgresTarget Target() {
    return {.host = "127.0.0.1", .port = port_, .user = "postgres", .password = "su-secret"};
  }

  std::string bin_;
  std::filesystem::path dir_;
  int port_ = 0;
};

TEST_F(UsersTest, CreatesRolesAndDatabasesIdempotently) {
  std::vector<UserSpec> users = {
      {.name = "app", .databases = {"app"}, .password = "app-pw-1"},
      {.name = "ops", .databases = {"ops", "app"}, .options = {"CREATEDB"}, .password = "ops-pw"}};
  ASSERT_EQ(EnsureUsers(Target(), users), absl::OkStatus());
  EXPECT_TRUE(CanLogin("app", "app-pw-1", "app"));
  EXPECT_TRUE(CanLogin("ops", "ops-pw", "ops"));
  EXPECT_FALSE(CanLogin("app", "wrong", "app"));

  // Again, with a rotated password: the role is altered, nothing fails.
  users[0].password = "app-pw-2";
  ASSERT_EQ(EnsureUsers(Target(), users), absl::OkStatus());
  EXPECT_TRUE(CanLogin("app", "app-pw-2", "app"));
  EXPECT_FALSE(CanLogin("app", "app-pw-1", "app"));

  std::ifstream log(dir_ / "server.log");
  std::stringstream ss;
  ss << log.rdbuf();
  EXPECT_NE(ss.str().find("CREATE ROLE \"app\""), std::string::npos) << "log_statement=all is on";
  EXPECT_EQ(ss.str().find("app-pw-1"), std::string::npos) << "a clear password reached the server";
}

TEST_F(UsersTest, WrongSuperuserPasswordIsUnavailableWithoutThePassword) {
  PostgresTarget t = Target();
  t.password = "nope-secret";
  absl::Status s = EnsureUsers(t, {{.name = "app", .password = "x"}});
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_EQ(std::string(s.message()).find("nope-secret"), std::string::npos);
}

}  // namespace
}  // namespace quorum::postgrescluster

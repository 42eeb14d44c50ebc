// The pooler's admin console (pgbouncer_console.h) against a real PgBouncer
// (Debian's, hack/deps.sh) in front of a real PostgreSQL, both on loopback:
// a PAUSE waits for a running transaction and gives up at its deadline,
// resuming what it paused; a pooler left paused (an operator that stopped
// between PAUSE and RESUME) is found and resumed by another console; a
// transaction sent while paused is held, not failed, and runs after RESUME;
// a pod that cannot be reached is an Unavailable error naming it.
#include "src/controllers/postgrescluster/pgbouncer_console.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "test/integration/local_postgres.h"
#include "test/integration/testenv.h"

namespace quorum::postgrescluster {
namespace {

constexpr char kPgBouncer[] = "/usr/sbin/pgbouncer";
constexpr char kAdminPassword[] = "admin-secret";

class PgBouncerConsoleTest : public testing::LocalPostgres {
 protected:
  void SetUp() override {
    LocalPostgres::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(std::filesystem::exists(kPgBouncer)) << "no PgBouncer (hack/deps.sh installs it)";
    pooler_port_ = FreePort();
    const std::filesystem::path d = dir();
    std::ofstream(d / "userlist.txt") << "\"postgres\" \"" << kSuperuserPassword << "\"\n"
                                      << "\"quorum_pooler_admin\" \"" << kAdminPassword << "\"\n";
    std::ofstream(d / "pgbouncer.ini")
        << "[databases]\n* = host=127.0.0.1 port=" << port() << "\n[pgbouncer]\n"
        << "listen_addr = 127.0.0.1\nlisten_port = " << pooler_port_ << "\nunix_socket_dir =\n"
        << "auth_type = scram-sha-256\nauth_file = " << (d / "userlist.txt").string()
        << "\nadmin_users = quorum_pooler_admin\npool_mode = transaction\n"
        << "logfile = " << (d / "pgbouncer.log").string()
        << "\npidfile = " << (d / "pgbouncer.pid").string() << "\n";
    ASSERT_EQ(
        std::system(absl::StrCat("chown -R postgres ", d.string(), " && runuser -u postgres -- ",
                                 kPgBouncer, " -d -q ", (d / "pgbouncer.ini").string())
                        .c_str()),
        0);
    // PgBouncer listens once it has daemonized.
    ASSERT_TRUE(testenv::Eventually([&] { return Reachable(); }, absl::Seconds(10)))
        << "PgBouncer did not start; see " << (d / "pgbouncer.log");
  }
  void TearDown() override {
    std::ifstream pidfile(dir() / "pgbouncer.pid");
    int pid = 0;
    if (pidfile >> pid && pid > 0) kill(pid, SIGTERM);
    LocalPostgres::TearDown();
  }

  std::string ClientInfo() const {
    return absl::StrCat("host=127.0.0.1 port=", pooler_port_,
                        " user=postgres password=", kSuperuserPassword,
                        " dbname=postgres sslmode=disable");
  }
  bool Reachable() const {
    PGconn* c = PQconnectdb(ClientInfo().c_str());
    const bool ok = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    return ok;
  }
  PgBouncerConsole Console(int port = 0) const {
    return PgBouncerConsole(
        {{.name = "pooler-0", .ip = "127.0.0.1"}},
        {.host = "127.0.0.1", .user = "quorum_pooler_admin", .password = kAdminPassword},
        port == 0 ? pooler_port_ : port);
  }
  // PgBouncer's answer to `sql` on `c`: "ok" or the error.
  static std::string Run(PGconn* c, const char* sql) {
    PGresult* r = PQexec(c, sql);
    const ExecStatusType s = PQresultStatus(r);
    std::string out = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? "ok" : PQerrorMessage(c);
    PQclear(r);
    return out;
  }
  // Whether another console (the operator after a restart) finds the pooler
  // paused; it resumes it if so.
  int ResumedByAnother() const {
    int resumed = -1;
    const absl::Status s = Console().ResumeAll(resumed);
    EXPECT_TRUE(s.ok()) << s;
    return resumed;
  }

  int pooler_port_ = 0;
};

TEST_F(PgBouncerConsoleTest, PauseWaitsForARunningTransactionAndGivesUpAtItsDeadline) {
  PGconn* client = PQconnectdb(ClientInfo().c_str());
  ASSERT_EQ(PQstatus(client), CONNECTION_OK) << PQerrorMessage(client);
  ASSERT_EQ(Run(client, "BEGIN"), "ok");
  ASSERT_EQ(Run(client, "SELECT 1"), "ok");  // the transaction holds a server connection

  PgBouncerConsole console = Console();
  const absl::Status held = console.Pause(absl::Now() + absl::Seconds(1));
  EXPECT_EQ(held.code(), absl::StatusCode::kDeadlineExceeded) << held;
  EXPECT_NE(held.message().find("pooler-0"), std::string::npos) << held;
  EXPECT_EQ(ResumedByAnother(), 0) << "a PAUSE that gave up was left in force";

  // Once the transaction ends, the pause completes; left so (the operator
  // stopped here), another console finds it paused, once.
  ASSERT_EQ(Run(client, "COMMIT"), "ok");
  const absl::Status paused = console.Pause(absl::Now() + absl::Seconds(30));
  ASSERT_TRUE(paused.ok()) << paused;
  EXPECT_EQ(ResumedByAnother(), 1);
  EXPECT_EQ(ResumedByAnother(), 0);
  EXPECT_EQ(Run(client, "SELECT 1"), "ok");
  PQfinish(client);
}

TEST_F(PgBouncerConsoleTest, ATransactionSentWhilePausedIsHeldAndRunsAfterResume) {
  PGconn* client = PQconnectdb(ClientInfo().c_str());
  ASSERT_EQ(PQstatus(client), CONNECTION_OK) << PQerrorMessage(client);
  PgBouncerConsole console = Console();
  const absl::Status paused = console.Pause(absl::Now() + absl::Seconds(30));
  ASSERT_TRUE(paused.ok()) << paused;
  ASSERT_EQ(PQsendQuery(client, "SELECT 42"), 1);  // held by the pause
  const absl::Status resumed = console.Resume();
  ASSERT_TRUE(resumed.ok()) << resumed;
  PGresult* r = PQgetResult(client);
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(client);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "42");
  PQclear(r);
  while ((r = PQgetResult(client)) != nullptr) PQclear(r);
  EXPECT_EQ(ResumedByAnother(), 0);
  PQfinish(client);
}

TEST_F(PgBouncerConsoleTest, APodThatCannotBeReachedIsUnavailableAndNamed) {
  PgBouncerConsole gone = Console(FreePort());  // nothing listens there
  const absl::Status paused = gone.Pause(absl::Now() + absl::Seconds(10));
  EXPECT_FALSE(paused.ok());
  EXPECT_NE(paused.message().find("pooler-0"), std::string::npos) << paused;
  int resumed = -1;
  const absl::Status s = gone.ResumeAll(resumed);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_NE(s.message().find("pooler-0"), std::string::npos) << s;
  EXPECT_EQ(resumed, 0);
}

}  // namespace
}  // namespace quorum::postgrescluster

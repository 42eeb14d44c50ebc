// The etcd client against real etcd processes: plain, TLS with client
// certificates, and auth on.
#include "src/etcd/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "src/etcd/errors.h"
#include "test/integration/etcd/etcd_harness.h"

namespace quorum::etcd {
namespace {

using testing::EtcdHarness;
using testing::HarnessOptions;

std::unique_ptr<Client> NewClient(ClientConfig config) {
  absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(std::move(config));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : nullptr;
}

class ClientTest : public ::testing::Test {
 protected:
  // Starts an n-member cluster; `options` as for the harness.
  void StartCluster(int n, HarnessOptions options = {}) {
    options.max_members = std::max(options.max_members, n);
    harness_ = std::make_unique<EtcdHarness>(options);
    ASSERT_TRUE(harness_->Init().ok());
    client_ = NewClient(harness_->Config());
    ASSERT_NE(client_, nullptr);
    absl::Status s = harness_->StartNewCluster(*client_, n);
    ASSERT_TRUE(s.ok()) << s;
  }

  // The basic calls every mode must support.
  void ExpectBasicsWork(Client& c) {
    absl::StatusOr<MemberListResponse> list = c.MemberList();
    ASSERT_TRUE(list.ok()) << list.status();
    ASSERT_EQ(list->members.size(), 1u);
    const Member& m = list->members[0];
    EXPECT_NE(list->cluster_id, 0u);
    EXPECT_NE(m.id, 0u);
    EXPECT_EQ(m.name, harness_->Name(0));
    EXPECT_EQ(m.peer_urls, std::vector<std::string>{harness_->PeerUrl(0)});
    EXPECT_EQ(m.client_urls, std::vector<std::string>{harness_->ClientUrl(0)});
    EXPECT_FALSE(m.is_learner);

    absl::StatusOr<int64_t> rev = c.Put("greeting", std::string("hello\0world", 11));
    ASSERT_TRUE(rev.ok()) << rev.status();
    EXPECT_GT(*rev, 0);
    absl::StatusOr<GetResponse> got = c.Get("greeting");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->value, std::string("hello\0world", 11));
    EXPECT_EQ(got->mod_revision, *rev);
    EXPECT_GE(got->revision, *rev);
    ASSERT_TRUE(c.Put("empty", "").ok());
    got = c.Get("empty");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->value, "");
    got = c.Get("absent");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->value, std::nullopt);

    // Compare-and-delete: only while the value is the one named.
    ASSERT_TRUE(c.Put("lock", "m1").ok());
    absl::StatusOr<bool> deleted = c.DeleteIfValue("lock", "m2");
    ASSERT_TRUE(deleted.ok()) << deleted.status();
    EXPECT_FALSE(*deleted);
    EXPECT_EQ(c.Get("lock")->value, "m1");
    deleted = c.DeleteIfValue("lock", "m1");
    ASSERT_TRUE(deleted.ok()) << deleted.status();
    EXPECT_TRUE(*deleted);
    EXPECT_EQ(c.Get("lock")->value, std::nullopt);
    deleted = c.DeleteIfValue("lock", "m1");
    ASSERT_TRUE(deleted.ok()) << deleted.status();
    EXPECT_FALSE(*deleted);

    absl::StatusOr<StatusResponse> st = c.Status(harness_->ClientUrl(0));
    ASSERT_TRUE(st.ok()) << st.status();
    EXPECT_EQ(st->version, "3.6.16");
    EXPECT_EQ(st->member_id, m.id);
    EXPECT_EQ(st->leader, m.id);
    EXPECT_EQ(st->cluster_id, list->cluster_id);
    EXPECT_GT(st->db_size, 0);
    EXPECT_GT(st->raft_index, 0u);
    EXPECT_GT(st->raft_term, 0u);
    EXPECT_FALSE(st->is_learner);
    EXPECT_TRUE(st->errors.empty());

    absl::StatusOr<std::vector<Alarm>> alarms = c.Alarms();
    ASSERT_TRUE(alarms.ok()) << alarms.status();
    EXPECT_TRUE(alarms->empty());
    absl::Status defrag = c.Defragment(harness_->ClientUrl(0));
    EXPECT_TRUE(defrag.ok()) << defrag;
  }

  std::unique_ptr<EtcdHarness> harness_;
  std::unique_ptr<Client> client_;
};

TEST_F(ClientTest, BasicsWorkOverPlainHttp) {
  StartCluster(1);
  ExpectBasicsWork(*client_);
  absl::StatusOr<AuthStatusResponse> auth = client_->AuthStatus();
  ASSERT_TRUE(auth.ok()) << auth.status();
  EXPECT_FALSE(auth->enabled);
}

TEST_F(ClientTest, BasicsWorkOverTlsWithClientCertificates) {
  StartCluster(1, {.tls = true});
  ExpectBasicsWork(*client_);

  ClientConfig no_cert = harness_->Config({harness_->ClientUrl(0)});
  no_cert.cert_pem.clear();
  no_cert.key_pem.clear();
  absl::StatusOr<MemberListResponse> refused = NewClient(no_cert)->MemberList();
  EXPECT_FALSE(refused.ok());

  ClientConfig no_ca = harness_->Config({harness_->ClientUrl(0)});
  no_ca.ca_pem.clear();
  refused = NewClient(no_ca)->MemberList();
  EXPECT_TRUE(absl::IsUnavailable(refused.status())) << refused.status();
}

TEST_F(ClientTest, MembershipCallsMapEtcdErrors) {
  StartCluster(1, {.max_members = 3});
  absl::StatusOr<MemberAddResponse> added = client_->MemberAdd({harness_->PeerUrl(1)}, true);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_TRUE(added->added.is_learner);
  EXPECT_EQ(added->added.peer_urls, std::vector<std::string>{harness_->PeerUrl(1)});
  EXPECT_EQ(added->members.size(), 2u);

  absl::StatusOr<MemberListResponse> list = client_->MemberList(/*linearizable=*/false);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->members.size(), 2u);
  for (const Member& m : list->members) {
    if (m.id == added->added.id) {
      EXPECT_TRUE(m.is_learner);
      EXPECT_EQ(m.name, "");  // not started
      EXPECT_TRUE(m.client_urls.empty());
    }
  }

  // A second learner, and the same peer URL again, are refused.
  absl::StatusOr<MemberAddResponse> again = client_->MemberAdd({harness_->PeerUrl(1)}, true);
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();
  again = client_->MemberAdd({harness_->PeerUrl(2)}, true);
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();

  // A learner that never started is not in sync: callers retry.
  absl::Status promote = client_->MemberPromote(added->added.id);
  EXPECT_TRUE(absl::IsFailedPrecondition(promote)) << promote;
  EXPECT_TRUE(IsLearnerNotReady(promote)) << promote;
  EXPECT_NE(promote.message().find("learner not ready"), absl::string_view::npos);

  absl::Status update = client_->MemberUpdate(added->added.id, {harness_->PeerUrl(2)});
  EXPECT_TRUE(update.ok()) << update;
  list = client_->MemberList();
  ASSERT_TRUE(list.ok()) << list.status();
  bool found = false;
  for (const Member& m : list->members) {
    if (m.id == added->added.id) {
      found = true;
      EXPECT_EQ(m.peer_urls, std::vector<std::string>{harness_->PeerUrl(2)});
    }
  }
  EXPECT_TRUE(found);

  EXPECT_TRUE(client_->MemberRemove(added->added.id).ok());
  absl::Status gone = client_->MemberRemove(added->added.id);
  EXPECT_TRUE(absl::IsNotFound(gone)) << gone;
  EXPECT_TRUE(absl::IsNotFound(client_->MemberPromote(12345))) << client_->MemberPromote(12345);
  list = client_->MemberList();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->members.size(), 1u);
}

TEST_F(ClientTest, FailsOverToTheNextEndpoint) {
  StartCluster(1, {.max_members = 2});
  // Ordinal 1 has a port but no process: connection refused, then the next.
  std::unique_ptr<Client> c =
      NewClient(harness_->Config({harness_->ClientUrl(1), harness_->ClientUrl(0)}));
  absl::StatusOr<MemberListResponse> list = c->MemberList();
  EXPECT_TRUE(list.ok()) << list.status();
  EXPECT_TRUE(c->Put("k", "v").ok());

  std::unique_ptr<Client> dead = NewClient(harness_->Config({harness_->ClientUrl(1)}));
  list = dead->MemberList();
  EXPECT_TRUE(absl::IsUnavailable(list.status())) << list.status();
  // Status is for one member only.
  absl::StatusOr<StatusResponse> st = c->Status(harness_->ClientUrl(1));
  EXPECT_TRUE(absl::IsUnavailable(st.status())) << st.status();
}

TEST_F(ClientTest, CreateRejectsBadEndpoints) {
  EXPECT_TRUE(absl::IsInvalidArgument(Client::Create({}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(Client::Create({.endpoints = {"127.0.0.1:2379"}}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(Client::Create({.endpoints = {"ftp://x:1"}}).status()));
}

TEST_F(ClientTest, MoveLeaderHandsLeadershipToTheTarget) {
  StartCluster(3);
  absl::StatusOr<StatusResponse> st = client_->Status(harness_->ClientUrl(0));
  ASSERT_TRUE(st.ok()) << st.status();
  absl::StatusOr<MemberListResponse> list = client_->MemberList();
  ASSERT_TRUE(list.ok()) << list.status();
  uint64_t target = 0;
  for (const Member& m : list->members) {
    if (m.id != st->leader) target = m.id;
  }
  absl::Status moved = client_->MoveLeader(target);
  ASSERT_TRUE(moved.ok()) << moved;
  for (int k = 0; k < 3; ++k) {
    absl::StatusOr<StatusResponse> s = client_->Status(harness_->ClientUrl(k));
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->leader, target);
  }
  EXPECT_TRUE(client_->MoveLeader(target).ok());  // already there
  absl::Status bad = client_->MoveLeader(42);
  EXPECT_TRUE(absl::IsFailedPrecondition(bad)) << bad;
}

TEST_F(ClientTest, AuthOverTlsNeedsAToken) {
  StartCluster(1, {.tls = true});
  // A client with credentials made before auth is on sends no token, and
  // picks one up once auth is enabled.
  ClientConfig early = harness_->Config();
  early.username = "app";
  early.password = "app-secret";
  std::unique_ptr<Client> app = NewClient(early);
  ASSERT_TRUE(app->Put("app/before", "1").ok());

  ASSERT_TRUE(client_->UserAdd("root", "root-secret").ok());
  ASSERT_TRUE(client_->UserGrantRole("root", "root").ok());
  ASSERT_TRUE(client_->RoleAdd("app").ok());
  ASSERT_TRUE(client_->RoleGrantPermission("app", "app/", "app0", Permission::kReadWrite).ok());
  ASSERT_TRUE(client_->UserAdd("app", "app-secret").ok());
  ASSERT_TRUE(client_->UserGrantRole("app", "app").ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(client_->UserAdd("app", "x")));
  ASSERT_TRUE(client_->AuthEnable().ok());

  // Without a token etcd refuses. Over TLS with --client-cert-auth it looks
  // the certificate's (empty) CommonName up as the user: no such user.
  absl::StatusOr<int64_t> refused = client_->Put("k", "v");
  EXPECT_TRUE(absl::IsPermissionDenied(refused.status())) << refused.status();

  ClientConfig root_config = harness_->Config();
  root_config.username = "root";
  root_config.password = "root-secret";
  std::unique_ptr<Client> root = NewClient(root_config);
  ASSERT_TRUE(root->Put("k", "v").ok());
  absl::StatusOr<GetResponse> got = root->Get("k");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->value, "v");
  absl::StatusOr<AuthStatusResponse> auth = root->AuthStatus();
  ASSERT_TRUE(auth.ok()) << auth.status();
  EXPECT_TRUE(auth->enabled);
  EXPECT_GT(auth->auth_revision, 0u);
  absl::StatusOr<MemberListResponse> list = root->MemberList();
  EXPECT_TRUE(list.ok()) << list.status();
  EXPECT_TRUE(root->Status(harness_->ClientUrl(0)).ok());
  EXPECT_TRUE(root->Defragment(harness_->ClientUrl(0)).ok());

  // The early client re-authenticates by itself, within its role.
  absl::StatusOr<int64_t> put = app->Put("app/after", "2");
  EXPECT_TRUE(put.ok()) << put.status();
  got = app->Get("app/before");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->value, "1");
  absl::StatusOr<int64_t> outside = app->Put("other", "x");
  EXPECT_TRUE(absl::IsPermissionDenied(outside.status())) << outside.status();

  // A username wins over the certificate: a CN=root certificate with app's
  // credentials acts as app.
  ClientConfig named = early;
  named.cert_pem = harness_->tls().named_client_cert_pem;
  named.key_pem = harness_->tls().named_client_key_pem;
  absl::StatusOr<int64_t> as_app = NewClient(named)->Put("other", "x");
  EXPECT_TRUE(absl::IsPermissionDenied(as_app.status())) << as_app.status();

  // A wrong password is the caller's problem, not a retry.
  ClientConfig wrong = harness_->Config();
  wrong.username = "root";
  wrong.password = "nope";
  absl::StatusOr<GetResponse> denied = NewClient(wrong)->Get("k");
  EXPECT_TRUE(absl::IsUnauthenticated(denied.status())) << denied.status();
  EXPECT_EQ(Reason(denied.status()), kReasonAuthFailed);
}

// aenix's cert-only root: with --client-cert-auth and auth on, a client that
// sends no token is the user its certificate's CommonName names.
TEST_F(ClientTest, WithoutAUsernameTheCertificatesCommonNameIsTheUser) {
  StartCluster(1, {.tls = true});
  ASSERT_TRUE(client_->UserAdd("root", "").ok());  // no password: certificates only
  ASSERT_TRUE(client_->UserGrantRole("root", "root").ok());
  ASSERT_TRUE(client_->RoleAdd("app").ok());
  ASSERT_TRUE(client_->RoleGrantPermission("app", "app/", "app0", Permission::kReadWrite).ok());
  ASSERT_TRUE(client_->UserAdd("app", "").ok());
  ASSERT_TRUE(client_->UserGrantRole("app", "app").ok());
  ASSERT_TRUE(client_->AuthEnable().ok());

  ClientConfig root_config = harness_->Config();
  root_config.cert_pem = harness_->tls().named_client_cert_pem;  // CN=root
  root_config.key_pem = harness_->tls().named_client_key_pem;
  std::unique_ptr<Client> root = NewClient(root_config);
  absl::StatusOr<MemberListResponse> list = root->MemberList();
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->members.size(), 1u);
  ASSERT_TRUE(root->Put("k", "v").ok());
  absl::StatusOr<GetResponse> got = root->Get("k");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->value, "v");
  absl::StatusOr<std::vector<std::string>> users = root->UserList();
  ASSERT_TRUE(users.ok()) << users.status();
  EXPECT_EQ(*users, (std::vector<std::string>{"app", "root"}));
  EXPECT_TRUE(root->Status(harness_->ClientUrl(0)).ok());

  // A user's certificate: its role's keys, nothing else.
  ClientConfig app_config = harness_->Config();
  app_config.cert_pem = harness_->tls().app_client_cert_pem;  // CN=app
  app_config.key_pem = harness_->tls().app_client_key_pem;
  std::unique_ptr<Client> app = NewClient(app_config);
  EXPECT_TRUE(app->Put("app/x", "1").ok());
  absl::StatusOr<int64_t> outside = app->Put("k", "w");
  EXPECT_TRUE(absl::IsPermissionDenied(outside.status())) << outside.status();
  absl::StatusOr<GetResponse> read = app->Get("k");
  EXPECT_TRUE(absl::IsPermissionDenied(read.status())) << read.status();
  EXPECT_TRUE(absl::IsPermissionDenied(app->UserAdd("x", "y"))) << app->UserAdd("x", "y");

  // No CommonName, no token: no user.
  absl::StatusOr<GetResponse> anonymous = client_->Get("k");
  EXPECT_TRUE(absl::IsPermissionDenied(anonymous.status())) << anonymous.status();
}

TEST_F(ClientTest, AnExpiredTokenIsRenewed) {
  StartCluster(1, {.extra_flags = {"--auth-token-ttl=1"}});
  ASSERT_TRUE(client_->UserAdd("root", "pw").ok());
  ASSERT_TRUE(client_->UserGrantRole("root", "root").ok());
  ASSERT_TRUE(client_->AuthEnable().ok());
  ClientConfig config = harness_->Config();
  config.username = "root";
  config.password = "pw";
  std::unique_ptr<Client> root = NewClient(config);
  ASSERT_TRUE(root->Put("a", "1").ok());
  // Simple tokens expire after the TTL without use; nothing to poll for.
  absl::SleepFor(absl::Seconds(2.5));
  // Several threads meet the expired token at once; each call succeeds.
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      const std::string key = "t" + std::to_string(t);
      for (int i = 0; i < 10; ++i) {
        absl::StatusOr<int64_t> put = root->Put(key, std::to_string(i));
        absl::StatusOr<GetResponse> got = root->Get(key);
        if (put.ok() && got.ok() && got->value == std::to_string(i)) ++ok;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 60);
  absl::StatusOr<GetResponse> got = root->Get("a");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->value, "1");
}

}  // namespace
}  // namespace quorum::etcd

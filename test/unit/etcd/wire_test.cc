#include "src/etcd/wire.h"

#include <gtest/gtest.h>

namespace quorum::etcd::wire {
namespace {

TEST(WireTest, RequestsUseDecimalIdsAndBase64Bytes) {
  EXPECT_EQ(MemberIdRequest(18446744073709551615ull), R"({"ID":"18446744073709551615"})");
  EXPECT_EQ(MemberAddRequest({"https://a:2380"}, true),
            R"({"isLearner":true,"peerURLs":["https://a:2380"]})");
  EXPECT_EQ(MemberAddRequest({"https://a:2380"}, false), R"({"peerURLs":["https://a:2380"]})");
  EXPECT_EQ(MemberListRequest(true), R"({"linearizable":true})");
  EXPECT_EQ(MemberListRequest(false), "{}");
  EXPECT_EQ(MoveLeaderRequest(7), R"({"targetID":"7"})");
  EXPECT_EQ(CompactRequest(42, true), R"({"physical":true,"revision":"42"})");
  EXPECT_EQ(CompactRequest(42, false), R"({"revision":"42"})");
  // "a/" .. "a0" (base64 YS8= .. YTA=); a trailing 0xff carries over.
  EXPECT_EQ(DeletePrefixRequest("a/"), R"({"key":"YS8=","range_end":"YTA="})");
  EXPECT_EQ(DeletePrefixRequest(std::string("a\xff", 2)), R"({"key":"Yf8=","range_end":"Yg=="})");
  EXPECT_EQ(PrefixRangeEnd("/quorum/db/hippo/"), "/quorum/db/hippo0");
  EXPECT_EQ(PrefixRangeEnd(std::string("\xff\xff", 2)), std::string(1, '\0'));
  EXPECT_EQ(NameRequest("quorum-pg.db.hippo"), R"({"name":"quorum-pg.db.hippo"})");
  EXPECT_EQ(RoleRequest("quorum-pg.db.hippo"), R"({"role":"quorum-pg.db.hippo"})");
  EXPECT_EQ(ParseUserNames(R"({"header":{},"users":["root","a"]})").value(),
            (std::vector<std::string>{"root", "a"}));
  EXPECT_EQ(ParseRoleNames(R"({"header":{}})").value(), std::vector<std::string>{});
  EXPECT_EQ(ParseDeleted(R"({"header":{},"deleted":"3"})").value_or(-1), 3);
  EXPECT_EQ(ParseDeleted(R"({"header":{}})").value_or(-1), 0);
  EXPECT_EQ(AlarmDisarmRequest({.member_id = 5, .type = "NOSPACE"}),
            R"({"action":"DEACTIVATE","alarm":"NOSPACE","memberID":"5"})");
  EXPECT_EQ(PutRequest("a", std::string("\0\xff", 2)), R"({"key":"YQ==","value":"AP8="})");
  EXPECT_EQ(DeleteIfValueRequest("a", "b"),
            R"({"compare":[{"key":"YQ==","result":"EQUAL","target":"VALUE","value":"Yg=="}],)"
            R"("success":[{"request_delete_range":{"key":"YQ=="}}]})");
  EXPECT_EQ(ParseTxnSucceeded(R"({"header":{},"succeeded":true})").value_or(false), true);
  EXPECT_EQ(ParseTxnSucceeded(R"({"header":{}})").value_or(true), false);
  EXPECT_EQ(
      RoleGrantPermissionRequest("app", "app/", "app0", Permission::kReadWrite),
      R"({"name":"app","perm":{"key":"YXBwLw==","permType":"READWRITE","range_end":"YXBwMA=="}})");
  EXPECT_EQ(RoleGrantPermissionRequest("r", "k", "", Permission::kRead),
            R"({"name":"r","perm":{"key":"aw==","permType":"READ"}})");
}

TEST(WireTest, RequestsNeverThrowOnInvalidUtf8) {
  const std::string bad = "\xc3\x28";
  EXPECT_FALSE(UserAddRequest(bad, bad).empty());
  EXPECT_FALSE(AuthenticateRequest(bad, "pw").empty());
}

TEST(WireTest, ParsesAMemberListWithOmittedFields) {
  absl::StatusOr<MemberListResponse> list = ParseMemberList(
      R"({"header":{"cluster_id":"15118495548433857066"},"members":[)"
      R"({"ID":"9131764088586043778","peerURLs":["http://127.0.0.1:23802"],"isLearner":true},)"
      R"({"ID":"13668033151171901709","name":"default","peerURLs":["http://p:1"],)"
      R"("clientURLs":["http://c:1"]}]})");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->cluster_id, 15118495548433857066ull);
  ASSERT_EQ(list->members.size(), 2u);
  EXPECT_EQ(list->members[0], (Member{.id = 9131764088586043778ull,
                                      .peer_urls = {"http://127.0.0.1:23802"},
                                      .is_learner = true}));
  EXPECT_EQ(list->members[1], (Member{.id = 13668033151171901709ull,
                                      .name = "default",
                                      .peer_urls = {"http://p:1"},
                                      .client_urls = {"http://c:1"}}));
}

TEST(WireTest, MalformedAnswersAreInternalErrorsNotCrashes) {
  for (const char* body : {"", "null", "[]", "{", "<html>", "\"x\""}) {
    EXPECT_TRUE(absl::IsInternal(ParseMemberList(body).status())) << body;
    EXPECT_TRUE(absl::IsInternal(ParseStatus(body).status())) << body;
    EXPECT_TRUE(absl::IsInternal(ParseRange(body).status())) << body;
    EXPECT_TRUE(absl::IsInternal(ParseToken(body).status())) << body;
  }
  EXPECT_TRUE(absl::IsInternal(ParseMemberList(R"({"members":[]})").status()));
  EXPECT_TRUE(absl::IsInternal(ParseMemberAdd(R"({"member":{}})").status()));
  EXPECT_TRUE(absl::IsInternal(ParseToken(R"({"token":5})").status()));
  // Fields of the wrong type are ignored, not thrown on.
  absl::StatusOr<MemberListResponse> odd = ParseMemberList(
      R"({"header":[],"members":[{"ID":{},"name":3,"peerURLs":"x","isLearner":"yes"}, 5]})");
  ASSERT_TRUE(odd.ok()) << odd.status();
  EXPECT_EQ(odd->members.size(), 2u);
  EXPECT_EQ(odd->members[0], Member{});
}

TEST(WireTest, ParsesStatusIncludingNumbersSentAsNumbers) {
  absl::StatusOr<StatusResponse> s = ParseStatus(
      R"({"header":{"cluster_id":"1","member_id":"2","revision":"1"},"version":"3.6.16",)"
      R"("dbSize":"36864","leader":"2","raftIndex":"4","raftTerm":2,"raftAppliedIndex":"4",)"
      R"("dbSizeInUse":"24576","isLearner":true,"errors":["NOSPACE"]})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->version, "3.6.16");
  EXPECT_EQ(s->db_size, 36864);
  EXPECT_EQ(s->db_size_in_use, 24576);
  EXPECT_EQ(s->leader, 2u);
  EXPECT_EQ(s->raft_index, 4u);
  EXPECT_EQ(s->raft_term, 2u);
  EXPECT_TRUE(s->is_learner);
  EXPECT_EQ(s->errors, std::vector<std::string>{"NOSPACE"});
  EXPECT_EQ(s->member_id, 2u);
  EXPECT_EQ(s->cluster_id, 1u);
  EXPECT_EQ(s->revision, 1);
}

TEST(WireTest, ParsesRangeValuesAndAbsence) {
  absl::StatusOr<GetResponse> got = ParseRange(
      R"({"header":{"revision":"9"},"kvs":[{"key":"YQ==","value":"AP8=","mod_revision":"8"}]})");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, std::string("\0\xff", 2));
  EXPECT_EQ(got->revision, 9);
  EXPECT_EQ(got->mod_revision, 8);
  got = ParseRange(R"({"header":{"revision":"9"},"kvs":[{"key":"YQ=="}]})");  // empty value
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "");
  got = ParseRange(R"({"header":{"revision":"9"}})");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, std::nullopt);
}

TEST(WireTest, ParsesAlarmsByNameOrNumber) {
  absl::StatusOr<std::vector<Alarm>> alarms =
      ParseAlarms(R"({"alarms":[{"memberID":"5","alarm":"NOSPACE"},{"memberID":"6","alarm":2},)"
                  R"({"memberID":"7","alarm":"NONE"}]})");
  ASSERT_TRUE(alarms.ok());
  EXPECT_EQ(*alarms, (std::vector<Alarm>{{5, "NOSPACE"}, {6, "CORRUPT"}}));
  alarms = ParseAlarms(R"({"header":{}})");
  ASSERT_TRUE(alarms.ok());
  EXPECT_TRUE(alarms->empty());
}

TEST(WireTest, ParsesAuthStatusAndTokens) {
  absl::StatusOr<AuthStatusResponse> a = ParseAuthStatus(R"({"enabled":true,"authRevision":"3"})");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->enabled);
  EXPECT_EQ(a->auth_revision, 3u);
  a = ParseAuthStatus(R"({"authRevision":"3"})");
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->enabled);
  EXPECT_EQ(ParseToken(R"({"token":"abc.9"})").value_or(""), "abc.9");
}

}  // namespace
}  // namespace quorum::etcd::wire

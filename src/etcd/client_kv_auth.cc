// etcd::Client's KV and auth calls (client.h); construction, membership and
// maintenance are in client.cc.
#include <utility>

#include "absl/strings/str_cat.h"
#include "etcd/api/etcdserverpb/rpc.grpc.pb.h"
#include "src/base/strings.h"
#include "src/etcd/client.h"
#include "src/etcd/connection.h"
#include "src/etcd/errors.h"
#include "src/etcd/keys.h"

namespace quorum::etcd {
namespace {

namespace pb = etcdserverpb;

std::vector<std::string> Strings(const google::protobuf::RepeatedPtrField<std::string>& in) {
  return std::vector<std::string>(in.begin(), in.end());
}

authpb::Permission::Type PermissionType(Permission p) {
  switch (p) {
    case Permission::kRead:
      return authpb::Permission::READ;
    case Permission::kWrite:
      return authpb::Permission::WRITE;
    case Permission::kReadWrite:
      break;
  }
  return authpb::Permission::READWRITE;
}

}  // namespace

// --- KV ---------------------------------------------------------------------------

absl::StatusOr<int64_t> Client::Put(std::string_view key, std::string_view value) {
  pb::PutRequest req;
  req.set_key(std::string(key));
  req.set_value(std::string(value));
  absl::StatusOr<pb::PutResponse> r =
      connection_->Call(&pb::KV::Stub::Put, req, "put", /*idempotent=*/false, config_.timeout);
  if (!r.ok()) return r.status();
  return r->header().revision();
}

absl::StatusOr<GetResponse> Client::Get(std::string_view key) {
  pb::RangeRequest req;
  req.set_key(std::string(key));
  absl::StatusOr<pb::RangeResponse> r =
      connection_->Call(&pb::KV::Stub::Range, req, "get", /*idempotent=*/true, config_.timeout);
  if (!r.ok()) return r.status();
  GetResponse out;
  out.revision = r->header().revision();
  if (!r->kvs().empty()) {
    out.value = r->kvs(0).value();
    out.mod_revision = r->kvs(0).mod_revision();
  }
  return out;
}

absl::StatusOr<int64_t> Client::DeletePrefix(std::string_view prefix) {
  if (prefix.empty()) return absl::InvalidArgumentError("delete prefix: the prefix is empty");
  pb::DeleteRangeRequest req;
  req.set_key(std::string(prefix));
  req.set_range_end(PrefixRangeEnd(prefix));
  // Safe to repeat: a second delete of the same prefix removes nothing.
  absl::StatusOr<pb::DeleteRangeResponse> r = connection_->Call(
      &pb::KV::Stub::DeleteRange, req, "delete prefix", /*idempotent=*/true, config_.timeout);
  if (!r.ok()) return r.status();
  return r->deleted();
}

absl::StatusOr<bool> Client::DeleteIfValue(std::string_view key, std::string_view value) {
  pb::TxnRequest req;
  pb::Compare* cmp = req.add_compare();
  cmp->set_key(std::string(key));
  cmp->set_target(pb::Compare::VALUE);
  cmp->set_result(pb::Compare::EQUAL);
  cmp->set_value(std::string(value));
  req.add_success()->mutable_request_delete_range()->set_key(std::string(key));
  // Safe to repeat: once deleted, the compare fails and nothing changes.
  absl::StatusOr<pb::TxnResponse> r = connection_->Call(&pb::KV::Stub::Txn, req, "delete if value",
                                                        /*idempotent=*/true, config_.timeout);
  if (!r.ok()) return r.status();
  return r->succeeded();
}

// --- Auth -------------------------------------------------------------------------

absl::Status Client::UserAdd(std::string_view name, std::string_view password) {
  pb::AuthUserAddRequest req;
  req.set_name(std::string(name));
  req.set_password(std::string(password));
  if (password.empty()) req.mutable_options()->set_no_password(true);
  return connection_
      ->Call(&pb::Auth::Stub::UserAdd, req, absl::StrCat("user add ", Absl(name)),
             /*idempotent=*/false, config_.timeout)
      .status();
}

absl::Status Client::UserChangePassword(std::string_view name, std::string_view password) {
  pb::AuthUserChangePasswordRequest req;
  req.set_name(std::string(name));
  req.set_password(std::string(password));
  return connection_
      ->Call(&pb::Auth::Stub::UserChangePassword, req,
             absl::StrCat("change password of ", Absl(name)), /*idempotent=*/true, config_.timeout)
      .status();
}

absl::Status Client::RoleAdd(std::string_view name) {
  pb::AuthRoleAddRequest req;
  req.set_name(std::string(name));
  return connection_
      ->Call(&pb::Auth::Stub::RoleAdd, req, absl::StrCat("role add ", Absl(name)),
             /*idempotent=*/false, config_.timeout)
      .status();
}

absl::Status Client::UserGrantRole(std::string_view user, std::string_view role) {
  pb::AuthUserGrantRoleRequest req;
  req.set_user(std::string(user));
  req.set_role(std::string(role));
  return connection_
      ->Call(&pb::Auth::Stub::UserGrantRole, req,
             absl::StrCat("grant role ", Absl(role), " to ", Absl(user)), /*idempotent=*/true,
             config_.timeout)
      .status();
}

absl::Status Client::RoleGrantPermission(std::string_view role, std::string_view key,
                                         std::string_view range_end, Permission permission) {
  pb::AuthRoleGrantPermissionRequest req;
  req.set_name(std::string(role));
  authpb::Permission* perm = req.mutable_perm();
  perm->set_permtype(PermissionType(permission));
  perm->set_key(std::string(key));
  perm->set_range_end(std::string(range_end));
  return connection_
      ->Call(&pb::Auth::Stub::RoleGrantPermission, req,
             absl::StrCat("grant permission to role ", Absl(role)), /*idempotent=*/true,
             config_.timeout)
      .status();
}

absl::Status Client::UserDelete(std::string_view name) {
  pb::AuthUserDeleteRequest req;
  req.set_name(std::string(name));
  absl::Status s =
      connection_
          ->Call(&pb::Auth::Stub::UserDelete, req, absl::StrCat("user delete ", Absl(name)),
                 /*idempotent=*/true, config_.timeout)
          .status();
  return Reason(s) == kReasonUserNotFound ? absl::OkStatus() : s;
}

absl::Status Client::RoleDelete(std::string_view name) {
  pb::AuthRoleDeleteRequest req;
  req.set_role(std::string(name));
  absl::Status s =
      connection_
          ->Call(&pb::Auth::Stub::RoleDelete, req, absl::StrCat("role delete ", Absl(name)),
                 /*idempotent=*/true, config_.timeout)
          .status();
  return Reason(s) == kReasonRoleNotFound ? absl::OkStatus() : s;
}

absl::StatusOr<std::vector<std::string>> Client::UserList() {
  absl::StatusOr<pb::AuthUserListResponse> r =
      connection_->Call(&pb::Auth::Stub::UserList, pb::AuthUserListRequest(), "user list",
                        /*idempotent=*/true, config_.timeout);
  if (!r.ok()) return r.status();
  return Strings(r->users());
}

absl::StatusOr<std::vector<std::string>> Client::RoleList() {
  absl::StatusOr<pb::AuthRoleListResponse> r =
      connection_->Call(&pb::Auth::Stub::RoleList, pb::AuthRoleListRequest(), "role list",
                        /*idempotent=*/true, config_.timeout);
  if (!r.ok()) return r.status();
  return Strings(r->roles());
}

absl::Status Client::AuthEnable() {
  return connection_
      ->Call(&pb::Auth::Stub::AuthEnable, pb::AuthEnableRequest(), "auth enable",
             /*idempotent=*/true, config_.timeout)
      .status();
}

absl::Status Client::AuthDisable() {
  return connection_
      ->Call(&pb::Auth::Stub::AuthDisable, pb::AuthDisableRequest(), "auth disable",
             /*idempotent=*/true, config_.timeout)
      .status();
}

absl::StatusOr<AuthStatusResponse> Client::AuthStatus() {
  absl::StatusOr<pb::AuthStatusResponse> r =
      connection_->Call(&pb::Auth::Stub::AuthStatus, pb::AuthStatusRequest(), "auth status",
                        /*idempotent=*/true, config_.timeout);
  if (!r.ok()) return r.status();
  return AuthStatusResponse{.enabled = r->enabled(), .auth_revision = r->authrevision()};
}

}  // namespace quorum::etcd

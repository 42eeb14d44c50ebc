#include "src/etcd/endpoint.h"

#include <gtest/gtest.h>

#include <string>

namespace quorum::etcd {
namespace {

struct Case {
  const char* url;
  std::string target;  // "" when the URL is refused
  bool tls;
};

class ParseEndpointTest : public ::testing::TestWithParam<Case> {};

TEST_P(ParseEndpointTest, GivesTheTargetAndTheTransport) {
  const Case& c = GetParam();
  absl::StatusOr<Endpoint> e = ParseEndpoint(c.url);
  if (c.target.empty()) {
    EXPECT_TRUE(absl::IsInvalidArgument(e.status())) << c.url << ": " << e.status();
    return;
  }
  ASSERT_TRUE(e.ok()) << c.url << ": " << e.status();
  EXPECT_EQ(*e, (Endpoint{c.target, c.tls})) << c.url;
}

INSTANTIATE_TEST_SUITE_P(Table, ParseEndpointTest,
                         ::testing::Values(Case{"http://127.0.0.1:2379", "127.0.0.1:2379", false},
                                           Case{"https://m-0.m-headless.ns.svc:2379",
                                                "m-0.m-headless.ns.svc:2379", true},
                                           Case{"https://[::1]:2379", "[::1]:2379", true},
                                           Case{"https://[::1]", "[::1]:443", true},
                                           Case{"http://etcd", "etcd:80", false},
                                           Case{"http://127.0.0.1:1/none-7", "127.0.0.1:1", false},
                                           Case{"http://user@h:1", "h:1", false},
                                           Case{"127.0.0.1:2379", "", false},
                                           Case{"ftp://x:1", "", false}, Case{"http://", "", false},
                                           Case{"http://:2379", "", false},
                                           Case{"http://h:23x9", "", false}));

}  // namespace
}  // namespace quorum::etcd

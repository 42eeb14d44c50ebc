// Images → local programs. There is no container engine: an image name maps
// to a PATH of host directories standing in for the image's file system, and
// a default command (the image's entrypoint). The table is a text file, one
// rule a line, first match wins:
//
//   # glob on the image reference   PATH (':'-separated)          default command...
//   *etcd*:v3.*                     /opt/etcd/bin                 etcd
//   ghcr.io/quorum-dev/postgres:*-patroni4  /venv/bin:/usr/lib/postgresql/15/bin  patroni
//
// Globs are fnmatch(3) patterns; `#` starts a comment. hack/localnode.sh
// writes the table for this machine (docs/localnode.md).
#ifndef QUORUM_TOOLS_LOCALNODE_IMAGES_H_
#define QUORUM_TOOLS_LOCALNODE_IMAGES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace quorum::localnode {

struct ImageRule {
  std::string pattern;
  std::vector<std::string> path;  // directories searched for the command
  std::vector<std::string> entrypoint;
};

// Errors: InvalidArgument naming the line.
absl::StatusOr<std::vector<ImageRule>> ParseImageTable(const std::string& text);
absl::StatusOr<std::vector<ImageRule>> LoadImageTable(const std::string& file);

// The first rule whose pattern matches `image`; nullopt for an unknown image.
std::optional<ImageRule> MatchImage(const std::vector<ImageRule>& rules, const std::string& image);

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_IMAGES_H_

// Files compiled into the binary: the CRD manifests of deploy/crds/, so
// `quorum-operator crds | kubectl apply --server-side -f -` installs exactly what the tests
// install.
#ifndef QUORUM_CMD_QUORUM_OPERATOR_EMBEDDED_H_
#define QUORUM_CMD_QUORUM_OPERATOR_EMBEDDED_H_

#include <string>
#include <vector>

namespace quorum {

struct EmbeddedFile {
  std::string name;
  std::string content;
};

// deploy/crds/*.yaml, sorted by file name.
const std::vector<EmbeddedFile>& EmbeddedCrds();

}  // namespace quorum

#endif  // QUORUM_CMD_QUORUM_OPERATOR_EMBEDDED_H_

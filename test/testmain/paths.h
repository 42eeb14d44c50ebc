// Where the tests find the checkout and the build: the source folder, the build
// folder and the operator program of the build that compiled them.
//
// The paths live in one generated translation unit (paths.cc in the build
// folder), not in compile definitions, so that every other test file compiles
// to the same object in any clone and a compiler cache shared by clones (CI's,
// a second checkout) serves them. The macros keep the names the tests use.
// Thread-safe: constants.
#ifndef QUORUM_TEST_TESTMAIN_PATHS_H_
#define QUORUM_TEST_TESTMAIN_PATHS_H_

namespace quorum::testmain {

// The checkout's root folder (absolute, no trailing slash).
const char* SourceDir();
// The CMake build folder (absolute, no trailing slash).
const char* BinaryDir();
// The quorum-operator program of this build (absolute).
const char* OperatorBin();

}  // namespace quorum::testmain

#define QUORUM_SOURCE_DIR (::quorum::testmain::SourceDir())
#define QUORUM_BINARY_DIR (::quorum::testmain::BinaryDir())
#define QUORUM_OPERATOR_BIN (::quorum::testmain::OperatorBin())

#endif  // QUORUM_TEST_TESTMAIN_PATHS_H_

# A build for two cores (issue 32): a compiler cache shared by every clone of
# the checkout, a fast linker, and light debug information in the test programs.
# Each piece is used when present (hack/deps.sh installs them) and can be
# turned off.

option(QUORUM_CCACHE "Compile through ccache when it is installed" ON)
option(QUORUM_FAST_LINKER "Link with mold (else lld) when installed" ON)

# ccache, its cache under $HOME/.cache/quorum/ccache (beside the other caches of
# the build, kept across clones). base_dir makes the paths on the command line
# relative and hash_dir off leaves the working folder out of the key, so a
# fresh clone in another folder (CI's) hits what an earlier clone compiled (its
# debug information then names the folder of the clone that compiled it first).
find_program(QUORUM_CCACHE_PROGRAM ccache)
if(QUORUM_CCACHE AND QUORUM_CCACHE_PROGRAM)
  if(DEFINED ENV{QUORUM_CACHE})
    set(quorum_ccache_dir "$ENV{QUORUM_CACHE}/ccache")
  else()
    set(quorum_ccache_dir "$ENV{HOME}/.cache/quorum/ccache")
  endif()
  set(CMAKE_CXX_COMPILER_LAUNCHER
    env "CCACHE_DIR=${quorum_ccache_dir}" "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}"
        CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=5G ${QUORUM_CCACHE_PROGRAM})
  message(STATUS "ccache: ${QUORUM_CCACHE_PROGRAM} (cache ${quorum_ccache_dir})")
endif()

# mold links a test program with debug information in a fraction of GNU ld's
# time; lld is the fallback.
if(QUORUM_FAST_LINKER)
  find_program(QUORUM_MOLD mold)
  find_program(QUORUM_LLD ld.lld)
  if(QUORUM_MOLD)
    add_link_options(-fuse-ld=mold)
    message(STATUS "linker: mold")
  elseif(QUORUM_LLD)
    add_link_options(-fuse-ld=lld)
    message(STATUS "linker: lld")
  endif()
endif()

# The test programs' own sources: no optimisation and line tables only (-O0
# -g1): they are compiled often and run briefly, and -g1 still gives
# backtraces with lines. The libraries they test keep the build type's flags,
# the same objects the operator links.
set(QUORUM_TEST_COMPILE_OPTIONS -O0 -g1 CACHE STRING "Extra flags for test programs' own sources")

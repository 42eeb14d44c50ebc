# Common settings for Quorum's own targets: warnings (as errors by default) and
# the optional sanitizers. Third-party headers are system includes and stay quiet.
function(quorum_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
    -Wno-missing-field-initializers)
  if(QUORUM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(QUORUM_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# quorum_library(NAME SOURCES... DEPS ...): one static library per source folder.
function(quorum_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  quorum_target_options(${name})
endfunction()

# quorum_test_program(NAME SOURCES... DEPS ...): one GoogleTest program for a
# whole test folder (linking once per folder, not once per file), with the
# tests' main (test/testmain: `--source=FILE` runs one file's tests) and the
# build's paths (test/testmain/paths.h).
function(quorum_test_program name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} quorum_testmain GTest::gtest GTest::gmock
    Threads::Threads)
  quorum_target_options(${name})
  target_compile_options(${name} PRIVATE ${QUORUM_TEST_COMPILE_OPTIONS})
endfunction()

# quorum_source_test(NAME PROGRAM SOURCE LABELS ... FIXTURES ... TIMEOUT ...
#   ENVIRONMENT ... RUN_SERIAL PER_CASE NAMES_VAR var): the CTest of one test
# file, running the tests of SOURCE in its folder's PROGRAM. LABELS defaults to
# unit. With PER_CASE, every TEST/TEST_F of the file is a CTest of its own,
# NAME.<Case> (long end-to-end files, so that CTest can spread their cases);
# the names made are set in NAMES_VAR.
function(quorum_source_test name)
  cmake_parse_arguments(ARG "RUN_SERIAL;PER_CASE" "PROGRAM;SOURCE;TIMEOUT;NAMES_VAR"
    "LABELS;FIXTURES;ENVIRONMENT" ${ARGN})
  file(RELATIVE_PATH source ${PROJECT_SOURCE_DIR} ${ARG_SOURCE})
  set(command ${ARG_PROGRAM} --gtest_color=no --source=${source})
  set(names)
  if(ARG_PER_CASE)
    file(READ ${ARG_SOURCE} text)
    string(REGEX MATCHALL "\nTEST(_F)?\\([A-Za-z0-9_]+,[ \n]*[A-Za-z0-9_]+\\)" cases "${text}")
    foreach(case ${cases})
      string(REGEX REPLACE ".*\\(([A-Za-z0-9_]+),[ \n]*([A-Za-z0-9_]+)\\)" "\\1;\\2" parts
        "${case}")
      list(GET parts 0 suite)
      list(GET parts 1 test)
      add_test(NAME ${name}.${test} COMMAND ${command} --gtest_filter=${suite}.${test})
      list(APPEND names ${name}.${test})
    endforeach()
    if(NOT names)
      message(FATAL_ERROR "${ARG_SOURCE}: PER_CASE found no TEST or TEST_F")
    endif()
  else()
    add_test(NAME ${name} COMMAND ${command})
    set(names ${name})
  endif()
  set(labels ${ARG_LABELS})
  if(NOT labels)
    set(labels unit)
  endif()
  set_tests_properties(${names} PROPERTIES LABELS "${labels}")
  if(ARG_TIMEOUT)
    set_tests_properties(${names} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  endif()
  if(ARG_FIXTURES)
    set_tests_properties(${names} PROPERTIES FIXTURES_REQUIRED "${ARG_FIXTURES}")
  endif()
  if(ARG_ENVIRONMENT)
    set_tests_properties(${names} PROPERTIES ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
  if(ARG_RUN_SERIAL)
    set_tests_properties(${names} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if(ARG_NAMES_VAR)
    set(${ARG_NAMES_VAR} ${names} PARENT_SCOPE)
  endif()
endfunction()

# quorum_test_folders(ROOT PROGRAM_PREFIX prefix NAME_SUFFIX suffix DEPS ...
#   TEST_OPTIONS ...): every folder under ROOT holding *_test.cc files becomes
# one program <prefix>_<path with _> linked with quorum_<folder name> and DEPS,
# and each file one CTest <folder>_<file name without _test><suffix> (the names
# the tests had when every file was its own program). TEST_OPTIONS are passed
# to quorum_source_test.
function(quorum_test_folders root)
  cmake_parse_arguments(ARG "" "PROGRAM_PREFIX;NAME_SUFFIX" "DEPS;TEST_OPTIONS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${root}/*_test.cc)
  set(dirs)
  foreach(src ${sources})
    get_filename_component(dir ${src} DIRECTORY)
    list(APPEND dirs ${dir})
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  foreach(dir ${dirs})
    file(GLOB folder_sources CONFIGURE_DEPENDS ${dir}/*_test.cc)
    get_filename_component(folder ${dir} NAME)
    file(RELATIVE_PATH rel ${root} ${dir})
    string(REPLACE "/" "_" program "${ARG_PROGRAM_PREFIX}_${rel}")
    quorum_test_program(${program} SOURCES ${folder_sources} DEPS quorum_${folder} ${ARG_DEPS})
    foreach(src ${folder_sources})
      get_filename_component(name ${src} NAME_WE)
      string(REGEX REPLACE "_test$" "" base ${name})
      quorum_source_test(${folder}_${base}${ARG_NAME_SUFFIX} PROGRAM ${program} SOURCE ${src}
        ${ARG_TEST_OPTIONS})
    endforeach()
  endforeach()
endfunction()

# quorum_controlplane_override(DIR...): lets one CTest run point the tests of the
# source folders DIR... at another control plane than the configured
# QUORUM_CONTROLPLANE_DIR, without reconfiguring: when ctest runs with
# QUORUM_TEST_CONTROLPLANE_DIR in its environment (hack/test-matrix.sh: one control
# plane per Kubernetes version), those tests get that folder as
# QUORUM_CONTROLPLANE_DIR. It lists their tests now and writes a file that CTest
# includes when it reads the calling folder (TEST_INCLUDE_FILES), so the choice is
# made at test time. CTest includes that file before the folder's own tests and
# before its subfolders, so call it from a folder added after DIR... (test/matrix).
function(quorum_controlplane_override)
  set(tests)
  foreach(dir ${ARGN})
    get_property(dir_tests DIRECTORY ${dir} PROPERTY TESTS)
    list(APPEND tests ${dir_tests})
  endforeach()
  set(file ${CMAKE_CURRENT_BINARY_DIR}/controlplane_override.cmake)
  file(WRITE ${file} "# Written by quorum_controlplane_override() (cmake/QuorumTarget.cmake).\n"
    "if(DEFINED ENV{QUORUM_TEST_CONTROLPLANE_DIR})\n"
    "  set_tests_properties(${tests} PROPERTIES ENVIRONMENT_MODIFICATION\n"
    "    \"QUORUM_CONTROLPLANE_DIR=set:\$ENV{QUORUM_TEST_CONTROLPLANE_DIR}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()

# quorum_controlplane_command(VAR SCRIPT VERB): VAR becomes the command line that
# runs `SCRIPT VERB DIR` on the configured QUORUM_CONTROLPLANE_DIR, or on
# $QUORUM_TEST_CONTROLPLANE_DIR when ctest runs with it (the fixtures' side of
# quorum_controlplane_override()).
function(quorum_controlplane_command var script verb)
  set(${var} bash -c "exec \"$0\" ${verb} \"\${QUORUM_TEST_CONTROLPLANE_DIR:-$1}\""
    ${script} ${QUORUM_CONTROLPLANE_DIR} PARENT_SCOPE)
endfunction()

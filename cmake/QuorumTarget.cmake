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

# quorum_test(NAME SOURCES... DEPS ... LABELS ... FIXTURES ...): a GoogleTest binary
# registered with CTest as one test per binary (fast to list, clear summary).
function(quorum_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS;FIXTURES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock Threads::Threads)
  quorum_target_options(${name})
  add_test(NAME ${name} COMMAND ${name} --gtest_color=no)
  set(labels ${ARG_LABELS})
  if(NOT labels)
    set(labels unit)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}")
  if(ARG_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  endif()
  if(ARG_FIXTURES)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "${ARG_FIXTURES}")
  endif()
endfunction()

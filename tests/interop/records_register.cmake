# records_interop_test: mpk/ext/records.hpp against the real msgpackr and @msgpack/msgpack,
# run by the machine's Node.js from bench/harness/js/node_modules (scripts/setup runs npm ci
# there). Included from tests/CMakeLists.txt. Without node or the modules the test still runs
# and fails, saying what is missing.
find_program(MPK_TEST_NODE node)
set(_mpk_node_modules ${PROJECT_SOURCE_DIR}/bench/harness/js/node_modules)
if(NOT MPK_TEST_NODE)
  message(WARNING "node not found: records_interop_test will fail (install nodejs)")
  set(MPK_TEST_NODE node)
endif()
if(NOT EXISTS ${_mpk_node_modules}/msgpackr OR NOT EXISTS ${_mpk_node_modules}/@msgpack/msgpack)
  message(WARNING "${_mpk_node_modules} lacks msgpackr or @msgpack/msgpack: "
                  "records_interop_test will fail (run npm ci in bench/harness/js)")
endif()
add_executable(records_interop_test ${CMAKE_CURRENT_LIST_DIR}/records_interop_test.cpp)
target_include_directories(records_interop_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(records_interop_test PRIVATE mpk::mpk mpk_build_flags GTest::gtest_main)
target_compile_definitions(records_interop_test PRIVATE
  MPK_TEST_NODE="${MPK_TEST_NODE}"
  MPK_TEST_NODE_MODULES="${_mpk_node_modules}"
  MPK_TEST_RECORDS_PEER="${CMAKE_CURRENT_LIST_DIR}/records_peer.js")
# One ctest: the peer runs once for the suite.
add_test(NAME records_interop_test COMMAND records_interop_test)
set_tests_properties(records_interop_test PROPERTIES LABELS interop TIMEOUT 300)

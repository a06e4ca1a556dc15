# Docs that are tests (tests/docs/doc_examples.py, which states the conventions):
#   doc_examples  every ```cpp block of README.md and docs/*.md compiled with GCC and this
#                 build's libmpk, warnings as errors, run; stated outputs (`// => ...`) checked
#   doc_console   the ```console blocks of docs/cli.md run with this build's mpk tool
# Registered for GCC builds without sanitizers (dev, release): the examples are compiled
# outside the build, in two translation units.
include_guard(GLOBAL)
find_program(MPK_DOC_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
# Not in the i386 and s390x builds: the script compiles with the host's g++ for the host.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT MPK_SANITIZE AND MPK_DOC_PYTHON3
   AND NOT CMAKE_CROSSCOMPILING AND CMAKE_SIZEOF_VOID_P EQUAL 8)
  set(_mpk_doc_libs --lib $<TARGET_FILE:mpk>)
  if(simdjson_FOUND)
    list(APPEND _mpk_doc_libs --lib $<TARGET_FILE:simdjson::simdjson>)
  endif()
  if(BUILD_SHARED_LIBS)
    list(APPEND _mpk_doc_libs --lib=-Wl,-rpath,$<TARGET_FILE_DIR:mpk>)
  endif()
  set(_mpk_doc_cmd ${MPK_DOC_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/doc_examples.py
      --root ${PROJECT_SOURCE_DIR} --cxx ${CMAKE_CXX_COMPILER} --ccache "${MPK_CCACHE}"
      --include ${PROJECT_SOURCE_DIR}/include)
  add_test(NAME doc_examples
    COMMAND ${_mpk_doc_cmd} --work ${CMAKE_CURRENT_BINARY_DIR}/docs/cpp --only cpp ${_mpk_doc_libs})
  set_tests_properties(doc_examples PROPERTIES LABELS docs TIMEOUT 600)
  if(TARGET mpk_tool)
    add_test(NAME doc_console
      COMMAND ${_mpk_doc_cmd} --work ${CMAKE_CURRENT_BINARY_DIR}/docs/console --only console
              --mpk $<TARGET_FILE:mpk_tool>)
    set_tests_properties(doc_console PROPERTIES LABELS docs TIMEOUT 300)
  endif()
endif()

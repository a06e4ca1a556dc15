# CLI tests of the mpk tool (tests/cli/): one ctest per golden case, and the W7 comparison
# with msgpack-python. Included from tests/CMakeLists.txt when the tool is built.

# The tool as the scripts run it: the binary itself, or, when the build's programs run under
# an emulator (the i386 preset on a kernel without 32-bit support: cmake/toolchains/i386.cmake),
# a script that runs it under that emulator.
set(_mpk_cli_tool $<TARGET_FILE:mpk_tool>)
if(CMAKE_CROSSCOMPILING_EMULATOR)
  list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " _mpk_emulator)
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/cli/mpk-emulated
       CONTENT "#!/bin/sh\nexec ${_mpk_emulator} $<TARGET_FILE:mpk_tool> \"$@\"\n"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                        WORLD_READ WORLD_EXECUTE)
  set(_mpk_cli_tool ${CMAKE_CURRENT_BINARY_DIR}/cli/mpk-emulated)
endif()
file(GLOB _mpk_cli_cases LIST_DIRECTORIES true ${CMAKE_CURRENT_LIST_DIR}/golden/*)
foreach(_case IN LISTS _mpk_cli_cases)
  if(IS_DIRECTORY ${_case})
    get_filename_component(_name ${_case} NAME)
    add_test(NAME cli.${_name}
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_golden.sh ${_mpk_cli_tool} ${_case}
              ${CMAKE_CURRENT_BINARY_DIR}/cli/${_name})
    set_tests_properties(cli.${_name} PROPERTIES LABELS cli)
  endif()
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/golden)

add_test(NAME cli.progress_line
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/progress_check.sh ${_mpk_cli_tool}
          ${CMAKE_CURRENT_BINARY_DIR}/cli/progress)
set_tests_properties(cli.progress_line PROPERTIES LABELS cli)

if(EXISTS /usr/bin/python3)
  add_test(NAME cli.w7_matches_msgpack_python
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/w7_check.sh ${_mpk_cli_tool}
            ${CMAKE_CURRENT_BINARY_DIR}/cli/w7)
  set_tests_properties(cli.w7_matches_msgpack_python PROPERTIES LABELS "cli;interop")
endif()

# A value's output arrives before the next value is sent, through a real pipe.
add_test(NAME cli.live_pipe
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/pipe_check.sh ${_mpk_cli_tool})
set_tests_properties(cli.live_pipe PROPERTIES LABELS cli)

# to-json and get over reads of several sizes (values cut by reads, an error far in) equal
# to-json through the stream decoder's values.
add_test(NAME cli.read_split
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/read_split_check.sh ${_mpk_cli_tool}
          ${CMAKE_CURRENT_BINARY_DIR}/cli/read_split)
set_tests_properties(cli.read_split PROPERTIES LABELS cli)

# The slow tier (Release builds only, not in scripts/test: about 10 s of CPU):
# `ctest --preset release -L slow`. 512 MiB through each streaming command, peak RSS <= 64 MiB.
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  add_test(NAME cli.memory_512mib
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/memory_check.sh ${_mpk_cli_tool}
            ${CMAKE_CURRENT_BINARY_DIR}/cli/memory)
  set_tests_properties(cli.memory_512mib PROPERTIES LABELS "cli;slow" TIMEOUT 900)
endif()

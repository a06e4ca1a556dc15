# Compile-fail tests (label "unit"): each file must be refused by the compiler with the
# static_assert message given; should_compile.cpp, the same command on a valid program, must
# pass. Syntax-only compiles with the build's compiler and flags (about 2 s each).
set(_mpk_cf_dir ${CMAKE_CURRENT_LIST_DIR})
set(_mpk_cf_cmd ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only -Wall -Wextra -Werror
    -I${PROJECT_SOURCE_DIR}/include)
# Not under the sanitizer preset: what does not compile does not depend on it.
if(NOT MPK_SANITIZE)
function(mpk_compile_fail name message)
  add_test(NAME compile_fail.${name} COMMAND ${_mpk_cf_cmd} ${_mpk_cf_dir}/${name}.cpp)
  set_tests_properties(compile_fail.${name} PROPERTIES LABELS unit
                       PASS_REGULAR_EXPRESSION "${message}")
endfunction()
mpk_compile_fail(private_members "Only plain aggregates \\(public members, no constructors")
mpk_compile_fail(base_class "cannot reflect T: it has a base class")
mpk_compile_fail(ambiguous_untagged "two alternatives are read from the same MessagePack type")
mpk_compile_fail(unknown_option_member "renames or skips a member that T does not have")
add_test(NAME compile_fail.should_compile COMMAND ${_mpk_cf_cmd} ${_mpk_cf_dir}/should_compile.cpp)
set_tests_properties(compile_fail.should_compile PROPERTIES LABELS unit)
endif()

# The build cost of reflection against MPK_MAP (docs/codec.md): built only on request.
add_executable(codec_build_cost_reflected EXCLUDE_FROM_ALL
               ${CMAKE_CURRENT_LIST_DIR}/../build_cost/codec_build_cost.cpp)
add_executable(codec_build_cost_described EXCLUDE_FROM_ALL
               ${CMAKE_CURRENT_LIST_DIR}/../build_cost/codec_build_cost.cpp)
target_compile_definitions(codec_build_cost_described PRIVATE MPK_BUILD_COST_DESCRIBED=1)
foreach(t codec_build_cost_reflected codec_build_cost_described)
  target_link_libraries(${t} PRIVATE mpk::mpk mpk_build_flags)
endforeach()

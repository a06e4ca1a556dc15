# simdjson for the 'i386' preset (cmake/toolchains/i386.cmake points simdjson_DIR here).
# Debian's libsimdjson-dev is not multiarch, so it cannot be installed for amd64 and i386 at
# once; this config pairs the i386 runtime library (libsimdjson14:i386) with the installed
# amd64 package's header, one amalgamated simdjson.h that chooses its kernels from the
# compiler's target. The two must be the same simdjson version, checked here.
if(TARGET simdjson::simdjson)  # found before (the library, then bench/)
  set(simdjson_FOUND TRUE)
  return()
endif()
set(simdjson_FOUND FALSE)
file(GLOB _mpk_simdjson_libs /usr/lib/i386-linux-gnu/libsimdjson.so.[0-9]*)
list(FILTER _mpk_simdjson_libs INCLUDE REGEX "\\.so\\.[0-9]+$")  # the soname link
if(NOT _mpk_simdjson_libs OR NOT EXISTS /usr/include/simdjson.h)
  return()
endif()
list(GET _mpk_simdjson_libs 0 _mpk_simdjson_lib)
file(STRINGS /usr/include/simdjson.h _mpk_simdjson_version REGEX "^#define SIMDJSON_VERSION ")
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" _mpk_simdjson_version "${_mpk_simdjson_version}")
file(REAL_PATH ${_mpk_simdjson_lib} _mpk_simdjson_real)
execute_process(COMMAND dpkg -S ${_mpk_simdjson_real} OUTPUT_VARIABLE _mpk_simdjson_pkg
                ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX REPLACE ":.*" "" _mpk_simdjson_pkg "${_mpk_simdjson_pkg}")
execute_process(COMMAND dpkg-query -W -f=\${Version} ${_mpk_simdjson_pkg}:i386
                OUTPUT_VARIABLE _mpk_simdjson_lib_version ERROR_QUIET)
if(NOT _mpk_simdjson_lib_version MATCHES "^${_mpk_simdjson_version}")
  message(WARNING "simdjson.h is ${_mpk_simdjson_version} but ${_mpk_simdjson_real} is "
                  "'${_mpk_simdjson_lib_version}': no i386 simdjson")
  return()
endif()
add_library(simdjson::simdjson SHARED IMPORTED)
set_target_properties(simdjson::simdjson PROPERTIES
  IMPORTED_LOCATION ${_mpk_simdjson_lib}
  INTERFACE_INCLUDE_DIRECTORIES /usr/include)
set(simdjson_VERSION ${_mpk_simdjson_version})
set(simdjson_FOUND TRUE)

# Compiles (and optionally links and runs) test sources at ctest time, so that a defect in
# a generated header shows up as one failing test instead of breaking the whole build.
#
#   cmake -DCOMPILER=<cc> -DARGS=<a|b|c> -DSOURCES=<x|y> [-DOUT=<exe>] [-DLINK_ARGS=<a|b>]
#         -P compile_check.cmake
#
# Lists are '|'-separated. Without OUT each source is compiled alone with -fsyntax-only.
# With OUT the sources are compiled and linked into OUT, which is then run and must exit 0.
cmake_minimum_required(VERSION 3.16)

string(REPLACE "|" ";" _args "${ARGS}")
string(REPLACE "|" ";" _sources "${SOURCES}")
string(REPLACE "|" ";" _link "${LINK_ARGS}")
set(_failures "")

if(OUT)
  execute_process(COMMAND "${COMPILER}" ${_args} ${_sources} ${_link} -o "${OUT}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    string(APPEND _failures "compile/link failed:\n${_out}${_err}\n")
  else()
    # The getters' arrays are malloc-compatible and C++ programs free them with delete[]
    # (CANN's documented pattern): tell AddressSanitizer that this mismatch is intended.
    set(ENV{ASAN_OPTIONS} "alloc_dealloc_mismatch=0:$ENV{ASAN_OPTIONS}")
    execute_process(COMMAND "${OUT}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    message(STATUS "${OUT}:\n${_out}${_err}")
    if(NOT _rc EQUAL 0)
      string(APPEND _failures "${OUT} exited with ${_rc}\n")
    endif()
  endif()
else()
  foreach(_src ${_sources})
    execute_process(COMMAND "${COMPILER}" ${_args} -fsyntax-only "${_src}"
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      file(READ "${_src}" _text)
      string(APPEND _failures "--- ${_src} does not compile:\n${_text}\n${_out}${_err}\n")
    endif()
  endforeach()
  list(LENGTH _sources _n)
  if(_failures STREQUAL "")
    message(STATUS "${_n} translation unit(s) compile")
  endif()
endif()

if(NOT _failures STREQUAL "")
  message("${_failures}")
  message(FATAL_ERROR "compile check failed")
else()
  message(STATUS "1 passed, 0 failed")
endif()

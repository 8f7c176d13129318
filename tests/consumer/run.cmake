# Consumer test: proves that steptime works for a user both as an installed package and through
# add_subdirectory. Run as a script:
#
#   cmake -DSOURCE_DIR=<steptime source tree> -DWORK_DIR=<scratch directory>
#         [-DCMAKE_CXX_COMPILER=<compiler>] [-DCMAKE_GENERATOR=<generator>] -P tests/consumer/run.cmake
#
# Steps (each fails the script with its output):
#   1. configure, build and install steptime into WORK_DIR/prefix (tests, examples, tools, benchmarks OFF);
#   2. configure and build tests/consumer/installed (find_package(steptime 0.9 CONFIG) with
#      CMAKE_PREFIX_PATH=WORK_DIR/prefix), check it found the package just installed, run its programs;
#   3. configure and build tests/consumer/subdir (add_subdirectory of SOURCE_DIR), run its programs.
# WORK_DIR is emptied first.
cmake_minimum_required(VERSION 3.20)

foreach(var SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "consumer test: pass -D${var}=... before -P")
  endif()
endforeach()
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)
get_filename_component(WORK_DIR "${WORK_DIR}" ABSOLUTE)
set(prefix "${WORK_DIR}/prefix")
set(consumers "${SOURCE_DIR}/tests/consumer")

# Options every configure step gets: the compiler and generator asked for, no user package registry
# (so only the package installed here can be found), an unoptimised build (quicker to compile).
set(common_args -DCMAKE_BUILD_TYPE=Debug -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(DEFINED CMAKE_CXX_COMPILER AND NOT "${CMAKE_CXX_COMPILER}" STREQUAL "")
  list(APPEND common_args "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}")
endif()
if(DEFINED CMAKE_GENERATOR AND NOT "${CMAKE_GENERATOR}" STREQUAL "")
  list(APPEND common_args -G "${CMAKE_GENERATOR}")
endif()

# Runs one command; on failure stops the test with the command line and everything it printed.
function(step what)
  message(STATUS "consumer test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc STREQUAL "0")
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "consumer test: ${what} failed (exit ${rc})\n"
                        "command: ${command}\n"
                        "output:\n${out}")
  endif()
  string(STRIP "${out}" out)
  if(what MATCHES "^run ")
    message(STATUS "${out}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# 1. steptime itself, installed.
step("configure steptime" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/steptime-build" ${common_args}
     "-DCMAKE_INSTALL_PREFIX=${prefix}"
     -DSTEPTIME_BUILD_TESTS=OFF -DSTEPTIME_BUILD_EXAMPLES=OFF -DSTEPTIME_BUILD_TOOLS=OFF
     -DSTEPTIME_BUILD_BENCHMARKS=OFF -DSTEPTIME_INSTALL=ON)
step("build steptime" "${CMAKE_COMMAND}" --build "${WORK_DIR}/steptime-build" --parallel 2)
step("install steptime" "${CMAKE_COMMAND}" --install "${WORK_DIR}/steptime-build")

# 2. A project using the installed package.
step("configure the installed-package consumer" "${CMAKE_COMMAND}" -S "${consumers}/installed"
     -B "${WORK_DIR}/installed" ${common_args} "-DCMAKE_PREFIX_PATH=${prefix}")
file(STRINGS "${WORK_DIR}/installed/CMakeCache.txt" found REGEX "^steptime_DIR:")
string(REGEX REPLACE "^steptime_DIR:[A-Z]+=" "" found "${found}")
file(REAL_PATH "${prefix}" real_prefix)
if(EXISTS "${found}")
  file(REAL_PATH "${found}" found)
endif()
string(FIND "${found}/" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "consumer test: find_package(steptime) found '${found}', not the package installed in "
                      "'${prefix}'")
endif()
step("build the installed-package consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/installed" --parallel 2)
step("run the installed-package consumer (steptime::steptime)" "${WORK_DIR}/installed/consumer")
step("run the installed-package consumer (steptime::single)" "${WORK_DIR}/installed/consumer_single")

# 3. A project including the source tree with add_subdirectory.
step("configure the add_subdirectory consumer" "${CMAKE_COMMAND}" -S "${consumers}/subdir"
     -B "${WORK_DIR}/subdir" ${common_args} "-DSTEPTIME_SOURCE_DIR=${SOURCE_DIR}")
step("build the add_subdirectory consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/subdir" --parallel 2)
step("run the add_subdirectory consumer (steptime::steptime)" "${WORK_DIR}/subdir/consumer")
step("run the add_subdirectory consumer (steptime::single)" "${WORK_DIR}/subdir/consumer_single")

message(STATUS "consumer test: passed")

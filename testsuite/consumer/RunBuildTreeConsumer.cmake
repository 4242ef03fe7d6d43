# Proves that the build tree itself is a usable CMake package, and that installing against it never writes
# into it:
#   1. configure + build testsuite/consumer/project with CMAKE_PREFIX_PATH=<BUILD_DIR> (no install), run it:
#      its standard plugins come from <BUILD_DIR>/lib/bluetusk/plugins, and BlueTusk_PLUGIN_DIR is the
#      configured install directory, not a path in the build tree;
#   2. build samples/CustomPolicy stand-alone against the build tree and cmake --install it with no prefix
#      (under DESTDIR, so nothing reaches the real /usr/local): its plugin lands in <prefix>/.../bluetusk/plugins
#      under DESTDIR and the build tree is unchanged.
# Run as: cmake -DBUILD_DIR=... -DPROJECT_DIR=... -DSAMPLE_DIR=... -DWORK_DIR=... -DGENERATOR=...
#   -DPLUGIN_INSTALL_DIR=... -P RunBuildTreeConsumer.cmake

include(${CMAKE_CURRENT_LIST_DIR}/ConsumerSupport.cmake)
require_vars(RunBuildTreeConsumer.cmake BUILD_DIR PROJECT_DIR SAMPLE_DIR WORK_DIR GENERATOR PLUGIN_INSTALL_DIR)

set(consumer_build ${WORK_DIR}/build)
set(sample_build ${WORK_DIR}/sample)
set(destdir ${WORK_DIR}/destdir)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(GLOB_RECURSE before LIST_DIRECTORIES false RELATIVE ${BUILD_DIR}/lib ${BUILD_DIR}/lib/*)

prefix_path_env(prefix_path ${BUILD_DIR}) # the build tree, and the Poco it was built against
run("configure consumer against the build tree" ${CMAKE_COMMAND} -E env "${prefix_path}"
  ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${consumer_build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release)
run("build consumer" ${CMAKE_COMMAND} --build ${consumer_build})
run("run consumer" ${consumer_build}/bluetusk-consumer)
expect_lines("run consumer" "${output}"
  "plugins ${PLUGIN_INSTALL_DIR}"
  "relocated ${BUILD_DIR}/lib/bluetusk/plugins"
  "hostorder ${BUILD_DIR}/lib/bluetusk/plugins/libBlueTuskHostOrderPlugin.so")
string(FIND "${PLUGIN_INSTALL_DIR}" "${BUILD_DIR}" at)
if(at EQUAL 0)
  message(FATAL_ERROR "BlueTusk_PLUGIN_DIR of the build tree's package is in the build tree: ${PLUGIN_INSTALL_DIR}")
endif()
run("data source" ${CMAKE_COMMAND} -E env --unset=BLUETUSK_PLUGIN_PATH ${consumer_build}/bluetusk-consumer --data-source)
expect_lines("data source" "${output}" "data source created")

run("configure the CustomPolicy sample against the build tree" ${CMAKE_COMMAND} -E env "${prefix_path}"
  ${CMAKE_COMMAND} -S ${SAMPLE_DIR} -B ${sample_build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release)
run("build the sample" ${CMAKE_COMMAND} --build ${sample_build})
run("install the sample with no prefix" ${CMAKE_COMMAND} -E env DESTDIR=${destdir} ${CMAKE_COMMAND} --install ${sample_build})
if(NOT EXISTS ${destdir}${PLUGIN_INSTALL_DIR}/libBlueTuskPreferredHostsPlugin.so)
  file(GLOB_RECURSE installed ${destdir}/*)
  message(FATAL_ERROR "the sample plugin is not in ${destdir}${PLUGIN_INSTALL_DIR}; installed: ${installed}")
endif()
file(GLOB_RECURSE after LIST_DIRECTORIES false RELATIVE ${BUILD_DIR}/lib ${BUILD_DIR}/lib/*)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "installing against the build tree changed ${BUILD_DIR}/lib:\nbefore: ${before}\nafter: ${after}")
endif()
message(STATUS "build tree consumer check passed")

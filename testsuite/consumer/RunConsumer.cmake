# Proves that an installed BlueTusk is usable by another project:
#   1. cmake --install <BUILD_DIR> --prefix <WORK_DIR>/prefix
#   2. configure + build testsuite/consumer/project against that prefix (find_package(BlueTusk))
#   3. run it and check its output
# Run as: cmake -DBUILD_DIR=... -DPROJECT_DIR=... -DWORK_DIR=... -DGENERATOR=... -DLIBDIR=lib -P RunConsumer.cmake

include(${CMAKE_CURRENT_LIST_DIR}/ConsumerSupport.cmake)
require_vars(RunConsumer.cmake BUILD_DIR PROJECT_DIR WORK_DIR GENERATOR LIBDIR)

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# The library's components (doc/packages.md): the samples' component is left out, so a build without them
# (scripts/poco-current's default set) can be checked too.
foreach(component runtime dev)
  run("install ${component} into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
    --component ${component})
endforeach()

# What must be installed: the headers, the four libraries, the CMake package.
foreach(file
    include/BlueTusk/ConnectionSettings.h include/BlueTusk/Session.h include/BlueTusk/PoolManager.h
    include/BlueTusk/TargetSessionPolicy.h include/BlueTusk/RoutingContext.h include/BlueTusk/Util/DataSourceSubsystem.h
    ${LIBDIR}/libBlueTuskFoundation.so ${LIBDIR}/libBlueTuskTransport.so ${LIBDIR}/libBlueTuskPooling.so
    ${LIBDIR}/libBlueTuskRouting.so ${LIBDIR}/libBlueTuskUtil.so ${LIBDIR}/cmake/BlueTusk/BlueTuskConfig.cmake
    ${LIBDIR}/cmake/BlueTusk/BlueTuskConfigVersion.cmake ${LIBDIR}/cmake/BlueTusk/BlueTuskTargets.cmake)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "not installed: ${prefix}/${file}")
  endif()
endforeach()

# The consumer sees only the prefix and the Poco BlueTusk was built against (the system's, or POCO_PREFIX_PATH:
# the build's CMAKE_PREFIX_PATH, scripts/poco-current's Poco 1.14.2): no path into the source or build tree.
prefix_path_env(prefix_path ${prefix})
run("configure consumer" ${CMAKE_COMMAND} -E env "${prefix_path}"
  ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${consumer_build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release)
run("build consumer" ${CMAKE_COMMAND} --build ${consumer_build})
# Without LD_LIBRARY_PATH (scripts/poco-current sets one for its suites): the installed libraries find a Poco
# outside the system's directories through their own RUNPATH.
run("run consumer" ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${consumer_build}/bluetusk-consumer)
message(STATUS "consumer output:\n${output}")

# Literal lines the output must contain.
foreach(line
    "endpoint db-a:5433" "endpoint db-b:6432" "endpoint [::1]:5433" "target prefer-standby" "verdict fallback"
    "plugins ${prefix}/${LIBDIR}/bluetusk/plugins"
    "relocated ${prefix}/${LIBDIR}/bluetusk/plugins"
    "hostorder ${prefix}/${LIBDIR}/bluetusk/plugins/libBlueTuskHostOrderPlugin.so")
  string(FIND "${output}" "${line}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "consumer output lacks the line \"${line}\"")
  endif()
endforeach()
if(NOT output MATCHES "settings [^\n]*Password=\\*\\*\\*")
  message(FATAL_ERROR "consumer output lacks \"settings ...Password=***\"")
endif()
if(output MATCHES "consumer-secret")
  message(FATAL_ERROR "consumer output shows the password")
endif()

# A data source of the installed library finds the installed standard plugins, with no search path configured.
set(plugindir ${prefix}/${LIBDIR}/bluetusk/plugins)
run("data source" ${CMAKE_COMMAND} -E env --unset=BLUETUSK_PLUGIN_PATH --unset=LD_LIBRARY_PATH
  ${consumer_build}/bluetusk-consumer --data-source)
expect_lines("data source" "${output}" "data source created"
  "targets any prefer-primary prefer-standby primary read-only read-write standby")

# With a standard plugin file moved away, creating a data source fails naming it and every path searched (the
# installed tree's own plugin directory first, BLUETUSK_PLUGIN_PATH's entries, the configured install directory),
# never the password.
file(RENAME ${plugindir}/libBlueTuskTargetSessionPlugin.so ${WORK_DIR}/libBlueTuskTargetSessionPlugin.so)
execute_process(COMMAND ${CMAKE_COMMAND} -E env BLUETUSK_PLUGIN_PATH=${WORK_DIR}/elsewhere
    ${consumer_build}/bluetusk-consumer --data-source
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(RENAME ${WORK_DIR}/libBlueTuskTargetSessionPlugin.so ${plugindir}/libBlueTuskTargetSessionPlugin.so)
if(status EQUAL 0)
  message(FATAL_ERROR "a data source was created without libBlueTuskTargetSessionPlugin.so:\n${out}")
endif()
string(FIND "${err}" "libBlueTuskTargetSessionPlugin.so not found (searched ${plugindir}, ${WORK_DIR}/elsewhere, " at)
if(at EQUAL -1 OR err MATCHES "consumer-secret")
  message(FATAL_ERROR "the missing plugin's error does not name it and the paths searched (or shows the password):\n${err}")
endif()
message(STATUS "missing standard plugin: ${err}")

# The installed plugins (whichever exist yet) are in the directory the package names.
file(GLOB built_plugins ${BUILD_DIR}/lib/bluetusk/plugins/*.so)
foreach(plugin ${built_plugins})
  get_filename_component(name ${plugin} NAME)
  if(NOT EXISTS ${prefix}/${LIBDIR}/bluetusk/plugins/${name})
    message(FATAL_ERROR "plugin not installed: ${prefix}/${LIBDIR}/bluetusk/plugins/${name}")
  endif()
endforeach()
message(STATUS "consumer check passed")

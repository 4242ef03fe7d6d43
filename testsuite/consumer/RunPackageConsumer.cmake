# Proves that BlueTusk's Debian packages are usable:
#   1. cpack -G DEB from <BUILD_DIR> (its CPackConfig.cmake) into <WORK_DIR>/debs
#   2. each package's name and dependencies (Debian's Poco packages from dpkg-shlibdeps; the -dev ones)
#   3. dpkg-deb -x every package into <WORK_DIR>/root (a temporary root, nothing installed on the system)
#   4. the consumer project in project/ built against <root>/usr with CMake (find_package(BlueTusk), also
#      BlueTusk::Metrics when packaged) and run
#   5. the same main.cpp (and metrics.cpp) built with pkg-config (bluetusk.pc, bluetusk-metrics.pc) and run
# Run as: cmake -DBUILD_DIR=... -DPROJECT_DIR=... -DWORK_DIR=... -DGENERATOR=... -DMETRICS=ON|OFF -P RunPackageConsumer.cmake

include(${CMAKE_CURRENT_LIST_DIR}/ConsumerSupport.cmake)
require_vars(RunPackageConsumer.cmake BUILD_DIR PROJECT_DIR WORK_DIR GENERATOR METRICS)

set(debs ${WORK_DIR}/debs)
set(root ${WORK_DIR}/root)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR} ${root})

run("cpack -G DEB" cpack -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${debs})

set(packages libbluetusk0 libbluetusk-dev bluetusk-samples)
if(METRICS)
  list(APPEND packages libbluetusk-metrics0 libbluetusk-metrics-dev)
endif()
file(GLOB built ${debs}/*.deb)
list(LENGTH built count)
list(LENGTH packages expected)
if(NOT count EQUAL expected)
  message(FATAL_ERROR "expected ${expected} packages (${packages}), cpack made ${count}: ${built}")
endif()

# Dependencies: what each package must name (dpkg-shlibdeps gives the Poco ones from the libraries' NEEDED).
set(depends_libbluetusk0 "libpocofoundation80 (>= 1.11" "libpoconet80" "libpoconetssl80" "libpocoutil80" "libpocodata80" "libssl3")
set(depends_libbluetusk-dev "libbluetusk0 (= " "libpoco-dev (>= 1.11)")
set(depends_bluetusk-samples "libbluetusk0 (= " "libpocojson80")
set(depends_libbluetusk-metrics0 "libbluetusk0 (= " "libprometheus-cpp-core1.0" "libprometheus-cpp-pull1.0")
set(depends_libbluetusk-metrics-dev "libbluetusk-dev (= " "libbluetusk-metrics0 (= " "prometheus-cpp-dev")
foreach(package ${packages})
  file(GLOB deb ${debs}/${package}_*.deb)
  if(NOT deb)
    message(FATAL_ERROR "no package ${package} in ${debs}")
  endif()
  run("dpkg-deb -f ${package}" dpkg-deb -f ${deb} Package Depends)
  foreach(dependency ${depends_${package}})
    string(FIND "${output}" "${dependency}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${package} does not depend on ${dependency}:\n${output}")
    endif()
  endforeach()
  run("dpkg-deb -x ${package}" dpkg-deb -x ${deb} ${root})
endforeach()

# What each part of the root holds.
file(GLOB_RECURSE libdirs LIST_DIRECTORIES false ${root}/usr/libBlueTuskRouting.so.0)
if(NOT libdirs)
  message(FATAL_ERROR "libBlueTuskRouting.so.0 not unpacked under ${root}/usr")
endif()
list(GET libdirs 0 routing)
get_filename_component(libdir ${routing} DIRECTORY)
foreach(file ${libdir}/libBlueTuskRouting.so ${libdir}/libBlueTuskUtil.so ${libdir}/pkgconfig/bluetusk.pc
    ${libdir}/cmake/BlueTusk/BlueTuskConfig.cmake ${root}/usr/include/BlueTusk/Util/DataSourceSubsystem.h
    ${libdir}/bluetusk/plugins/libBlueTuskHostOrderPlugin.so ${root}/usr/include/BlueTusk/BlueTuskDataSource.h
    ${root}/usr/bin/bluetusk-pool-monitor)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "not in the packages: ${file}")
  endif()
endforeach()

set(consumer_lines "endpoint db-a:5433" "endpoint db-b:6432" "endpoint [::1]:5433" "target prefer-standby" "verdict fallback"
  "relocated ${libdir}/bluetusk/plugins" "hostorder ${libdir}/bluetusk/plugins/libBlueTuskHostOrderPlugin.so")
set(metrics_lines "metric db_client_connection_count" "otel db.client.connection.count" "exposition ok")

# CMake: find_package(BlueTusk) from the unpacked root only.
set(consumer_build ${WORK_DIR}/cmake-build)
run("configure consumer (CMake)" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${consumer_build} -G ${GENERATOR}
  -DCMAKE_PREFIX_PATH=${root}/usr -DCMAKE_BUILD_TYPE=Release)
run("build consumer (CMake)" ${CMAKE_COMMAND} --build ${consumer_build})
run("run consumer (CMake)" ${consumer_build}/bluetusk-consumer)
expect_lines("CMake consumer" "${output}" ${consumer_lines} "plugins ${libdir}/bluetusk/plugins")
if(output MATCHES "consumer-secret")
  message(FATAL_ERROR "consumer output shows the password")
endif()
if(METRICS)
  run("run metrics consumer (CMake)" ${consumer_build}/bluetusk-metrics-consumer)
  expect_lines("CMake metrics consumer" "${output}" ${metrics_lines})
endif()

# pkg-config: the compiler and linker flags from the unpacked bluetusk.pc (relocatable: ${pcfiledir}).
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
set(ENV{LD_LIBRARY_PATH} ${libdir})
run("pkg-config bluetusk" pkg-config --cflags --libs bluetusk)
separate_arguments(flags UNIX_COMMAND "${output}")
run("pkg-config plugindir" pkg-config --variable=plugindir bluetusk)
string(STRIP "${output}" plugindir)
get_filename_component(plugindir ${plugindir} REALPATH)
if(NOT plugindir STREQUAL "${libdir}/bluetusk/plugins")
  message(FATAL_ERROR "pkg-config's plugindir ${plugindir} is not ${libdir}/bluetusk/plugins")
endif()
run("build consumer (pkg-config)" c++ -std=c++17 -o ${WORK_DIR}/pc-consumer ${PROJECT_DIR}/main.cpp
  "-DCONSUMER_PLUGIN_DIR=\"${plugindir}\"" ${flags})
run("run consumer (pkg-config)" ${WORK_DIR}/pc-consumer)
expect_lines("pkg-config consumer" "${output}" ${consumer_lines} "plugins ${plugindir}")
if(METRICS)
  run("pkg-config bluetusk-metrics" pkg-config --cflags --libs bluetusk-metrics)
  separate_arguments(flags UNIX_COMMAND "${output}")
  run("build metrics consumer (pkg-config)" c++ -std=c++17 -o ${WORK_DIR}/pc-metrics-consumer ${PROJECT_DIR}/metrics.cpp ${flags})
  run("run metrics consumer (pkg-config)" ${WORK_DIR}/pc-metrics-consumer)
  expect_lines("pkg-config metrics consumer" "${output}" ${metrics_lines})
endif()
message(STATUS "package consumer check passed")

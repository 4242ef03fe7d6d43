# Debian packages with CPack (doc/packages.md): cpack -G DEB in the build directory gives
#   libbluetusk0              the runtime libraries and the standard policy plugins
#   libbluetusk-dev           headers, the .so links, the CMake package, bluetusk.pc
#   libbluetusk-metrics0      BlueTusk::Metrics, the Prometheus exporter (when prometheus-cpp was found)
#   libbluetusk-metrics-dev   its headers, CMake export and bluetusk-metrics.pc
#   bluetusk-samples          bluetusk-connect, bluetusk-pool-monitor, bluetusk-data-orders
# Dependencies on Debian's packages (libpoco*80, libprometheus-cpp*, libssl3, libc6) come from
# dpkg-shlibdeps; those between BlueTusk's own packages are exact versions.

set(CPACK_PACKAGE_NAME bluetusk)
set(CPACK_PACKAGE_VENDOR "BlueTusk")
set(CPACK_PACKAGE_CONTACT "BlueTusk maintainers <bluetusk@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "PostgreSQL client library for Poco applications")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps finds BlueTusk's own libraries of the other packages here (their dependency is explicit).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)

set(bluetusk_exact "(= ${PROJECT_VERSION})")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libbluetusk0)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "BlueTusk runtime libraries and standard policy plugins\n PostgreSQL protocol, multi-host routing, failover and per-endpoint pools on Poco.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libbluetusk-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libbluetusk0 ${bluetusk_exact}, libpoco-dev (>= 1.11)")
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
set(CPACK_COMPONENT_DEV_DESCRIPTION "BlueTusk development files\n Headers, CMake package (find_package(BlueTusk)) and pkg-config file (bluetusk.pc).")

set(CPACK_DEBIAN_METRICS_PACKAGE_NAME libbluetusk-metrics0)
set(CPACK_DEBIAN_METRICS_PACKAGE_DEPENDS "libbluetusk0 ${bluetusk_exact}")
set(CPACK_COMPONENT_METRICS_DESCRIPTION "BlueTusk Prometheus exporter\n Pool and routing metrics under the OpenTelemetry names, on prometheus-cpp.")

set(CPACK_DEBIAN_METRICS-DEV_PACKAGE_NAME libbluetusk-metrics-dev)
set(CPACK_DEBIAN_METRICS-DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_METRICS-DEV_PACKAGE_DEPENDS "libbluetusk-dev ${bluetusk_exact}, libbluetusk-metrics0 ${bluetusk_exact}, prometheus-cpp-dev")
set(CPACK_DEBIAN_METRICS-DEV_PACKAGE_SHLIBDEPS OFF)
set(CPACK_COMPONENT_METRICS-DEV_DESCRIPTION "BlueTusk Prometheus exporter, development files")

set(CPACK_DEBIAN_SAMPLES_PACKAGE_NAME bluetusk-samples)
set(CPACK_DEBIAN_SAMPLES_PACKAGE_SECTION database)
set(CPACK_DEBIAN_SAMPLES_PACKAGE_DEPENDS "libbluetusk0 ${bluetusk_exact}")
set(CPACK_COMPONENT_SAMPLES_DESCRIPTION "BlueTusk sample programs\n bluetusk-connect (connection diagnostics), bluetusk-pool-monitor (HTTP pool monitor with /metrics), bluetusk-data-orders.")

set(CPACK_COMPONENTS_ALL runtime dev samples)
if(TARGET BlueTuskMetrics)
  list(APPEND CPACK_COMPONENTS_ALL metrics metrics-dev)
  set(CPACK_DEBIAN_SAMPLES_PACKAGE_DEPENDS "${CPACK_DEBIAN_SAMPLES_PACKAGE_DEPENDS}, libbluetusk-metrics0 ${bluetusk_exact}")
endif()

include(CPack)

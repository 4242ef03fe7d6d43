# Poco's own Data/PostgreSQL test suite run through the "bluetusk" connector (doc/poco-data.md, "Poco's own
# test suite"). Included by testsuite/CMakeLists.txt when BLUETUSK_POCO_SOURCE_DIR names the unpacked source
# of the Poco release BlueTusk is built against (scripts/poco-current sets it to the vendored 1.14.2 release,
# third_party/poco). Nothing of Poco's is copied into the repository: at configure time
# PatchPocoDataSuite.cmake copies the suite's sources into the build tree and changes the connector key, the
# connection string and what else names Poco's own connector (listed there); the runner is built from those,
# Poco's DataTest library source (SQLExecutor) and Poco's CppUnit source, and linked with BlueTusk::Data and
# Poco::DataPostgreSQL (the suite's libpq "barebone" tests and its headers use it; its connector is never
# registered). ctest test PocoDataPostgreSQLSuite, label integration (the local cluster).

set(bluetusk_poco_src "${BLUETUSK_POCO_SOURCE_DIR}")
if(NOT EXISTS "${bluetusk_poco_src}/Data/PostgreSQL/testsuite/src/PostgreSQLTest.cpp")
  message(FATAL_ERROR "BLUETUSK_POCO_SOURCE_DIR=${bluetusk_poco_src} has no Data/PostgreSQL/testsuite")
endif()
if(NOT TARGET Poco::DataPostgreSQL)
  message(FATAL_ERROR "Poco's own test suite needs Poco::DataPostgreSQL of the same Poco (${Poco_VERSION})")
endif()

set(bluetusk_poco_suite_dir "${CMAKE_CURRENT_BINARY_DIR}/poco-data/src")
set(POCO_SUITE_SOURCE "${bluetusk_poco_src}/Data/PostgreSQL/testsuite/src")
set(POCO_SUITE_TARGET "${bluetusk_poco_suite_dir}")
include(${CMAKE_CURRENT_LIST_DIR}/PatchPocoDataSuite.cmake)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_LIST_DIR}/PatchPocoDataSuite.cmake
  ${POCO_SUITE_SOURCE}/PostgreSQLTest.cpp ${POCO_SUITE_SOURCE}/SQLExecutor.cpp)

file(GLOB bluetusk_poco_cppunit_sources "${bluetusk_poco_src}/CppUnit/src/*.cpp")
add_executable(PocoDataPostgreSQLSuite
  ${bluetusk_poco_suite_dir}/Driver.cpp
  ${bluetusk_poco_suite_dir}/PostgreSQLTest.cpp
  ${bluetusk_poco_suite_dir}/PostgreSQLTestSuite.cpp
  ${bluetusk_poco_suite_dir}/SQLExecutor.cpp
  ${bluetusk_poco_src}/Data/DataTest/src/SQLExecutor.cpp
  ${bluetusk_poco_cppunit_sources})
target_include_directories(PocoDataPostgreSQLSuite PRIVATE
  ${bluetusk_poco_suite_dir}
  ${bluetusk_poco_src}/Data/DataTest/include
  ${bluetusk_poco_src}/CppUnit/include)
# Poco's sources, compiled as Poco compiles them: their warnings are not BlueTusk's.
target_compile_options(PocoDataPostgreSQLSuite PRIVATE -w)
target_link_libraries(PocoDataPostgreSQLSuite PRIVATE BlueTusk::Data Poco::DataPostgreSQL Poco::Data Poco::Foundation)
add_test(NAME PocoDataPostgreSQLSuite COMMAND PocoDataPostgreSQLSuite -all)
set_tests_properties(PocoDataPostgreSQLSuite PROPERTIES LABELS "integration" TIMEOUT 900)

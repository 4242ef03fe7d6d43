# Copies Poco's Data/PostgreSQL test suite sources (POCO_SUITE_SOURCE) into POCO_SUITE_TARGET and points them
# at the "bluetusk" connector. Every change below must apply (a Poco release that moved the text fails here,
# loudly, rather than testing Poco's own connector). The changes, and nothing else:
#  1. the connector key: PostgreSQL::Connector (register, unregister, KEY) and the "postgresql" literal of
#     the transaction tests become BlueTusk::Data::Connector;
#  2. the connection string's parts: host, port, user, password and database come from the environment the
#     other integration suites read (BLUETUSK_TEST_HOST, default 127.0.0.1, the local cluster's primary;
#     BLUETUSK_TEST_PORT, BLUETUSK_TEST_USER, BLUETUSK_TEST_PASSWORD, BLUETUSK_TEST_DATABASE);
#  3. dbInfo() reads the session's "handle" as Poco's libpq session handle (Utility::serverInfo() and so
#     on); bluetusk's "handle" is a BlueTuskConnection, so it prints the "endpoint" and "role" properties;
#  4. testSqlState catches the connector's exception type: BlueTusk::Data::StatementException (its
#     sqlState()) instead of Poco::Data::PostgreSQL::PostgreSQLException.
# Usable from CMake (include) or as a script: cmake -DPOCO_SUITE_SOURCE=... -DPOCO_SUITE_TARGET=... -P this.

foreach(var POCO_SUITE_SOURCE POCO_SUITE_TARGET)
  if(NOT ${var})
    message(FATAL_ERROR "PatchPocoDataSuite.cmake: ${var} is not set")
  endif()
endforeach()

function(bluetusk_poco_replace content_var file old new)
  string(FIND "${${content_var}}" "${old}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "PatchPocoDataSuite.cmake: ${file}: text not found: ${old}")
  endif()
  string(REPLACE "${old}" "${new}" changed "${${content_var}}")
  set(${content_var} "${changed}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY "${POCO_SUITE_TARGET}")
foreach(file Driver.cpp PostgreSQLTestSuite.cpp PostgreSQLTestSuite.h PostgreSQLTest.h SQLExecutor.h)
  configure_file("${POCO_SUITE_SOURCE}/${file}" "${POCO_SUITE_TARGET}/${file}" COPYONLY)
endforeach()

# PostgreSQLTest.cpp
file(READ "${POCO_SUITE_SOURCE}/PostgreSQLTest.cpp" text)
set(f PostgreSQLTest.cpp)
bluetusk_poco_replace(text ${f} "#include \"Poco/Data/PostgreSQL/Connector.h\""
  "#include \"Poco/Data/PostgreSQL/Connector.h\"\n#include \"BlueTusk/Data/Connector.h\"\n#include \"BlueTusk/Data/DataException.h\"")
bluetusk_poco_replace(text ${f} "PostgreSQL::Connector::" "BlueTusk::Data::Connector::")
bluetusk_poco_replace(text ${f} "std::string PostgreSQLTest::getHost()\n{\n\treturn \"localhost\";\n}"
  "std::string PostgreSQLTest::getHost()\n{\n\treturn Environment::get(\"BLUETUSK_TEST_HOST\", \"127.0.0.1\");\n}")
bluetusk_poco_replace(text ${f} "std::string PostgreSQLTest::getPort()\n{\n\treturn \"5432\";\n}"
  "std::string PostgreSQLTest::getPort()\n{\n\treturn Environment::get(\"BLUETUSK_TEST_PORT\", \"55432\");\n}")
bluetusk_poco_replace(text ${f} "std::string PostgreSQLTest::getBase()\n{\n\treturn \"postgres\";\n}"
  "std::string PostgreSQLTest::getBase()\n{\n\treturn Environment::get(\"BLUETUSK_TEST_DATABASE\", \"bluetusk\");\n}")
bluetusk_poco_replace(text ${f} "std::string PostgreSQLTest::getUser()\n{\n\treturn \"postgres\";\n}"
  "std::string PostgreSQLTest::getUser()\n{\n\treturn Environment::get(\"BLUETUSK_TEST_USER\", \"bluetusk\");\n}")
bluetusk_poco_replace(text ${f} "std::string PostgreSQLTest::getPass()\n{"
  "std::string PostgreSQLTest::getPass()\n{\n\treturn Environment::get(\"BLUETUSK_TEST_PASSWORD\", \"tusk-test-secret\");")
bluetusk_poco_replace(text ${f}
  "\tstd::cout << \"Server Info: \"  << Utility::serverInfo(session)  << std::endl;\n\tstd::cout << \"Server Version: \"   << Utility::serverVersion(session)   << std::endl;\n\tstd::cout << \"Host Info: \"<< Utility::hostInfo(session)<< std::endl;\n\tstd::cout << \"Session Encoding: \" << Utility::sessionEncoding(session) << std::endl;"
  "\tstd::cout << \"Endpoint: \" << Poco::AnyCast<std::string>(session.getProperty(\"endpoint\")) << std::endl;\n\tstd::cout << \"Role: \" << Poco::AnyCast<std::string>(session.getProperty(\"role\")) << std::endl;")
bluetusk_poco_replace(text ${f} "catch (const Poco::Data::PostgreSQL::PostgreSQLException & exception)"
  "catch (const BlueTusk::Data::StatementException & exception)")
file(WRITE "${POCO_SUITE_TARGET}/${f}.new" "${text}")
configure_file("${POCO_SUITE_TARGET}/${f}.new" "${POCO_SUITE_TARGET}/${f}" COPYONLY)

# SQLExecutor.cpp (the transaction tests open their second sessions by key)
file(READ "${POCO_SUITE_SOURCE}/SQLExecutor.cpp" text)
set(f SQLExecutor.cpp)
bluetusk_poco_replace(text ${f} "#include \"Poco/Data/PostgreSQL/PostgreSQLException.h\""
  "#include \"Poco/Data/PostgreSQL/PostgreSQLException.h\"\n#include \"BlueTusk/Data/Connector.h\"")
bluetusk_poco_replace(text ${f} "(\"postgresql\", connect)" "(BlueTusk::Data::Connector::KEY, connect)")
file(WRITE "${POCO_SUITE_TARGET}/${f}.new" "${text}")
configure_file("${POCO_SUITE_TARGET}/${f}.new" "${POCO_SUITE_TARGET}/${f}" COPYONLY)

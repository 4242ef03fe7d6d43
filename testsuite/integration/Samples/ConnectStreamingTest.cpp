//
// ConnectStreamingTest.cpp
//
// bluetusk-connect streams a query's rows (doc/reliability.md, finding 9): 2,000,000 rows in JSON and in
// text keep its peak RSS bounded (measured by /usr/bin/time -v), every row arrives, and a query of several
// statements or without columns still prints as before (executeSimple).
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/NumberParser.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk::Test;

namespace {

const std::string ROWS_SQL = "SELECT g AS n, 'row ' || g AS label FROM generate_series(1, 2000000) g";
const long LIMIT_KB = 64 * 1024; // before streaming: about 1.2 GB for the JSON run (doc/reliability.md)


long peakKilobytes(const ProgramResult& r)
	/// "Maximum resident set size (kbytes): N" of /usr/bin/time -v on stderr.
{
	const std::string key = "Maximum resident set size (kbytes): ";
	const std::size_t at = r.err.find(key);
	CPPUNIT_ASSERT_MESSAGE(r.err.substr(0, 2000), at != std::string::npos);
	return Poco::NumberParser::parse(r.err.substr(at + key.size(), r.err.find('\n', at) - at - key.size()));
}


std::size_t count(const std::string& text, const std::string& what)
{
	std::size_t n = 0;
	for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
	return n;
}

} // namespace


class ConnectStreamingTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectStreamingTest);
	CPPUNIT_TEST(testTwoMillionRowsJsonStayBounded);
	CPPUNIT_TEST(testTwoMillionRowsTextStayBounded);
	CPPUNIT_TEST(testSeveralStatementsAndCommands);
	CPPUNIT_TEST_SUITE_END();

public:
	void testTwoMillionRowsJsonStayBounded()
	{
		ProgramResult r = runProgram("/usr/bin/time", {"-v", connectProgram(), "--json", "--query", ROWS_SQL, clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.err.substr(0, 2000), 0, r.status);
		const long peak = peakKilobytes(r);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(peak) + " kB", peak < LIMIT_KB);
		CPPUNIT_ASSERT_EQUAL(std::size_t(2000000), count(r.out, "\",\"row "));   // ["1","row 1"], one per row
		CPPUNIT_ASSERT_MESSAGE(r.out.substr(0, 400), r.out.find("\"columns\":[\"n\",\"label\"],\"rows\":[[\"1\",\"row 1\"],[\"2\",\"row 2\"]") != std::string::npos);
		const std::string end = "[\"2000000\",\"row 2000000\"]],\"command_tag\":\"SELECT 2000000\"}\n";
		CPPUNIT_ASSERT_MESSAGE(r.out.substr(r.out.size() - 200), r.out.size() > end.size() && r.out.compare(r.out.size() - end.size(), end.size(), end) == 0);
	}

	void testTwoMillionRowsTextStayBounded()
	{
		ProgramResult r = runProgram("/usr/bin/time", {"-v", connectProgram(), "--query", ROWS_SQL, clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.err.substr(0, 2000), 0, r.status);
		const long peak = peakKilobytes(r);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(peak) + " kB", peak < LIMIT_KB);
		// the columns are sized by the first 1000 rows; wider cells later overflow
		CPPUNIT_ASSERT_MESSAGE(r.out.substr(0, 400), r.out.find("    n    | label   \n    ---- | --------\n    1    | row 1   \n") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(r.out.substr(r.out.size() - 200), r.out.find("    2000000 | row 2000000\n    (2000000 rows)\n") != std::string::npos);
	}

	void testSeveralStatementsAndCommands()
	{
		// two statements cannot be prepared: executeSimple, the last result with columns is shown
		ProgramResult several = runProgram(connectProgram(), {"--json", "--query", "SELECT 1 AS a; SELECT 2 AS b, 3 AS c", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(several.describe(), 0, several.status);
		CPPUNIT_ASSERT_MESSAGE(several.out, several.out.find("\"columns\":[\"b\",\"c\"],\"rows\":[[\"2\",\"3\"]],\"command_tag\":\"SELECT 1\"}") != std::string::npos);
		// a command without columns keeps its own tag
		ProgramResult command = runProgram(connectProgram(), {"--query", "SET application_name = 'x'", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(command.describe(), 0, command.status);
		CPPUNIT_ASSERT_MESSAGE(command.out, command.out.find("\n    SET\n") != std::string::npos);
		// the same as JSON: written from the held result row by row, laid out as a streamed one
		ProgramResult commandJson = runProgram(connectProgram(), {"--json", "--query", "SET application_name = 'x'", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(commandJson.describe(), 0, commandJson.status);
		CPPUNIT_ASSERT_MESSAGE(commandJson.out, commandJson.out.find("\"columns\":[],\"rows\":[],\"command_tag\":\"SET\"}\n") != std::string::npos);
		commandJson.json(0);
		several.json(0);
		// no rows: columns and an empty row list
		ProgramResult empty = runProgram(connectProgram(), {"--json", "--query", "SELECT 1 AS a WHERE false", clusterHosts("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(empty.describe(), 0, empty.status);
		CPPUNIT_ASSERT_MESSAGE(empty.out, empty.out.find("\"columns\":[\"a\"],\"rows\":[],\"command_tag\":\"SELECT 0\"}") != std::string::npos);
		empty.json(0);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(ConnectStreamingTest);

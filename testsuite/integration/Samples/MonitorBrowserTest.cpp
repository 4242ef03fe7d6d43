//
// MonitorBrowserTest.cpp
//
// The pool monitor's page in a real browser (Debian's chromium, headless): the test loads the page, reads
// the DOM as the page's script left it (--dump-dom after a virtual time budget), checks the three endpoints
// with their learned state and role, that the query form (run through fetch, filled in from the page's
// ?sql=... URL) shows the rows the server returned, and that the tables follow /stats without a reload;
// then it saves a screenshot (doc/samples.md shows it: doc/images/pool-monitor.png).
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/Path.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/extensions/HelperMacros.h>
#include <regex>

using namespace BlueTusk::Test;

namespace {

const char* const CHROMIUM = "/usr/bin/chromium";


std::vector<std::string> chromiumArgs(const std::vector<std::string>& extra)
	/// Headless, as root (no sandbox), no GPU, a fresh profile; a virtual time budget lets the page's
	/// fetches and timers run (4 s of page time) before the DOM is dumped or the picture taken.
{
	std::vector<std::string> args{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--hide-scrollbars", "--virtual-time-budget=4000"};
	args.insert(args.end(), extra.begin(), extra.end());
	return args;
}


std::string rowOf(const std::string& dom, const std::string& endpoint)
	/// The <tr data-endpoint="endpoint">...</tr> of the DOM, or "".
{
	const std::string start = "<tr data-endpoint=\"" + endpoint + "\">";
	const std::size_t at = dom.find(start);
	if (at == std::string::npos) return "";
	return dom.substr(at, dom.find("</tr>", at) - at);
}

} // namespace


class MonitorBrowserTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(MonitorBrowserTest);
	CPPUNIT_TEST(testPageInChromium);
	CPPUNIT_TEST_SUITE_END();

public:
	void testPageInChromium()
	{
		CPPUNIT_ASSERT_MESSAGE(std::string(CHROMIUM) + " missing: apt-get install chromium (scripts/setup)", Poco::File(CHROMIUM).exists());
		Poco::TemporaryFile dir;
		dir.createDirectories();
		const std::string properties = writeTextFile(Poco::Path(dir.path(), "monitor.properties").toString(), threeNodeMonitorProperties());
		BackgroundProgram monitor(monitorProgram(), {"--config=" + properties, "--port=0"});
		const std::string line = monitor.waitForLine("listening on ", 60000);
		const std::string url = line.substr(std::string("listening on ").size());

		// Targeted checkouts teach the connector every endpoint's state and role (the page's "learned" columns).
		CPPUNIT_ASSERT_EQUAL(200, httpGet(url, "query?sql=SELECT+1&target=primary").status);
		CPPUNIT_ASSERT_EQUAL(200, httpGet(url, "query?sql=SELECT+1&target=standby").status);

		// The page, with a query for its form: the script fills the form from the URL and submits it.
		const std::string page = url + "?sql=" + "SELECT+'hello'+AS+greeting,+41%2B1+AS+answer,+host(inet_server_addr())+AS+server" + "&target=primary";
		ProgramResult dom = runProgram(CHROMIUM, chromiumArgs({"--dump-dom", page}));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(dom.describe(), 0, dom.status);
		const std::string& html = dom.out;
		CPPUNIT_ASSERT_MESSAGE(html, html.find("<h1>BlueTusk pool monitor</h1>") != std::string::npos);

		// The three endpoints: node1 primary, node2 and node3 standbys (node3, which no targeted checkout
		// reached, by its pool's role from warm-up), node1 and node2 learned up, their pool counters.
		for (int node = 1; node <= 3; ++node)
		{
			const std::string row = rowOf(html, endpointOf(node));
			const std::string role = node == 1 ? "primary" : "standby";
			CPPUNIT_ASSERT_MESSAGE(html, !row.empty());
			if (node < 3) CPPUNIT_ASSERT_MESSAGE(row, row.find("<td data-field=\"state\" class=\"up\">up</td>") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(row, row.find("<td data-field=\"role\" class=\"" + role + "\">" + role + "</td>") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(row, std::regex_search(row, std::regex("data-field=\"total\">[1-4]</td>")));
			CPPUNIT_ASSERT_MESSAGE(row, row.find("data-field=\"max\">4</td>") != std::string::npos);
		}

		// The form's query through /query: served by the primary, its one row in the result table.
		CPPUNIT_ASSERT_MESSAGE(html, html.find("<div id=\"result\" data-status=\"200\">") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(html, html.find("from " + endpointOf(1) + " (primary)") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(html, html.find("<th>greeting</th><th>answer</th><th>server</th>") != std::string::npos);
		CPPUNIT_ASSERT_MESSAGE(html, html.find("<tr class=\"row\"><td>hello</td><td>42</td><td>127.0.0.1</td></tr>") != std::string::npos);

		// The target from the URL in another letter case is the option of that name (the data source's own
		// target is prefer-standby: the form's first option would have sent the query to a standby), and a
		// name the form does not list goes to /query as given, which refuses it.
		ProgramResult upper = runProgram(CHROMIUM, chromiumArgs({"--dump-dom", url + "?sql=SELECT+1&target=PRIMARY"}));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(upper.describe(), 0, upper.status);
		CPPUNIT_ASSERT_MESSAGE(upper.out, upper.out.find("from " + endpointOf(1) + " (primary)") != std::string::npos);
		ProgramResult unknown = runProgram(CHROMIUM, chromiumArgs({"--dump-dom", url + "?sql=SELECT+1&target=bogus"}));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(unknown.describe(), 0, unknown.status);
		CPPUNIT_ASSERT_MESSAGE(unknown.out, unknown.out.find("<div id=\"result\" data-status=\"400\">") != std::string::npos);

		// Without a reload: the script fetched /stats again and again (one second apart in page time).
		std::smatch updates;
		CPPUNIT_ASSERT_MESSAGE(html, std::regex_search(html, updates, std::regex("id=\"updated\" data-count=\"([0-9]+)\"")));
		CPPUNIT_ASSERT_MESSAGE(updates[0].str(), std::stoi(updates[1].str()) >= 3);
		CPPUNIT_ASSERT_MESSAGE(html, html.find("http-equiv") == std::string::npos);
		CPPUNIT_ASSERT(html.find(cluster().password) == std::string::npos);

		// The screenshot doc/samples.md shows (copied to doc/images/pool-monitor.png by hand when it changes).
		const std::string picture = Poco::Path(BLUETUSK_BINARY_DIR, "pool-monitor.png").toString();
		if (Poco::File(picture).exists()) Poco::File(picture).remove(false);
		ProgramResult shot = runProgram(CHROMIUM, chromiumArgs({"--screenshot=" + picture, "--window-size=1280,760", page}));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(shot.describe(), 0, shot.status);
		Poco::FileInputStream in(picture);
		std::string header(24, '\0');
		in.read(&header[0], 24);
		CPPUNIT_ASSERT_EQUAL(std::string("\x89PNG\r\n\x1a\n", 8), header.substr(0, 8));
		const auto byteAt = [&header](int i) { return static_cast<unsigned>(static_cast<unsigned char>(header[static_cast<std::size_t>(i)])); };
		CPPUNIT_ASSERT_EQUAL(1280u, (byteAt(16) << 24) | (byteAt(17) << 16) | (byteAt(18) << 8) | byteAt(19));   // IHDR width
		CPPUNIT_ASSERT(Poco::File(picture).getSize() > 20000);

		CPPUNIT_ASSERT_EQUAL(0, monitor.stop());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(MonitorBrowserTest);

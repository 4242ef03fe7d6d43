//
// ConnectToolTest.cpp
//
// bluetusk-connect (samples/Connect) against the local cluster, run as a child process: its JSON lines
// checked field by field (connected, rows with NULL, stats, summary, error with attempts, policies), its
// readable text, and its exit status (0 success, 2 connection failure, 1 usage error).
//

#include "SampleProgram.h"
#include "TestEnvironment.h"
#include "Poco/FileStream.h"
#include "Poco/JSON/Array.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/extensions/HelperMacros.h>
#include <map>
#include <set>

using namespace BlueTusk::Test;

namespace {

const std::string ALL = "127.0.0.1,127.0.0.2,127.0.0.3";


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}


std::string str(const Poco::JSON::Object::Ptr& object, const std::string& key)
{
	CPPUNIT_ASSERT_MESSAGE("no \"" + key + "\"", object->has(key));
	return object->getValue<std::string>(key);
}


std::set<std::string> names(const Poco::JSON::Array::Ptr& array)
{
	std::set<std::string> result;
	for (std::size_t i = 0; i < array->size(); ++i) result.insert(array->getElement<std::string>(static_cast<unsigned>(i)));
	return result;
}

} // namespace


class ConnectToolTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectToolTest);
	CPPUNIT_TEST(testConnectedEventFields);
	CPPUNIT_TEST(testQueryRowsWithNull);
	CPPUNIT_TEST(testRoleNames);
	CPPUNIT_TEST(testNoAcceptableHostErrorExit2);
	CPPUNIT_TEST(testPluginFailureExit2);
	CPPUNIT_TEST(testRefusedHostInAttempts);
	CPPUNIT_TEST(testAuthenticationErrorHidesPassword);
	CPPUNIT_TEST(testUsageErrorsExit1);
	CPPUNIT_TEST(testUsageErrorsAsJson);
	CPPUNIT_TEST(testPooledStatsAndSummary);
	CPPUNIT_TEST(testListPolicies);
	CPPUNIT_TEST(testReadableText);
	CPPUNIT_TEST(testDefaultSslModeDoesNotPrompt);
	CPPUNIT_TEST_SUITE_END();

public:
	void testConnectedEventFields()
	{
		ProgramResult r = runProgram(connectProgram(), {"--json", "--target", "standby", clusterHosts(ALL)});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::size_t(1), r.lines().size());
		Poco::JSON::Object::Ptr event = r.json(0);
		CPPUNIT_ASSERT_EQUAL(std::string("connected"), str(event, "event"));
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), str(event, "endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2"), str(event, "host"));
		CPPUNIT_ASSERT_EQUAL(cluster().port, event->getValue<int>("port"));
		CPPUNIT_ASSERT_EQUAL(std::string("standby"), str(event, "role"));
		CPPUNIT_ASSERT(event->get("elapsed_ms").isNumeric());
		double ms = event->getValue<double>("elapsed_ms");
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms), ms > 0 && ms < 30000);
		CPPUNIT_ASSERT_EQUAL(false, event->getValue<bool>("pooled"));
		CPPUNIT_ASSERT(!event->has("columns"));
		// The attempts: the primary was passed over, then the first standby accepted.
		Poco::JSON::Array::Ptr attempts = event->getArray("attempts");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), attempts->size());
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), str(attempts->getObject(0), "endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("rejected"), str(attempts->getObject(0), "outcome"));
		CPPUNIT_ASSERT_EQUAL(std::string("primary, target standby"), str(attempts->getObject(0), "message"));
		CPPUNIT_ASSERT_EQUAL(endpointOf(2), str(attempts->getObject(1), "endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("accepted"), str(attempts->getObject(1), "outcome"));
	}

	void testQueryRowsWithNull()
	{
		ProgramResult r = runProgram(connectProgram(), {"--json", "--target", "primary", "--query",
			"SELECT 1 AS one, NULL AS nothing, '' AS empty, inet_server_addr()::text AS server UNION ALL SELECT 2, 'x', NULL, NULL ORDER BY 1",
			clusterHosts(ALL)});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		Poco::JSON::Object::Ptr event = r.json(0);
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), str(event, "endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), str(event, "role"));
		Poco::JSON::Array::Ptr columns = event->getArray("columns");
		CPPUNIT_ASSERT_EQUAL(std::size_t(4), columns->size());
		CPPUNIT_ASSERT_EQUAL(std::string("one"), columns->getElement<std::string>(0));
		CPPUNIT_ASSERT_EQUAL(std::string("nothing"), columns->getElement<std::string>(1));
		CPPUNIT_ASSERT_EQUAL(std::string("server"), columns->getElement<std::string>(3));
		Poco::JSON::Array::Ptr rows = event->getArray("rows");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), rows->size());
		Poco::JSON::Array::Ptr first = rows->getArray(0);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), first->getElement<std::string>(0));
		CPPUNIT_ASSERT_MESSAGE("SQL NULL is JSON null", first->isNull(1));
		CPPUNIT_ASSERT(!first->isNull(2));
		CPPUNIT_ASSERT_EQUAL(std::string(""), first->getElement<std::string>(2));
		CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1/32"), first->getElement<std::string>(3));
		Poco::JSON::Array::Ptr second = rows->getArray(1);
		CPPUNIT_ASSERT_EQUAL(std::string("x"), second->getElement<std::string>(1));
		CPPUNIT_ASSERT(second->isNull(2));
		CPPUNIT_ASSERT(second->isNull(3));
		CPPUNIT_ASSERT_EQUAL(std::string("SELECT 2"), str(event, "command_tag"));
		CPPUNIT_ASSERT_MESSAGE("the command tag is under \"command_tag\" only", !event->has("command"));
		// The raw line writes null, not "null" or "".
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(r.out, "[\"1\",null,\"\",\"127.0.0.1/32\"]"));
	}

	void testRoleNames()
	{
		ProgramResult primary = runProgram(connectProgram(), {"--json", clusterHosts(ALL, "Target Session Attributes=read-write")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(primary.describe(), 0, primary.status);
		CPPUNIT_ASSERT_EQUAL(std::string("primary"), str(primary.json(0), "role"));
		// bluetusk_ro has default_transaction_read_only=on: the primary is a read-only primary for it.
		std::string readOnlyLogin = clusterHosts(ALL, "Target Session Attributes=read-only");
		readOnlyLogin.replace(readOnlyLogin.find("Username=" + cluster().user), 9 + cluster().user.size(), "Username=bluetusk_ro");
		ProgramResult readOnly = runProgram(connectProgram(), {"--json", readOnlyLogin});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(readOnly.describe(), 0, readOnly.status);
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), str(readOnly.json(0), "endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("primary-read-only"), str(readOnly.json(0), "role"));
	}

	void testNoAcceptableHostErrorExit2()
	{
		ProgramResult r = runProgram(connectProgram(), {"--json", "--target", "primary", clusterHosts("127.0.0.2,127.0.0.3")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 2, r.status);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::size_t(1), r.lines().size());
		Poco::JSON::Object::Ptr event = r.json(0);
		CPPUNIT_ASSERT_EQUAL(std::string("error"), str(event, "event"));
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskNoAcceptableHostException"), str(event, "type"));
		CPPUNIT_ASSERT_MESSAGE(str(event, "message"), contains(str(event, "message"), "no acceptable host for target primary"));
		Poco::JSON::Array::Ptr attempts = event->getArray("attempts");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), attempts->size());
		for (unsigned i = 0; i < 2; ++i)
		{
			Poco::JSON::Object::Ptr attempt = attempts->getObject(i);
			CPPUNIT_ASSERT_EQUAL(endpointOf(static_cast<int>(i) + 2), str(attempt, "endpoint"));
			CPPUNIT_ASSERT_EQUAL(std::string("rejected"), str(attempt, "outcome"));
			CPPUNIT_ASSERT_EQUAL(std::string("standby, target primary"), str(attempt, "message"));
		}
	}

	void testPluginFailureExit2()
	{
		// A site host-order policy whose plan() throws a std::exception (testsuite/plugins): an error event
		// naming the family, the policy and its library, exit status 2, never 70 (doc/samples.md), with and
		// without --pool.
		const std::string plugin = std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingHostOrder.so";
		for (const bool pooled: {false, true})
		{
			std::vector<std::string> args = {"--json", "--plugin", plugin, clusterHosts(ALL, "Host Order=throwing")};
			if (pooled) args.insert(args.begin(), "--pool");
			ProgramResult r = runProgram(connectProgram(), args);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 2, r.status);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::size_t(1), r.lines().size());
			Poco::JSON::Object::Ptr event = r.json(0);
			CPPUNIT_ASSERT_EQUAL(std::string("error"), str(event, "event"));
			CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskPluginException"), str(event, "type"));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::string("host order policy \"throwing\" (libBlueTuskTestMisbehavingHostOrder.so) "
				"failed in plan(): std::exception: plan broke on purpose"), str(event, "message"));
		}
	}

	void testRefusedHostInAttempts()
	{
		// 127.0.0.9 has no server: refused at once; the standby is then rejected for target primary.
		ProgramResult r = runProgram(connectProgram(), {"--json", "--target", "primary", clusterHosts("127.0.0.9,127.0.0.2")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 2, r.status);
		Poco::JSON::Array::Ptr attempts = r.json(0)->getArray("attempts");
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), attempts->size());
		CPPUNIT_ASSERT_EQUAL("127.0.0.9:" + std::to_string(cluster().port), str(attempts->getObject(0), "endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("failed"), str(attempts->getObject(0), "outcome"));
		CPPUNIT_ASSERT_MESSAGE(str(attempts->getObject(0), "message"), str(attempts->getObject(0), "message").compare(0, 7, "refused") == 0);
		CPPUNIT_ASSERT_EQUAL(std::string("rejected"), str(attempts->getObject(1), "outcome"));
	}

	void testAuthenticationErrorHidesPassword()
	{
		const std::string wrong = "wrong-Pa55word-xyz";
		std::string cs = clusterHosts(ALL);
		cs.replace(cs.find(cluster().password), cluster().password.size(), wrong);
		ProgramResult r = runProgram(connectProgram(), {"--json", cs});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 2, r.status);
		Poco::JSON::Object::Ptr event = r.json(0);
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskAuthenticationException"), str(event, "type"));
		CPPUNIT_ASSERT_MESSAGE(str(event, "message"), contains(str(event, "message"), "28P01"));
		Poco::JSON::Array::Ptr attempts = event->getArray("attempts");
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), attempts->size());
		CPPUNIT_ASSERT_EQUAL(endpointOf(1), str(attempts->getObject(0), "endpoint"));
		CPPUNIT_ASSERT_EQUAL(std::string("authentication failed"), str(attempts->getObject(0), "outcome"));
		CPPUNIT_ASSERT(!contains(r.out + r.err, wrong));
		// Text mode says the same to a person, on stderr, without the password either.
		ProgramResult text = runProgram(connectProgram(), {cs});
		CPPUNIT_ASSERT_EQUAL(2, text.status);
		CPPUNIT_ASSERT_MESSAGE(text.err, contains(text.err, "error: BlueTuskAuthenticationException: authentication failed at " + endpointOf(1)));
		CPPUNIT_ASSERT(!contains(text.out + text.err, wrong));
	}

	void testUsageErrorsExit1()
	{
		const std::string cs = clusterHosts(ALL);
		struct Case
		{
			std::vector<std::string> args;
			std::string expected;
		};
		const std::vector<Case> cases = {
			{{"--bogus", cs}, "Unknown option"},
			{{}, "a connection string is required"},
			{{"--target", "fastest", cs}, "accepted values: any, primary, standby, prefer-primary, prefer-standby, read-write, read-only"},
			{{"--count", "0", cs}, "--count 0 is out of range (accepted: 1 to 2147483647)"},
			{{"--count", "99999999999999999999", cs}, "--count 99999999999999999999 is out of range (accepted: 1 to 2147483647)"},
			{{"--hold-ms", "-5", cs}, "--hold-ms -5 is out of range (accepted: 0 to 2147483647)"},
			{{"--count", "many", cs}, "--count needs a whole number >= 1 (accepted: 1 to 2147483647), not \"many\""},
			{{"--threads", "3", cs}, "--threads needs --pool"},
			// each thread is an operating-system thread: 99999999 aborted the program (exit 134) before a limit
			{{"--pool", "--threads", "99999999", cs}, "--threads 99999999 is out of range (accepted: 1 to 1024)"},
			{{"--stats", cs}, "--stats needs --pool"},
			{{cs, "extra"}, "one connection string expected"},
			{{"Hots=127.0.0.1"}, "invalid connection string: unknown keyword \"Hots\""},
			{{"--query"}, "Missing option argument: query requires SQL"},
		};
		for (const auto& c: cases)
		{
			ProgramResult r = runProgram(connectProgram(), c.args);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(c.expected + ": " + r.describe(), 1, r.status);
			CPPUNIT_ASSERT_MESSAGE(c.expected + ": " + r.describe(), contains(r.err, c.expected));
			CPPUNIT_ASSERT_MESSAGE(r.describe(), r.out.empty());
		}
		ProgramResult help = runProgram(connectProgram(), {"--help"});
		CPPUNIT_ASSERT_EQUAL(0, help.status);
		CPPUNIT_ASSERT_MESSAGE(help.out, contains(help.out, "--list-policies"));
		CPPUNIT_ASSERT_MESSAGE(help.out, contains(help.out, "CONNECTION_STRING"));
	}

	void testUsageErrorsAsJson()
	{
		// With --json, errors found before any connection is tried are one JSON error line on stdout, nothing on
		// stderr, exit status 1; the password of a bad connection string never shows.
		const std::string secret = "Secr3t-pw-Qz";
		const std::string cs = clusterHosts(ALL);
		struct Case
		{
			std::vector<std::string> args;
			std::string type;
			std::string message;
		};
		const std::vector<Case> cases = {
			{{"--json", "--bogus", cs}, "UsageError", "Unknown option specified: bogus"},
			{{"--bogus", "--json", cs}, "UsageError", "Unknown option specified: bogus"},
			{{"--json"}, "UsageError", "a connection string is required"},
			{{"-j", "--stats", cs}, "UsageError", "--stats needs --pool"},
			{{"--json", "--count", "99999999999999999999", cs}, "UsageError", "--count 99999999999999999999 is out of range (accepted: 1 to 2147483647)"},
			{{"--json", "Hots=127.0.0.1;Password=" + secret}, "BlueTuskConnectionStringException", "unknown keyword \"Hots\""},
			{{"--json", "Host=127.0.0.1;Password=" + secret + ";Port=notaport"}, "BlueTuskConnectionStringException", "Port"},
			{{"--json", "Host=127.0.0.1;Password=\"" + secret}, "BlueTuskConnectionStringException", ""},
		};
		for (const auto& c: cases)
		{
			ProgramResult r = runProgram(connectProgram(), c.args);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(c.message + ": " + r.describe(), 1, r.status);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::size_t(1), r.lines().size());
			CPPUNIT_ASSERT_MESSAGE(r.describe(), r.err.empty());
			Poco::JSON::Object::Ptr event = r.json(0);
			CPPUNIT_ASSERT_EQUAL(std::string("error"), str(event, "event"));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.out, c.type, str(event, "type"));
			CPPUNIT_ASSERT_MESSAGE(r.out, !str(event, "message").empty());
			CPPUNIT_ASSERT_MESSAGE(r.out, contains(str(event, "message"), c.message));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.out, std::size_t(0), event->getArray("attempts")->size());
			CPPUNIT_ASSERT_MESSAGE(r.out, !contains(r.out + r.err, secret));
		}
		// The same connection strings in text mode: on stderr, no password either.
		ProgramResult text = runProgram(connectProgram(), {"Host=127.0.0.1;Password=" + secret + ";Port=notaport"});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(text.describe(), 1, text.status);
		CPPUNIT_ASSERT_MESSAGE(text.describe(), contains(text.err, "invalid connection string: "));
		CPPUNIT_ASSERT_MESSAGE(text.describe(), text.out.empty() && !contains(text.err, secret));
	}

	void testPooledStatsAndSummary()
	{
		ProgramResult r = runProgram(connectProgram(), {"--json", "--pool", "--threads", "4", "--count", "3", "--hold-ms", "50",
			"--stats", clusterHosts(ALL, "Maximum Pool Size=2")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		std::vector<std::string> lines = r.lines();
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::size_t(14), lines.size());
		std::map<std::string, int> perEndpoint;
		for (std::size_t i = 0; i < 12; ++i)
		{
			Poco::JSON::Object::Ptr event = r.json(i);
			CPPUNIT_ASSERT_EQUAL(std::string("connected"), str(event, "event"));
			CPPUNIT_ASSERT_EQUAL(true, event->getValue<bool>("pooled"));
			++perEndpoint[str(event, "endpoint")];
		}
		// Four threads, two sessions per endpoint: the first endpoint alone cannot serve them all at once.
		CPPUNIT_ASSERT_MESSAGE(r.out, perEndpoint.size() >= 2);

		Poco::JSON::Object::Ptr stats = r.json(12);
		CPPUNIT_ASSERT_EQUAL(std::string("stats"), str(stats, "event"));
		Poco::JSON::Object::Ptr hosts = stats->getObject("hosts");
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), hosts->size());
		int total = 0;
		for (int node = 1; node <= 3; ++node)
		{
			Poco::JSON::Object::Ptr host = hosts->getObject(endpointOf(node));
			CPPUNIT_ASSERT_MESSAGE(endpointOf(node), !host.isNull());
			CPPUNIT_ASSERT_EQUAL(2, host->getValue<int>("max"));
			CPPUNIT_ASSERT(host->getValue<int>("total") <= 2);
			CPPUNIT_ASSERT_EQUAL(0, host->getValue<int>("busy"));
			CPPUNIT_ASSERT_EQUAL(0, host->getValue<int>("pending"));
			CPPUNIT_ASSERT_EQUAL(host->getValue<int>("total"), host->getValue<int>("idle"));
			// bluetusk-connect asks every lease for its role, so each pool that opened a session knows it.
			if (host->getValue<int>("created") > 0)
				CPPUNIT_ASSERT_EQUAL(std::string(node == 1 ? "primary" : "standby"), str(host, "role"));
			total += host->getValue<int>("total");
		}
		Poco::JSON::Object::Ptr aggregate = stats->getObject("aggregate");
		CPPUNIT_ASSERT_EQUAL(total, aggregate->getValue<int>("total"));
		CPPUNIT_ASSERT_EQUAL(6, aggregate->getValue<int>("max"));
		CPPUNIT_ASSERT_EQUAL(0, aggregate->getValue<int>("checkout_timeouts"));
		CPPUNIT_ASSERT(!aggregate->has("role"));

		Poco::JSON::Object::Ptr summary = r.json(13);
		CPPUNIT_ASSERT_EQUAL(std::string("summary"), str(summary, "event"));
		CPPUNIT_ASSERT_EQUAL(12, summary->getValue<int>("opens"));
		CPPUNIT_ASSERT_EQUAL(0, summary->getValue<int>("failures"));
		Poco::JSON::Object::Ptr endpoints = summary->getObject("endpoints");
		for (const auto& entry: perEndpoint) CPPUNIT_ASSERT_EQUAL(entry.second, endpoints->getValue<int>(entry.first));
	}

	void testListPolicies()
	{
		ProgramResult r = runProgram(connectProgram(), {"--json", "--list-policies"});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		Poco::JSON::Object::Ptr event = r.json(0);
		CPPUNIT_ASSERT_EQUAL(std::string("policies"), str(event, "event"));
		CPPUNIT_ASSERT((names(event->getArray("host_order")) == std::set<std::string>{"parallel", "random", "sequential"}));
		CPPUNIT_ASSERT((names(event->getArray("target_session")) == std::set<std::string>{"any", "primary", "standby",
			"prefer-primary", "prefer-standby", "read-write", "read-only"}));
		CPPUNIT_ASSERT((names(event->getArray("eviction")) == std::set<std::string>{"standard"}));
		CPPUNIT_ASSERT_MESSAGE(r.out, (names(event->getArray("retry")) == std::set<std::string>{"default", "no-retry", "read-only"}));
		CPPUNIT_ASSERT_MESSAGE(r.out, (names(event->getArray("topology")) == std::set<std::string>{"patroni", "pg_auto_failover"}));

		ProgramResult plugged = runProgram(connectProgram(), {"--plugin", preferredHostsPlugin(), "--list-policies"});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(plugged.describe(), 0, plugged.status);
		CPPUNIT_ASSERT_MESSAGE(plugged.out, contains(plugged.out, "host order:     parallel, preferred-hosts, random, sequential"));

		// Every family is listed, a loaded retry and topology plugin included (text and JSON).
		const std::string testPlugins = std::string(BLUETUSK_TEST_PLUGIN_DIR);
		const std::vector<std::string> retryAndTopology{"--plugin", testPlugins + "/libBlueTuskTestMisbehavingRetry.so",
			"--plugin", testPlugins + "/libBlueTuskTestScriptedTopology.so", "--list-policies"};
		ProgramResult text = runProgram(connectProgram(), retryAndTopology);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(text.describe(), 0, text.status);
		CPPUNIT_ASSERT_MESSAGE(text.out, contains(text.out, "\nretry:          default, name-throwing-retry, no-retry, read-only\n"));
		CPPUNIT_ASSERT_MESSAGE(text.out, contains(text.out, "\ntopology:       patroni, pg_auto_failover, scripted\n"));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(text.out, std::size_t(5), text.lines().size());
		std::vector<std::string> jsonArgs{"--json"};
		jsonArgs.insert(jsonArgs.end(), retryAndTopology.begin(), retryAndTopology.end());
		ProgramResult json = runProgram(connectProgram(), jsonArgs);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(json.describe(), 0, json.status);
		CPPUNIT_ASSERT_MESSAGE(json.out, (names(json.json(0)->getArray("retry")) == std::set<std::string>{"default", "name-throwing-retry", "no-retry", "read-only"}));
		CPPUNIT_ASSERT_MESSAGE(json.out, (names(json.json(0)->getArray("topology")) == std::set<std::string>{"patroni", "pg_auto_failover", "scripted"}));

		// An explicit path: the message says what is wrong with that file, not where else it could have looked.
		ProgramResult missing = runProgram(connectProgram(), {"--json", "--plugin", "/nonexistent/libNothing.so", "--list-policies"});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(missing.describe(), 2, missing.status);
		CPPUNIT_ASSERT_EQUAL(std::string("BlueTuskPluginException"), str(missing.json(0), "type"));
		CPPUNIT_ASSERT_EQUAL(std::string("plugin library /nonexistent/libNothing.so does not exist"), str(missing.json(0), "message"));

		ProgramResult directory = runProgram(connectProgram(), {"--json", "--plugin", "/tmp", "--list-policies"});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(directory.describe(), 2, directory.status);
		CPPUNIT_ASSERT_EQUAL(std::string("plugin library /tmp is not a file"), str(directory.json(0), "message"));

		Poco::TemporaryFile junk;
		{
			Poco::FileOutputStream stream(junk.path());
			stream << "not a shared library\n";
		}
		ProgramResult broken = runProgram(connectProgram(), {"--json", "--plugin", junk.path(), "--list-policies"});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(broken.describe(), 2, broken.status);
		const std::string message = str(broken.json(0), "message");
		const std::string expectedStart = "cannot load plugin library \"" + junk.path() + "\": ";
		CPPUNIT_ASSERT_MESSAGE(message, message.compare(0, expectedStart.size(), expectedStart) == 0);
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, "searched"));

		ProgramResult textMissing = runProgram(connectProgram(), {"--plugin", "/nonexistent/libNothing.so", "--list-policies"});
		CPPUNIT_ASSERT_EQUAL(2, textMissing.status);
		CPPUNIT_ASSERT_MESSAGE(textMissing.err, contains(textMissing.err, "BlueTuskPluginException: plugin library /nonexistent/libNothing.so does not exist"));
		CPPUNIT_ASSERT_MESSAGE(textMissing.err, !contains(textMissing.err, "searched"));
	}

	void testReadableText()
	{
		ProgramResult r = runProgram(connectProgram(), {"--target", "standby", "--query", "SELECT 1 AS one, NULL AS nothing", clusterHosts(ALL)});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		std::vector<std::string> lines = r.lines();
		CPPUNIT_ASSERT_MESSAGE(r.out, lines.size() >= 7);
		const std::string first = "[1] connected to " + endpointOf(2) + " (standby) in ";
		CPPUNIT_ASSERT_MESSAGE(r.out, lines[0].compare(0, first.size(), first) == 0);
		CPPUNIT_ASSERT_MESSAGE(r.out, lines[0].compare(lines[0].size() - 3, 3, " ms") == 0);
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(lines[1], endpointOf(1) + "  rejected: primary, target standby"));
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(lines[2], endpointOf(2) + "  accepted: standby"));
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(r.out, "one | nothing"));
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(r.out, "1   | NULL"));
		CPPUNIT_ASSERT_MESSAGE(r.out, contains(r.out, "(1 row)"));

		ProgramResult failed = runProgram(connectProgram(), {"--target", "primary", clusterHosts("127.0.0.2")});
		CPPUNIT_ASSERT_EQUAL(2, failed.status);
		CPPUNIT_ASSERT_MESSAGE(failed.err, contains(failed.err, "[1] error: BlueTuskNoAcceptableHostException: no acceptable host for target primary"));
		CPPUNIT_ASSERT_MESSAGE(failed.err, contains(failed.err, "attempts, in order:\n    1. " + endpointOf(2) + "  rejected: standby, target primary"));
	}

	void testDefaultSslModeDoesNotPrompt()
	{
		// SSL Mode=prefer (the default) with the cluster's self-signed certificate: TLS is used, the certificate
		// is not checked, and nothing asks on the console (Poco's default handler would, breaking --json).
		ProgramResult r = runProgram(connectProgram(), {"--json", "--query", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
			cluster().connectionString("127.0.0.1")});
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), 0, r.status);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.describe(), std::size_t(1), r.lines().size());
		CPPUNIT_ASSERT_EQUAL(std::string("t"), r.json(0)->getArray("rows")->getArray(0)->getElement<std::string>(0));
		CPPUNIT_ASSERT_MESSAGE(r.err, !contains(r.out + r.err, "Accept the certificate"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectToolTest);

//
// ClusterTest.cpp
//
// Checks the local cluster started by scripts/cluster through psql (independent of BlueTusk's own client):
// one primary (node1) and two streaming hot standbys, TLS on with a certificate valid for every node address,
// SCRAM password logins, the read-only role, and the per-node Unix-socket directories.
//

#include "TestEnvironment.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

struct PsqlResult
{
	int status = -1;     /// psql's exit status (0 ok, 1 SQL error, 2 connection failed)
	std::string output;  /// stdout and stderr, trailing newline removed
};


std::string shellQuote(const std::string& text)
{
	std::string quoted = "'";
	for (char c: text)
	{
		if (c == '\'') quoted += "'\\''";
		else quoted += c;
	}
	return quoted + "'";
}


std::string psqlBinary()
{
	const char* versioned = "/usr/lib/postgresql/15/bin/psql";
	return access(versioned, X_OK) == 0 ? versioned : "psql";
}


PsqlResult psql(const std::string& conninfo, const std::string& password, const std::string& sql)
	/// Runs one statement with psql (unaligned, tuples only) and returns its exit status and output.
{
	std::string command = "PGPASSWORD=" + shellQuote(password) + " PGCONNECT_TIMEOUT=5 " + psqlBinary() +
		" -X -A -t -q -v ON_ERROR_STOP=1 " + shellQuote(conninfo) + " -c " + shellQuote(sql) + " 2>&1";
	PsqlResult result;
	FILE* pipe = popen(command.c_str(), "r");
	if (!pipe) return result;
	std::array<char, 4096> buffer;
	std::size_t n;
	while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
	{
		result.output.append(buffer.data(), n);
	}
	int status = pclose(pipe);
	result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	while (!result.output.empty() && (result.output.back() == '\n' || result.output.back() == '\r'))
	{
		result.output.pop_back();
	}
	return result;
}


std::string tcpConninfo(int node, const std::string& extra = "", const std::string& user = "")
{
	const auto& c = BlueTusk::Test::cluster();
	return "host=" + c.hosts.at(node - 1) + " port=" + std::to_string(c.port) + " user=" + (user.empty() ? c.user : user) +
		" dbname=" + c.database + (extra.empty() ? "" : " " + extra);
}


std::string query(int node, const std::string& sql, const std::string& extra = "")
	/// Runs sql on node (1..3) over TCP as the test role; fails the test when psql fails.
{
	const auto& c = BlueTusk::Test::cluster();
	PsqlResult r = psql(tcpConninfo(node, extra), c.password, sql);
	CPPUNIT_ASSERT_EQUAL_MESSAGE("psql on node " + std::to_string(node) + ": " + r.output +
		" (is the cluster running? scripts/cluster start)", 0, r.status);
	return r.output;
}

} // namespace


class ClusterTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ClusterTest);
	CPPUNIT_TEST(testOnePrimaryTwoStandbys);
	CPPUNIT_TEST(testEachNodeListensOnItsAddress);
	CPPUNIT_TEST(testTlsOnWithCertificateForEveryNode);
	CPPUNIT_TEST(testWrongPasswordRejected);
	CPPUNIT_TEST(testReadOnlyRoleOnPrimary);
	CPPUNIT_TEST(testUnixSocketPerNode);
	CPPUNIT_TEST(testStandbysReplicateFromPrimary);
	CPPUNIT_TEST(testStatusCommand);
	CPPUNIT_TEST(testStartAfterPromotionHasOnePrimary);
	CPPUNIT_TEST_SUITE_END();

public:
	void testOnePrimaryTwoStandbys()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("f"), query(1, "SELECT pg_is_in_recovery()"));
		CPPUNIT_ASSERT_EQUAL(std::string("t"), query(2, "SELECT pg_is_in_recovery()"));
		CPPUNIT_ASSERT_EQUAL(std::string("t"), query(3, "SELECT pg_is_in_recovery()"));
		// Both standbys stream from node1.
		CPPUNIT_ASSERT_EQUAL(std::string("node2|streaming\nnode3|streaming"),
			query(1, "SELECT application_name, state FROM pg_stat_replication ORDER BY application_name"));
		CPPUNIT_ASSERT_EQUAL(std::string("streaming"), query(2, "SELECT status FROM pg_stat_wal_receiver"));
		CPPUNIT_ASSERT_EQUAL(std::string("streaming"), query(3, "SELECT status FROM pg_stat_wal_receiver"));
	}

	void testEachNodeListensOnItsAddress()
	{
		const auto& c = BlueTusk::Test::cluster();
		for (int node = 1; node <= 3; ++node)
		{
			CPPUNIT_ASSERT_EQUAL(c.hosts[node - 1] + "|" + std::to_string(c.port),
				query(node, "SELECT host(inet_server_addr()), inet_server_port()"));
			CPPUNIT_ASSERT_EQUAL(std::string("200"), query(node, "SHOW max_connections"));
		}
	}

	void testTlsOnWithCertificateForEveryNode()
	{
		const auto& c = BlueTusk::Test::cluster();
		for (int node = 1; node <= 3; ++node)
		{
			CPPUNIT_ASSERT_EQUAL(std::string("on"), query(node, "SHOW ssl"));
			// verify-full: the self-signed certificate is trusted and names this node's address.
			CPPUNIT_ASSERT_EQUAL(std::string("t"),
				query(node, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
					"sslmode=verify-full sslrootcert=" + c.rootCertificate()));
			// Plain TCP is accepted too (sslmode=disable tests need it).
			CPPUNIT_ASSERT_EQUAL(std::string("f"),
				query(node, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", "sslmode=disable"));
		}
		// The certificate also names localhost.
		PsqlResult r = psql("host=localhost hostaddr=127.0.0.1 port=" + std::to_string(c.port) + " user=" + c.user +
			" dbname=" + c.database + " sslmode=verify-full sslrootcert=" + c.rootCertificate(), c.password, "SELECT 1");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.output, 0, r.status);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), r.output);
	}

	void testWrongPasswordRejected()
	{
		const auto& c = BlueTusk::Test::cluster();
		CPPUNIT_ASSERT_EQUAL(std::string("scram-sha-256"), query(1, "SHOW password_encryption"));
		for (int node = 1; node <= 3; ++node)
		{
			PsqlResult r = psql(tcpConninfo(node, "sslmode=disable"), c.password + "-wrong", "SELECT 1");
			CPPUNIT_ASSERT_EQUAL(2, r.status);
			CPPUNIT_ASSERT_MESSAGE(r.output,
				r.output.find("password authentication failed for user \"" + c.user + "\"") != std::string::npos);
		}
	}

	void testReadOnlyRoleOnPrimary()
	{
		const auto& c = BlueTusk::Test::cluster();
		PsqlResult r = psql(tcpConninfo(1, "", "bluetusk_ro"), c.password,
			"SELECT pg_is_in_recovery(), current_setting('transaction_read_only')");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(r.output, 0, r.status);
		CPPUNIT_ASSERT_EQUAL(std::string("f|on"), r.output);
		r = psql(tcpConninfo(1, "", "bluetusk_ro"), c.password, "CREATE TABLE bluetusk_ro_attempt (a int)");
		CPPUNIT_ASSERT_EQUAL(1, r.status);
		CPPUNIT_ASSERT_MESSAGE(r.output, r.output.find("read-only transaction") != std::string::npos);
		// The test role itself is read-write on the primary.
		CPPUNIT_ASSERT_EQUAL(std::string("off"), query(1, "SHOW transaction_read_only"));
	}

	void testUnixSocketPerNode()
	{
		const auto& c = BlueTusk::Test::cluster();
		for (int node = 1; node <= 3; ++node)
		{
			CPPUNIT_ASSERT_MESSAGE(c.socketDir(node), access((c.socketDir(node) + "/.s.PGSQL." + std::to_string(c.port)).c_str(), F_OK) == 0);
			PsqlResult r = psql("host=" + c.socketDir(node) + " port=" + std::to_string(c.port) + " user=" + c.user +
				" dbname=" + c.database, c.password, "SELECT pg_is_in_recovery()");
			CPPUNIT_ASSERT_EQUAL_MESSAGE(r.output, 0, r.status);
			CPPUNIT_ASSERT_EQUAL(std::string(node == 1 ? "f" : "t"), r.output);
		}
	}

	void testStandbysReplicateFromPrimary()
	{
		const std::string table = "cluster_test_" + std::to_string(::getpid());
		query(1, "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (v text); INSERT INTO " + table + " VALUES ('replicated')");
		for (int node = 2; node <= 3; ++node)
		{
			std::string seen;
			for (int i = 0; i < 100 && seen != "replicated"; ++i)
			{
				const auto& c = BlueTusk::Test::cluster();
				seen = psql(tcpConninfo(node), c.password, "SELECT v FROM " + table).output;
				if (seen != "replicated") std::this_thread::sleep_for(std::chrono::milliseconds(50));
			}
			CPPUNIT_ASSERT_EQUAL_MESSAGE("node " + std::to_string(node), std::string("replicated"), seen);
		}
		query(1, "DROP TABLE " + table);
	}

	void testStatusCommand()
	{
		// scripts/cluster status exits 0 when every node runs.
		CPPUNIT_ASSERT_EQUAL(0, BlueTusk::Test::cluster().runClusterCommand("status"));
	}

	void testStartAfterPromotionHasOnePrimary()
	{
		// What scripts/demo leaves behind: node2 promoted while node1 was still a primary, then the cluster
		// stopped. "start" must not bring up two primaries; it restores the original topology and says so.
		const auto& c = BlueTusk::Test::cluster();
		struct Reset
		{
			~Reset() { BlueTusk::Test::cluster().runClusterCommand("reset"); }
		} reset;
		CPPUNIT_ASSERT_EQUAL(0, c.runClusterCommand("promote 2"));
		CPPUNIT_ASSERT_EQUAL(std::string("f"), query(2, "SELECT pg_is_in_recovery()"));
		CPPUNIT_ASSERT_EQUAL(0, c.runClusterCommand("stop"));
		CPPUNIT_ASSERT_EQUAL(0, c.runClusterCommand("start"));
		CPPUNIT_ASSERT_EQUAL(std::string("f"), query(1, "SELECT pg_is_in_recovery()"));
		CPPUNIT_ASSERT_EQUAL(std::string("t"), query(2, "SELECT pg_is_in_recovery()"));
		CPPUNIT_ASSERT_EQUAL(std::string("t"), query(3, "SELECT pg_is_in_recovery()"));
		// A node stopped while another was promoted (stop-node 1, promote 2) is caught the same way.
		CPPUNIT_ASSERT_EQUAL(0, c.runClusterCommand("stop-node 1"));
		CPPUNIT_ASSERT_EQUAL(0, c.runClusterCommand("promote 2"));
		CPPUNIT_ASSERT(c.runClusterCommand("start-node 1") != 0);   // refused: it would be a second primary
		CPPUNIT_ASSERT_EQUAL(0, c.runClusterCommand("start"));
		int primaries = 0;
		for (int node = 1; node <= 3; ++node)
		{
			if (query(node, "SELECT pg_is_in_recovery()") == "f") ++primaries;
		}
		CPPUNIT_ASSERT_EQUAL(1, primaries);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(ClusterTest);

//
// FreshnessIntegrationTest.cpp
//
// Replica freshness on the local cluster (doc/freshness.md; node1 primary, node2 and node3 standbys):
// with replay paused on a standby (pg_wal_replay_pause() as superuser) and WAL written on the primary,
// Max Standby Lag rejects it and the other standby serves; with both paused, prefer-standby lands on the
// primary and standby fails naming the lag; after pg_wal_replay_resume() the standby is used again. Read
// your writes: 1,000 write-then-read iterations through prefer-standby see their own write every time,
// the same loop without it misses; with the cluster's own synchronous_commit=off (and replay paused on
// one standby for a while) the reads wait on the standbys' idle sessions, one session per standby in
// all; with replay paused everywhere the read falls back to the primary
// within Read Your Writes Timeout; a token carried as text to another data source, and one from another
// process (psql), works.
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/Lsn.h"
#include "TestEnvironment.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cstdio>
#include <map>
#include <iostream>
#include <sys/wait.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const Poco::UInt64 MB = 1024 * 1024;


std::string node(int n)
{
	return cluster().hosts.at(n - 1);
}


BlueTuskHostEndpoint endpoint(int n)
{
	return BlueTuskHostEndpoint(node(n), static_cast<Poco::UInt16>(cluster().port));
}


std::string allNodes()
{
	return node(1) + "," + node(2) + "," + node(3);
}


std::string value(BlueTuskConnection& connection, const std::string& sql)
{
	return connection.executeSimple(sql).front().rows.at(0).at(0).value();
}


BlueTuskConnection superuser(int n)
	/// The postgres superuser over node n's Unix socket (trusted there): pg_wal_replay_pause() needs it.
{
	return BlueTuskConnection::open("Host=" + cluster().socketDir(n) + ";Port=" + std::to_string(cluster().port) +
		";Username=postgres;Database=" + cluster().database);
}


void setReplay(int n, bool paused)
{
	BlueTuskConnection connection = superuser(n);
	connection.executeSimple(paused ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()");
}


Lsn primaryPosition()
{
	BlueTuskConnection connection = superuser(1);
	return Lsn::parse(value(connection, "SELECT pg_current_wal_insert_lsn()"));
}


void waitFor(int n, const char* function, Lsn position)
	/// Until node n's function (pg_last_wal_receive_lsn, pg_last_wal_replay_lsn) has reached position (10 s).
{
	BlueTuskConnection connection = superuser(n);
	Poco::Clock start;
	for (;;)
	{
		const Lsn now = Lsn::parse(value(connection, std::string("SELECT ") + function + "()"));
		if (now >= position) return;
		if (start.elapsed() > 10000000)
			CPPUNIT_FAIL(node(n) + ": " + function + " stayed at " + now.toString() + ", below " + position.toString());
		Poco::Thread::sleep(5);
	}
}


void writeWal(Poco::UInt64 bytes)
	/// At least bytes of WAL on the primary (rows of 1000 characters: a little over 1 kB of WAL each).
{
	BlueTuskConnection connection = superuser(1);
	connection.executeSimple("CREATE TABLE IF NOT EXISTS freshness_filler (v text)");
	const Lsn before = Lsn::parse(value(connection, "SELECT pg_current_wal_insert_lsn()"));
	const std::string rows = std::to_string(bytes / 1000 + 1);
	connection.executeSimple("INSERT INTO freshness_filler SELECT repeat('x', 1000) FROM generate_series(1, " + rows + ")");
	const Lsn after = Lsn::parse(value(connection, "SELECT pg_current_wal_insert_lsn()"));
	CPPUNIT_ASSERT(Lsn::bytesBehind(after, before) >= bytes);
}


std::string writeWithPsql(const std::string& note)
	/// Another process writes: psql inserts a row (synchronous commit) and prints the WAL position after it
	/// (pg_current_wal_lsn(), what an application without BlueTusk would hand on).
{
	const std::string command = "PGPASSWORD='" + cluster().password + "' PGCONNECT_TIMEOUT=5 /usr/lib/postgresql/15/bin/psql -X -A -t -q "
		"-v ON_ERROR_STOP=1 'host=" + node(1) + " port=" + std::to_string(cluster().port) + " user=" + cluster().user +
		" dbname=" + cluster().database + " sslmode=disable' -c \"SET synchronous_commit = on\" "
		"-c \"INSERT INTO freshness_orders (note) VALUES ('" + note + "')\" -c 'SELECT pg_current_wal_lsn()' 2>&1";
	FILE* pipe = popen(command.c_str(), "r");
	if (!pipe) CPPUNIT_FAIL("popen failed");
	std::string output;
	char buffer[512];
	std::size_t n;
	while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
	const int status = pclose(pipe);
	CPPUNIT_ASSERT_MESSAGE(output, WIFEXITED(status) && WEXITSTATUS(status) == 0);
	while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
	return output;
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} // namespace


class FreshnessIntegrationTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(FreshnessIntegrationTest);
	CPPUNIT_TEST(testMaxStandbyLag);
	CPPUNIT_TEST(testMaxStandbyLagOnDirectOpen);
	CPPUNIT_TEST(testReadYourWritesRefusedOnDirectOpen);
	CPPUNIT_TEST(testReadYourWritesLoop);
	CPPUNIT_TEST(testReadYourWritesReusesStandbySessions);
	CPPUNIT_TEST(testFallbackToPrimaryWithinTimeout);
	CPPUNIT_TEST(testTokenFromAnotherDataSource);
	CPPUNIT_TEST(testTokenFromAnotherProcess);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		BlueTuskConnection connection = superuser(1);
		connection.executeSimple("CREATE TABLE IF NOT EXISTS freshness_orders (id bigserial PRIMARY KEY, note text); "
			"GRANT ALL ON freshness_orders, freshness_orders_id_seq TO " + cluster().user);
		waitFor(2, "pg_last_wal_replay_lsn", primaryPosition());
		waitFor(3, "pg_last_wal_replay_lsn", primaryPosition());
	}

	void tearDown()
	{
		for (int n: {2, 3})
		{
			try
			{
				setReplay(n, false);
			}
			catch (Poco::Exception& exc)
			{
				std::cerr << "resuming replay on node " << n << ": " << exc.displayText() << std::endl;
			}
		}
	}

	void testMaxStandbyLag()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Max Standby Lag=1MB"), connector);

		// Replay paused on node2, 3 MB of WAL on the primary: node2 receives it but does not replay it.
		setReplay(2, true);
		writeWal(3 * MB);
		const Lsn written = primaryPosition();
		waitFor(2, "pg_last_wal_receive_lsn", written);
		waitFor(3, "pg_last_wal_replay_lsn", written);

		for (const char* target: {"standby", "prefer-standby", "read-only"})
		{
			for (int i = 0; i < 5; ++i)
			{
				BlueTuskConnection connection = dataSource->open(target);
				CPPUNIT_ASSERT_EQUAL_MESSAGE(target, node(3), connection.connectedEndpoint().host());
				bool rejected = false;
				for (const HostAttempt& attempt: connection.attemptLog())
				{
					if (attempt.endpoint == endpoint(2))
					{
						CPPUNIT_ASSERT_EQUAL(HostAttempt::REJECTED, attempt.outcome);
						CPPUNIT_ASSERT_MESSAGE(attempt.detail, contains(attempt.detail, "MB behind, Max Standby Lag 1 MB, target "));
						rejected = true;
					}
				}
				CPPUNIT_ASSERT_MESSAGE(target, rejected);
			}
		}
		PoolStatistics lagging = dataSource->getHostPoolStatistics().at(endpoint(2));
		CPPUNIT_ASSERT_MESSAGE(lagging.toString(), lagging.lagBytes > static_cast<Poco::Int64>(3 * MB));
		CPPUNIT_ASSERT(lagging.walPosition.isValid() && lagging.walPosition < written);
		CPPUNIT_ASSERT_MESSAGE(lagging.toString(), contains(lagging.toString(), " lag=3"));
		PoolStatistics current = dataSource->getHostPoolStatistics().at(endpoint(3));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), current.lagBytes);
		CPPUNIT_ASSERT(current.walPosition >= written);
		// any is not a standby-preferring target: the rule leaves it alone (and adds no round trip)
		CPPUNIT_ASSERT_EQUAL(node(1), dataSource->open(TargetSessionAttributes::Any).connectedEndpoint().host());

		// Both paused, 2 MB more: prefer-standby lands on the primary, standby fails naming both lags.
		setReplay(3, true);
		writeWal(2 * MB);
		const Lsn more = primaryPosition();
		waitFor(2, "pg_last_wal_receive_lsn", more);
		waitFor(3, "pg_last_wal_receive_lsn", more);
		BlueTuskConnection fallback = dataSource->open(TargetSessionAttributes::PreferStandby);
		CPPUNIT_ASSERT_EQUAL(node(1), fallback.connectedEndpoint().host());
		CPPUNIT_ASSERT(fallback.role() == ServerRole::Primary);
		fallback.close();
		try
		{
			dataSource->open(TargetSessionAttributes::Standby);
			CPPUNIT_FAIL("both standbys lag: standby must fail");
		}
		catch (HostAttemptsException& exc)
		{
			const std::string message = exc.message();
			std::cout << "\n  both paused, standby: " << message << std::endl;
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, node(2) + ":" + std::to_string(cluster().port) + ": standby 5"));
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, node(3) + ":" + std::to_string(cluster().port) + ": standby 2"));
			const std::string reason = " MB behind, Max Standby Lag 1 MB, target standby";
			const std::size_t first = message.find(reason);
			CPPUNIT_ASSERT_MESSAGE(message, first != std::string::npos && message.find(reason, first + 1) != std::string::npos);
		}

		// Resumed: once replayed, node2 serves again (first in the host list).
		setReplay(2, false);
		setReplay(3, false);
		waitFor(2, "pg_last_wal_replay_lsn", more);
		waitFor(3, "pg_last_wal_replay_lsn", more);
		BlueTuskConnection again = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT_EQUAL(node(2), again.connectedEndpoint().host());
		again.close();
		CPPUNIT_ASSERT(dataSource->getHostPoolStatistics().at(endpoint(2)).lagBytes < static_cast<Poco::Int64>(MB));
	}

	void testMaxStandbyLagOnDirectOpen()
	{
		// BlueTuskConnection::open() (bluetusk-connect without --pool) honours Max Standby Lag as a data
		// source does (before, a prefer-standby open landed on the paused standby 3 MB behind).
		RoutingContext connector;
		setReplay(2, true);
		writeWal(3 * MB);
		const Lsn written = primaryPosition();
		waitFor(2, "pg_last_wal_receive_lsn", written);
		waitFor(3, "pg_last_wal_replay_lsn", written);
		const std::string lagging = cluster().connectionString(node(2) + "," + node(1) + "," + node(3), "Max Standby Lag=1MB");
		for (const char* target: {"standby", "prefer-standby", "read-only"})
		{
			BlueTuskConnection connection = BlueTuskConnection::open(lagging + ";Target Session Attributes=" + target, connector);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(target, node(3), connection.connectedEndpoint().host());
			const HostAttempt& first = connection.attemptLog().at(0);
			CPPUNIT_ASSERT(first.endpoint == endpoint(2));
			CPPUNIT_ASSERT_EQUAL(HostAttempt::REJECTED, first.outcome);
			CPPUNIT_ASSERT_MESSAGE(first.detail, contains(first.detail, "MB behind, Max Standby Lag 1 MB, target "));
		}
		// Without the keyword the same open takes the paused standby, the first in the list.
		BlueTuskConnection plain = BlueTuskConnection::open(cluster().connectionString(node(2) + "," + node(1) + "," + node(3),
			"Target Session Attributes=prefer-standby"), connector);
		CPPUNIT_ASSERT_EQUAL(node(2), plain.connectedEndpoint().host());
		// Both standbys paused: prefer-standby falls back to the primary, standby fails naming the lag.
		setReplay(3, true);
		writeWal(2 * MB);
		const Lsn more = primaryPosition();
		waitFor(2, "pg_last_wal_receive_lsn", more);
		waitFor(3, "pg_last_wal_receive_lsn", more);
		BlueTuskConnection fallback = BlueTuskConnection::open(lagging + ";Target Session Attributes=prefer-standby", connector);
		CPPUNIT_ASSERT_EQUAL(node(1), fallback.connectedEndpoint().host());
		try
		{
			BlueTuskConnection::open(lagging + ";Target Session Attributes=standby", connector);
			CPPUNIT_FAIL("both standbys lag: standby must fail");
		}
		catch (HostAttemptsException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), " MB behind, Max Standby Lag 1 MB, target standby"));
		}
	}

	void testReadYourWritesRefusedOnDirectOpen()
	{
		// A direct open has no earlier write of its own to wait for: the keyword is refused there, not ignored.
		RoutingContext connector;
		try
		{
			BlueTuskConnection::open(cluster().connectionString(allNodes(), "Read Your Writes=true;Target Session Attributes=prefer-standby"), connector);
			CPPUNIT_FAIL("Read Your Writes on BlueTuskConnection::open() must be refused");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.message(), contains(exc.message(), "Read Your Writes=true needs a BlueTuskDataSource"));
			CPPUNIT_ASSERT_MESSAGE(exc.message(), !contains(exc.message(), cluster().password));
		}
		// The same string works for a data source.
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Read Your Writes=true"), connector);
		CPPUNIT_ASSERT(dataSource->open(TargetSessionAttributes::PreferStandby).role() == ServerRole::Standby);
	}

	static int writeThenRead(BlueTuskDataSource& writer, BlueTuskDataSource& reader, int iterations, bool passToken, int& onStandby)
		/// iterations of: insert a row through read-write, read it back at once through prefer-standby.
		/// Returns how many reads did not see their row.
	{
		int misses = 0;
		onStandby = 0;
		for (int i = 0; i < iterations; ++i)
		{
			std::string id;
			Lsn token;
			{
				BlueTuskConnection write = writer.open(TargetSessionAttributes::ReadWrite);
				// The cluster runs synchronous_commit=off (WAL reaches the standbys with the WAL writer, every
				// 200 ms): the loop commits synchronously, or each read would wait for that.
				id = write.executeSimple("SET synchronous_commit = on; INSERT INTO freshness_orders (note) VALUES ('order " +
					std::to_string(i) + "') RETURNING id").at(1).rows.at(0).at(0).value();
				if (passToken) token = Lsn::parse(write.walPosition().toString());   // as text, as another process gets it
			}
			BlueTuskConnection read = passToken ? reader.open(TargetSessionAttributes::PreferStandby, token) :
				reader.open(TargetSessionAttributes::PreferStandby);
			if (read.role() == ServerRole::Standby) ++onStandby;
			if (read.execute("SELECT count(*) FROM freshness_orders WHERE id = $1", {id}).rows.at(0).at(0).value() != "1") ++misses;
		}
		return misses;
	}

	void testReadYourWritesLoop()
	{
		RoutingContext connector;
		auto fresh = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Read Your Writes=true"), connector);
		int onStandby = 0;
		Poco::Clock start;
		const int misses = writeThenRead(*fresh, *fresh, 1000, false, onStandby);
		const double seconds = start.elapsed() / 1e6;
		std::cout << "\n  read your writes: 1000 iterations in " << seconds << " s, " << misses << " misses, " << onStandby
			<< " reads on a standby" << std::endl;
		CPPUNIT_ASSERT_EQUAL(0, misses);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(onStandby), onStandby >= 900);   // waited for the standby, not just the primary
		CPPUNIT_ASSERT(fresh->walPosition().isValid());

		auto naive = BlueTuskDataSource::create(cluster().connectionString(allNodes()), connector);
		int naiveOnStandby = 0;
		const int naiveMisses = writeThenRead(*naive, *naive, 1000, false, naiveOnStandby);
		std::cout << "  without it: " << naiveMisses << " misses, " << naiveOnStandby << " reads on a standby" << std::endl;
		CPPUNIT_ASSERT_EQUAL(1000, naiveOnStandby);
		CPPUNIT_ASSERT(!naive->walPosition().isValid());   // Read Your Writes off: nothing remembered
		// How often a free-running standby lags behind the read is timing (0 to dozens of the 1000 above on
		// these two cores: the test asserted at least one and failed 1 run in 4 while the machine was busy),
		// so it is reported, not asserted. The control that shows the first loop's 0 is Read Your Writes'
		// doing: with replay paused, the same reads without it miss every time (tearDown resumes replay).
		setReplay(2, true);
		setReplay(3, true);
		int pausedOnStandby = 0;
		const int pausedMisses = writeThenRead(*naive, *naive, 5, false, pausedOnStandby);
		std::cout << "  without it, replay paused: " << pausedMisses << " misses of 5" << std::endl;
		CPPUNIT_ASSERT_EQUAL(5, pausedOnStandby);
		CPPUNIT_ASSERT_EQUAL(5, pausedMisses);
	}

	void testReadYourWritesReusesStandbySessions()
	{
		// with replication behind the write (the cluster's own synchronous_commit=off: a
		// standby gets the commit with the WAL writer's next flush, up to 200 ms later), a prefer-standby
		// read with a token must wait on a standby session it has, not open a new one on every standby for
		// every read (measured at 4b09e4a: 51 sessions created on each standby in 50 cycles, about 200 ms
		// per read). Replay is paused on node2 for ten cycles of the fifty: real lag on one standby.
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Read Your Writes=true"), connector);
		const int maxConnecting = dataSource->settings().maxConnecting;
		int misses = 0, onStandby = 0, onNode2WhilePaused = 0;
		double slowest = 0, total = 0;
		for (int i = 0; i < 50; ++i)
		{
			if (i == 20) setReplay(2, true);
			if (i == 30) setReplay(2, false);
			std::string id;
			{
				BlueTuskConnection write = dataSource->open(TargetSessionAttributes::ReadWrite);
				id = write.executeSimple("INSERT INTO freshness_orders (note) VALUES ('async " + std::to_string(i) + "') RETURNING id")
					.at(0).rows.at(0).at(0).value();
			}
			Poco::Clock start;
			BlueTuskConnection read = dataSource->open(TargetSessionAttributes::PreferStandby);
			const double ms = start.elapsed() / 1000.0;
			total += ms;
			slowest = std::max(slowest, ms);
			if (read.role() == ServerRole::Standby) ++onStandby;
			if (i >= 20 && i < 30 && read.connectedEndpoint() == endpoint(2)) ++onNode2WhilePaused;
			if (value(read, "SELECT count(*) FROM freshness_orders WHERE id = " + id) != "1") ++misses;
		}
		std::map<BlueTuskHostEndpoint, PoolStatistics> statistics = dataSource->getHostPoolStatistics();
		std::cout << "\n  read your writes, synchronous_commit=off, node2 paused for 10 of 50 cycles: " << misses << " misses, "
			<< onStandby << " reads on a standby, read checkout " << total / 50 << " ms on average (slowest " << slowest
			<< " ms); sessions created: node2 " << statistics.at(endpoint(2)).created << ", node3 " << statistics.at(endpoint(3)).created
			<< ", node1 " << statistics.at(endpoint(1)).created << std::endl;
		CPPUNIT_ASSERT_EQUAL(0, misses);
		CPPUNIT_ASSERT_EQUAL(0, onNode2WhilePaused);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(onStandby), onStandby >= 40);
		for (int n: {2, 3})
		{
			const PoolStatistics& standby = statistics.at(endpoint(n));
			CPPUNIT_ASSERT_MESSAGE(node(n) + ": " + standby.toString(), standby.created <= static_cast<Poco::UInt64>(std::max(maxConnecting, standby.minSize)));
		}

		// Caught up (synchronous commit: the standbys have the WAL about as soon as the commit returns): the
		// read checkout is a probe of an idle standby session, not the WAL writer's 200 ms.
		std::vector<double> times;
		misses = 0;
		onStandby = 0;
		for (int i = 0; i < 50; ++i)
		{
			std::string id;
			{
				BlueTuskConnection write = dataSource->open(TargetSessionAttributes::ReadWrite);
				id = write.executeSimple("SET synchronous_commit = on; INSERT INTO freshness_orders (note) VALUES ('sync " +
					std::to_string(i) + "') RETURNING id").at(1).rows.at(0).at(0).value();
			}
			Poco::Clock start;
			BlueTuskConnection read = dataSource->open(TargetSessionAttributes::PreferStandby);
			times.push_back(start.elapsed() / 1000.0);
			if (read.role() == ServerRole::Standby) ++onStandby;
			if (value(read, "SELECT count(*) FROM freshness_orders WHERE id = " + id) != "1") ++misses;
		}
		std::sort(times.begin(), times.end());
		statistics = dataSource->getHostPoolStatistics();
		std::cout << "  caught up (synchronous_commit=on): " << misses << " misses, " << onStandby << " reads on a standby, read checkout median "
			<< times[25] << " ms, 90th percentile " << times[45] << " ms; sessions created: node2 " << statistics.at(endpoint(2)).created
			<< ", node3 " << statistics.at(endpoint(3)).created << std::endl;
		CPPUNIT_ASSERT_EQUAL(0, misses);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(onStandby), onStandby >= 45);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(times[25]) + " ms", times[25] < 20);
		for (int n: {2, 3})
		{
			const PoolStatistics& standby = statistics.at(endpoint(n));
			CPPUNIT_ASSERT_MESSAGE(node(n) + ": " + standby.toString(), standby.created <= static_cast<Poco::UInt64>(std::max(maxConnecting, standby.minSize)));
		}
	}

	void testFallbackToPrimaryWithinTimeout()
	{
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(cluster().connectionString(allNodes(), "Read Your Writes=true;Read Your Writes Timeout=300"), connector);
		const std::string note = "paused " + std::to_string(Poco::Timestamp().epochMicroseconds());
		setReplay(2, true);
		setReplay(3, true);
		{
			BlueTuskConnection write = dataSource->open(TargetSessionAttributes::ReadWrite);
			write.executeSimple("INSERT INTO freshness_orders (note) VALUES ('" + note + "')");
		}
		const Lsn token = dataSource->walPosition();
		CPPUNIT_ASSERT(token.isValid());

		Poco::Clock start;
		BlueTuskConnection read = dataSource->open(TargetSessionAttributes::PreferStandby);
		const double ms = start.elapsed() / 1000.0;
		std::cout << "\n  replay paused: prefer-standby on the primary after " << ms << " ms (timeout 300 ms)" << std::endl;
		CPPUNIT_ASSERT_EQUAL(node(1), read.connectedEndpoint().host());
		CPPUNIT_ASSERT_EQUAL(std::string("1"), value(read, "SELECT count(*) FROM freshness_orders WHERE note = '" + note + "'"));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms), ms >= 290 && ms < 800);
		bool namedToken = false;
		for (const HostAttempt& attempt: read.attemptLog()) namedToken = namedToken || contains(attempt.detail, "behind the token " + token.toString());
		CPPUNIT_ASSERT(namedToken);
		read.close();

		try
		{
			dataSource->open(TargetSessionAttributes::Standby);
			CPPUNIT_FAIL("standby must fail while both standbys are behind the token");
		}
		catch (HostAttemptsException& exc)
		{
			const std::string message = exc.message();
			std::cout << "  standby: " << message << std::endl;
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, node(2) + ":" + std::to_string(cluster().port) + ": standby "));
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, node(3) + ":" + std::to_string(cluster().port) + ": standby "));
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, " behind the token " + token.toString() + " after Read Your Writes Timeout 300 ms, target standby"));
		}

		// Resumed: the standby serves the token again.
		setReplay(2, false);
		setReplay(3, false);
		BlueTuskConnection caughtUp = dataSource->open(TargetSessionAttributes::Standby);
		CPPUNIT_ASSERT(caughtUp.role() == ServerRole::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("1"), value(caughtUp, "SELECT count(*) FROM freshness_orders WHERE note = '" + note + "'"));
	}

	void testTokenFromAnotherDataSource()
	{
		// Two data sources with their own connectors share nothing but the token's text, as two processes
		// would (a web request carrying it from the service that wrote to the one that reads).
		RoutingContext writerConnector, readerConnector;
		auto writer = BlueTuskDataSource::create(cluster().connectionString(allNodes()), writerConnector);
		auto reader = BlueTuskDataSource::create(cluster().connectionString(allNodes()), readerConnector);
		int onStandby = 0;
		const int misses = writeThenRead(*writer, *reader, 300, true, onStandby);
		std::cout << "\n  token passed between data sources: 300 iterations, " << misses << " misses, " << onStandby
			<< " reads on a standby" << std::endl;
		CPPUNIT_ASSERT_EQUAL(0, misses);
		CPPUNIT_ASSERT(onStandby >= 270);
		CPPUNIT_ASSERT(!reader->walPosition().isValid());   // an explicit token is not remembered
	}

	void testTokenFromAnotherProcess()
	{
		// The writer is another process (psql); its token arrives as text, as in an HTTP header.
		RoutingContext connector;
		auto reader = BlueTuskDataSource::create(cluster().connectionString(allNodes()), connector);
		const std::string prefix = "psql " + std::to_string(Poco::Timestamp().epochMicroseconds()) + " ";
		int onStandby = 0;
		for (int i = 0; i < 50; ++i)
		{
			const std::string note = prefix + std::to_string(i);
			const Lsn token = Lsn::parse(writeWithPsql(note));
			BlueTuskConnection read = reader->open(TargetSessionAttributes::PreferStandby, token);
			if (read.role() == ServerRole::Standby) ++onStandby;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(note, std::string("1"), value(read, "SELECT count(*) FROM freshness_orders WHERE note = '" + note + "'"));
		}
		std::cout << "\n  token from psql: 50 iterations, 0 misses, " << onStandby << " reads on a standby" << std::endl;
		CPPUNIT_ASSERT(onStandby >= 45);
	}
};


CPPUNIT_TEST_SUITE_REGISTRATION(FreshnessIntegrationTest);
